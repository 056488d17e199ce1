#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Checks or applies .clang-format on the project's C sources (src/ include/
# tools/ experiment/ cli_base/ bench/ redis/ tests/ fuzz/ python/src/ web/src/ web/bench/; not the
# generated src/table/semisort_table.c).
#
#   scripts/format.sh [--check]   list the files that differ, exit 1 if any (default)
#   scripts/format.sh --fix       reformat them in place
#
# clang-format's output changes between major versions: the committed tree is
# formatted with Debian 12's clang-format 14 (CLANG_FORMAT selects another binary).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---check}
case $mode in --check | --fix) ;; *) echo "usage: scripts/format.sh [--check|--fix]" >&2; exit 2 ;; esac
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "format: $cf not found (scripts/deps.sh installs it)" >&2; exit 2; }

mapfile -t files < <(find src include tools experiment cli_base bench redis tests fuzz python/src web/src web/bench -name '*.[ch]' \
  -not -path 'src/table/semisort_table.c' | sort)
if [[ $mode == --fix ]]; then
  "$cf" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "format: $f differs from .clang-format (scripts/format.sh --fix)" >&2
    bad=1
  fi
done
((bad == 0)) && echo "format: ${#files[@]} files match .clang-format"
exit $bad
