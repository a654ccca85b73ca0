"""vitesse.decode releases the GIL and does not leak."""
import os
import threading
import time

import numpy as np
import pytest

import vitesse


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_python_thread_runs_during_a_long_decode():
    rng = np.random.default_rng(1)
    L = 400
    E = rng.normal(size=(1500, L)).astype(np.float32)
    A = rng.normal(size=(L, L))
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1
    th = threading.Thread(target=spin)
    th.start()
    try:
        for threads, lengths in ((1, None), (2, [500, 500, 500])):
            time.sleep(0.01)
            t0, c0 = time.perf_counter(), count[0]
            vitesse.decode(E, A, lengths=lengths, algo="viterbi-scalar", threads=threads)
            t1, c1 = time.perf_counter(), count[0]
            assert t1 - t0 > 0.05, "the decode is too short to tell"
            assert c1 - c0 > 1000, "the thread did not run while decoding"
    finally:
        stop.set()
        th.join()


def test_many_small_calls_keep_rss_flat():
    rng = np.random.default_rng(2)
    E = rng.normal(size=(6, 5)).astype(np.float32)
    A = rng.normal(size=(5, 5))
    t = vitesse.Transitions(A)
    lens = np.array([2, 4])
    for _ in range(10000):
        vitesse.decode(E, A, k=2)
    before = rss_bytes()
    for i in range(100000):
        if i % 3 == 0:
            vitesse.decode(E, A, k=2)
        elif i % 3 == 1:
            vitesse.decode(E, t, lengths=lens, threads=1)
        else:
            try:
                vitesse.decode(E, A, algo="nope")
            except ValueError:
                pass
    assert rss_bytes() - before < 4 << 20


def test_ctrl_c_stops_an_engine_run():
    """SIGINT during a run of many batches: the engine stops after the running ones."""
    import signal
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # a process started in the background by a shell without job control ignores SIGINT
        # from its start, and Python then leaves it ignored: no KeyboardInterrupt can come
        pytest.skip("SIGINT is ignored in this process")
    rng = np.random.default_rng(3)
    L, n = 200, 16  # 16 batches of 4096 tokens (the engine's default batch)
    E = rng.normal(size=(n * 4096, L)).astype(np.float32)
    A = rng.normal(size=(L, L))
    lengths = [128] * (n * 32)
    t0 = time.perf_counter()
    vitesse.decode(E[:2 * 4096], A, lengths=lengths[:64], algo="viterbi-scalar", threads=2)
    full = (time.perf_counter() - t0) * n / 2  # about what the whole run would take
    timer = threading.Timer(full / 10, signal.raise_signal, (signal.SIGINT,))
    got = []
    timer.start()
    try:
        t0 = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            got.append(vitesse.decode(E, A, lengths=lengths, algo="viterbi-scalar", threads=2))
        stopped = time.perf_counter() - t0
    finally:
        timer.cancel()
    print("stopped after %.2f s of about %.2f s" % (stopped, full))
    assert not got and stopped < full / 2, (stopped, full)
    # the engine is usable again
    assert len(vitesse.decode(E[:256], A, lengths=[128, 128], threads=2)) == 2
