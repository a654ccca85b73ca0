"""Bad arguments to vitesse.decode raise clear errors."""
import numpy as np
import pytest

import vitesse

A = np.zeros((3, 3))


def bad(exc, match, *args, **kw):
    with pytest.raises(exc, match=match):
        vitesse.decode(*args, **kw)


def test_dtype_ndim_shape_contiguity():
    bad(TypeError, "float16", np.zeros((2, 3), dtype=np.float16), A)
    bad(TypeError, "real numbers", np.zeros((2, 3), dtype=np.complex128), A)
    bad(TypeError, "real numbers", np.array([["a", "b", "c"]]), A)
    bad(ValueError, "2 dims", np.zeros(3), A)
    bad(ValueError, "2 dims", np.zeros((1, 2, 3, 3)), A)
    bad(ValueError, "label column", np.zeros((3, 0)), A)


def test_any_layout_and_real_dtype_is_copied_when_it_must_be():
    rng = np.random.default_rng(5)
    E = rng.normal(size=(6, 3))
    want = vitesse.decode(E, A, k=3)
    same = lambda got: all(s == t and np.array_equal(y, z) for (s, y), (t, z) in zip(got, want))
    wide = np.zeros((6, 6))
    wide[:, ::2] = E
    for other in (np.asfortranarray(E), wide[:, ::2], E.astype(">f8"), E.astype(np.longdouble)):
        assert same(vitesse.decode(other, A, k=3))
    ints = np.arange(18, dtype=np.int64).reshape(6, 3) % 5
    got, ref = vitesse.decode(ints, A, k=3), vitesse.decode(ints.astype(float), A, k=3)
    assert [s for s, _ in got] == [s for s, _ in ref] and len(got) == 3
    assert all(np.array_equal(y, z) for (_, y), (_, z) in zip(got, ref))
    f32 = E.astype(np.float32)
    assert [s for s, _ in vitesse.decode(np.asfortranarray(f32), A, k=2)] == \
        [s for s, _ in vitesse.decode(f32, A, k=2)]
    bad(ValueError, "square", np.zeros((2, 3)), np.zeros((3, 2)))
    bad(ValueError, "3 labels but the transitions 2", np.zeros((2, 3)), np.zeros((2, 2)))
    bad(ValueError, "start must have shape", np.zeros((2, 3)), A, np.zeros(2))


def test_lengths():
    E = np.zeros((5, 3))
    bad(ValueError, "lengths sum to 4 but emissions has 5 rows", E, A, lengths=[2, 2])
    bad(ValueError, r"lengths\[1\] = -1", E, A, lengths=[5, -1])
    bad(TypeError, "1-D sequence of integers", E, A, lengths=[[5]])
    bad(TypeError, "integers", E, A, lengths=[2.5, 2.5])
    P = np.zeros((2, 4, 3))
    bad(ValueError, r"lengths\[0\] = 5 is out of range 0..4", P, A, lengths=[5, 1])
    bad(ValueError, "lengths has 3 entries but emissions holds 2", P, A, lengths=[1, 1, 1])


def test_scores_nan_inf_name_the_index():
    E = np.zeros((4, 3), dtype=np.float32)
    E[2, 1] = np.nan
    bad(ValueError, r"emissions\[2, 1\] is nan", E, A)
    E[2, 1] = np.inf
    bad(ValueError, r"emissions\[2, 1\] is \+inf", E, A)
    E[2, 1] = -np.inf  # forbids: fine
    vitesse.decode(E, A)
    P = np.zeros((2, 3, 3))
    P[1, 2, 0] = np.nan
    bad(ValueError, r"emissions\[1\]\[2, 0\] is nan", P, A)
    bad(ValueError, r"emissions\[1\]\[2, 0\] is nan", P, A, lengths=[3, 3])
    vitesse.decode(P, A, lengths=[3, 2])  # past the length: not read
    T = np.zeros((3, 3))
    T[0, 2] = np.inf
    bad(ValueError, r"transitions\[0, 2\] is \+inf", np.zeros((2, 3)), T)
    bad(ValueError, r"end\[1\] is nan", np.zeros((2, 3)), A, None, [0, np.nan, 0])
    bad(ValueError, "too large", np.full((1, 3), 1e300), A)


def test_options():
    E = np.zeros((2, 3))
    bad(ValueError, "unknown algo 'vitterbi'", E, A, algo="vitterbi")
    bad(ValueError, "k = 2 needs a k-best decoder", E, A, algo="viterbi", k=2)
    bad(ValueError, "k must be >= 1", E, A, k=0)
    bad(ValueError, "beam must be >= 1", E, A, beam=0)
    bad(ValueError, "beam is a width for algo='beam'", E, A, algo="viterbi", beam=2)
    bad(ValueError, "threads must be in 0..4096", E, A, threads=-1)
    bad(ValueError, "permutation", E, A, rank=[0, 0, 1])
    bad(ValueError, "belong to the Transitions", E, vitesse.Transitions(A), rank=[0, 1, 2])
    bad(TypeError, "algo must be a str", E, A, algo=3)


def test_lists_are_converted():
    got = vitesse.decode([[0.0, 1.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])
    assert got[0][0] == 2.0 and got[0][1].tolist() == [1, 0]


def test_error_classes():
    assert issubclass(vitesse.Error, ValueError)
    assert issubclass(vitesse.FileError, vitesse.Error)
    assert issubclass(vitesse.FileError, OSError)


def test_threads_bound_and_nul_in_strings():
    E = np.zeros((2, 3))
    bad(ValueError, "threads must be in 0..4096", E, A, lengths=[1, 1], threads=10**6)
    bad(ValueError, "algo: a str with an embedded NUL", E, A, algo="viterbi\0junk")


def test_posteriors_are_the_sums_over_every_path():
    rng = np.random.default_rng(7)
    T, L = 4, 3
    E, T_ = rng.normal(size=(T, L)), rng.normal(size=(L, L))
    S, F = rng.normal(size=L), rng.normal(size=L)
    paths, marg, log_z = vitesse.decode(E, T_, S, F, posteriors=True, k=2)
    scores = {}
    for y in np.ndindex(*(L,) * T):
        scores[y] = S[y[0]] + sum(E[t, y[t]] for t in range(T)) + \
            sum(T_[y[t - 1], y[t]] for t in range(1, T)) + F[y[-1]]
    z = np.logaddexp.reduce(list(scores.values()))
    assert log_z == pytest.approx(z, abs=1e-12)
    assert marg.shape == (T, L) and marg.dtype == np.float64
    for t in range(T):
        for j in range(L):
            want = sum(np.exp(s - z) for y, s in scores.items() if y[t] == j)
            assert marg[t, j] == pytest.approx(want, abs=1e-12)
    assert paths[0][0] == pytest.approx(max(scores.values()), abs=1e-12)
    # a batch: one (paths, marginals, log_z) per sentence, float32 too
    batch = vitesse.decode(np.stack([E, E[::-1]]).astype(np.float32), T_, S, F, posteriors=True)
    assert len(batch) == 2 and all(len(r) == 3 and r[1].shape == (T, L) for r in batch)
    assert batch[0][2] == pytest.approx(z, abs=1e-5)
