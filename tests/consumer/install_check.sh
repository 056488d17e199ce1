#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Installs the built library into a scratch prefix, then builds and runs a
# consumer program with only `pkg-config --cflags --libs cuckoofilter`.
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
libdir=$(dirname "$(find "$scratch/prefix" -name cuckoofilter.pc)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=c11 -Wall -Wextra -Werror "$src/tests/consumer/consumer.c" \
   $(pkg-config --cflags --libs cuckoofilter) -o "$scratch/consumer"
LD_LIBRARY_PATH=$libdir "$scratch/consumer"

# The CMake package, both targets; the shared one runs through the build
# tree's rpath, the static one needs nothing at run time.
cmake -S "$src/tests/consumer" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
"$scratch/cmake/consumer_shared"
"$scratch/cmake/consumer_static"
ldd "$scratch/cmake/consumer_static" | grep -q libcuckoofilter && { echo "static consumer needs the .so"; exit 1; }

# The command's man page and bash completion, where man and bash-completion look.
if [[ -x $build/tools/cuckoo ]]; then
  test -f "$scratch/prefix/share/man/man1/cuckoo.1"
  test -f "$scratch/prefix/share/bash-completion/completions/cuckoo"
  test -x "$scratch/prefix/bin/cuckoo"
fi
