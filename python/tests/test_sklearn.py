"""vitesse.sklearn.Tagger: the sklearn-crfsuite shape, with and without scikit-learn."""
import pickle

import pytest

from vitesse.sklearn import Tagger


def split(sents):
    return [[r[:-1] for r in s] for s in sents], [[r[-1] for r in s] for s in sents]


def test_fit_predict_score_topk(corpus):
    _, train, test = corpus
    X, y = split(train)
    Xt, yt = split(test)
    t = Tagger(epochs=3).fit(X, y, X_dev=Xt, y_dev=yt)
    pred = t.predict(Xt)
    assert [len(p) for p in pred] == [len(s) for s in Xt]
    assert set(t.classes_) == {lab for s in y for lab in s}
    acc = t.score(Xt, yt)
    assert acc == sum(a == b for p, g in zip(pred, yt) for a, b in zip(p, g)) / sum(map(len, yt))
    top = t.predict_topk(Xt[:5], k=3)
    assert [paths[0][1] for paths in top] == pred[:5]
    assert t.predict_single(Xt[0]) == pred[0]
    again = pickle.loads(pickle.dumps(t))
    assert again.predict(Xt) == pred


def test_feature_dicts(corpus):
    _, train, test = corpus

    def feats(s):
        return [{"w": r[0], "shape": r[1], "first": i == 0} for i, r in enumerate(s)]
    X, y = [feats(s) for s in train], [[r[-1] for r in s] for s in train]
    t = Tagger(epochs=2).fit(X, y)
    assert t.columns_ == ["first", "shape", "w"]
    assert len(t.predict([feats(s) for s in test])) == len(test)


def test_params():
    t = Tagger(epochs=4)
    assert t.get_params()["epochs"] == 4
    assert t.set_params(seed=3) is t and t.seed == 3
    with pytest.raises(ValueError, match="no parameter"):
        t.set_params(c1=0.1)
    with pytest.raises(AttributeError, match="not fitted"):
        t.predict([[["a"]]])
    assert repr(t) == "Tagger(epochs=4, seed=3)"


def test_with_scikit_learn(corpus):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score
    _, train, _ = corpus
    X, y = split(train)
    c = clone(Tagger(epochs=2, seed=5))
    assert c.get_params()["seed"] == 5
    scores = cross_val_score(Tagger(epochs=2), X, y, cv=3)
    assert len(scores) == 3 and all(0 <= s <= 1 for s in scores)
    assert sklearn.__version__
