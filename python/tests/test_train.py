"""vitesse.train: the same model as `vitesse train`, from files or from sentences in memory."""
import pytest

import vitesse
from conftest import TEMPLATE


def test_same_model_file_as_the_cli(cli, corpus, cli_model, tmp_path):
    d, train, test = corpus
    from_files = vitesse.train(d / "template.txt", str(d / "train.txt"), epochs=3,
                               path=tmp_path / "a.model")
    assert (tmp_path / "a.model").read_bytes() == cli_model.read_bytes()
    assert from_files.train_report["sentences"] == 300
    vitesse.train(TEMPLATE, train, epochs=3, path=tmp_path / "b.model")
    assert (tmp_path / "b.model").read_bytes() == cli_model.read_bytes()
    m = vitesse.train(TEMPLATE, train, epochs=3)  # in memory, no file left behind
    assert m.path is None
    rows = [[r[:2] for r in s] for s in test]
    assert m.tag_many(rows) == vitesse.Model(cli_model).tag_many(rows)


def test_dev_callback_and_stop(corpus):
    d, train, test = corpus
    seen = []
    m = vitesse.train(TEMPLATE, train, dev=test, epochs=5,
                      callback=lambda r: seen.append(r) or r["epoch"] == 2)
    assert [r["epoch"] for r in seen] == [1, 2]
    assert 0.0 < seen[-1]["dev_accuracy"] <= 1.0
    assert m.train_report["epochs"] == 2
    # dev as a file while train is in memory, and progress
    ticks = []
    vitesse.train(TEMPLATE, train, dev=d / "test.txt", epochs=1,
                  progress=lambda e, n, done, total: ticks.append((done, total)))
    assert ticks and ticks[-1][1] == 300


def test_callback_exception_propagates(corpus):
    def boom(r):
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        vitesse.train(TEMPLATE, corpus[1], epochs=3, callback=boom)


def test_errors(corpus, tmp_path):
    _, train, _ = corpus
    with pytest.raises(vitesse.Error, match="template"):
        vitesse.train("Q00:%x[0,0]\n", train, epochs=1)
    with pytest.raises(vitesse.FileError, match="nope.txt"):
        vitesse.train(TEMPLATE, str(tmp_path / "nope.txt"), epochs=1)
    with pytest.raises(ValueError, match="unknown algo"):
        vitesse.train(TEMPLATE, train, decoder="fast")
    with pytest.raises(ValueError, match="empty"):
        vitesse.train(TEMPLATE, [])
    bad = [[["a", "X"], ["b"]]]
    with pytest.raises(ValueError, match="columns"):
        vitesse.train(TEMPLATE, bad)
    with pytest.raises(ValueError, match="embedded NUL"):
        vitesse.train(TEMPLATE, [[["a", "B\0X"], ["b", "B"]]], epochs=1)


def test_verbose_prints_a_line_per_epoch(corpus, capsys):
    vitesse.train(TEMPLATE, corpus[1], dev=corpus[2], epochs=2, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err] == ["epoch 1/2", "epoch 2/2"]
    assert "dev accuracy" in err[0]
