#!/usr/bin/env python3
"""perf/sklearn_tutorial.py: sklearn-crfsuite's tutorial with the import changed, beside CRFsuite.

    python3 perf/sklearn_tutorial.py --data DIR [--crfsuite BIN] [--iterations N] [--out DIR]
                                     [--rounds R]

DIR (required, no default): a folder holding conll2000/train.txt and conll2000/test.txt.

The tutorial's features (those of sklearn-crfsuite's CoNLL-2002 tutorial, written here: the word
lower-cased, its last 3 and 2 characters, isupper, istitle, isdigit, the POS tag and its first 2
characters, the same at -1 and +1, BOS and EOS) over CoNLL-2000 chunking (word, POS, chunk: a
corpus with the tutorial's columns, standing in for CoNLL-2002), trained by
``vitesse.sklearn.CRF(algorithm='lbfgs', c1=0.1, c2=0.1, max_iterations=N,
all_possible_transitions=True)`` on one thread (OMP_NUM_THREADS=1), and by ``crfsuite learn``
with the same parameters on the same items written as an item file (sklearn-crfsuite itself
cannot be installed here: CRFsuite's CLI is what it runs), the two fits alternated R rounds
(default 3). Prints, for both: fit seconds (wall, feature extraction excluded; each round's and
their median), seconds per iteration, the test set's flat F1 (weighted over the
labels other than O, as the tutorial's metrics.flat_f1_score) and item accuracy; then how far
vitesse's predict_marginals and path probabilities are from ``crfsuite tag -i`` / ``-p`` on
CRFsuite's own model (opened by vitesse.pycrfsuite.Tagger).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time



def read_conll(path):
    sents, cur = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                if cur:
                    sents.append(cur)
                cur = []
            else:
                cur.append(p)
    if cur:
        sents.append(cur)
    return sents


def word2features(sent, i):
    """The feature dict of sklearn-crfsuite's tutorial for token i of `sent` (rows of word and
    POS): the same names and values, in the same order (written here, not copied)."""
    word, pos = sent[i][0], sent[i][1]
    f = {"bias": 1.0, "word.lower()": word.lower(), "word[-3:]": word[-3:],
         "word[-2:]": word[-2:], "word.isupper()": word.isupper(),
         "word.istitle()": word.istitle(), "word.isdigit()": word.isdigit(), "postag": pos,
         "postag[:2]": pos[:2]}
    for j, side, edge in ((i - 1, "-1:", "BOS"), (i + 1, "+1:", "EOS")):
        if 0 <= j < len(sent):
            w, p = sent[j][0], sent[j][1]
            f.update({side + "word.lower()": w.lower(), side + "word.istitle()": w.istitle(),
                      side + "word.isupper()": w.isupper(), side + "postag": p,
                      side + "postag[:2]": p[:2]})
        else:
            f[edge] = True
    return f


def flat_f1(y_true, y_pred, labels):
    """sklearn's f1_score(average='weighted') over the flattened labels, restricted to
    `labels` (the tutorial's metrics.flat_f1_score)."""
    tp, fp, fn, support = {}, {}, {}, {}
    for ts, ps in zip(y_true, y_pred):
        for t, p in zip(ts, ps):
            support[t] = support.get(t, 0) + 1
            if t == p:
                tp[t] = tp.get(t, 0) + 1
            else:
                fp[p] = fp.get(p, 0) + 1
                fn[t] = fn.get(t, 0) + 1
    total = sum(support.get(lab, 0) for lab in labels)
    f = 0.0
    for lab in labels:
        a, b, c = tp.get(lab, 0), fp.get(lab, 0), fn.get(lab, 0)
        prec = a / (a + b) if a + b else 0.0
        rec = a / (a + c) if a + c else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        f += f1 * support.get(lab, 0)
    return f / total if total else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True,
                    help="a folder holding conll2000/train.txt and conll2000/test.txt")
    ap.add_argument("--crfsuite", default="/tmp/peer/bin/crfsuite")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--out", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"
    import vitesse
    import vitesse.pycrfsuite as pycrfsuite
    from vitesse._items import _write_items
    from vitesse.sklearn import CRF

    train = read_conll(os.path.join(a.data, "conll2000", "train.txt"))
    test = read_conll(os.path.join(a.data, "conll2000", "test.txt"))
    X = [[word2features(s, i) for i in range(len(s))] for s in train]
    y = [[t[-1] for t in s] for s in train]
    Xt = [[word2features(s, i) for i in range(len(s))] for s in test]
    yt = [[t[-1] for t in s] for s in test]
    out = a.out or tempfile.mkdtemp(prefix="sklearn-tutorial-")
    os.makedirs(out, exist_ok=True)
    params = dict(c1=0.1, c2=0.1, max_iterations=a.iterations, all_possible_transitions=True)

    items = os.path.join(out, "train.items")
    _write_items(zip(X, y), items, "train")
    test_items = os.path.join(out, "test.items")
    _write_items(zip(Xt, yt), test_items, "test")
    model = os.path.join(out, "crfsuite.model")
    cmd = [a.crfsuite, "learn", "-a", "lbfgs", "-p", "c1=0.1", "-p", "c2=0.1",
           "-p", "max_iterations=%d" % a.iterations, "-p", "feature.possible_transitions=1",
           "-m", model, items]
    v_fits, c_fits = [], []
    for r in range(a.rounds):  # alternated, so that the machine's load falls on both
        t0 = time.perf_counter()
        crf = CRF(algorithm="lbfgs", **params).fit(X, y)
        v_fits.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        log = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        c_fits.append(time.perf_counter() - t0)
        print("round %d: fit crfsuite %.2f s, vitesse %.2f s (%.2fx)"
              % (r + 1, c_fits[-1], v_fits[-1], c_fits[-1] / v_fits[-1]), flush=True)
    v_fit = sorted(v_fits)[len(v_fits) // 2]
    c_fit = sorted(c_fits)[len(c_fits) // 2]
    v_iters = crf.training_log_.iterations
    v_per = sorted(i["time"] for i in v_iters[1:])[len(v_iters[1:]) // 2]
    v_pred = crf.predict(Xt)
    labels = [lab for lab in crf.classes_ if lab != "O"]
    secs = [float(x) for x in re.findall(r"Seconds required for this iteration: ([0-9.]+)", log)]
    c_per = sorted(secs[1:])[len(secs[1:]) // 2]
    tagged = subprocess.run([a.crfsuite, "tag", "-p", "-i", "-m", model, test_items],
                            capture_output=True, text=True, check=True).stdout
    c_pred, c_marg, c_prob, cur, cm = [], [], [], [], []
    for line in tagged.splitlines():
        if line.startswith("@probability"):
            c_prob.append(float(line.split("\t")[1]))
        elif line.startswith("@"):
            continue
        elif not line:
            c_pred.append(cur)
            c_marg.append(cm)
            cur, cm = [], []
        else:
            lab, m = line.rsplit(":", 1)
            cur.append(lab)
            cm.append(float(m))

    tagger = pycrfsuite.Tagger()
    tagger.open(model)
    d_marg = d_prob = 0.0
    same = 0
    for x, labs, ms, p in zip(Xt, c_pred, c_marg, c_prob):
        ours = tagger.tag(x)
        same += ours == labs
        d_prob = max(d_prob, abs(tagger.probability(ours) - p))
        for t, (lab, m) in enumerate(zip(labs, ms)):
            d_marg = max(d_marg, abs(tagger.marginal(lab, t) - m))

    def acc(pred):
        n = sum(len(s) for s in yt)
        return sum(a == b for p, g in zip(pred, yt) for a, b in zip(p, g)) / n

    print("sentences: train %d, test %d; features: vitesse %d state + %d transitions"
          % (len(X), len(Xt), len(crf.state_features_), len(crf.transition_features_)))
    print("| trainer | fit seconds | s/iteration (median) | iterations | test F1 (weighted, "
          "not O) | item accuracy |")
    print("|---|---|---|---|---|---|")
    print("| crfsuite learn (one thread) | %.2f | %.4f | %d | %.4f | %.4f |"
          % (c_fit, c_per, len(secs), 100 * flat_f1(yt, c_pred, labels), 100 * acc(c_pred)))
    print("| vitesse.sklearn.CRF, 1 thread | %.2f | %.4f | %d | %.4f | %.4f |"
          % (v_fit, v_per, len(v_iters), 100 * flat_f1(yt, v_pred, labels), 100 * acc(v_pred)))
    print("fit (medians of %d rounds): crfsuite / vitesse = %.2fx; per iteration %.2fx"
          % (a.rounds, c_fit / v_fit, c_per / v_per))
    print("CRFsuite's model through vitesse.pycrfsuite.Tagger: %d of %d sequences tagged as "
          "crfsuite tag; largest difference: marginal %.2e, probability %.2e"
          % (same, len(Xt), d_marg, d_prob))
    print("vitesse %s, %s" % (vitesse.library_version, vitesse.simd()))


if __name__ == "__main__":
    sys.exit(main())
