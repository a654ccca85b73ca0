"""The README's Python example runs as printed."""
import os
import re

import pytest

from conftest import REPO


def test_readme_python_example_runs(capsys):
    path = os.path.join(REPO, "README.md")
    if not os.path.isfile(path):
        pytest.skip("no README.md beside python/")
    text = open(path, encoding="utf-8").read()
    section = text[text.index("## Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md (Python)", "exec"), {})
    out = capsys.readouterr().out
    assert "['B-NP', 'I-NP']" in out
