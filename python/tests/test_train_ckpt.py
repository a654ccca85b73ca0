"""Checkpoints (vitesse's own) in vitesse.train and in the CRFsuite drop-ins: python-crfsuite's
Trainer(checkpoint=PATH) and sklearn-crfsuite's CRF(checkpoint=PATH) keep the training state
in PATH; a training stopped midway and started again continues from it and makes the model an
uninterrupted one makes; a checkpoint of other data or parameters is refused."""
import pytest

import vitesse
import vitesse.pycrfsuite as pycrfsuite
from vitesse.sklearn import CRF
from conftest import TEMPLATE
from test_train_crf import item_corpus


class Stop(Exception):
    pass


def trainer(cls, seqs, algorithm, **kw):
    t = cls(verbose=False, **kw)
    t.select(algorithm)
    t.set("max_iterations", 30)
    for x, y in seqs:
        t.append(x, y)
    return t


class StopAt12(pycrfsuite.Trainer):
    """Stops by an exception after iteration 12 (as ^C would): with a checkpoint, it is written
    there, and no model."""

    def _on_iteration(self, r):
        super()._on_iteration(r)
        if r["iteration"] == 12:
            raise Stop()


@pytest.mark.parametrize("algorithm", ["lbfgs", "l2sgd", "ap"])
def test_trainer_continues_from_its_checkpoint(tmp_path, algorithm):
    seqs = item_corpus(300, 41)
    ref, out, ck = tmp_path / "ref.crfsuite", tmp_path / "out.crfsuite", tmp_path / "ck"
    trainer(pycrfsuite.Trainer, seqs, algorithm).train(str(ref))
    stopped = trainer(StopAt12, seqs, algorithm, checkpoint=str(ck), checkpoint_every=5)
    with pytest.raises(Stop):
        stopped.train(str(out))
    assert ck.exists() and not out.exists()
    again = trainer(pycrfsuite.Trainer, seqs, algorithm, checkpoint=str(ck), checkpoint_every=5)
    again.train(str(out))
    assert out.read_bytes() == ref.read_bytes()
    assert not ck.exists()
    # the rest of the iterations only: the exception had the checkpoint written at iteration 12
    assert [i["num"] for i in again.logparser.iterations][0] == 13


def test_sklearn_crf_checkpoint(tmp_path):
    seqs = item_corpus(300, 42)
    X, y = [x for x, _ in seqs], [y for _, y in seqs]
    ck = tmp_path / "ck"
    a, b = tmp_path / "a.crfsuite", tmp_path / "b.crfsuite"
    CRF(c2=0.5, max_iterations=25, model_filename=str(a)).fit(X, y)
    kept = CRF(c2=0.5, max_iterations=25, model_filename=str(b), checkpoint=str(ck),
               checkpoint_every=3).fit(X, y)
    assert kept.get_params()["checkpoint"] == str(ck)
    assert a.read_bytes() == b.read_bytes()
    assert not ck.exists()
    # a checkpoint of other parameters, or of other data, is refused
    stopped = trainer(StopAt12, seqs, "lbfgs", checkpoint=str(ck), checkpoint_every=5)
    with pytest.raises(Stop):
        stopped.train(str(tmp_path / "m"))
    with pytest.raises(vitesse.Error, match="a checkpoint of another run: crf c2=0.5 now, c2=1 in"):
        CRF(c2=0.5, max_iterations=30, checkpoint=str(ck)).fit(X, y)
    with pytest.raises(vitesse.Error, match="a checkpoint of another run: inputs train="):
        CRF(max_iterations=30, checkpoint=str(ck)).fit(X[1:], y[1:])
    assert ck.exists()


@pytest.mark.parametrize("algorithm,stop_key,kw", [
    ("perceptron", "callback", dict(epochs=6)),
    ("lbfgs", "on_iteration", dict(max_iterations=25)),
])
def test_template_train_continues_from_its_checkpoint(corpus, tmp_path, algorithm, stop_key, kw):
    d, train, test = corpus
    ref, out, ck = tmp_path / "ref.model", tmp_path / "out.model", tmp_path / "ck"
    vitesse.train(TEMPLATE, train, dev=test, algorithm=algorithm, path=ref, **kw)
    at = 4 if algorithm == "perceptron" else 12
    place = "epoch" if algorithm == "perceptron" else "iteration"

    def stop(r):  # an exception, as ^C would raise: the checkpoint is written there, no model
        if r[place] == at:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):  # sentences in memory: their file is identified
        vitesse.train(TEMPLATE, train, dev=test, algorithm=algorithm, path=out, checkpoint=ck,
                      checkpoint_every=3, **{stop_key: stop}, **kw)
    assert ck.exists() and not out.exists()
    seen = []
    vitesse.train(TEMPLATE, train, dev=test, algorithm=algorithm, path=out, checkpoint=ck,
                  checkpoint_every=3, **{stop_key: lambda r: seen.append(r[place])}, **kw)
    assert out.read_bytes() == ref.read_bytes()
    assert not ck.exists()
    assert seen[0] == at + 1  # on from where the exception stopped it


def test_template_train_refuses_another_runs_checkpoint(corpus, tmp_path):
    d, train, test = corpus
    ck = tmp_path / "ck"

    def stop(r):
        if r["epoch"] == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        vitesse.train(TEMPLATE, train, epochs=4, checkpoint=ck, checkpoint_every=1, callback=stop)
    with pytest.raises(vitesse.Error, match="a checkpoint of another run: options"):
        vitesse.train(TEMPLATE + "U05:%x[-2,0]\n", train, epochs=4, checkpoint=ck)
    with pytest.raises(vitesse.Error, match="a checkpoint of another run: inputs train="):
        vitesse.train(TEMPLATE, train[1:], epochs=4, checkpoint=ck)
    assert ck.exists()  # refused, left as it was
