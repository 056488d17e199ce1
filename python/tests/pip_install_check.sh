#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# `pip install ./python` into a fresh virtual environment, offline, as the
# README says, then the package's tests of its methods and files with that
# environment's interpreter.  The `python3` first on PATH, when it is another
# interpreter (pyenv's, say, which has no `wheel` package), is tried the same
# way: its environment runs a smoke test (it may lack pytest).
#   pip_install_check.sh PYTHON SCRATCH_DIR
set -euo pipefail
python=$1 scratch=$2
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$scratch"

# The sources pip reads: python/ and the library's src/ and include/.
sources() { find "$here" "$here/../src" "$here/../include" "$@" | sort; }

install() {  # install PYTHON VENV_DIR
  "$1" -m venv --system-site-packages "$2"
  sources >"$2.before"
  touch "$2.marker"
  PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    "$2/bin/pip" install -q --no-build-isolation "$here" >"$2.log" 2>&1 ||
    { echo "pip install with $1 failed:" >&2; cat "$2.log" >&2; exit 1; }
  # The build leaves nothing in the source tree (setuptools' build/ and
  # *.egg-info go to a temporary directory): no path appeared, no file was
  # written, also in ones an earlier build left.
  sources >"$2.after"
  written=$(sources -type f -newer "$2.marker")
  if ! diff "$2.before" "$2.after" >"$2.diff" || [ -n "$written" ]; then
    echo "pip install with $1 left build debris in the source tree:" >&2
    grep '^>' "$2.diff" >&2 || true
    [ -z "$written" ] || echo "$written" >&2
    exit 1
  fi
  (cd "$scratch" && "$2/bin/python" -c 'import cuckoofilter, sys
assert "site-packages" in cuckoofilter.__file__, cuckoofilter.__file__
f = cuckoofilter.CuckooFilter(capacity=1000); f.update(range(500))
assert all(f.contains_many(range(500))) and len(f) == 500
assert cuckoofilter.CuckooFilter.from_bytes(bytes(f)) == f')
}

mkdir -p "$scratch"
install "$python" "$scratch/venv"
cd "$scratch"  # away from the sources: the installed package is imported
PYTHONPATH= "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$here/tests/test_filter.py" "$here/tests/test_files.py" "$here/tests/test_docs.py"

other=$(command -v python3 || true)
if [ -n "$other" ]; then
  other=$("$other" -c 'import sys; print(sys.executable)')
  if [ "$(readlink -f "$other")" != "$(readlink -f "$python")" ]; then
    echo "also with $other ($("$other" --version))"
    install "$other" "$scratch/venv-other"
  fi
fi
