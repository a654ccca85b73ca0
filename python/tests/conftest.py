"""Shared helpers of the vitesse pytest suite: the CLI to compare with, shared data paths."""
import os
import shutil
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.join(REPO, "..", "shared")


def cli_path():
    """The `vitesse` CLI: $VITESSE_CLI, the build tree of $VITESSE_BUILD_DIR, ./build, or PATH."""
    cands = [os.environ.get("VITESSE_CLI")]
    if os.environ.get("VITESSE_BUILD_DIR"):
        cands.append(os.path.join(os.environ["VITESSE_BUILD_DIR"], "vitesse"))
    cands += [os.path.join(REPO, "build", "vitesse"), shutil.which("vitesse")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI with the given arguments and returns its stdout (skips without one)."""
    path = cli_path()
    if not path:
        pytest.skip("no vitesse CLI (set VITESSE_CLI or VITESSE_BUILD_DIR)")

    def run(*args):
        return subprocess.run([path, *map(str, args)], check=True, capture_output=True,
                              text=True).stdout
    return run


def cli_sentences(cli, model, path, *args):
    """`vitesse tag -m MODEL ARGS PATH`'s output: per sentence (blank-line separated), its
    lines."""
    out, cur = [], []
    for line in cli("tag", "-m", model, *args, path).splitlines():
        if not line:
            out.append(cur)
            cur = []
        else:
            cur.append(line)
    return out


TEMPLATE = """# unigrams: the word, its neighbours, a 2-byte suffix; B: the label bigram
U00:%x[0,0]
U01:%x[-1,0]
U02:%x[1,0]
U03:%x[0,1]
U04:%m[0,0,".?.?$"]
B
"""


def make_corpus(n, seed, labels=6):
    """n sentences of (word, shape, label) rows: each word's label depends on the word and on
    the previous label, with some noise, so that a tagger has something to learn."""
    import random
    rng = random.Random(seed)
    words = ["w%d%s" % (i, "xyz"[i % 3]) for i in range(60)]
    sents = []
    for _ in range(n):
        prev, rows = 0, []
        for _ in range(rng.randint(1, 12)):
            w = rng.choice(words)
            y = (int(w[1:-1]) + prev) % labels if rng.random() > 0.1 else rng.randrange(labels)
            rows.append([w, "C" if w.endswith("x") else "l", "L%d" % y])
            prev = y
        sents.append(rows)
    return sents


def write_corpus(path, sents):
    with open(path, "w") as f:
        for rows in sents:
            for r in rows:
                f.write(" ".join(r) + "\n")
            f.write("\n")


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """(dir, train sentences, test sentences) with train.txt, test.txt and template.txt."""
    d = tmp_path_factory.mktemp("corpus")
    train, test = make_corpus(300, 1), make_corpus(80, 2)
    write_corpus(d / "train.txt", train)
    write_corpus(d / "test.txt", test)
    (d / "template.txt").write_text(TEMPLATE)
    return d, train, test


@pytest.fixture(scope="session")
def cli_model(cli, corpus):
    """A tagger trained by the CLI on the corpus."""
    d = corpus[0]
    cli("train", "--template", d / "template.txt", "--train", d / "train.txt", "--epochs", 3,
        "--quiet", "-o", d / "cli.model")
    return d / "cli.model"
