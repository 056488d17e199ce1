#!/usr/bin/env bash
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
