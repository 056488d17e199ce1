#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Benchmarks cuckoo.so inside Debian's redis-server with redis-benchmark:
# CF.ADD / CF.EXISTS next to the server's own SET / EXISTS, in the same run,
# unpipelined and pipelined; then memory per item at full capacity next to
# RedisBloom's sizing formula.  Prints Markdown (docs/BENCHMARKS.md).
#
#   redis/bench_redis.sh path/to/cuckoo.so [requests]
set -euo pipefail
so=$(readlink -f "${1:?usage: $0 path/to/cuckoo.so [requests]}")
n=${2:-200000}
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no \
  --loadmodule "$so" >"$dir/log" 2>&1 &
pid=$!
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$pid"; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
cli() { redis-cli -p "$port" "$@"; }

# Keys drawn from 100M random integers; the filter is reserved for 1M items,
# more than the benchmark adds.
cli CF.RESERVE cf 1000000 >/dev/null
rps() { # pipeline, command...
  local p=$1; shift
  redis-benchmark -p "$port" -n "$n" -r 100000000 -c 50 -P "$p" -q "$@" 2>/dev/null |
    tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1
}
echo "redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -d= -f2), $n requests, 50 clients, keys from 100M random integers (few repeats: CF.ADD refuses a 5th copy of an item)"
echo
# Five rounds, the commands interleaved within each, and the median: the
# machine is shared and single runs swing by 30% or more.
declare -A runs
cmds=("SET key:__rand_int__ v" "CF.ADD cf item:__rand_int__"
      "EXISTS key:__rand_int__" "CF.EXISTS cf item:__rand_int__")
for round in 1 2 3 4 5; do
  for p in 1 16; do
    for cmd in "${cmds[@]}"; do
      # shellcheck disable=SC2086
      runs["$cmd|$p"]+="$(rps "$p" $cmd) "
    done
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | sed -n '3p'; }
echo "Median of 5 interleaved rounds (all rounds in brackets)."
echo
echo "| command | requests/s, unpipelined | requests/s, pipeline 16 |"
echo "| --- | ---: | ---: |"
for cmd in "${cmds[@]}"; do
  echo "| \`$cmd\` | $(median "${runs[$cmd|1]}") [${runs[$cmd|1]% }] | $(median "${runs[$cmd|16]}") [${runs[$cmd|16]% }] |"
done
echo
# Server-side cost per call, over every round: less sensitive to the other
# processes on the machine than requests per second.
echo "Server CPU time per call (INFO commandstats, all rounds):"
echo
echo "| command | calls | usec per call |"
echo "| --- | ---: | ---: |"
cli INFO commandstats | tr -d '\r' | grep -E '^cmdstat_(set|exists|cf\.add|cf\.exists):' |
  sed -E 's/^cmdstat_([^:]*):calls=([0-9]*),usec=[0-9]*,usec_per_call=([0-9.]*).*/| `\1` | \2 | \3 |/'
echo
items=$(cli CF.INFO cf | sed -n '8p')
echo "After the run the filter holds $items items in $(cli CF.INFO cf | sed -n '6p') sub-filter(s)."
echo

# Memory per item at full capacity: fill a filter with exactly `capacity`
# distinct items and divide MEMORY USAGE (everything the key allocated).
echo "| capacity | options | FPP bound 2b/2^f | table bits/item | MEMORY USAGE bits/item | RedisBloom formula bits/item (2^ceil(log2(c/2)) buckets x 2 x 8 bits) |"
echo "| ---: | --- | ---: | ---: | ---: | ---: |"
for cap in 1024 100000 1000000; do
  for opts in "" "BUCKETSIZE 4 ERROR_RATE 0.016"; do
    key="m:$cap:${opts// /_}"
    # shellcheck disable=SC2086
    cli CF.RESERVE "$key" "$cap" $opts >/dev/null
    /usr/bin/python3 - "$port" "$key" "$cap" <<'EOF'
import sys, redis
port, key, cap = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
r = redis.Redis(port=port)
for s in range(0, cap, 10000):
    r.execute_command("CF.INSERT", key, "NOCREATE", "ITEMS", *[b"x%d" % i for i in range(s, min(cap, s + 10000))])
EOF
    info=$(cli CF.INFO "$key")
    size=$(sed -n '2p' <<<"$info"); subs=$(sed -n '6p' <<<"$info"); have=$(sed -n '8p' <<<"$info")
    b=$(sed -n '12p' <<<"$info"); f=$(sed -n '18p' <<<"$info")
    mem=$(cli MEMORY USAGE "$key")
    awk -v c="$cap" -v o="${opts:-defaults (BUCKETSIZE 2, 8-bit)}" -v s="$size" -v m="$mem" \
        -v b="$b" -v f="$f" -v subs="$subs" -v have="$have" 'BEGIN {
      rb = 2 ^ int(log(c / 2) / log(2) + 0.999999) * 2 * 8;
      printf "| %d | %s (%d sub-filter%s, %d items) | %.2f%% | %.2f | %.2f | %.2f |\n",
        c, o, subs, (subs > 1 ? "s" : ""), have, 100 * 2 * b / 2 ^ f, 8 * s / c, 8 * m / c, rb / c }'
  done
done
