"""vitesse.sklearn.CRF: sklearn-crfsuite's estimator over vitesse.pycrfsuite: the same model as
the trainer given CRFsuite's names, predictions and marginals as `vitesse tag` prints them,
scikit-learn's parameter protocol and pickling."""
import pickle

import pytest

import vitesse
from conftest import cli_sentences
from test_train_crf import item_corpus, write_items
from vitesse.sklearn import CRF


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("sklearn_crf")
    train, dev, test = item_corpus(80, 31), item_corpus(20, 32), item_corpus(25, 33)
    write_items(d / "test.items", test)
    return d, train, dev, test


def test_fit_is_the_trainer_and_predict_is_crfsuite_tag(cli, data, tmp_path):
    d, train, dev, test = data
    X, y = [x for x, _ in train], [ys for _, ys in train]
    crf = CRF(algorithm="lbfgs", c1=0.1, c2=0.01, max_iterations=25,
              all_possible_transitions=True, model_filename=str(tmp_path / "crf.crfsuite"))
    assert crf.fit(X, y, X_dev=[x for x, _ in dev], y_dev=[ys for _, ys in dev]) is crf
    vitesse.train_items(train, dev=dev, c1=0.1, c2=0.01, max_iterations=25,
                        all_possible_transitions=True, path=tmp_path / "same.crfsuite")
    assert (tmp_path / "crf.crfsuite").read_bytes() == (tmp_path / "same.crfsuite").read_bytes()
    want = cli_sentences(cli, tmp_path / "crf.crfsuite", d / "test.items", "-i")
    Xt, yt = [x for x, _ in test], [ys for _, ys in test]
    pred = crf.predict(Xt)
    assert pred == [[line.rsplit(":", 1)[0] for line in seq] for seq in want]
    assert [crf.predict_single(x) for x in Xt] == pred
    for seq, marg in zip(want, crf.predict_marginals(Xt)):
        for line, m in zip(seq, marg):
            label, p = line.rsplit(":", 1)
            assert m[label] == pytest.approx(float(p), abs=1e-6)
            assert sum(m.values()) == pytest.approx(1.0, abs=1e-9)
    right = sum(a == b for p, g in zip(pred, yt) for a, b in zip(p, g))
    assert crf.score(Xt, yt) == right / sum(len(g) for g in yt)
    assert sorted(crf.classes_) == sorted({l for ys in y for l in ys})
    assert crf.size_ == (tmp_path / "crf.crfsuite").stat().st_size
    log = crf.training_log_
    assert len(log.iterations) == 25 and "item_accuracy_float" in log.last_iteration
    # a model file given at construction is read, not trained
    loaded = CRF(model_filename=str(tmp_path / "crf.crfsuite"))
    assert loaded.predict(Xt) == pred


def test_the_trainer_gets_crfsuite_names(data, tmp_path):
    _, train, _, _ = data
    X, y = [x for x, _ in train], [ys for _, ys in train]
    a = CRF(algorithm="l2sgd", c2=0.5, max_iterations=5, min_freq=1, calibration_eta=0.2,
            model_filename=str(tmp_path / "a"))
    a.fit(X, y)
    vitesse.train_items(train, algorithm="l2sgd", c2=0.5, max_iterations=5, min_freq=1,
                        calibration_eta=0.2, delta=1e-6, path=tmp_path / "b")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_params_pickle_and_bad_calls(data):
    _, train, _, _ = data
    X, y = [x for x, _ in train], [ys for _, ys in train]
    crf = CRF(c1=0.2, max_iterations=10)
    assert crf.get_params()["c1"] == 0.2 and crf.get_params()["algorithm"] is None
    assert crf.set_params(c2=0.3) is crf and crf.c2 == 0.3
    assert "c1=0.2" in repr(crf)
    with pytest.raises(ValueError, match="no parameter"):
        crf.set_params(nosuch=1)
    with pytest.raises(AttributeError, match="not fitted"):
        crf.predict(X)
    assert crf.classes_ is None and crf.size_ is None
    crf.fit(X, y)
    again = pickle.loads(pickle.dumps(crf))
    assert again.predict(X) == crf.predict(X) and again.get_params() == crf.get_params()
    for algo, extra in (("ap", {}), ("pa", {"pa_type": 0}), ("arow", {"gamma": 2})):
        online = CRF(algorithm=algo, max_iterations=4, **extra).fit(X, y)
        model = vitesse.train_items(list(zip(X, y)), algorithm=algo, max_iterations=4, **extra)
        assert online.predict(X) == [model.tag(x) for x in X], algo
        assert len(online.training_log_.iterations) == 4
    with pytest.raises(ValueError, match="Parameter not found"):
        CRF(algorithm="ap", c1=0.1).fit(X, y)
    with pytest.raises(ValueError, match="Parameter not found"):
        CRF(algorithm="l2sgd", c1=0.1).fit(X, y)
    with pytest.raises(ValueError, match="sequences but y"):
        crf.fit(X, y[:-1])
    info = crf.tagger_.info()
    assert crf.num_attributes_ == len(info.attributes) == len(crf.attributes_)
    assert crf.attributes_[int(info.attributes["w:3"])] == "w:3"
    assert crf.state_features_ is info.state_features and crf.transition_features_
    assert all(a in info.attributes and y in crf.classes_ for a, y in crf.state_features_)


def test_bad_sequences_raise_one_vitesse_error(data):
    """The bad inputs sklearn-crfsuite users meet: a sequence whose labels are fewer than its
    items, a feature dict with a key that is not a str, a NaN weight: one vitesse.Error each,
    naming the sequence, the item and what is wrong (a TypeError too for the key)."""
    _, train, _, _ = data
    X, y = [x for x, _ in train[:5]], [ys for _, ys in train[:5]]
    short = y[:2] + [y[2][:-1]] + y[3:]
    with pytest.raises(vitesse.Error, match=r"X\[2\]: %d items but y\[2\] has %d labels"
                       % (len(X[2]), len(X[2]) - 1)):
        CRF(max_iterations=2).fit(X, short)
    bad_key = [list(x) for x in X]
    bad_key[1] = [dict(bad_key[1][0], **{}) for _ in bad_key[1]]
    bad_key[1][0] = {**bad_key[1][0], 3: "x"}
    with pytest.raises(vitesse.Error, match="train\\[1\\] item 0: attribute 3 must be a str"):
        CRF(max_iterations=2).fit(bad_key, y)
    with pytest.raises(TypeError):
        CRF(max_iterations=2).fit(bad_key, y)
    nan = [list(x) for x in X]
    nan[4] = [dict(i) for i in nan[4]]
    nan[4][1]["w8"] = float("nan")
    with pytest.raises(vitesse.Error, match="train\\[4\\] item 1: attribute 'w8' has weight nan"):
        CRF(max_iterations=2).fit(nan, y)
    crf = CRF(max_iterations=2).fit(X, y)
    with pytest.raises(vitesse.Error, match="xseq item 0: attribute 'w' has weight nan"):
        crf.predict_single([{"w": float("nan")}])
