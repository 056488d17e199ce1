# SPDX-License-Identifier: Apache-2.0 OR MIT
# Test tiers: every CTest test is in exactly one tier, a label, so that a
# part of the suite can be run by itself (ctest -L <tier>; CONTRIBUTING.md):
#
#   unit         the library's C tests and the fuzz corpus replays (seconds;
#                the `dev` preset runs them)
#   cli          the `cuckoo` command (tests/test_*.sh)
#   redis        the Redis module in Debian's redis-server
#   python       the Python package's pytest suite
#   install      installed and pip-installed packages used by a consumer
#   docs         the README's examples, compiled or run as written
#   bench-smoke  each benchmark once on a small table, and its reference code
#   long         the growth to 10,000,000 items (scripts/test.sh runs it apart)
#   web          the WebAssembly package and the playground (web/; builds with emcc)
#
# Other labels sit beside the tier: memcheck (run under valgrind by
# scripts/test.sh) and concurrency (run under ThreadSanitizer).  The test
# test_tiers (cmake/CheckTestTiers.cmake) fails when a test has no tier or
# more than one.
set(CF_TEST_TIERS unit cli redis python install docs bench-smoke long web)

# cf_test_tier(<tier> <test>...): adds each test to the tier.
function(cf_test_tier tier)
  if(NOT tier IN_LIST CF_TEST_TIERS)
    message(FATAL_ERROR "cf_test_tier: '${tier}' is not a tier (${CF_TEST_TIERS})")
  endif()
  foreach(t ${ARGN})
    set_property(TEST ${t} APPEND PROPERTY LABELS ${tier})
  endforeach()
endfunction()
