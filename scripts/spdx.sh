#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Checks that every source file of the repository (C, headers, Python, JS,
# shell, CMake, the page, the man page, the build lists) names its licence
# in an SPDX-License-Identifier line among its first three lines (after a
# shebang or a doctype, which must stay first).  Fails naming each file that
# lacks it.  --fix adds the line, in the file's own comment syntax.
# Data (golden files, fuzz corpora), prose (Markdown) and JSON, which has no
# comments (package.json carries a "license" field instead), are not checked.
set -euo pipefail
cd "$(dirname "$0")/.."

spdx="SPDX-License-Identifier: Apache-2.0 OR MIT"
fix=0
[ "${1:-}" = "--fix" ] && fix=1

# The comment that carries the line in a file of this name.
comment_for() { # path
  case "$1" in
    *.c | *.h | *.css | *.map) echo "/* $spdx */" ;;
    *.js | *.mjs | *.ts) echo "// $spdx" ;;
    *.html) echo "<!-- $spdx -->" ;;
    *.1) echo ".\\\" $spdx" ;;
    *) echo "# $spdx" ;;
  esac
}

# Tracked files and new ones git does not ignore, so a file is checked
# before its first commit too.
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
  '*.c' '*.h' '*.py' '*.pyi' '*.sh' '*.bash' '*.js' '*.mjs' '*.ts' '*.cmake' '*.in' \
  '*CMakeLists.txt' '*.css' '*.html' '*.map' '*.toml' '*.1' 'src/sources.txt' |
  grep -v -e '^fuzz/corpus/' -e '^tests/data/' -e '/node_modules/' | sort -u)

missing=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue # deleted in the work tree, not yet in the index
  head -n 3 "$f" | grep -qF "$spdx" && continue
  if [ "$fix" = 1 ]; then
    line=$(comment_for "$f")
    first=$(head -n 1 "$f")
    case "$first" in
      '#!'* | '<!doctype'* | '<!DOCTYPE'*) awk -v l="$line" 'NR == 1 { print; print l; next } { print }' "$f" >"$f.spdx" ;;
      *) { printf '%s\n' "$line"; cat "$f"; } >"$f.spdx" ;;
    esac
    chmod --reference="$f" "$f.spdx"
    mv "$f.spdx" "$f"
  else
    missing+=("$f")
  fi
done

if ((${#missing[@]} > 0)); then
  printf 'spdx: no "%s" line in the first three lines of:\n' "$spdx" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "spdx: scripts/spdx.sh --fix adds it" >&2
  exit 1
fi
echo "spdx: ${#files[@]} source files name their licence"
