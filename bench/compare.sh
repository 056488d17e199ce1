#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# compare.sh -- runs today's cf-bench against the library as it was at several
# commits, to show what each optimization gave.
#
# usage: bench/compare.sh OUTDIR COMMIT... [-- CF-BENCH OPTIONS]
#   e.g. bench/compare.sh /tmp/cmp 72a5a5f f24ac1b HEAD -- --n 10M --widths 12
#
# For each commit, `git archive` extracts the library (CMakeLists.txt, cmake/,
# include/, src/) into OUTDIR/<commit>/ without touching the working tree,
# copies the current bench/ beside it, builds a Release cf-bench and runs it,
# writing OUTDIR/<commit>.txt and OUTDIR/<commit>.csv.  The harness needs the
# library's cf_insert_batch, so commits older than it do not build.
set -euo pipefail
out=${1:?usage: compare.sh OUTDIR COMMIT... [-- CF-BENCH OPTIONS]}
shift
commits=()
while (($#)) && [ "$1" != "--" ]; do commits+=("$1"); shift; done
(($#)) && shift
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
for c in "${commits[@]}"; do
  id=$(git -C "$repo" rev-parse --short "$c")
  dir=$out/$id
  rm -rf "$dir"
  mkdir -p "$dir"
  git -C "$repo" archive "$id" CMakeLists.txt cmake include src | tar -x -C "$dir"
  cp -r "$repo/bench" "$dir/"
  cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCF_BUILD_TESTS=OFF \
    -DCF_BUILD_TOOLS=OFF -DCF_BUILD_REDIS=OFF -DCF_BUILD_FUZZ=OFF >/dev/null
  cmake --build "$dir/build" -j2 --target cf-bench >/dev/null
  echo "== $id: $(git -C "$repo" log -1 --format=%s "$id")" | tee "$out/$id.txt"
  "$dir/build/bench/cf-bench" --csv "$out/$id.csv" "$@" | tee -a "$out/$id.txt"
done
