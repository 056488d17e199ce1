#!/usr/bin/env bash
# `pip install ./python` into a fresh virtual environment, offline, as the
# README says, then the package's tests of its methods and files with that
# environment's interpreter.
#   pip_install_check.sh PYTHON SCRATCH_DIR
set -euo pipefail
python=$1 scratch=$2
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$scratch"
"$python" -m venv --system-site-packages "$scratch/venv"
PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
  "$scratch/venv/bin/pip" install -q --no-build-isolation "$here" >"$scratch/pip.log" 2>&1 ||
  { cat "$scratch/pip.log" >&2; exit 1; }
cd "$scratch"  # away from the sources: the installed package is imported
"$scratch/venv/bin/python" -c 'import cuckoofilter, sys; assert "site-packages" in cuckoofilter.__file__, cuckoofilter.__file__'
PYTHONPATH= "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$here/tests/test_filter.py" "$here/tests/test_files.py" "$here/tests/test_docs.py"
