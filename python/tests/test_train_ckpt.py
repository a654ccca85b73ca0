"""Checkpoints in the CRFsuite drop-ins (vitesse's own): python-crfsuite's
Trainer(checkpoint=PATH) and sklearn-crfsuite's CRF(checkpoint=PATH) keep the training state
in PATH; a training stopped midway and started again continues from it and makes the model an
uninterrupted one makes; a checkpoint of other data or parameters is refused."""
import pytest

import vitesse
import vitesse.pycrfsuite as pycrfsuite
from vitesse.sklearn import CRF
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
    """Stops (by an exception, as a kill would, without a model) after iteration 12."""

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
    assert ck.exists()
    again = trainer(pycrfsuite.Trainer, seqs, algorithm, checkpoint=str(ck), checkpoint_every=5)
    again.train(str(out))
    assert out.read_bytes() == ref.read_bytes()
    assert not ck.exists()
    # the rest of the iterations only: those after the checkpoint of iteration 10
    assert [i["num"] for i in again.logparser.iterations][0] == 11


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
