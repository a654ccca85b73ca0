"""vitesse.pycrfsuite: python-crfsuite's Trainer, Tagger and ItemSequence over vitesse: the
trainer is vitesse.train_items with CRFsuite's parameter names and defaults, the tagger gives
`vitesse tag`'s (crfsuite tag's) labels, probabilities and marginals."""
import itertools
import math
import os
import random
import subprocess

import pytest

import vitesse
import vitesse.pycrfsuite as pycrfsuite
from conftest import REPO, cli_sentences
from test_train_crf import item_corpus, write_items


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("pycrfsuite")
    train, test = item_corpus(80, 21), item_corpus(25, 22)
    write_items(d / "test.items", test)
    return d, train, test


def test_trainer_is_train_items_with_crfsuite_names(data):
    d, train, test = data
    tr = pycrfsuite.Trainer(verbose=False)
    for i, (x, y) in enumerate(train):
        tr.append(pycrfsuite.ItemSequence(x) if i % 2 else x, y, group=i % 4 == 0)
    tr.set_params({"c1": 0.1, "c2": 0.01, "max_iterations": 15,
                   "feature.possible_transitions": True})
    assert tr.get("c1") == 0.1 and tr.get("epsilon") == 1e-5 and tr.get("linesearch") == \
        "MoreThuente"
    assert tr.get("feature.possible_transitions") is True
    tr.train(str(d / "a.crfsuite"), holdout=1)
    kept = [p for i, p in enumerate(train) if i % 4]
    held = [p for i, p in enumerate(train) if not i % 4]
    vitesse.train_items(kept, dev=held, c1=0.1, c2=0.01, max_iterations=15,
                        all_possible_transitions=True, path=d / "b.crfsuite")
    assert (d / "a.crfsuite").read_bytes() == (d / "b.crfsuite").read_bytes()
    assert (d / "a.crfsuite").read_bytes()[:4] == b"lCRF"
    log = tr.logparser
    assert [i["num"] for i in log.iterations] == list(range(1, 16))
    assert log.last_iteration is log.iterations[-1]
    assert all(0 <= i["item_accuracy_float"] <= 1 for i in log.iterations)
    assert log.iterations[-1]["loss"] < log.iterations[0]["loss"]
    # l2sgd: CRFsuite's own defaults for it
    tr.select("l2sgd")
    assert "c1" not in tr.params() and tr.get("delta") == 1e-6 and tr.get("max_iterations") == 1000
    assert "learning rate" in tr.help("calibration.eta")


def test_online_trainers_are_train_items_and_the_cli(cli, data):
    """'ap', 'pa' and 'arow' with CRFsuite's names and defaults give train_items's model, and
    the CLI's from the item file; the log has CRFsuite's lines for them (no line search)."""
    d, train, _ = data
    write_items(d / "train.items", train)
    for algo, params, kw, opts in (
            ("ap", {}, {}, []),
            ("pa", {"type": 2, "c": 0.3, "averaging": False}, {"pa_type": 2, "c": 0.3,
                                                               "averaging": False},
             ["--pa-type", 2, "--c", 0.3, "--averaging", 0]),
            ("arow", {"variance": 0.5, "gamma": 2}, {"variance": 0.5, "gamma": 2},
             ["--variance", 0.5, "--gamma", 2])):
        tr = pycrfsuite.Trainer(verbose=False)
        for x, y in train:
            tr.append(x, y)
        tr.select(algo)
        assert tr.get("max_iterations") == 100 and tr.get("epsilon") == 0.0
        assert "c1" not in tr.params()
        tr.set_params(dict(params, max_iterations=6))
        tr.train(str(d / ("%s.crfsuite" % algo)))
        got = (d / ("%s.crfsuite" % algo)).read_bytes()
        vitesse.train_items(train, algorithm=algo, max_iterations=6, path=d / "ti", **kw)
        assert got == (d / "ti").read_bytes(), algo
        cli("train", "--algo", algo, *opts, "--items", d / "train.items", "--max-iterations", 6,
            "-o", d / ("%s.cli" % algo))
        assert got == (d / ("%s.cli" % algo)).read_bytes(), algo
        log = tr.logparser
        assert [i["num"] for i in log.iterations] == list(range(1, 7))
        assert "error_norm" not in log.last_iteration and log.last_iteration["loss"] >= 0
        assert log.log[0].startswith("***** Iteration #1 *****\nLoss: ")
        assert "Line search" not in log.log[0]
    tr.select("passive-aggressive")
    assert "aggressiveness" in tr.help("c") and tr.get("type") == 1
    with pytest.raises(ValueError, match="Parameter not found"):
        tr.set("variance", 1)


def test_tagger_is_crfsuite_tag(cli, data):
    d, train, test = data
    tr = pycrfsuite.Trainer(verbose=False)
    for x, y in train:
        tr.append(x, y)
    tr.set("max_iterations", 20)
    tr.train(str(d / "m.crfsuite"))
    printed = cli_sentences(cli, d / "m.crfsuite", d / "test.items", "-p", "-i")
    tagger = pycrfsuite.Tagger()
    with tagger.open(str(d / "m.crfsuite")):
        assert sorted(tagger.labels()) == sorted({y for _, ys in train for y in ys})
        for (x, _), lines in zip(test, printed):
            labels = tagger.tag(x)
            assert labels == [line.rsplit(":", 1)[0] for line in lines[2:]]
            assert tagger.tag() == labels  # the sequence set last
            p = float(lines[1].split("\t")[1])
            assert tagger.probability(labels) == pytest.approx(p, abs=1e-6)
            for t, line in enumerate(lines[2:]):
                y, m = line.rsplit(":", 1)
                assert tagger.marginal(y, t) == pytest.approx(float(m), abs=1e-6)
    with pytest.raises(ValueError, match="no model"):
        tagger.labels()
    again = pycrfsuite.Tagger()
    again.open_inmemory((d / "m.crfsuite").read_bytes())
    assert again.tag(test[0][0]) == cli_sentences(cli, d / "m.crfsuite", d / "test.items")[0]


def test_probabilities_of_every_path_sum_to_one(data):
    d, train, _ = data
    m = vitesse.train_items(train, max_iterations=10)
    tagger = pycrfsuite.Tagger()
    tagger.open_inmemory(m.to_bytes(format="crfsuite"))
    x = train[0][0][:3]
    tagger.set(x)
    probs = {ys: tagger.probability(list(ys))
             for ys in itertools.product(tagger.labels(), repeat=len(x))}
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
    best = max(probs, key=probs.get)
    assert tagger.tag() == list(best)
    for t in range(len(x)):  # the marginals are the sums over the paths
        for y in tagger.labels():
            want = sum(p for ys, p in probs.items() if ys[t] == y)
            assert tagger.marginal(y, t) == pytest.approx(want, abs=1e-9)


def test_item_sequence():
    s = pycrfsuite.ItemSequence([["a", "b"], {"w": "x", "n": 0.5, "s": {"p": 2}}])
    assert len(s) == 2
    assert s.items() == [{"a": 1.0, "b": 1.0}, {"w:x": 1.0, "n": 0.5, "s:p": 2.0}]
    assert "ItemSequence" in repr(s)


def test_bad_calls(data, cli_model):
    d, train, _ = data
    tr = pycrfsuite.Trainer()
    with pytest.raises(ValueError, match="items and labels differ"):
        tr.append([["a"], ["b"]], ["X"])
    for algo, kind in (("nosuch", "crf1d"), ("ap", "crf2d")):
        with pytest.raises(ValueError, match="Bad arguments"):
            tr.select(algo, kind)
    with pytest.raises(ValueError, match="Parameter not found"):
        tr.set("nosuch", 1)
    with pytest.raises(ValueError, match="bad value"):
        tr.set("c2", "many")
    with pytest.raises(ValueError, match="no sequences"):
        tr.train("")
    tagger = pycrfsuite.Tagger()
    with pytest.raises(ValueError, match="not a CRFsuite one"):
        tagger.open(str(cli_model))
    with pytest.raises(ValueError, match="Error opening model"):
        tagger.open_inmemory(b"lCRF and nothing")
    tagger.open_inmemory(vitesse.train_items(train, max_iterations=3).to_bytes())
    with pytest.raises(ValueError, match="no sequence"):
        tagger.tag()
    tagger.set(train[0][0])
    with pytest.raises(ValueError, match="unknown label"):
        tagger.marginal("nosuch", 0)
    with pytest.raises(IndexError):
        tagger.marginal(tagger.labels()[0], 99)
    with pytest.raises(ValueError, match="is not a label of the model"):
        tagger.probability(["nosuch"] * len(train[0][0]))
    with pytest.raises(ValueError, match="labels for"):
        tagger.probability(tagger.labels()[:1] * (len(train[0][0]) + 1))
    assert math.isfinite(tagger.probability(tagger.tag()))


def test_info_and_dump_are_crfsuite_dump(tmp_path):
    """Tagger.dump of the model vitesse trains on tests/crf_train's items prints what
    `crfsuite dump` printed for CRFsuite's model of the same items (the fixture)."""
    fx = os.path.join(REPO, "tests", "crf_train")
    items = tmp_path / "train.items"
    with open(items, "w") as f:
        subprocess.run(["awk", "-v", "N=60", "-f", os.path.join(fx, "items.awk")], stdout=f,
                       check=True)
    vitesse.train_items(items, max_iterations=15, path=tmp_path / "m.crfsuite")
    tagger = pycrfsuite.Tagger()
    tagger.open(str(tmp_path / "m.crfsuite"))
    tagger.dump(str(tmp_path / "m.dump"))
    with open(os.path.join(fx, "crfsuite_dump.out")) as f:
        assert (tmp_path / "m.dump").read_text() == f.read()
    info = tagger.info()
    assert int(info.header["num_labels"]) == len(tagger.labels()) == len(info.labels)
    # the weights score as the tagger does: a sequence's best path from them
    x = [["w=7", "c=3", "x:y", "__BOS__"], ["w=22", "c=2", "pw=7"]]
    assert all(any(a == b for b, _ in info.state_features) for item in x for a in item)
    tagger.set(x)
    for ys in (tagger.tag(), [tagger.labels()[0]] * 2):
        score = sum(info.state_features.get((a, y), 0.0) for item, y in zip(x, ys)
                    for a in item) + info.transitions.get((ys[0], ys[1]), 0.0)
        assert tagger._model.path_score(x, ys)[0] == pytest.approx(score, abs=1e-12)


def test_damaged_crf1d_files_raise_value_error(data):
    """The crf1d reader behind info() on damaged bytes: ValueError, never another exception
    nor a hang (random byte changes, truncations, huge counts)."""
    from vitesse import _crf1d
    _, train, _ = data
    good = vitesse.train_items(train[:20], max_iterations=5).to_bytes(format="crfsuite")
    assert _crf1d.parse(good).state_features
    rng = random.Random(3)
    for i in range(3000):
        b = bytearray(good)
        if i % 3 == 0:
            b = b[:rng.randrange(len(b))]
        for _ in range(rng.randint(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.choice([0, 1, 0xFF, rng.randrange(256)])
        if i % 7 == 0 and len(b) > 28:  # a count of labels near 2**32
            b[20:24] = b"\xff\xff\xff\x7f"
        try:
            _crf1d.parse(bytes(b))
        except ValueError:
            pass
