#!/usr/bin/env bash
# Builds and runs the whole test suite twice: a gcc build with -Werror, and a
# clang AddressSanitizer + UndefinedBehaviorSanitizer build; then the library's
# unit tests once more under valgrind (uninitialised reads, which ASan misses).
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
echo "== clang, ThreadSanitizer: the concurrency tests (label concurrency)"
cmake -S . -B build/test-tsan -DCF_WERROR=ON -DCMAKE_C_COMPILER=clang -DCF_TSAN=ON \
  -DCF_BUILD_TOOLS=OFF -DCF_BUILD_BENCH=OFF -DCF_BUILD_REDIS=OFF >/dev/null
cmake --build build/test-tsan -j "$jobs" --target test_concurrent
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build/test-tsan -L concurrency --output-on-failure
echo "== valgrind memcheck, library unit tests (gcc build)"
passed=0 failed=0
for t in test_alloc test_params test_model test_semisort test_format test_golden test_fpp; do
  if (cd tests && valgrind -q --error-exitcode=1 --leak-check=full "../build/test-gcc/tests/$t" >/dev/null); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "valgrind: $t FAILED" >&2
  fi
done
echo "valgrind: $passed passed, $failed failed"
((failed == 0))
