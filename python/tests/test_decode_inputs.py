"""Bad arguments to vitesse.decode raise clear errors."""
import numpy as np
import pytest

import vitesse

A = np.zeros((3, 3))


def bad(exc, match, *args, **kw):
    with pytest.raises(exc, match=match):
        vitesse.decode(*args, **kw)


def test_dtype_ndim_shape_contiguity():
    bad(TypeError, "float32 or float64", np.zeros((2, 3), dtype=np.int64), A)
    bad(TypeError, "float32 or float64", np.zeros((2, 3), dtype=np.float16), A)
    bad(ValueError, "2 dims", np.zeros(3), A)
    bad(ValueError, "2 dims", np.zeros((1, 2, 3, 3)), A)
    bad(ValueError, "C-contiguous", np.zeros((3, 6))[:, ::2], A)
    bad(ValueError, "C-contiguous", np.zeros((2, 3), order="F"), A)
    bad(ValueError, "C-contiguous", np.zeros((3, 3), dtype=">f8"), A)
    bad(ValueError, "label column", np.zeros((3, 0)), A)
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
