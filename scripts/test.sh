#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Checks the formatting (scripts/format.sh), then builds and runs the whole
# test suite twice: a gcc build with -Werror, and a clang AddressSanitizer +
# UndefinedBehaviorSanitizer build of the scalar code paths (CF_NO_SIMD: the
# gcc build runs the SSE2 ones, so every test runs once per path); then the
# unit tests and fuzz replays once more under valgrind (uninitialised reads,
# which ASan misses).
# The builds are CMakePresets.json's test-gcc and test-asan (build/<preset>),
# and test-tsan for the concurrency tests under ThreadSanitizer.
# CTest runs the Python package's pytest suite in both builds (python/tests/;
# in the sanitized one, inside Debian's interpreter with ASan preloaded).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

echo "== clang-format"
scripts/format.sh --check

jobs=$(nproc 2>/dev/null || echo 2)
run_suite() { # preset
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j "$jobs"
  ctest --preset "$1" -j "$jobs" -LE long
}

echo "== gcc, -Wall -Wextra -Werror"
run_suite test-gcc
echo "== layers: the use graphs of src/ and of the folders outside it (scripts/layers.sh, on the gcc build)"
scripts/layers.sh build/test-gcc
echo "== ABI: exported symbols, SONAME and abidiff against abi/libcuckoofilter.abi (scripts/abi.sh)"
scripts/abi.sh build/test-gcc
echo "== gcc: the long tests (label long: growth from 1,000 to 10,000,000 items)"
ctest --preset test-gcc -L long
echo "== clang, AddressSanitizer + UndefinedBehaviorSanitizer, scalar code paths (CF_NO_SIMD)"
run_suite test-asan
echo "== clang, ThreadSanitizer: the concurrency tests (label concurrency)"
# The preset builds test_concurrent only and runs the tests labelled
# concurrency, with TSAN_OPTIONS halt_on_error=1:second_deadlock_stack=1.
cmake --preset test-tsan >/dev/null
cmake --build --preset test-tsan -j "$jobs"
ctest --preset test-tsan
echo "== valgrind memcheck: the tests labelled memcheck (gcc build)"
# Unit tests and fuzz corpus replays (tests/CMakeLists.txt, fuzz/CMakeLists.txt);
# valgrind's options are MEMORYCHECK_COMMAND_OPTIONS in CMakeLists.txt.
# (Dashboard modes such as -T memcheck take a build directory, not a preset.)
ctest --test-dir build/test-gcc -T memcheck -L memcheck -j "$jobs" --output-on-failure
