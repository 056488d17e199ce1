#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Loads the output of `cuckoo export --shards ... --output-dir DIR` into a
# Redis Cluster with redis-cli --pipe: each shard's stream to the master
# that serves its slot (redis-cli --pipe does not follow redirects), then
# the metadata to the master of NAME's slot, last, so that no client opens
# the filter half-loaded.  Stops at the first stream with errors.
#
#   redis/load_sharded.sh DIR HOST PORT      (any node of the cluster)
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 DIR HOST PORT" >&2; exit 2; }
dir=$1 host=$2 port=$3

# host:port of the master serving slot $1, from CLUSTER NODES (one line per
# node: id, ip:port@bus, flags, master, ..., then its slots as N or LO-HI).
owner_of_slot() {
  redis-cli -h "$host" -p "$port" cluster nodes | awk -v s="$1" '
    $3 ~ /master/ && $3 !~ /fail/ {
      for (i = 9; i <= NF; i++) {
        if ($i !~ /^[0-9]+(-[0-9]+)?$/) continue      # skip [slot->-id] migrations
        n = split($i, r, "-"); lo = r[1] + 0; hi = (n == 2 ? r[2] : r[1]) + 0
        if (s + 0 >= lo && s + 0 <= hi) { split($2, a, "@"); print a[1]; exit }
      }
    }'
}

pipe_to_slot() { # slot file
  local node
  node=$(owner_of_slot "$1")
  [[ -n $node ]] || { echo "$0: no master serves slot $1" >&2; exit 1; }
  local out
  out=$(redis-cli -h "${node%:*}" -p "${node##*:}" --pipe < "$2")
  grep -q "errors: 0," <<< "$out" || { echo "$0: $2: $out" >&2; exit 1; }
}

# shards.tsv: shard, slot, key, stream per row; the metadata's row ("meta") is last.
while IFS=$'\t' read -r _ slot _ stream; do
  pipe_to_slot "$slot" "$dir/$stream"
done < "$dir/shards.tsv"
