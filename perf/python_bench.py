#!/usr/bin/env python3
"""perf/python_bench.py: vitesse's Python binding beside the CLI and a NumPy Viterbi.

Usage: python perf/python_bench.py [--rounds R] [--cli build/vitesse] LATTICE_DIR
(LATTICE_DIR, required: a lattice set, E, N, A, S, F, R .npy files, such as CoNLL-2000 joint's).

Configurations are interleaved over rounds (noise hits both sides of a ratio alike) and the
median round is reported, as vt_bench does:
  1. the whole set in one call, vitesse.decode(threads=T) vs `vitesse decode --threads T`
     (its --stats decode_seconds, the engine's wall after loading, and the process's wall);
  2. per-call overhead: a loop of one-sentence calls (T = 1, L = 2) with raw arrays and with a
     bound vitesse.Transitions; and the set sentence by sentence vs in one call;
  3. a NumPy Viterbi (the usual np.max(score[:, None] + A, 0) loop) vs vitesse.decode on the
     first sentences of the set, one thread.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import vitesse


def numpy_viterbi(E, A, S, F):
    """Textbook Viterbi in NumPy, float64: best score and path."""
    T = E.shape[0]
    score = S + E[0]
    back = np.empty((T, E.shape[1]), dtype=np.int64)
    for t in range(1, T):
        cand = score[:, None] + A
        back[t] = np.argmax(cand, 0)
        score = np.max(cand, 0) + E[t]
    score = score + F
    y = [int(np.argmax(score))]
    for t in range(T - 1, 0, -1):
        y.append(int(back[t, y[-1]]))
    return float(score[y[0]]), y[::-1]


def timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", help="a lattice set: E, N, A, S, F, R .npy files")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cli", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "vitesse"))
    ap.add_argument("--numpy-sentences", type=int, default=100)
    ap.add_argument("--calls", type=int, default=100000)
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        sys.exit("python_bench: no lattice directory %s" % a.dir)
    ld = {n: np.load(os.path.join(a.dir, n + ".npy")) for n in "ENASFR"}
    E, N, A, S, F, R = (ld[n] for n in "ENASFR")
    A64, S64, F64 = (x.astype(np.float64) for x in (A, S, F))
    L = A.shape[0]
    offs = np.concatenate([[0], np.cumsum(N)])
    print("lattices %s: %d sentences, %d tokens, %d labels, %s; simd %s, default algo %s"
          % (a.dir, len(N), N.sum(), L, E.dtype, vitesse.simd(), vitesse.default_algo(L)))
    trans = vitesse.Transitions(A, S, F, R)
    cli_args = [a.cli, "decode"] + sum(
        (["--" + f, os.path.join(a.dir, n + ".npy")] for f, n in
         (("emissions", "E"), ("lengths", "N"), ("transitions", "A"), ("start", "S"),
          ("end", "F"), ("rank", "R"))), []) + ["-o", "/dev/null", "--stats", "--quiet"]

    # 1. the whole set, one call
    res = {}
    for r in range(a.rounds):
        for th in (0, 1):
            key = "threads=%d" % th
            t = timed(lambda: vitesse.decode(E, A, S, F, lengths=N, rank=R, threads=th))
            res.setdefault(("py", key), []).append(t)
            t0 = time.perf_counter()
            p = subprocess.run(cli_args + (["--threads", str(th)] if th else []),
                               capture_output=True,
                               text=True, check=True)
            wall = time.perf_counter() - t0
            st = json.loads(p.stderr.strip().splitlines()[-1])
            res.setdefault(("cli", key), []).append(st["decode_seconds"])
            res.setdefault(("cli-wall", key), []).append(wall)
    got = vitesse.decode(E, A, S, F, lengths=N, rank=R)  # the same paths as the CLI?
    out = subprocess.run(cli_args[:-4] + ["-o", "-"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    same = len(out) == len(got) and all(
        line.split("\t")[3] == " ".join(map(str, g[0][1])) for line, g in zip(out, got))
    print("\n1. whole set in one call (median of %d rounds), same paths as the CLI: %s"
          % (a.rounds, same))
    print("| threads | vitesse.decode s | vitesse decode s (engine) | ratio | vitesse decode "
          "process s |")
    print("|---|---|---|---|---|")
    for th in (0, 1):
        key = "threads=%d" % th
        py, cli, wall = (statistics.median(res[(w, key)]) for w in ("py", "cli", "cli-wall"))
        print("| %s | %.4f | %.4f | %.3f | %.4f |" % ("all (0)" if th == 0 else "1", py, cli,
                                                       py / cli, wall))

    # 2. per-call overhead
    e1 = np.array([[0.5, -0.25]], dtype=np.float32)
    a2 = np.array([[0.0, -1.0], [-1.0, 0.0]])
    t2 = vitesse.Transitions(a2)
    per = {}
    for r in range(a.rounds):
        n = a.calls // a.rounds
        per.setdefault("raw", []).append(timed(lambda: [vitesse.decode(e1, a2)
                                                        for _ in range(n)]) / n)
        per.setdefault("bound", []).append(timed(lambda: [vitesse.decode(e1, t2)
                                                          for _ in range(n)]) / n)
        per.setdefault("loop", []).append(timed(lambda: [
            vitesse.decode(E[offs[s]:offs[s + 1]], trans) for s in range(len(N))]))
        per.setdefault("one", []).append(timed(lambda: vitesse.decode(
            E, trans, lengths=N, threads=1)))
    print("\n2. per-call overhead (median of %d rounds)" % a.rounds)
    print("| what | time |")
    print("|---|---|")
    print("| decode(E (1, 2) float32, A raw) | %.2f us/call |" % (1e6 * statistics.median(per["raw"])))
    print("| decode(E (1, 2) float32, Transitions) | %.2f us/call |"
          % (1e6 * statistics.median(per["bound"])))
    lp, one = statistics.median(per["loop"]), statistics.median(per["one"])
    print("| %d sentences, one call each (Transitions, 1 thread) | %.4f s (%.1f us/sentence "
          "over one call) |" % (len(N), lp, 1e6 * (lp - one) / len(N)))
    print("| the same in one call, threads=1 | %.4f s |" % one)

    # 3. NumPy Viterbi
    k = min(a.numpy_sentences, len(N))
    sub = E[:offs[k]]
    nv = []
    vv = []
    vd = []
    for r in range(max(1, a.rounds // 2)):
        def run_numpy():
            for s in range(k):
                numpy_viterbi(E[offs[s]:offs[s + 1]].astype(np.float64), A64, S64, F64)
        nv.append(timed(run_numpy))
        vv.append(timed(lambda: vitesse.decode(sub, trans, lengths=N[:k], threads=1,
                                               algo="viterbi")))
        vd.append(timed(lambda: vitesse.decode(sub, trans, lengths=N[:k], threads=1)))
    s0, y0 = numpy_viterbi(E[:offs[1]].astype(np.float64), A64, S64, F64)
    agree = vitesse.decode(E[:offs[1]], trans)[0][0] == s0
    n_, v_, d_ = (statistics.median(x) for x in (nv, vv, vd))
    print("\n3. NumPy Viterbi vs vitesse.decode, first %d sentences (%d tokens), one thread; "
          "NumPy's best score equals vitesse's on sentence 0: %s" % (k, offs[k], agree))
    print("| decoder | seconds | sentences/s | x NumPy |")
    print("|---|---|---|---|")
    for name, t in (("NumPy Viterbi loop (float64)", n_), ("vitesse.decode algo='viterbi'", v_),
                    ("vitesse.decode default (%s)" % vitesse.default_algo(L), d_)):
        print("| %s | %.4f | %.0f | %.1f |" % (name, t, k / t, n_ / t))
    try:
        import torch  # noqa: F401
        print("\n(torch is installed but a pytorch-crf comparison is not written yet)")
    except ImportError:
        print("\n(torch is not installed: no pytorch-crf comparison)")


if __name__ == "__main__":
    main()
