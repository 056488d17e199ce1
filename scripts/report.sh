#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Builds everything and runs the main job: the article's experiment, with
# plots written to ./report/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
mkdir -p build
log=build/release-build.log
echo "building (log: $log) ..." >&2
{ cmake --preset release &&
  cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)"; } >"$log" 2>&1 ||
  { cat "$log" >&2; echo "build failed" >&2; exit 1; }
build/release/tools/cuckoo report --plot report "$@"
