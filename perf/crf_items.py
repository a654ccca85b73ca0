#!/usr/bin/env python3
"""perf/crf_items.py: the corpora of a data folder as CRFsuite item files, for CRF training
benchmarks (perf/crf_train.sh) that give CRFsuite and vitesse the very same input.

    python3 perf/crf_items.py TASK SPLIT --data DIR [--max-sentences N] [--stats] > OUT.items

TASK (what is labelled, which columns the attributes see):
  chunk  CoNLL-2000 conll2000/{train,test}.txt (word POS chunk): label = chunk (22 labels);
         attributes from the word and the POS column.
  joint  CoNLL-2000: label = POS|chunk (319 labels); attributes from the word only.
  upos   UD English EWT ud-english-ewt/en_ewt-ud-{train,dev,test}.conllu: label = UPOS (17);
         attributes from the FORM only (XPOS is a finer copy of the label, so it is left out);
         comment lines, multiword-token lines (1-2) and empty nodes (8.1) are skipped.
  greek  AGLDT agldt-greek/{train,test}.tsv (tab-separated form lemma tag, `# sent_id` lines):
         label = the 9-character tag (945 labels in train); attributes from the form only.
SPLIT: train or test (upos: dev too). DIR (required, no default): the data folder, holding the
files above that TASK reads. --max-sentences N keeps the first N sentences. --stats writes one
line to stderr: sentences, items, distinct attributes, distinct labels.

Output: CRFsuite's item format: one token a line, `LABEL<TAB>ATTR<TAB>ATTR...`, an empty line
after each sentence. ':' and '\\' in labels and attributes are written `\\:` and `\\\\` (CRFsuite
unescapes both fields; a bare ':' would start a value). Every attribute has value 1 (no `:value`).

The attribute set (fixed; the usual CRFsuite chunking/NER attributes), for token t with word w[t]:
  w[k]=W          the word at offset k = -2..2 (only offsets inside the sentence)
  w[-1]|w[0]=A|B  word bigrams (inside the sentence)
  w[0]|w[1]=A|B
  lw=W            w[0] lowercased
  p1= p2= p3=     prefixes of w[0] of 1, 2, 3 characters (those not longer than the word)
  s1= s2= s3=     suffixes likewise
  shape=S         w[0] with upper-case letters as X, lower-case (and uncased) letters as x,
                  digits as d, other characters kept, runs of one class collapsed to one
  cap upper digit alldigit hyphen punct
                  flags, present only when true: first character upper case; every cased
                  character upper case (and at least one); some digit; only digits; some '-';
                  no letter or digit at all
  pos[k]=P        (chunk only) the POS at offset k = -2..2, inside the sentence
  pos[k]|pos[k+1]=P|Q  (chunk only) POS bigrams k = -2..1, inside the sentence
  __BOS__ __EOS__ the first / the last token of the sentence
Words are the corpus's forms unchanged (a few AGLDT forms hold a space, kept: fields are split
on tabs only).
"""
import argparse
import os
import sys

TASKS = {
    # task: (files per split, reader, label function, use POS attributes)
    "chunk": ({"train": "conll2000/train.txt", "test": "conll2000/test.txt"}, "conll", "chunk", True),
    "joint": ({"train": "conll2000/train.txt", "test": "conll2000/test.txt"}, "conll", "joint", False),
    "upos": ({"train": "ud-english-ewt/en_ewt-ud-train.conllu",
              "dev": "ud-english-ewt/en_ewt-ud-dev.conllu",
              "test": "ud-english-ewt/en_ewt-ud-test.conllu"}, "conllu", "upos", False),
    "greek": ({"train": "agldt-greek/train.tsv", "test": "agldt-greek/test.tsv"}, "agldt", "tag", False),
}


def sentences(path, token):
    """The sentences of a one-token-a-line file (a blank line ends one): token(line) gives a
    token, or None for a line to skip."""
    sent = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if sent:
                    yield sent
                sent = []
                continue
            tok = token(line)
            if tok is not None:
                sent.append(tok)
    if sent:
        yield sent


def read_conll(path):
    """CoNLL-2000: whitespace-separated `word POS chunk`; yields [(word, POS, chunk)]."""
    return sentences(path, lambda line: tuple(line.split()[:3]))


def conllu_token(line):
    """A CoNLL-U word line as (FORM, XPOS, UPOS); None for comments, ranges and empty nodes."""
    if line.startswith("#"):
        return None
    cols = line.split("\t")
    if "-" in cols[0] or "." in cols[0]:
        return None
    return (cols[1], cols[4], cols[3])


def read_conllu(path):
    """CoNLL-U: (FORM, XPOS, UPOS) of the word lines, no comments, ranges or empty nodes."""
    return sentences(path, conllu_token)


def read_agldt(path):
    """AGLDT: tab-separated `form lemma tag`, `#` comment lines; yields [(form, None, tag)]."""
    return sentences(path, lambda line: None if line.startswith("#")
                     else (line.split("\t")[0], None, line.split("\t")[2]))


READERS = {"conll": read_conll, "conllu": read_conllu, "agldt": read_agldt}


def esc(s):
    return s.replace("\\", "\\\\").replace(":", "\\:")


def shape(w):
    out = []
    for ch in w:
        if ch.isupper():
            c = "X"
        elif ch.isalpha():
            c = "x"
        elif ch.isdigit():
            c = "d"
        else:
            c = ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def attributes(words, pos, t):
    n = len(words)
    w = words[t]
    a = []
    for k in (-2, -1, 0, 1, 2):
        if 0 <= t + k < n:
            a.append("w[%d]=%s" % (k, words[t + k]))
    if t > 0:
        a.append("w[-1]|w[0]=%s|%s" % (words[t - 1], w))
    if t + 1 < n:
        a.append("w[0]|w[1]=%s|%s" % (w, words[t + 1]))
    a.append("lw=" + w.lower())
    for k in (1, 2, 3):
        if len(w) >= k:
            a.append("p%d=%s" % (k, w[:k]))
            a.append("s%d=%s" % (k, w[-k:]))
    a.append("shape=" + shape(w))
    if w[:1].isupper():
        a.append("cap")
    cased = [ch for ch in w if ch.isupper() or ch.islower()]
    if cased and all(ch.isupper() for ch in cased):
        a.append("upper")
    if any(ch.isdigit() for ch in w):
        a.append("digit")
        if all(ch.isdigit() for ch in w):
            a.append("alldigit")
    if "-" in w:
        a.append("hyphen")
    if not any(ch.isalnum() for ch in w):
        a.append("punct")
    if pos is not None:
        for k in (-2, -1, 0, 1, 2):
            if 0 <= t + k < n:
                a.append("pos[%d]=%s" % (k, pos[t + k]))
        for k in (-2, -1, 0, 1):
            if 0 <= t + k and t + k + 1 < n:
                a.append("pos[%d]|pos[%d]=%s|%s" % (k, k + 1, pos[t + k], pos[t + k + 1]))
    if t == 0:
        a.append("__BOS__")
    if t == n - 1:
        a.append("__EOS__")
    return a


def main():
    ap = argparse.ArgumentParser(description="corpora -> CRFsuite item files (see the module text)")
    ap.add_argument("task", choices=sorted(TASKS))
    ap.add_argument("split")
    ap.add_argument("--data", required=True,
                    help="the data folder (conll2000/, ud-english-ewt/, agldt-greek/)")
    ap.add_argument("--max-sentences", type=int, default=0, metavar="N",
                    help="keep the first N sentences (0: all)")
    ap.add_argument("--stats", action="store_true",
                    help="print sentences, items, distinct attributes and labels on stderr")
    args = ap.parse_args()
    files, reader, labelling, use_pos = TASKS[args.task]
    if args.split not in files:
        ap.error("task %s has the splits %s" % (args.task, ", ".join(sorted(files))))
    path = os.path.join(args.data, files[args.split])
    if not os.path.isfile(path):
        sys.exit("%s: %s: no such file (give the data folder with --data DIR)" % (sys.argv[0], path))
    out = sys.stdout
    n_sent = n_items = 0
    attrs, labels = set(), set()
    for sent in READERS[reader](path):
        if args.max_sentences and n_sent >= args.max_sentences:
            break
        words = [tok[0] for tok in sent]
        pos = [tok[1] for tok in sent] if use_pos else None
        lines = []
        for t, tok in enumerate(sent):
            label = tok[1] + "|" + tok[2] if labelling == "joint" else tok[2]
            a = attributes(words, pos, t)
            if args.stats:
                labels.add(label)
                attrs.update(a)
            lines.append(esc(label) + "\t" + "\t".join(esc(x) for x in a) + "\n")
        lines.append("\n")
        out.write("".join(lines))
        n_sent += 1
        n_items += len(sent)
    out.flush()
    if args.stats:
        sys.stderr.write("%s %s: sentences %d items %d attributes %d labels %d\n"
                         % (args.task, args.split, n_sent, n_items, len(attrs), len(labels)))


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        os._exit(0)
