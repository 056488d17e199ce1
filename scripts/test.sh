#!/usr/bin/env bash
# Builds and runs the whole test suite twice: a gcc build with -Werror, and a
# clang AddressSanitizer + UndefinedBehaviorSanitizer build; then the unit tests
# and fuzz replays once more under valgrind (uninitialised reads, which ASan misses).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
run_suite() { # name, then cmake options
  local dir=build/$1; shift
  cmake -S . -B "$dir" -DCF_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

echo "== gcc, -Wall -Wextra -Werror"
run_suite test-gcc -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== clang, AddressSanitizer + UndefinedBehaviorSanitizer"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite test-asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DCF_SANITIZE=ON
echo "== valgrind memcheck: the tests labelled memcheck (gcc build)"
# Unit tests and fuzz corpus replays (tests/CMakeLists.txt, fuzz/CMakeLists.txt);
# valgrind's options are MEMORYCHECK_COMMAND_OPTIONS in CMakeLists.txt.
ctest --test-dir build/test-gcc -T memcheck -L memcheck -j "$jobs" --output-on-failure
