"""The documentation runs as printed: the docstrings' examples, every public name documented and
typed, and every ```python block of README.md and docs/*.md (docs/testing.md, "The docs test")."""
import ast
import doctest
import glob
import os
import re

import pytest

import vitesse
import vitesse.sklearn
from conftest import REPO


def test_decode_docstring_example_runs():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for t in finder.find(vitesse.decode, "decode", globs={}):
        runner.run(t)
    assert runner.failures == 0 and runner.tries >= 1


def test_public_names_have_docstrings_and_stubs():
    here = os.path.dirname(vitesse.__file__)
    stub = ast.parse(open(os.path.join(here, "__init__.pyi")).read())
    typed = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    typed |= {t.id for n in stub.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    for name in vitesse.__all__:
        assert name in typed, name
        obj = getattr(vitesse, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name
    for meth in ("tag", "tag_many", "tag_file", "from_bytes"):
        assert "--" not in getattr(vitesse.Model, meth).__doc__.split("\n")[0]
    for meth in ("save", "to_bytes", "path_score"):
        assert len(getattr(vitesse.Model, meth).__doc__) > 40, meth
    ast.parse(open(os.path.join(here, "sklearn.pyi")).read())
    ast.parse(open(os.path.join(here, "pycrfsuite.pyi")).read())
    assert vitesse.sklearn.Tagger.fit.__doc__ and vitesse.sklearn.CRF.fit.__doc__
    import vitesse.pycrfsuite as pycrfsuite
    for name in ("Trainer", "Tagger", "ItemSequence"):
        assert getattr(pycrfsuite, name).__doc__, name


# ---- the ```python blocks of the pages ----------------------------------------------------------

def _pages():
    readme = os.path.join(REPO, "README.md")
    return ([readme] if os.path.isfile(readme) else []) + \
        sorted(glob.glob(os.path.join(REPO, "docs", "*.md")))


def _python_blocks():
    """(page:line, code) of every ```python block, the line being the fence's."""
    blocks = []
    for page in _pages():
        lines = open(page, encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            if re.match(r"```python\s*$", lines[i]):
                start, i = i, i + 1
                body = []
                while i < len(lines) and not re.match(r"```\s*$", lines[i]):
                    body.append(lines[i])
                    i += 1
                blocks.append(("%s:%d" % (os.path.relpath(page, REPO), start + 1),
                               "\n".join(body) + "\n"))
            i += 1
    return blocks


BLOCKS = _python_blocks()


def test_the_pages_have_python_blocks():
    if not _pages():
        pytest.skip("no README.md or docs/ beside python/")
    assert BLOCKS, "no ```python block in README.md or docs/*.md"


@pytest.mark.parametrize("where,code", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_python_block_runs_as_printed(where, code, tmp_path, monkeypatch, capsys):
    # What the block says it prints ("# prints: TEXT" after a statement) must be in its output.
    expected = re.findall(r"#\s*prints:\s*(.+?)\s*$", code, re.M)
    assert expected or re.search(r"^\s*assert\b", code, re.M), \
        "%s: the block states nothing to check (# prints: ... or assert)" % where
    monkeypatch.chdir(tmp_path)  # a fresh directory for the files a block writes
    exec(compile(code, where, "exec"), {"__name__": "__docs__"})
    out = capsys.readouterr().out
    for text in expected:
        assert text in out, "%s: %r not in the output:\n%s" % (where, text, out)
