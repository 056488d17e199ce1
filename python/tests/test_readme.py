# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The ```python blocks of the README and of the guides in docs/ run as written."""

import os
import re
import textwrap

from conftest import ROOT


def test_readme_python_blocks(tmp_path):
    docs = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    ran = 0
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the examples write files
    try:
        for doc in docs:
            text = doc.read_text()
            # Blocks inside list items are indented with their item.
            blocks = [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", text, re.S)]
            for i, code in enumerate(blocks):
                exec(compile(code, f"{doc.name} python block {i + 1}", "exec"), {})
                ran += 1
            # Blocks marked `python needs-server` talk to a Redis server or cluster that
            # this test does not start: they are compiled, so they stay valid Python.
            for i, code in enumerate(re.findall(r"```python needs-server\n(.*?)```", text, re.S)):
                compile(textwrap.dedent(code), f"{doc.name} needs-server block {i + 1}", "exec")
                ran += 1
    finally:
        os.chdir(cwd)
    assert ran > 0, "README.md and docs/ have no python example"
