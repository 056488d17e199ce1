#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The JavaScript package's speed (docs/BENCHMARKS.md, "JavaScript package"):
# addMany / hasMany on N string keys in Node, the same C natively, and
# bloom-filters' CuckooFilter (installed from npm for this benchmark only,
# pinned by web/bench/package-lock.json, into build/web-bench).
#
#   web/bench/bench.sh [N] [ROUNDS]        (default 2^20 keys, 5 rounds)
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1048576}
rounds=${2:-5}
cmake --preset release >/dev/null
cmake --build build/release -j2 --target cuckoofilter_static >/dev/null
web/build.sh build/web >/dev/null
cc -O2 -std=c11 -Wall -Wextra -Werror -DCF_EXPERIMENTAL_API -Iinclude -Iweb/src web/bench/native_bench.c web/src/cfjs.c \
  web/src/cfjs_config.c build/release/libcuckoofilter.a -lm -o build/web/native_bench
node web/tests/deps.mjs build/web-bench web/bench >/dev/null
node web/bench/bench.mjs build/web/package build/web/native_bench build/web-bench "$n" "$rounds"
