#!/usr/bin/env bash
# Builds everything and runs the main job: the article's experiment, with
# plots written to ./report/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc 2>/dev/null || echo 2)"
build/release/tools/cuckoo report --plot report "$@"
