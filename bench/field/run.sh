#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# run.sh -- this library beside the field's filters in fastfilter_cpp's own
# benchmark (benchmarks/bulk-insert-and-query.cc), docs/BENCHMARKS.md "In the
# field's harness (fastfilter_cpp)".
#
# usage: bench/field/run.sh FASTFILTER_DIR [N...]           (default N: 1048576)
#
# FASTFILTER_DIR is a checkout of FastFilter/fastfilter_cpp outside this
# repository; nothing of it is copied into the repository.  The script
#   1. builds the library in Release (cmake, build/field/, the library only;
#      CF_FIELD_CFLAGS adds C flags, e.g. -march=native, in build/field-<hash>/);
#   2. copies the harness's benchmarks/ folder to a work folder outside the
#      repository (CF_FIELD_WORK, default /tmp/cf-field), links its src/,
#      and adds to the copy of bulk-insert-and-query.cc the two lines that
#      register bench/field/cuckoofilter_wrapper.h (an #include before main,
#      a call of cf_field::run before the "Sort" section);
#   3. builds it with the harness's own Makefile (its flags, -O3 and
#      -march=native) plus our include path and library; the Makefile adds
#      -march=native only when `uname -p` says x86_64, which Debian's does
#      not ("unknown"), so UNAME_P is passed as `uname -m`: without it the
#      AVX2/AVX-512 filters (VQF, TwoChoicer, the prefix filters) are not
#      compiled in;
#   4. runs it RUNS times (default 5) for every N, the sizes interleaved
#      (run 1 at each N, then run 2 ...), every filter of IDS in one process
#      per run with the keys of seed SEED0 + run (so every filter of a run
#      sees the same keys), and prints per N and filter the median and range
#      of each column, and our rows against the best peer.
#
# IDS (default the field's dynamic filters and ours):
#   11 Cuckoo12 (CF-12-Flex), 15 Cuckoo12-2^n (the paper's CF-12), 31 VQF,
#   32 TwoChoice, 35 PF[TC], 36 PF[CF-12-Flex], 51 BlockedBloom, 80 Morton,
#   900-904 ours (bench/field/cuckoofilter_wrapper.h).
# Raw outputs stay in the work folder (run-N-R.txt), with the load average
# before each run.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/field/run.sh FASTFILTER_DIR [N...]" >&2; exit 2; }
ff=$(cd "$1" && pwd)
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1048576)
repo=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-5}
ids=${IDS:-11,15,31,32,35,36,51,80,900,901,902,903,904}
seed0=${SEED0:-1000}
work=${CF_FIELD_WORK:-/tmp/cf-field}
harness=$ff/benchmarks/bulk-insert-and-query.cc
[ -f "$harness" ] || { echo "run.sh: $harness not found (a fastfilter_cpp checkout?)" >&2; exit 2; }
case $work/ in "$repo"/*) echo "run.sh: CF_FIELD_WORK must be outside the repository" >&2; exit 2 ;; esac
for n in "${sizes[@]}"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "run.sh: N must be a number of keys, not '$n'" >&2; exit 2; }
done

# 1. The library, Release, as a user builds it (no -march=native unless asked).
cflags=${CF_FIELD_CFLAGS:-}
build=$repo/build/field
[ -z "$cflags" ] || build=$repo/build/field-$(printf '%s' "$cflags" | cksum | cut -d' ' -f1)
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$cflags" \
  -DCF_BUILD_TESTS=OFF -DCF_BUILD_TOOLS=OFF -DCF_BUILD_BENCH=OFF -DCF_BUILD_REDIS=OFF \
  -DCF_BUILD_PYTHON=OFF -DCF_BUILD_WEB=OFF >/dev/null
cmake --build "$build" --target cuckoofilter_static -j2 >/dev/null
lib=$build/libcuckoofilter.a

# 2. A copy of the harness with our two registration lines.
rm -rf "$work/benchmarks"
mkdir -p "$work"
cp -r "$ff/benchmarks" "$work/benchmarks"
ln -sfn "$ff/src" "$work/src"
cc=$work/benchmarks/bulk-insert-and-query.cc
main='^int main(int argc, char \* argv\[\]) {$'
sort='^  // Sort -'
for anchor in "$main" "$sort"; do
  [ "$(grep -c -- "$anchor" "$cc")" = 1 ] ||
    { echo "run.sh: the harness changed: no single line matching '$anchor' in $harness" >&2; exit 1; }
done
sed -i -e "\#$main#i #include \"cuckoofilter_wrapper.h\"" \
  -e "\#$sort#i \ \ cf_field::run(algorithmId, algos, add_count, to_add, intersectionsize, mixed_sets, NAME_WIDTH);" \
  "$cc"

# 3. Built by the harness's Makefile: its flags, our library, and our headers
# last on the include path, from one folder of links (both projects have a
# "cuckoofilter.h": the harness's files find theirs, ours, found beside
# the wrapper, ours).
rm -rf "$work/ours"
mkdir -p "$work/ours"
ln -s "$repo/include/cuckoofilter.h" "$repo/include/cuckoofilter_inline.h" \
  "$repo/bench/field/cuckoofilter_wrapper.h" "$work/ours/"
make -s -C "$work/benchmarks" UNAME_P="$(uname -m)" \
  CXX="${CXX:-g++} -idirafter $work/ours" LDFLAGS="-Wall -Wextra $lib -lm" \
  bulk-insert-and-query.exe 2>"$work/build.log" ||
  { cat "$work/build.log" >&2; exit 1; }
exe=$work/benchmarks/bulk-insert-and-query.exe

{
  echo "# fastfilter_cpp $(git -C "$ff" rev-parse HEAD 2>/dev/null || echo '(not a git checkout)')"
  echo "# library $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- src include || echo '+dirty'), C flags '${cflags}'"
  echo "# $(${CXX:-g++} --version | head -1); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores"
  echo "# ids $ids, $runs runs, seeds $seed0+run"
} | tee "$work/header.txt"

# 4. Interleaved runs.
for ((r = 1; r <= runs; r++)); do
  for n in "${sizes[@]}"; do
    out=$work/run-$n-$r.txt
    echo "# load $(cut -d' ' -f1-3 /proc/loadavg) before run $r at N=$n" | tee "$out"
    start=$(date +%s)
    "$exe" "$n" "$ids" $((seed0 + r)) >>"$out" 2>&1 || { tail -5 "$out" >&2; exit 1; }
    echo "#   run $r at N=$n: $(($(date +%s) - start)) s" | tee -a "$out"
  done
done

python3 - "$work" "$runs" "${sizes[@]}" <<'EOF'
import statistics, sys

work, runs, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cols = ["add", "remove", "find0", "find25", "find50", "find75", "find100", "add+3find",
        "fpp%", "bits/item"]
show = [("add", "insert"), ("find100", "lookup +"), ("find0", "lookup -"), ("remove", "delete"),
        ("bits/item", "bits/item"), ("fpp%", "FPP %")]
for n in sizes:
    rows, order, loads = {}, [], []
    for r in range(1, runs + 1):
        for line in open(f"{work}/run-{n}-{r}.txt", errors="replace"):
            if line.startswith("# load"):
                loads.append(float(line.split()[2]))
            w = line.split("\r")[-1].split()
            if len(w) != 14 or "cycles:" in line:
                continue
            try:
                v = [float(x) for x in w[1:11]]
            except ValueError:
                continue
            if w[0] not in rows:
                rows[w[0]] = []
                order.append(w[0])
            rows[w[0]].append(dict(zip(cols, v), run=r))
    print(f"\nN = {n}: medians of {runs} runs [min-max], ns/key "
          f"(load average before the runs {min(loads):.2f}-{max(loads):.2f})")
    print(f"{'filter':<16}" + "".join(f"{h:>22}" for _, h in show))
    med = {}
    for name in order:
        cells = []
        for c, _ in show:
            xs = [x[c] for x in rows[name]]
            med[name, c] = m = statistics.median(xs)
            if c in ("bits/item", "fpp%"):
                cells.append(f"{m:.3f}" if c == "fpp%" else f"{m:.2f}")
            else:
                cells.append(f"{m:.2f} [{min(xs):.2f}-{max(xs):.2f}]")
        print(f"{name:<16}" + "".join(f"{x:>22}" for x in cells) + f"  ({len(rows[name])} runs)")
    # Ours against the best of the other filters (Bloom filters aside: no
    # deletes, another FPP) and against the best cuckoo filter within one
    # bit per item of ours (the "same bits" of issue 34's targets).
    # Peers with more than two bits per item over ours are left out too
    # (Cuckoo12-2^n at a power-of-two N: a table twice as large).
    ours = [x for x in order if x.startswith("CF-lib")]
    if not ours:
        continue
    bits = med[ours[0], "bits/item"]
    peers = [x for x in order if not x.startswith("CF-lib") and "Bloom" not in x
             and med[x, "bits/item"] <= bits + 2]
    cuckoos = [p for p in peers if p.startswith("Cuckoo") and abs(med[p, "bits/item"] - bits) <= 1]
    # The ratio in each run (the same process, the same moment's load),
    # then their median and range: steadier than a ratio of medians on a
    # shared machine.
    def ratios(o, p, c):
        pv = {x["run"]: x[c] for x in rows[p]}
        return [x[c] / pv[x["run"]] for x in rows[o] if pv.get(x["run"])]
    print("ours / peer: median [min-max] of the ratio within each run, against the best")
    print("non-Bloom peer at <= our bits + 2 and the best cuckoo filter within a bit of ours")
    for c, h in show[:3]:
        best = [min(g, key=lambda p: med[p, c]) for g in (peers, cuckoos) if g]
        for b in dict.fromkeys(best):
            cells = []
            for o in ours:
                q = ratios(o, b, c)
                cells.append(f"{o[7:]} {statistics.median(q):.2f}x [{min(q):.2f}-{max(q):.2f}]")
            print(f"  {h:<8} {b} {med[b, c]:.2f} ns: " + ", ".join(cells))
EOF
