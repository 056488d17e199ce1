# SPDX-License-Identifier: Apache-2.0 OR MIT
# cli_testlib.sh -- what the `cuckoo` command's shell tests share, sourced by
# test_cli.sh, test_files.sh, test_files_concurrent.sh and test_files_edges.sh
# with their arguments (path/to/cuckoo scratch-dir):
#
#   expect CODE CMD...   runs CMD (at most 60 s: a hang is a failure), checks
#                        its exit code; its stdout and stderr are left in
#                        $dir/out and $dir/err
#   one_line_error       the last stderr is exactly one line
#   err_has TEXT         the last stderr contains TEXT
#   fail MESSAGE         counts a failure and goes on
#   wait_lock PID [->]   until PID holds (with "->": waits for) a flock
#   finish               "all passed" (and the scratch dir removed) or exit 1
set -uo pipefail
cuckoo=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect() {
  local want=$1; shift
  timeout 60 "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  [[ $got == "$want" ]] || fail "exit $got (want $want): $* -- $(cat "$dir/err")"
}
one_line_error() {
  [[ $(wc -l <"$dir/err") == 1 ]] || fail "stderr is not one line: $(cat "$dir/err")"
}
err_has() { grep -qF -- "$1" "$dir/err" || fail "stderr lacks '$1': $(cat "$dir/err")"; }
# Waits until process $1 holds (or, with "->", waits for) a flock: /proc/locks.
wait_lock() {
  local pid=$1 how=${2:-}
  for _ in $(seq 1 2000); do
    grep -q "^[0-9]*: $how *FLOCK *ADVISORY *WRITE $pid " /proc/locks && return 0
    sleep 0.01
  done
  fail "process $pid never ${how:+waited for}${how:-held} a lock"
}
finish() {
  [[ $failures == 0 ]] && echo "all passed" && rm -rf "$dir"
  exit $((failures > 0))
}
