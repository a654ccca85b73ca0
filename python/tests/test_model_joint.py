"""vitesse.Model with a joint POS + chunk model: (POS, chunk) pairs, as `vitesse tag` writes."""
import random

import pytest

import vitesse
from conftest import write_corpus


def joint_corpus(n, seed):
    """Sentences of (word, POS, chunk) rows: determiners and adjectives open noun phrases."""
    rng = random.Random(seed)
    lex = {"DT": ["the", "a"], "JJ": ["big", "red", "old"], "NN": ["dog", "cat", "car", "tree"],
           "VBZ": ["runs", "sees", "likes"], "IN": ["in", "on"]}
    sents = []
    for _ in range(n):
        rows = []
        for part in rng.choice([["NP", "VBZ", "NP"], ["NP", "VBZ", "IN", "NP"], ["NP", "VBZ"]]):
            if part == "NP":
                tags = ["DT"] + ["JJ"] * rng.randint(0, 2) + ["NN"]
                for i, tag in enumerate(tags):
                    rows.append([rng.choice(lex[tag]), tag, "B-NP" if i == 0 else "I-NP"])
            else:
                rows.append([rng.choice(lex[part]), part, "O"])
        sents.append(rows)
    return sents


@pytest.fixture(scope="module")
def joint(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("joint")
    write_corpus(d / "train.txt", joint_corpus(200, 1))
    test = joint_corpus(30, 2)
    write_corpus(d / "test.txt", test)
    cli("train", "--joint-chunk", "--train", d / "train.txt", "--epochs", 3, "--quiet", "-o",
        d / "joint.model")
    return d, test


def test_joint_tag_matches_the_cli(cli, joint):
    d, test = joint
    m = vitesse.Model(d / "joint.model")
    assert m.kind == "joint"
    assert "B-NP" in m.chunk_labels and "NN" in m.labels
    want, cur = [], []
    for line in cli("tag", "-m", d / "joint.model", d / "test.txt").splitlines():
        if line:
            cur.append(tuple(line.split()[-2:]))
        else:
            want.append(cur)
            cur = []
    rows = [[r[:1] for r in s] for s in test]
    assert [m.tag(s) for s in rows] == want
    assert m.tag_many(rows, threads=2) == want
