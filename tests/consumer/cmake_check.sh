#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Builds and runs tests/consumer/consumer.c the two ways a CMake project
# takes the library: find_package(cuckoofilter) from a scratch install of the
# build, and add_subdirectory of the source tree.
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
for how in find_package subdirectory; do
  cmake -S "$src/tests/consumer/$how" -B "$scratch/$how" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCF_SOURCE_DIR="$src" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$scratch/$how.log" 2>&1 ||
    { cat "$scratch/$how.log"; exit 1; }
  cmake --build "$scratch/$how" -j2 >>"$scratch/$how.log" 2>&1 || { cat "$scratch/$how.log"; exit 1; }
  for exe in consumer_static consumer_shared; do
    echo "$how/$exe: $("$scratch/$how/$exe" --quick)"
  done
done
