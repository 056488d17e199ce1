#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# callgrind.sh -- instructions per operation for every timed phase of
# cf-bench, cf-lookup-bench or cf-concurrent-bench, counted by valgrind's
# callgrind: exact and repeatable where timings on a shared machine are not.
#
# usage: bench/callgrind.sh path/to/cf-bench [OPS [WIDTH]]       (defaults 100000, 12)
#        bench/callgrind.sh --lookup path/to/cf-lookup-bench [NB [LOOKUPS]]
#                                                               (defaults 2^14, 100000)
#        bench/callgrind.sh --concurrent path/to/cf-concurrent-bench [N]
#                                                               (default 100000)
#
# cf-bench --ops OPS runs a fixed small workload (N = OPS, OPS lookups, one
# repetition, no memory probe); cf-lookup-bench runs one repetition at NB
# buckets with LOOKUPS lookups per phase.  Each timed loop is a non-inlined
# function phase_<name>; its inclusive instruction count divided by the
# operations it ran (cf-bench: the CSV's ops column for (impl, metric);
# cf-lookup-bench: its --phase-ops file) is instructions per operation.
# cf-concurrent-bench --one --rounds 1 fills a plain and a CF_CONCURRENT
# filter of capacity N to 95% and runs 1M lookups on each (--phase-ops too).
set -euo pipefail
mode=bench
case "${1:-}" in
  --lookup) mode=lookup; shift ;;
  --concurrent) mode=concurrent; shift ;;
esac
bin=${1:?usage: callgrind.sh path/to/cf-bench [OPS [WIDTH]] | --lookup path/to/cf-lookup-bench [NB [LOOKUPS]] | --concurrent path/to/cf-concurrent-bench [N]}
for tool in valgrind callgrind_annotate; do
  command -v "$tool" >/dev/null || { echo "callgrind.sh: $tool not found (Debian: valgrind)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$mode" = concurrent ]; then
  n=${2:-100000}
  what="cf-concurrent-bench $n --one --rounds 1"
  args=("$n" --one --rounds 1 --phase-ops "$tmp/ops")
elif [ "$mode" = lookup ]; then
  nb=${2:-2^14}
  lookups=${3:-100000}
  what="cf-lookup-bench --nb $nb --reps 1 --lookups $lookups"
  args=(--nb "$nb" --reps 1 --lookups "$lookups" --phase-ops "$tmp/ops")
else
  ops=${2:-100000}
  width=${3:-12}
  what="cf-bench --ops $ops --widths $width"
  args=(--ops "$ops" --widths "$width" --csv "$tmp/bench.csv")
fi
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" "${args[@]}" \
  >"$tmp/stdout" 2>"$tmp/stderr" || {
  cat "$tmp/stderr" >&2
  exit 1
}
# Both sources become lines "name,operations" (name = the phase_ function's suffix).
[ "$mode" = bench ] && awk -F, 'FNR > 1 && $7 == "ns" { print $4 "_" $5 "," $8 }' "$tmp/bench.csv" >"$tmp/ops"
callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.out" >"$tmp/annotate"

echo "$what under callgrind: instructions per operation"
printf '%-30s %14s %10s %10s\n' "phase_<name>" instructions ops "per op"
awk -F, '
  FNR == NR { ops[$1] = $2; next }
  match($0, /phase_[a-z0-9_]+/) {
    name = substr($0, RSTART + 6, RLENGTH - 6)
    split($0, f, " "); ir = f[1]; gsub(",", "", ir)
    if (name in ops && ops[name] > 0) printf "%-30s %14s %10s %10.1f\n", name, ir, ops[name], ir / ops[name]
  }' "$tmp/ops" "$tmp/annotate" | sort
