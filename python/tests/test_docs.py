"""Docstrings and type stubs: the examples run, every public name is documented and typed."""
import ast
import doctest
import os

import vitesse
import vitesse.sklearn


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
    ast.parse(open(os.path.join(here, "sklearn.pyi")).read())
    assert vitesse.sklearn.Tagger.fit.__doc__
