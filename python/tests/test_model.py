"""vitesse.Model: tagging sentences held in Python and corpus files, as `vitesse tag` does."""
import threading

import pytest

import vitesse
from conftest import cli_sentences


def cli_tags(cli, model, path, *args):
    """Per sentence, the label column of `vitesse tag` (k = 1)."""
    return [[line.split()[-1] for line in sent] for sent in cli_sentences(cli, model, path, *args)]


def cli_kbest(cli, model, path, k):
    """Per sentence, the (score text, labels) of `vitesse tag -k K`."""
    out, paths, cur, head = [], [], [], None
    for line in cli("tag", "-m", model, "-k", k, path).splitlines() + [""]:
        if line.startswith("# "):
            head = line.split()[2]
        elif line:
            cur.append(line.split()[-1])
        elif head is not None:
            paths.append((head, cur))
            cur, head = [], None
            if len(paths) == k:
                out.append(paths)
                paths = []
    return out


def test_labels_kind_info(cli_model):
    m = vitesse.Model(str(cli_model))
    assert m.kind == "tagger"
    assert sorted(m.labels) == ["L%d" % i for i in range(6)]
    assert m.path == str(cli_model)
    assert m.info["labels"] == 6 and "U00" in m.info["templates"]
    assert m.chunk_labels == []


def test_tag_and_tag_many_match_the_cli(cli, corpus, cli_model):
    d, _, test = corpus
    m = vitesse.Model(cli_model)
    want = cli_tags(cli, cli_model, d / "test.txt")
    rows = [[r[:2] for r in s] for s in test]
    assert [m.tag(s) for s in rows] == want
    with_label = [m.tag(s) for s in test]  # a label column may be present
    assert with_label == want
    for threads in (0, 1, 3):
        assert m.tag_many(rows, threads=threads) == want
    for algo in ("viterbi", "staggered-col", "iter-viterbi-astar"):
        assert m.tag_many(rows, algo=algo, threads=2) == want


def test_k_best_matches_the_cli(cli, corpus, cli_model):
    d, _, test = corpus
    m = vitesse.Model(cli_model)
    want = cli_kbest(cli, cli_model, d / "test.txt", 3)
    rows = [[r[:2] for r in s] for s in test]
    for got in ([m.tag(s, k=3) for s in rows], m.tag_many(rows, k=3, threads=2)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            # a sentence with fewer than 3 paths: the CLI repeats nothing; compare what is there
            assert [("%.9g" % s, y) for s, y in g] == w[:len(g)]


def test_tag_file_writes_the_bytes_of_the_cli(cli, corpus, cli_model, tmp_path):
    d = corpus[0]
    m = vitesse.Model(cli_model)
    rep = m.tag_file(str(d / "test.txt"), tmp_path / "out.txt", threads=2)
    assert rep["sentences"] == 80
    assert (tmp_path / "out.txt").read_text() == cli("tag", "-m", cli_model, d / "test.txt")
    m.tag_file([d / "test.txt", d / "test.txt"], tmp_path / "two.txt", k=2)
    assert (tmp_path / "two.txt").read_text() == cli("tag", "-m", cli_model, "-k", 2,
                                                     d / "test.txt", d / "test.txt")


def test_from_bytes_and_one_column_rows(cli_model):
    m = vitesse.Model.from_bytes(cli_model.read_bytes())
    assert m.path is None and len(m.labels) == 6
    one = vitesse.Model(cli_model)
    # plain strings are one-column rows; the model reads column 1 too, so it must fail cleanly
    with pytest.raises(vitesse.Error, match="column"):
        one.tag(["w1x", "w2y"])
    assert m.tag([]) == []


def test_errors(tmp_path, cli_model):
    with pytest.raises(vitesse.FileError) as e:
        vitesse.Model(tmp_path / "missing.model")
    assert "missing.model" in str(e.value) and isinstance(e.value, OSError)
    (tmp_path / "bad.model").write_bytes(b"not a model at all" * 10)
    with pytest.raises(vitesse.Error, match="bad.model"):
        vitesse.Model(tmp_path / "bad.model")
    with pytest.raises(vitesse.Error):
        vitesse.Model.from_bytes(b"garbage")
    m = vitesse.Model(cli_model)
    with pytest.raises(ValueError, match="columns"):
        m.tag([["a", "b"], ["c"]])
    with pytest.raises(TypeError):
        m.tag([["a", 3]])
    with pytest.raises(vitesse.FileError):
        m.tag_file(tmp_path / "nope.txt", tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()
    with pytest.raises(ValueError, match="sentence 0, token 1: a str with an embedded NUL"):
        m.tag([["He", "x"], ["H\0e", "x"]])
    with pytest.raises(ValueError, match="threads must be in 0..4096"):
        m.tag_many([[["He", "x"]]], threads=10**6)
    with pytest.raises(ValueError, match="threads must be in 0..4096"):
        m.tag_file(tmp_path / "nope.txt", tmp_path / "out.txt", threads=10**6)


def test_threads_share_one_model(corpus, cli_model):
    _, _, test = corpus
    m = vitesse.Model(cli_model)
    want = [m.tag(s) for s in test]
    got = [None] * 4

    def work(i):
        got[i] = [m.tag(s) for s in test]
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == [want] * 4


def test_many_tag_calls_keep_rss_flat(corpus, cli_model):
    from test_decode_runtime import rss_bytes
    m = vitesse.Model(cli_model)
    sent = [r[:2] for r in corpus[2][0]]
    for i in range(2000):  # warm up: the tagger cache, tag_many's threads and their arenas
        m.tag(sent, k=1 + i // 1000)
        if i % 100 == 0:
            m.tag_many([sent, sent], threads=2)
    before = rss_bytes()
    for i in range(20000):
        m.tag(sent, k=1 + (i // 1000) % 2)
        if i % 100 == 0:
            m.tag_many([sent, sent], threads=2)
    assert rss_bytes() - before < 4 << 20


def test_max_model_memory_refuses_a_model_before_allocating(tmp_path):
    """A CRF++ model declaring 2,000 labels (123 MiB of L x L tables) is refused under a 100 MB
    bound with the library's message, and opens once the bound is back to its default."""
    lines = ["version: 100", "cost-factor: 1", "maxid: 2000", "xsize: 1", ""]
    lines += ["l%d" % i for i in range(2000)] + ["", "U00:%x[0,0]", "", "0 U00:a", ""]
    lines += ["0.5"] * 2000
    path = tmp_path / "many.crfpp"
    path.write_text("\n".join(lines) + "\n")
    default = vitesse.max_model_memory()
    assert default > 100 << 20
    try:
        assert vitesse.max_model_memory(100 << 20) == 100 << 20
        with pytest.raises(vitesse.Error, match="a model of 2000 labels needs 123 MiB, more than "
                                                "the bound of 100 MiB"):
            vitesse.Model(str(path))
    finally:
        assert vitesse.max_model_memory(0) == default
    assert vitesse.Model(str(path)).labels[1999] == "l1999"
    with pytest.raises(ValueError, match="expected a number of bytes"):
        vitesse.max_model_memory(-1)
