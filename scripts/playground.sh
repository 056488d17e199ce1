#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Builds the playground (web/build.sh: the library compiled to WebAssembly,
# the npm package, the page) into build/web and serves it on this machine:
#
#   scripts/playground.sh [PORT]      (default 8035; 0 for any free port)
#
# Prints the URL to open, then serves until Ctrl-C.  Needs emscripten and
# node (it runs scripts/deps.sh, which installs them when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-8035}
scripts/deps.sh
web/build.sh build/web >&2
echo "playground: open the URL below (Ctrl-C stops the server)" >&2
exec node web/serve.mjs build/web/playground "$port"
