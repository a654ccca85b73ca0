"""CRF training from Python: vitesse.train_items on CRFsuite items (files, or python-crfsuite's
sequences in memory) and vitesse.train(algorithm='lbfgs'|'l2sgd') over templates."""
import math
import random

import pytest

import vitesse
from conftest import TEMPLATE

LABELS = ["B:NP", "I\\NP", "O", "B-VP", "I-VP"]  # ':' and '\' need CRFsuite's escapes


def item_corpus(n, seed):
    """n sequences of (items, labels): an item a python-crfsuite dict, its label mostly
    decided by the word, else by the previous label; one attribute of another weight."""
    rng = random.Random(seed)
    seqs = []
    for _ in range(n):
        xseq, yseq, prev = [], [], 2
        for t in range(rng.randint(1, 9)):
            w = rng.randrange(23)
            y = w % 5 if rng.random() >= 0.2 else (prev + 1) % 5
            item = {"w": str(w), "c": str(w % 4), "suf": {str(w % 3): 0.5 + (w % 4) / 4},
                    "x:y": True}
            item.update({"pw": str(xseq[-1]["w"])} if t else {"__BOS__": 1})
            xseq.append(item)
            yseq.append(LABELS[y])
            prev = y
        seqs.append((xseq, yseq))
    return seqs


def esc(s):
    return s.replace("\\", "\\\\").replace(":", "\\:")


def write_items(path, seqs):
    """The item file of item_corpus's sequences, written out by hand (escapes, weights)."""
    with open(path, "w") as f:
        for xseq, yseq in seqs:
            for item, y in zip(xseq, yseq):
                (k, v), = item["suf"].items()
                rest = "pw\\:" + item["pw"] if "pw" in item else "__BOS__"
                f.write("%s\tw\\:%s\tc\\:%s\tsuf\\:%s:%r\tx\\:y\t%s\n"
                        % (esc(y), item["w"], item["c"], k, v, rest))
            f.write("\n")


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    """(dir, train sequences, dev sequences) with train.items and dev.items."""
    d = tmp_path_factory.mktemp("items")
    train, dev = item_corpus(80, 1), item_corpus(30, 2)
    write_items(d / "train.items", train)
    write_items(d / "dev.items", dev)
    return d, train, dev


def test_loss_at_the_start_and_lbfgs_lowers_it(items):
    d, train, _ = items
    seen = []
    m = vitesse.train_items(d / "train.items", max_iterations=20, on_iteration=seen.append)
    n_items = sum(len(y) for _, y in train)
    assert seen[0]["iteration"] == 0 and seen[0]["active_features"] == 0
    # at w = 0 every labelling is equally likely: the loss is sum T log L
    assert seen[0]["loss"] == pytest.approx(n_items * math.log(len(LABELS)), rel=1e-12)
    assert [r["iteration"] for r in seen] == list(range(21))
    assert seen[-1]["loss"] < 0.7 * seen[0]["loss"]
    assert set(seen[0]) == {"iteration", "evaluations", "loss", "feature_norm", "error_norm",
                            "active_features", "step", "seconds", "total_seconds",
                            "eval_seconds", "dev_accuracy"}
    assert all(0 <= r["eval_seconds"] <= r["seconds"] for r in seen[1:])
    rep = m.train_report
    assert m.kind == "crfsuite" and m.path is None
    assert rep["algorithm"] == "lbfgs" and rep["epochs"] == 20
    assert rep["loss"] == seen[-1]["loss"]
    assert rep["sentences"] == len(train) and rep["tokens"] == n_items
    assert sorted(m.labels) == sorted(LABELS)  # the escaped labels read back whole


def test_l1_gives_fewer_active_features(items):
    d = items[0]
    active = {}
    for c1 in (0, 2.0):
        seen = []
        m = vitesse.train_items(d / "train.items", c1=c1, c2=0.1, max_iterations=30,
                                on_iteration=seen.append)
        active[c1] = (seen[-1]["active_features"], m.train_report["model_features"])
    assert active[2.0][0] < active[0][0]
    assert active[2.0][1] < active[0][1]


def tagged_labels(path):
    return [line for line in open(path).read().split("\n") if line]


def test_the_model_tags_its_training_items(items, tmp_path):
    d, train, dev = items
    m = vitesse.train_items(d / "train.items", dev=d / "dev.items", max_iterations=50,
                            path=tmp_path / "m.crfsuite")
    assert m.path == str(tmp_path / "m.crfsuite")
    assert (tmp_path / "m.crfsuite").read_bytes()[:4] == b"lCRF"  # CRFsuite's crf1d file
    rep = m.tag_file(d / "train.items", tmp_path / "tagged.txt")
    assert rep["sentences"] == len(train)
    gold = [y for _, ys in train for y in ys]
    got = tagged_labels(tmp_path / "tagged.txt")
    assert len(got) == len(gold)
    accuracy = sum(g == y for g, y in zip(gold, got)) / len(gold)
    assert accuracy > 0.75
    assert 0.5 < m.train_report["dev_accuracy"] <= 1.0
    # reopened from its file, it tags the same
    again = vitesse.Model(tmp_path / "m.crfsuite")
    again.tag_file(d / "train.items", tmp_path / "again.txt")
    assert tagged_labels(tmp_path / "again.txt") == got


def respell(item):
    """python-crfsuite's other spellings of an item_corpus item's attributes: a list of names
    where every weight is 1, else {k: 'v'} for 'k:v', bytes values, a nested list."""
    (k, v), = item["suf"].items()
    if v == 1.0:
        names = ["w:" + item["w"], "c:" + item["c"], "suf:" + k, "x:y"]
        return names + (["pw:" + item["pw"]] if "pw" in item else ["__BOS__"])
    rest = {"pw": item["pw"]} if "pw" in item else {"__BOS__": 1.0}
    return {"w": item["w"], "c": item["c"].encode(), "suf": {k: v}, "x": ["y"], **rest}


def test_sequences_in_memory_are_the_item_file(items, tmp_path):
    d, train, dev = items
    a = vitesse.train_items(d / "train.items", dev=d / "dev.items", max_iterations=10,
                            path=tmp_path / "a")
    b = vitesse.train_items(train, dev=dev, max_iterations=10, path=tmp_path / "b")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert a.train_report["dev_accuracy"] == b.train_report["dev_accuracy"]
    X = [[respell(item) for item in xseq] for xseq, _ in train]
    y = [yseq for _, yseq in train]
    vitesse.train_items(zip(X, y), dev=d / "dev.items", max_iterations=10, path=tmp_path / "c")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "c").read_bytes()


def test_same_model_as_the_cli(cli, items, tmp_path):
    d = items[0]
    cli("train", "--algo", "lbfgs", "--items", d / "train.items", "--max-iterations", 8,
        "--c1", 0.1, "--quiet", "-o", tmp_path / "cli.model")
    vitesse.train_items(str(d / "train.items"), max_iterations=8, c1=0.1,
                        path=tmp_path / "py.model")
    assert (tmp_path / "py.model").read_bytes() == (tmp_path / "cli.model").read_bytes()


def test_same_bytes_for_any_thread_count(items, corpus, tmp_path):
    d = items[0]
    for algorithm in ("lbfgs", "l2sgd"):
        for t in (1, 2):
            vitesse.train_items(d / "train.items", algorithm=algorithm, max_iterations=6,
                                threads=t, path=tmp_path / ("%s.%d" % (algorithm, t)))
        assert (tmp_path / (algorithm + ".1")).read_bytes() == \
            (tmp_path / (algorithm + ".2")).read_bytes()
    sents = corpus[1][:100]
    for t in (1, 2):
        vitesse.train(TEMPLATE, sents, algorithm="lbfgs", max_iterations=6, threads=t,
                      path=tmp_path / ("tagger.%d" % t))
    assert (tmp_path / "tagger.1").read_bytes() == (tmp_path / "tagger.2").read_bytes()


def test_continuing_from_a_model_starts_at_its_loss(items, tmp_path):
    d = items[0]
    first = vitesse.train_items(d / "train.items", max_iterations=5, path=tmp_path / "a")
    seen = []
    more = vitesse.train_items(d / "train.items", max_iterations=3, init_model=tmp_path / "a",
                               on_iteration=seen.append)
    assert seen[0]["iteration"] == 0
    assert seen[0]["loss"] == pytest.approx(first.train_report["loss"], rel=1e-12)
    assert more.train_report["loss"] < first.train_report["loss"]


def test_crf_over_templates_and_sentences_in_memory(corpus, tmp_path):
    d, train, test = corpus
    seen = []
    m = vitesse.train(TEMPLATE, train, dev=test, algorithm="lbfgs", max_iterations=25,
                      on_iteration=seen.append, path=tmp_path / "crf.model")
    assert m.kind == "tagger" and m.train_report["algorithm"] == "lbfgs"
    assert m.train_report["epochs"] == 25 and seen[-1]["loss"] < 0.9 * seen[0]["loss"]
    assert m.train_report["loss"] == seen[-1]["loss"]
    # the model file tags the dev sentences as the trainer's own evaluation did (a hard
    # corpus: the templates do not see the previous label the labels depend on)
    rows = [[r[:2] for r in s] for s in test]
    gold = [r[2] for s in test for r in s]
    got = [y for s in m.tag_many(rows) for y in s]
    accuracy = sum(g == y for g, y in zip(gold, got)) / len(gold)
    assert accuracy == pytest.approx(m.train_report["dev_accuracy"], abs=0.01)
    assert accuracy > 1.2 / 6  # above chance
    # the same model from the corpus file
    vitesse.train(d / "template.txt", str(d / "train.txt"), dev=str(d / "test.txt"),
                  algorithm="lbfgs", max_iterations=25, path=tmp_path / "file.model")
    assert (tmp_path / "file.model").read_bytes() == (tmp_path / "crf.model").read_bytes()
    sgd = vitesse.train(TEMPLATE, train, algorithm="l2sgd", max_iterations=5)
    assert sgd.train_report["algorithm"] == "l2sgd" and sgd.train_report["epochs"] == 5


def test_on_iteration_stops_and_raises(items):
    d = items[0]
    m = vitesse.train_items(d / "train.items", on_iteration=lambda r: r["iteration"] == 2)
    assert m.train_report["epochs"] == 2

    def boom(r):
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        vitesse.train_items(d / "train.items", on_iteration=boom)


def test_verbose_prints_a_line_per_iteration(items, corpus, capsys):
    d = items[0]
    vitesse.train_items(d / "train.items", dev=d / "dev.items", max_iterations=3,
                        verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err] == ["iteration %d" % i for i in range(4)]
    assert "dev item accuracy" in err[-1]
    vitesse.train(TEMPLATE, corpus[1], algorithm="l2sgd", max_iterations=2, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err] == ["iteration %d" % i for i in range(3)]


def test_bad_item_files(items, tmp_path):
    d = items[0]
    (tmp_path / "nan.items").write_text("A\tx\n\nB\ta:nan\n")
    with pytest.raises(vitesse.Error, match=r"nan\.items:3: .*'a'.*not a finite number"):
        vitesse.train_items(tmp_path / "nan.items")
    with pytest.raises(vitesse.FileError, match="nope.items"):
        vitesse.train_items(tmp_path / "nope.items")
    (tmp_path / "empty.items").write_text("\n\n")
    with pytest.raises(vitesse.Error, match="empty.items: no sequence to train on"):
        vitesse.train_items(tmp_path / "empty.items")


def test_the_extensions_item_writer_is_the_python_one(tmp_path):
    """Lists of common items are written by the extension; the bytes are those of the Python
    writer (which takes the rest), on random items with escapes, weights and odd values."""
    from vitesse._items import _write_items
    rng = random.Random(5)
    names = ["w", "a:b", "c\\d", "\\:", "é", "x" * 40, "p:q:r"]
    values = ["v", "1:2", "\\", "", "ü:", True, False, 0, 1, 1.0, 2, -0.5, 1e-300, 3.25e21,
              10 ** 30, 0.1]

    def item():
        if rng.random() < 0.3:
            return [rng.choice(names) for _ in range(rng.randint(0, 4))]
        return {rng.choice(names) + str(i): rng.choice(values) for i in range(rng.randint(0, 5))}

    for rep in range(20):
        pairs = []
        for _ in range(rng.randint(1, 8)):
            n = rng.randint(0, 6)
            pairs.append(([item() for _ in range(n)],
                          [rng.choice(["O", "B:X", "I\\Y"]) for _ in range(n)]))
        if not any(x for x, _ in pairs):
            continue
        written = vitesse._vitesse.write_items(pairs, str(tmp_path / "c.items"))
        assert written == sum(1 for x, _ in pairs if x), rep  # the extension wrote them all
        _write_items(iter(pairs), tmp_path / "p.items", "train")  # not a list: Python
        assert (tmp_path / "c.items").read_bytes() == (tmp_path / "p.items").read_bytes(), rep
    # what the extension leaves to Python still comes out right (a tuple item, bytes label)
    pairs = [([("a", "b"), {"n": {"x": 1}}], [b"L", "M"])]
    assert vitesse._vitesse.write_items(pairs, str(tmp_path / "c.items")) is None
    _write_items(pairs, tmp_path / "c.items", "train")
    assert (tmp_path / "c.items").read_text() == "L\ta\tb\nM\tn\\:x\n\n"


def test_bad_sequences_in_memory():
    good = ([["a", "b"], {"c": "d"}], ["X", "Y"])
    cases = [
        ([([["a"]], ["X", "Y"])], ValueError, r"train\[0\]: 1 items but 2 labels"),
        ([([["a\tb"]], ["X"])], ValueError, "a tab"),
        ([([["a"]], ["X\nY"])], ValueError, "a newline"),
        ([([{"w": float("nan")}], ["X"])], ValueError, "weights must be finite"),
        ([(["ab"], ["X"])], TypeError, "not a str"),
        ([([{"w": None}], ["X"])], TypeError, "the value of 'w'"),
        ([([["a"]], [""])], ValueError, "the label is empty"),
        ([([[""]], ["X"])], ValueError, "is empty"),
        ([([], [])], ValueError, "train has no items"),
        (([good[0]], [good[1]]), TypeError, r"zip\(X, y\)"),  # sklearn's (X, y), not pairs
        ([good, "x.items"], TypeError, "mixes"),
    ]
    for train, exc, match in cases:
        with pytest.raises(exc, match=match):
            vitesse.train_items(train, max_iterations=1)


def test_bad_parameters(items, corpus, cli_model):
    d = items[0]
    sents = corpus[1]
    for bad in ("newton", "ap", None):
        with pytest.raises(ValueError, match="algorithm must be"):
            vitesse.train(TEMPLATE, sents, algorithm=bad)
    with pytest.raises(ValueError, match="algorithm must be 'lbfgs', 'l2sgd', 'ap', 'pa' or "
                                         "'arow'"):
        vitesse.train_items(d / "train.items", algorithm="perceptron")
    with pytest.raises(ValueError, match="linesearch must be"):
        vitesse.train_items(d / "train.items", linesearch="Newton")
    # CRF parameters with the perceptron, the perceptron's with a CRF
    for kw in ({"c1": 0.5}, {"c2": 2}, {"max_iterations": 5}, {"all_possible_states": True},
               {"linesearch": "Backtracking"}, {"on_iteration": print}):
        with pytest.raises(ValueError, match="is a CRF parameter"):
            vitesse.train(TEMPLATE, sents, **kw)
    for kw in ({"callback": print}, {"progress": print}, {"epochs": 3}):
        with pytest.raises(ValueError, match="the perceptron's"):
            vitesse.train(TEMPLATE, sents, algorithm="lbfgs", **kw)
    # out of range: the library says so
    with pytest.raises(vitesse.Error, match="bad L-BFGS parameter"):
        vitesse.train_items(d / "train.items", c1=-1)
    with pytest.raises(vitesse.Error, match="bad L-BFGS parameter"):
        vitesse.train(TEMPLATE, sents, algorithm="lbfgs", c2=-0.5)
    with pytest.raises(vitesse.Error, match="bad L-BFGS parameter"):
        vitesse.train_items(d / "train.items", num_memories=0)
    with pytest.raises(vitesse.Error, match="l2sgd needs c2 > 0 and no c1"):
        vitesse.train_items(d / "train.items", algorithm="l2sgd", c1=0.1)
    with pytest.raises(vitesse.Error, match="min_freq"):
        vitesse.train_items(d / "train.items", min_freq=-1)
    with pytest.raises(vitesse.Error, match="observation-dependent"):
        vitesse.train("U00:%x[0,0]\nB01:%x[0,0]\n", sents, algorithm="lbfgs")
    with pytest.raises(vitesse.Error, match="cli.model"):
        vitesse.train_items(d / "train.items", init_model=cli_model)
    with pytest.raises(TypeError, match="max_iterations must be an int"):
        vitesse.train_items(d / "train.items", max_iterations=1.5)
    with pytest.raises(ValueError, match="threads must be in"):
        vitesse.train_items(d / "train.items", threads=-1)


def test_train_report_says_why_training_stopped():
    seqs = item_corpus(30, 5)
    capped = vitesse.train_items(seqs, algorithm="lbfgs", max_iterations=2)
    assert capped.train_report["stop_reason"] == "iteration cap reached"
    sgd = vitesse.train_items(seqs, algorithm="l2sgd", max_iterations=2)
    assert sgd.train_report["stop_reason"] == "epoch cap reached"


def test_labels_a_model_cannot_hold_are_refused_before_training(tmp_path):
    """A label with a control byte (the model loader refuses it) is refused when the data is
    read, naming the sequence and item (memory) or the file and line, never after training
    with a message about a temporary file; a CRLF item file is refused at its first line."""
    import vitesse.pycrfsuite as pycrfsuite
    from vitesse.sklearn import CRF
    for label in ["\r", "B\rX", "\x01", "B\x0b", "\x1f", "\x7f"]:
        code = "0x%02x" % ord(next(ch for ch in label if ch < " " or ch == "\x7f"))
        pairs = [([["a"], {"w": "b"}], ["A", label])]
        with pytest.raises(vitesse.Error, match=r"train\[0\] item 1: the label holds the control "
                                                "byte %s" % code):
            vitesse.train_items(pairs, max_iterations=1)
        with pytest.raises(vitesse.Error, match="the label holds the control byte " + code) as e:
            CRF(max_iterations=1).fit([x for x, _ in pairs], [y for _, y in pairs])
        assert ".items" not in str(e.value)  # no temporary file the caller never saw
        with pytest.raises(vitesse.Error, match="sequence 0 label 1: the label holds the "
                                                "control byte " + code):
            pycrfsuite.Trainer().append(pairs[0][0], pairs[0][1])
        path = tmp_path / "c.items"
        path.write_bytes(b"A\tw=1\n" + label.encode() + b"X\tw=2\n\n")
        with pytest.raises(vitesse.Error, match=r"c\.items:2: the label holds the control byte "
                                                + code):
            vitesse.train_items(path, max_iterations=1)
    (tmp_path / "crlf.items").write_bytes(b"A\tw=1\r\nB\tw=2\r\n\r\nA\tw=3\r\n")
    with pytest.raises(vitesse.Error, match=r"crlf\.items:1: the line ends in CR"):
        vitesse.train_items(tmp_path / "crlf.items", max_iterations=1)
    # what is accepted trains and loads: UTF-8 and spaces in labels
    m = vitesse.train_items([([["a"], ["b"]], ["é", "B x"])], max_iterations=2)
    assert sorted(m.labels) == ["B x", "é"]


def test_a_truncated_gz_item_file_is_an_error_naming_it(tmp_path):
    import gzip
    seqs = item_corpus(2000, 7)
    write_items(tmp_path / "full.items", seqs)
    data = gzip.compress((tmp_path / "full.items").read_bytes())
    (tmp_path / "cut.items.gz").write_bytes(data[:len(data) * 2 // 3])
    (tmp_path / "full.items.gz").write_bytes(data)
    assert vitesse.train_items(tmp_path / "full.items.gz", max_iterations=1).labels
    with pytest.raises(vitesse.Error, match=r"cut\.items\.gz: corrupt or truncated gzip data"):
        vitesse.train_items(tmp_path / "cut.items.gz", max_iterations=1)
    with pytest.raises(vitesse.Error, match=r"cut\.items\.gz: corrupt or truncated gzip data"):
        vitesse.train_items(tmp_path / "full.items.gz", dev=tmp_path / "cut.items.gz",
                            max_iterations=1)
