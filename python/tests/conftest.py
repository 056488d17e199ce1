# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Shared fixtures: the repository's paths, the `cuckoo` CLI, scratch files."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

# Sanitized runs (CTest under CF_SANITIZE) are several times slower: the
# long loops run fewer iterations there, with the same assertions.
SANITIZED = os.environ.get("CF_PY_SANITIZED") == "1"


def find_cli():
    """The cuckoo binary: $CF_CUCKOO (set by CTest), else one on PATH, else
    one in the repository's build directories."""
    if os.environ.get("CF_CUCKOO"):
        return os.environ["CF_CUCKOO"]
    found = shutil.which("cuckoo")
    if found:
        return found
    for p in sorted((ROOT / "build").glob("*/tools/cuckoo")):
        if os.access(p, os.X_OK):
            return str(p)
    return None


@pytest.fixture(scope="session")
def cli():
    path = find_cli()
    assert path, "the cuckoo CLI was not found: build it, or set CF_CUCKOO to its path"

    # The CLI carries its own sanitizer runtime (sanitized builds): the one
    # preloaded into this interpreter must not reach it.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}

    def run(*args, input=None, check=True):
        r = subprocess.run([path, *map(str, args)], input=input, capture_output=True, env=env)
        if check and r.returncode not in (0, 1):
            raise AssertionError(f"cuckoo {args}: exit {r.returncode}: {r.stderr.decode()}")
        return r

    return run
