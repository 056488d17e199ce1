#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Installs the Debian packages the build, the report and the tests need, only
# those missing (idempotent).  Runs as root on Debian 12; elsewhere it only
# tells what is missing.
set -euo pipefail

packages=(cmake make gcc clang libclang-rt-14-dev pkg-config libxxhash-dev gnuplot-nox
          redis-server redis-tools python3-redis valgrind clang-format nodejs
          python3-dev python3-pytest python3-venv python3-setuptools python3-mypy man-db bash-completion
          strace abigail-tools emscripten chromium)
# emscripten builds the WebAssembly package (web/build.sh; it brings binaryen's
# wasm-opt), chromium runs the playground's test headless; the npm packages of
# web/ tests are pinned by web/tests/package-lock.json and installed into the
# build tree by the tests (web/tests/deps.mjs).
# node-redis's test (redis/tests/test_redis_node.py) needs npm; NodeSource's nodejs
# package carries its own, which Debian's npm package would conflict with.
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "deps: missing Debian packages: ${missing[*]} (install them as root)" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
