"""The README's ```python blocks run as written."""

import os
import re
import textwrap

from conftest import ROOT


def test_readme_python_blocks(tmp_path):
    text = (ROOT / "README.md").read_text()
    # Blocks inside list items are indented with their item.
    blocks = [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", text, re.S)]
    assert blocks, "README.md has no python example"
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the examples write files
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"README.md python block {i + 1}", "exec"), {})
    finally:
        os.chdir(cwd)
