"""The sklearn-crfsuite and python-crfsuite drop-ins on what their users pass: X and y that
differ in length (refused, never compared in part), generators for X and y, threads sharing one
fitted CRF, and values an item cannot hold (a ValueError naming the sequence, the item and what
is wrong, never the OverflowError or UnicodeError of a conversion)."""
import random
import sys
import threading
import time

import pytest

import vitesse
from vitesse.sklearn import CRF, Tagger

WORDS = ["a", "b", "c", "d"]


def crf_data(n=40):
    """n sequences of 1 to 6 items {'w': word} (random words: every word pair occurs), each
    labelled with its word in upper case."""
    rng = random.Random(5)
    X, y = [], []
    for i in range(n):
        words = [rng.choice(WORDS) for t in range(1 + i % 6)]
        X.append([{"w": w} for w in words])
        y.append([w.upper() for w in words])
    return X, y


def rows_of(X):
    """The perceptron Tagger's sentences of the same words (a row a str)."""
    return [[item["w"] for item in x] for x in X]


def gen(seqs):
    """seqs as a generator of iterators: what a caller streaming its data passes."""
    return (iter(s) for s in seqs)


@pytest.fixture(scope="module")
def fitted():
    X, y = crf_data()
    crf = CRF(max_iterations=30).fit(X, y)
    assert crf.predict(X) == y  # the words decide the labels: every prediction is right
    return crf, X, y


def test_score_refuses_x_and_y_of_different_lengths(fitted):
    crf, X, y = fitted
    n_items = sum(map(len, y))
    first_wrong = [["B" if ys[0] == "A" else "A"] + ys[1:] for ys in y]
    assert crf.score(X, y) == 1.0
    assert crf.score(X, first_wrong) == (n_items - len(y)) / n_items
    with pytest.raises(ValueError, match=r"^y has 1 sequences but X 40$"):
        crf.score(X, y[:1])
    with pytest.raises(ValueError, match=r"^y has 40 sequences but X 39$"):
        crf.score(X[:-1], y)
    short = [list(ys) for ys in y]
    short[5] = short[5][:-1]
    with pytest.raises(ValueError, match=r"^y\[5\] has 5 labels but X\[5\] 6 items$"):
        crf.score(X, short)
    # the perceptron Tagger's score: the same checks
    rows = rows_of(X)
    tagger = Tagger(epochs=5).fit(rows, y)
    assert 0 < tagger.score(rows, y) <= 1
    with pytest.raises(ValueError, match=r"^y has 1 sentences but X 40$"):
        tagger.score(rows, y[:1])
    with pytest.raises(ValueError, match=r"^y has 40 sentences but X 1$"):
        tagger.score(rows[:1], y)
    with pytest.raises(ValueError, match=r"^y\[5\] has 5 labels but X\[5\] 6 tokens$"):
        tagger.score(rows, short)
    # a dev set is checked as the training set: no sequence left out, none without labels
    with pytest.raises(vitesse.Error, match=r"^X_dev has 3 sequences but y_dev 2$"):
        CRF(max_iterations=2).fit(X, y, X_dev=X[:3], y_dev=y[:2])
    with pytest.raises(vitesse.Error, match=r"^X_dev\[5\]: 6 items but y_dev\[5\] has 5 labels$"):
        CRF(max_iterations=2).fit(X, y, X_dev=X, y_dev=short)
    with pytest.raises(vitesse.Error, match=r"^X_dev and y_dev go together: y_dev is None$"):
        CRF(max_iterations=2).fit(X, y, X_dev=X)
    with pytest.raises(vitesse.Error, match=r"^X_dev has 3 sentences but y_dev 2$"):
        Tagger(epochs=1).fit(rows, y, X_dev=rows[:3], y_dev=y[:2])


def test_generators_for_x_and_y(fitted):
    """sklearn-crfsuite iterates X and y once: generators of generators fit, predict and
    score as the lists they yield."""
    crf, X, y = fitted
    streamed = CRF(max_iterations=30).fit(gen(X), gen(y), X_dev=gen(X[:5]), y_dev=gen(y[:5]))
    assert streamed.training_log_.last_iteration["item_accuracy_float"] == 1.0
    assert streamed.predict(gen(X)) == y
    assert [streamed.predict_single(iter(x)) for x in X] == y
    assert streamed.predict_marginals(gen(X)) == streamed.predict_marginals(X)
    assert streamed.score(gen(X), gen(y)) == 1.0
    # the perceptron Tagger, rows and feature dicts
    rows = rows_of(X)
    want = Tagger(epochs=5).fit(rows, y).predict(rows)
    tagger = Tagger(epochs=5).fit(gen(rows), gen(y), X_dev=gen(rows[:5]), y_dev=gen(y[:5]))
    assert tagger.predict(gen(rows)) == tagger.predict(rows) == want
    assert tagger.score(gen(rows), gen(y)) == tagger.score(rows, y)
    dicts = [[{"w": w, "n": str(len(r))} for w in r] for r in rows]
    want = Tagger(epochs=5).fit(dicts, y).predict(dicts)
    tagger = Tagger(epochs=5).fit(gen(dicts), gen(y))
    assert tagger.columns_ == ["n", "w"]
    assert tagger.predict(gen(dicts)) == want


def test_threads_sharing_a_crf_get_their_own_labels(fitted):
    """predict_single from several threads, switching between them as often as Python can:
    each gets its own sequence's labels (no other thread's set in between)."""
    crf, X, y = fitted
    # 16 threads, thread i tagging a sequence of i + 1 items: 16 label sequences
    seqs = [[{"w": WORDS[(i * 3 + t) % 4]} for t in range(i + 1)] for i in range(16)]
    want = [[item["w"].upper() for item in x] for x in seqs]
    assert [crf.predict_single(x) for x in seqs] == want
    wrong, stop = [], threading.Event()

    def work(i):
        deadline = time.monotonic() + 2.5
        while not stop.is_set() and time.monotonic() < deadline:
            got = crf.predict_single(seqs[i])
            if got != want[i]:
                wrong.append((i, got))
                stop.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(seqs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert wrong == []
    # one thread: set, then tag(), probability and marginal read the sequence set
    tagger = crf.tagger_
    other = "B" if y[3][0] == "A" else "A"  # the first label changed
    tagger.set(X[3])
    assert tagger.tag() == y[3]
    assert 1 >= tagger.probability(y[3]) > tagger.probability([other] + y[3][1:]) > 0
    assert 1 > tagger.marginal(y[3][0], 0) > tagger.marginal(other, 0) > 0
    assert tagger.tag(X[4]) == y[4] and tagger.tag() == y[4]
    assert len(X[4]) != len(X[3]) and tagger.marginal(y[4][-1], len(X[4]) - 1) > 0
    assert tagger.tag([]) == []


def bad_value(exc_type, pattern, fn, *args, **kw):
    """fn(*args, **kw) raises exc_type matching pattern, and not as a conversion error."""
    with pytest.raises(exc_type, match=pattern) as e:
        fn(*args, **kw)
    assert not isinstance(e.value, (OverflowError, UnicodeError)), repr(e.value)


def test_values_an_item_cannot_hold_raise_value_errors_naming_them(fitted):
    crf, X, y = fitted
    huge = 10 ** 400  # no float holds it
    bad_value(vitesse.Error, r"^xseq item 1: attribute 'n' has a weight too large for a float",
              crf.predict_single, [{"w": "a"}, {"w": "b", "n": huge}])
    bad_value(vitesse.Error, r"^train\[2\] item 0: attribute 'n' has a weight too large",
              CRF(max_iterations=2).fit, X[:2] + [[{"w": "a", "n": -huge}]], y[:2] + [["A"]])
    # a lone surrogate: no UTF-8 for it, in a value, a name or a label
    bad_value(vitesse.Error, r"^xseq item 0: the value of 'w' holds .* at 1, which UTF-8 cannot "
              r"encode", crf.predict_single, [{"w": "a\ud800"}])
    bad_value(vitesse.Error, r"^xseq item 1: attribute .* UTF-8 cannot encode",
              crf.predict_single, [["a"], ["x\udcff"]])
    bad_value(vitesse.Error, r"^train\[2\] item 0: attribute .* UTF-8 cannot encode",
              CRF(max_iterations=2).fit, X[:2] + [[{"\ud800": "a"}]], y[:2] + [["A"]])
    bad_value(vitesse.Error, r"^sequence 2 label 0 holds .* UTF-8 cannot encode",
              CRF(max_iterations=2).fit, X[:2] + [[{"w": "a"}]], y[:2] + [["\ud800"]])
    bad_value(vitesse.Error, r"^xseq item 0: attribute b'\\xff': bytes that are no UTF-8",
              crf.predict_single, [[b"\xff"]])
    # the perceptron Tagger and vitesse.train: the sentence and the token
    rows = rows_of(X)
    rows[2] = ["c", "a\ud800"] + rows[2][2:]
    bad_value(ValueError, r"^sentence 2, token 1: a str UTF-8 cannot encode \(a lone surrogate "
              r"at 1\)", Tagger(epochs=1).fit, rows, y)
    tagger = Tagger(epochs=1).fit(rows_of(X), y)
    bad_value(ValueError, r"^sentence 2, token 1: a str UTF-8 cannot encode", tagger.predict,
              rows)
    train = [[[w, lab] for w, lab in zip(r, ys)] for r, ys in zip(rows, y)]
    bad_value(ValueError, r"^sentence 2, token 1: a str UTF-8 cannot encode", vitesse.train,
              "U0:%x[0,0]\n", train, epochs=1)
