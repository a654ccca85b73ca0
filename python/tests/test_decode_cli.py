"""vitesse.decode against `vitesse decode` on a larger synthetic lattice set (`vitesse synth`)."""
import os

import numpy as np
import pytest

import vitesse


@pytest.fixture(scope="module")
def synth(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("synth")
    cli("synth", "-o", d, "--labels", 40, "--sentences", 300, "--seed", 4)
    return d


def cli_lines(cli, d, *args):
    return cli("decode", "--emissions", d / "E.npy", "--lengths", d / "N.npy",
               "--transitions", d / "A.npy", "--start", d / "S.npy", "--end", d / "F.npy",
               *args).splitlines()


def py_lines(result):
    """The CLI's output format of a decode result: sentence, rank, %.9g score, labels."""
    out = []
    for s, paths in enumerate(result):
        if not paths:
            out.append("%d\t0\t-inf\t" % s)
        for r, (score, labels) in enumerate(paths):
            out.append("%d\t%d\t%.9g\t%s" % (s, r, score, " ".join(map(str, labels))))
    return out


@pytest.mark.parametrize("algo,k", [(None, 1), ("viterbi", 1), ("staggered-col", 1),
                                    ("iter-viterbi-astar", 1), ("iter-viterbi-astar", 4),
                                    ("viterbi-astar", 3), ("kbest-viterbi", 2)])
@pytest.mark.parametrize("threads", [1, 2])
def test_same_output_as_the_cli(cli, synth, algo, k, threads):
    load = lambda n: np.load(os.path.join(synth, n))  # noqa: E731
    args = (["--algo", algo] if algo else []) + ["-k", k, "--threads", 1]
    want = cli_lines(cli, synth, *args)
    got = vitesse.decode(load("E.npy"), load("A.npy"), load("S.npy"), load("F.npy"),
                         lengths=load("N.npy"), algo=algo, k=k, threads=threads)
    assert py_lines(got) == want


def test_rank_file_is_used_like_the_cli(cli, synth):
    load = lambda n: np.load(os.path.join(synth, n))  # noqa: E731
    want = cli_lines(cli, synth, "--rank", synth / "R.npy", "--algo", "staggered")
    got = vitesse.decode(load("E.npy"), load("A.npy"), load("S.npy"), load("F.npy"),
                         lengths=load("N.npy"), rank=load("R.npy"), algo="staggered")
    assert py_lines(got) == want
