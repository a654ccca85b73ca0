"""vitesse.Model beyond labels: CRFsuite models tagging python-crfsuite sequences in memory,
marginals and log Z beside the labels (against `vitesse tag`'s printed ones), and a model kept
as bytes: save, to_bytes, from_bytes, pickling."""
import math
import pickle

import numpy as np
import pytest

import vitesse
from conftest import cli_sentences
from test_train_crf import item_corpus, write_items


@pytest.fixture(scope="module")
def crfs(tmp_path_factory):
    """(dir, model, test sequences): a CRFsuite model trained on items in memory, and the test
    sequences also written as test.items."""
    d = tmp_path_factory.mktemp("crfs")
    train, test = item_corpus(80, 11), item_corpus(25, 12)
    m = vitesse.train_items(train, max_iterations=30, path=d / "m.crfsuite")
    write_items(d / "test.items", test)
    return d, m, test


def test_crfsuite_model_tags_sequences_in_memory(cli, crfs):
    d, m, test = crfs
    want = cli_sentences(cli, d / "m.crfsuite", d / "test.items")
    assert [m.tag(x) for x, _ in test] == want
    assert m.tag_many([x for x, _ in test], threads=2) == want
    # the same attributes as lists of names (weight 1) and nested dicts
    x = [{"a": "1", "b": {"c": 1.0, "d": "e"}}, {"a": "2"}]
    same = [["a:1", "b:c", "b:d:e"], ["a:2"]]
    assert m.tag(x) == m.tag(same)
    assert m.tag([]) == []


def test_marginals_and_log_z_are_crfsuite_tags(cli, crfs):
    d, m, test = crfs
    # -p: "@score\tSCORE\tLOGZ" and "@probability"; -l: every label's marginal
    printed = cli_sentences(cli, d / "m.crfsuite", d / "test.items", "-p", "-l")
    assert len(printed) == len(test)
    checked = 0
    for (x, _), lines in zip(test, printed):
        labels, marg, logz = m.tag(x, marginals=True)
        assert labels == m.tag(x)
        assert marg.shape == (len(x), len(m.labels)) and marg.dtype == np.float64
        assert np.allclose(marg.sum(axis=1), 1.0, atol=1e-12)
        score = float(lines[0].split("\t")[1])
        assert logz == pytest.approx(float(lines[0].split("\t")[2]), abs=1e-6)
        assert math.exp(score - logz) == pytest.approx(float(lines[1].split("\t")[1]), abs=1e-6)
        for t, line in enumerate(lines[2:]):
            for field in line.split("\t")[1:]:
                name, p = field.rsplit(":", 1)
                assert marg[t, m.labels.index(name)] == pytest.approx(float(p), abs=1e-6)
                checked += 1
    assert checked == sum(len(x) for x, _ in test) * len(m.labels)
    many = m.tag_many([x for x, _ in test], marginals=True, threads=2)
    for (x, _), got in zip(test, many):
        one = m.tag(x, marginals=True)
        assert got[0] == one[0] and np.array_equal(got[1], one[1]) and got[2] == one[2]
    # k-best: the paths with their scores, then the marginals
    paths, marg, logz = m.tag(test[0][0], k=3, marginals=True)
    assert len(paths) == min(3, len(m.labels) ** len(test[0][0]))
    assert sum(math.exp(s - logz) for s, _ in paths) <= 1.0 + 1e-12


def test_marginals_of_a_template_model_are_the_cli_ones(cli, corpus, cli_model):
    d, _, test = corpus
    m = vitesse.Model(cli_model)
    out = cli("tag", "-m", cli_model, "-v", "2", d / "test.txt").splitlines()
    sents, cur = [], []
    for line in out:
        if line.startswith("# "):
            continue
        if not line:
            sents.append(cur)
            cur = []
        else:
            cur.append(line.split()[3:])  # after word, tag, gold: LABEL/P, then each label's
    assert len(sents) == len(test)
    checked = 0
    for s, printed in zip(test, sents):
        labels, marg, _ = m.tag([r[:2] for r in s], marginals=True)
        for t, fields in enumerate(printed):
            assert fields[0].rsplit("/", 1)[0] == labels[t]
            for field in fields[1:]:
                name, p = field.rsplit("/", 1)
                assert marg[t, m.labels.index(name)] == pytest.approx(float(p), abs=1e-6)
                checked += 1
    assert checked == sum(len(s) for s in test) * len(m.labels)


def test_save_to_bytes_and_pickle(crfs, cli_model, tmp_path):
    d, m, test = crfs
    want = [m.tag(x) for x, _ in test]
    for again in (pickle.loads(pickle.dumps(m)), vitesse.Model.from_bytes(m.to_bytes())):
        assert again.kind == "crfsuite" and [again.tag(x) for x, _ in test] == want
    m.save(tmp_path / "native.vt")
    m.save(tmp_path / "crf1d", format="crfsuite")
    assert (tmp_path / "crf1d").read_bytes()[:4] == b"lCRF"
    assert (tmp_path / "native.vt").read_bytes() == m.to_bytes()
    for p in ("native.vt", "crf1d"):
        assert [vitesse.Model(tmp_path / p).tag(x) for x, _ in test] == want
    t = vitesse.Model(cli_model)
    rows = [["a", "X"], ["b", "Y"]]
    assert pickle.loads(pickle.dumps(t)).tag(rows) == t.tag(rows)
    assert vitesse.Model.from_bytes(t.to_bytes()).labels == t.labels


def test_bad_calls(crfs, tmp_path):
    _, m, _ = crfs
    with pytest.raises(TypeError, match="an item is a list of attribute names or a dict"):
        m.tag(["w:1", "w:2"])
    with pytest.raises(ValueError, match="weights must be finite"):
        m.tag([{"w": float("nan")}])
    with pytest.raises(TypeError, match="sentences\\[1\\]"):
        m.tag_many([[["a"]], "nope"])
    with pytest.raises(vitesse.Error):
        m.save(tmp_path / "x.vt", format="nosuch")
    np.save(tmp_path / "A.npy", np.zeros((3, 3)))
    tr = vitesse.Model(tmp_path / "A.npy")
    with pytest.raises(ValueError, match="marginals: only tagger and CRFsuite models"):
        tr.tag(["a"], marginals=True)
    with pytest.raises(TypeError, match="cannot be written as bytes"):
        pickle.dumps(tr)
