#!/usr/bin/env bash
# callgrind.sh -- instructions per operation for every timed phase of cf-bench,
# counted by valgrind's callgrind: exact and repeatable where timings on a
# shared machine are not.
#
# usage: bench/callgrind.sh path/to/cf-bench [OPS [WIDTH]]   (defaults 100000, 12)
#
# cf-bench --ops OPS runs a fixed small workload (N = OPS, OPS lookups, one
# repetition, no memory probe).  Each timed loop is a non-inlined function
# phase_<impl>_<metric>; its inclusive instruction count divided by the ops
# column of the CSV row (impl, metric) is instructions per operation.
set -euo pipefail
bin=${1:?usage: callgrind.sh path/to/cf-bench [OPS [WIDTH]]}
ops=${2:-100000}
width=${3:-12}
for tool in valgrind callgrind_annotate; do
  command -v "$tool" >/dev/null || { echo "callgrind.sh: $tool not found (Debian: valgrind)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
  "$bin" --ops "$ops" --widths "$width" --csv "$tmp/bench.csv" >"$tmp/stdout" 2>"$tmp/stderr" || {
  cat "$tmp/stderr" >&2
  exit 1
}
callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.out" >"$tmp/annotate"

echo "cf-bench --ops $ops --widths $width under callgrind: instructions per operation"
printf '%-30s %14s %10s %10s\n' "phase_<impl>_<metric>" instructions ops "per op"
awk -F, '
  FNR == NR { if (FNR > 1 && $7 == "ns") ops[$4 "_" $5] = $8; next }
  match($0, /phase_[a-z0-9_]+/) {
    name = substr($0, RSTART + 6, RLENGTH - 6)
    split($0, f, " "); ir = f[1]; gsub(",", "", ir)
    if (name in ops && ops[name] > 0) printf "%-30s %14s %10s %10.1f\n", name, ir, ops[name], ir / ops[name]
  }' "$tmp/bench.csv" "$tmp/annotate" | sort
