"""Every decoder through vitesse.decode against brute-force enumeration on small lattices."""
import itertools

import numpy as np
import pytest

import vitesse

EXACT = sorted(a for a, f in vitesse.algorithms().items() if f["exact"])
KBEST = sorted(a for a, f in vitesse.algorithms().items() if f["exact"] and f["kbest"])


def brute(E, A, S, F):
    """Every path's score, evaluated left to right in double as the library does."""
    T, L = E.shape
    if T == 0:
        return {(): 0.0}
    out = {}
    for y in itertools.product(range(L), repeat=T):
        s = S[y[0]] + E[0, y[0]]
        for t in range(1, T):
            s = s + A[y[t - 1], y[t]]
            s = s + E[t, y[t]]
        out[y] = s + F[y[-1]]
    return out


def lattice(rng, T, L, ties, forbid, dtype):
    """A random lattice; small integers make ties, -inf forbids some cells."""
    def draw(shape):
        x = rng.integers(-2, 3, shape).astype(float) if ties else rng.normal(size=shape)
        if forbid:
            x[rng.random(shape) < forbid] = -np.inf
        return x
    E = draw((T, L)).astype(dtype)
    return E, draw((L, L)), draw(L), draw(L)


def check(result, paths, k):
    """`result` holds the k best paths of `paths` (ties in any order), with their scores."""
    finite = sorted((s for s in paths.values() if s > -np.inf), reverse=True)
    want = finite[:k]
    assert [s for s, _ in result] == want
    seen = set()
    for score, labels in result:
        assert labels.dtype == np.int32
        y = tuple(labels.tolist())
        assert y not in seen
        seen.add(y)
        assert paths[y] == score


CASES = [(T, L, ties, forbid, dtype)
         for T in (0, 1, 2, 4)
         for L in (1, 2, 3)
         for ties in (False, True)
         for forbid in (0.0, 0.3)
         for dtype in (np.float32, np.float64)]


@pytest.mark.parametrize("algo", EXACT)
def test_one_best_matches_brute_force(algo):
    rng = np.random.default_rng(7)
    for T, L, ties, forbid, dtype in CASES:
        for _ in range(3):
            E, A, S, F = lattice(rng, T, L, ties, forbid, dtype)
            res = vitesse.decode(E, A, S, F, algo=algo)
            check(res, brute(E.astype(float), A, S, F), 1)


@pytest.mark.parametrize("algo", KBEST)
@pytest.mark.parametrize("k", [2, 5])
def test_k_best_matches_brute_force(algo, k):
    rng = np.random.default_rng(11)
    for T, L, ties, forbid, dtype in CASES:
        E, A, S, F = lattice(rng, T, L, ties, forbid, dtype)
        res = vitesse.decode(E, A, S, F, algo=algo, k=k)
        check(res, brute(E.astype(float), A, S, F), k)


def test_beam_as_wide_as_the_labels_is_exact():
    rng = np.random.default_rng(3)
    for T, L, ties, forbid, dtype in CASES:
        E, A, S, F = lattice(rng, T, L, ties, forbid, dtype)
        res = vitesse.decode(E, A, S, F, algo="beam", beam=L)
        check(res, brute(E.astype(float), A, S, F), 1)


def test_default_algo_and_batches_match_one_by_one():
    rng = np.random.default_rng(5)
    lens = [3, 0, 1, 4, 2]
    L = 3
    E = rng.normal(size=(sum(lens), L)).astype(np.float32)
    A = rng.normal(size=(L, L))
    for threads in (0, 1, 2):
        batch = vitesse.decode(E, A, lengths=lens, k=3, threads=threads)
        at = 0
        for T, got in zip(lens, batch):
            check(got, brute(E[at:at + T].astype(float), A, np.zeros(L), np.zeros(L)), 3)
            at += T
    # Padded (B, T, L): rows past each length are ignored, even NaN ones.
    P = np.full((len(lens), max(lens), L), np.nan, dtype=np.float32)
    at = 0
    for b, T in enumerate(lens):
        P[b, :T] = E[at:at + T]
        at += T
    for threads in (1, 2):
        padded = vitesse.decode(P, A, lengths=lens, k=3, threads=threads)
        assert repr(padded) == repr(vitesse.decode(E, A, lengths=lens, k=3, threads=1))


def test_no_finite_path_gives_an_empty_list():
    E = np.array([[0.0, -np.inf], [-np.inf, 0.0]])
    A = np.array([[0.0, -np.inf], [-np.inf, 0.0]])
    for algo in EXACT:
        assert vitesse.decode(E, A, algo=algo) == []


def test_transitions_object_gives_the_same_paths():
    rng = np.random.default_rng(9)
    E = rng.normal(size=(6, 4))
    A, S, F = rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=4)
    t = vitesse.Transitions(A, S, F)
    assert t.labels == 4
    assert np.array_equal(t.transitions, A) and np.array_equal(t.start, S)
    for algo in EXACT:
        want = vitesse.decode(E, A, S, F, algo=algo, rank=np.arange(4))
        assert repr(vitesse.decode(E, t, algo=algo)) == repr(want)
