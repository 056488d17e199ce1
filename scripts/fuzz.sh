#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined)
# and runs each for a given time, one after the other, at the lowest CPU
# priority.  Inputs that add coverage go to build/fuzz/work/<target>; with
# --merge they are minimised into the committed corpus fuzz/corpus/<target>,
# which CTest replays on every build (fuzz_replay_*).
#
#   scripts/fuzz.sh [--merge] [SECONDS_PER_TARGET] [TARGET...]
#   scripts/fuzz.sh 1800                    # 30 minutes each, all targets
#   scripts/fuzz.sh --merge 60 deserialize  # one minute, then keep new inputs
#
# Crashes are written to build/fuzz/crashes/ and make the script exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."

merge=0
if [[ ${1:-} == --merge ]]; then merge=1; shift; fi
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(deserialize ops)

dir=build/fuzz
cmake --preset fuzz >/dev/null # CMakePresets.json: build/fuzz
cmake --build --preset fuzz -j2 --target "${targets[@]/#/fuzz_}" >/dev/null

failed=0
mkdir -p "$dir/crashes"
for t in "${targets[@]}"; do
  work=$dir/work/$t
  mkdir -p "$work"
  seeds=(fuzz/corpus/$t)
  [[ $t == deserialize ]] && seeds+=(tests/data/good tests/data/bad)
  log=$dir/$t.log
  echo "== fuzz_$t for ${seconds}s (log: $log)"
  # -malloc_limit_mb: an input that makes the loader allocate far more than
  # it holds is a finding, not a slow run.
  if ! nice -n 19 "$dir/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -malloc_limit_mb=512 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$dir/crashes/$t-" "$work" "${seeds[@]}" >"$log" 2>&1; then
    echo "   FAILED: see $log and $dir/crashes/"
    failed=1
  fi
  grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$log" | sed 's/^/   /'
  if [[ $merge == 1 ]]; then
    nice -n 19 "$dir/fuzz/fuzz_$t" -merge=1 "fuzz/corpus/$t" "$work" >>"$log" 2>&1
    echo "   corpus: $(ls fuzz/corpus/$t | wc -l) files in fuzz/corpus/$t"
  fi
done
exit $failed
