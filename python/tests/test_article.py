# SPDX-License-Identifier: Apache-2.0 OR MIT
"""examples/article.py runs, passes its own checks and prints the article's
figures beside ours."""

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import SANITIZED

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "article.py"


def test_article_example():
    # Sanitized builds are slow: fewer non-members there, the same checks.
    args = ["--probes", "100000"] if SANITIZED else []
    r = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                       env=os.environ.copy(), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert re.search(r"items inserted at 95%\s+249,036\s+249,036", out)
    assert re.search(r"memory \(table\)\s+384 KiB\s+384 KiB", out)
    assert re.search(r"false negatives among inserted items\s+0\s+0", out)
    assert re.search(r"false negatives after that failure\s+1 \(victim\)\s+0", out)
    for bits in (8, 12, 16):
        assert re.search(rf"^\s+{bits}\s+\S+\s+\S+%", out, re.M), bits
