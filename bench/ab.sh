#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# ab.sh -- builds the library at two revisions and runs the same operations
# on both in one process (bench/ab/ab.c): each operation's ratio HEAD / BASE,
# medians of several rounds, ratios above 1.10 flagged.  The rule
# (docs/CONTRIBUTING.md): run it before every merge that touches src/ or
# include/, against the previous main, and put its table in the commit
# message.
#
# usage: bench/ab.sh BASE [HEAD] [-- cf-ab options]
#   BASE, HEAD  git revisions (HEAD defaults to HEAD); "." is the working
#               tree as it is, uncommitted changes included
#   options     passed to cf-ab: --nb 2^14,2^25 --grown 2^20 --rounds 5
#               --lookups 2M --no-fail (bench/ab/ab.c; cf-ab --help)
# Exit status: 0, or 1 when an operation is flagged, 2 on an error.
#
# Each side is the revision's own static library, built with its own CMake
# Release flags, linked with bench/ab/ab_side.c (compiled against that
# revision's header) into one object whose only global symbol is the side's
# table; cf-ab calls both through those tables, so neither side gets an
# inlining advantage.  Needs git, cmake, cc, ld and objcopy (binutils).
set -euo pipefail
usage() { sed -n '8,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] && [ "$1" != "--help" ] && [ "$1" != "--" ] || usage
base=$1; shift
head=HEAD
if [ $# -ge 1 ] && [ "$1" != "--" ]; then head=$1; shift; fi
[ $# -ge 1 ] && [ "$1" = "--" ] && shift

root=$(git rev-parse --show-toplevel)
bench="$root/bench"
work=$(mktemp -d "${TMPDIR:-/tmp}/cf-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
cc=${CC:-cc}

name_of() { # rev
  if [ "$1" = . ]; then echo "worktree"; else git -C "$root" rev-parse --short "$1^{commit}"; fi
}

build_side() { # side rev
  local side=$1 rev=$2 src="$work/$1/src" out="$work/$1"
  mkdir -p "$src"
  if [ "$rev" = . ]; then
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
      xargs -0 tar -cf - --ignore-failed-read 2>/dev/null) | tar -xf - -C "$src"
  else
    git -C "$root" rev-parse --verify --quiet "$rev^{commit}" >/dev/null ||
      { echo "ab.sh: no such revision: $rev" >&2; exit 2; }
    git -C "$root" archive "$rev" | tar -xf - -C "$src"
  fi
  echo "ab.sh: building $side ($(name_of "$rev"))" >&2
  cmake -S "$src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DCF_BUILD_TESTS=OFF \
    -DCF_BUILD_TOOLS=OFF -DCF_BUILD_BENCH=OFF -DCF_BUILD_REDIS=OFF -DCF_BUILD_PYTHON=OFF \
    >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log" >&2; exit 2; }
  cmake --build "$out/build" --target cuckoofilter_static -j "$jobs" >"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log" >&2; exit 2; }
  local lib
  lib=$(find "$out/build" -name libcuckoofilter.a | head -1)
  [ -n "$lib" ] || { echo "ab.sh: $side: no libcuckoofilter.a built" >&2; exit 2; }
  "$cc" -O2 -std=c11 -I"$src/include" -I"$bench" -DAB_SIDE="ab_side_$side" \
    -c "$bench/ab/ab_side.c" -o "$out/side.o"
  ld -r -o "$out/all.o" "$out/side.o" --whole-archive "$lib" --no-whole-archive
  objcopy --keep-global-symbol="ab_side_$side" "$out/all.o" "$work/$side.o"
}

build_side base "$base"
build_side head "$head"
"$cc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$bench" "$bench/ab/ab.c" "$bench/common/bench_report.c" \
  "$work/base.o" "$work/head.o" -lm -o "$work/cf-ab"
"$work/cf-ab" --names "$(name_of "$base"),$(name_of "$head")" "$@"
