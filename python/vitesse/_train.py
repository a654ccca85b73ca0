"""vitesse.train and vitesse.train_items: train a tagger (averaged perceptron or CRF) over
templates, or a CRF over CRFsuite items, and get a Model back."""
import hashlib
import os
import sys
import tempfile

from . import _vitesse
from ._items import is_path as _is_path, item_files

ALGORITHMS = {"perceptron": 0, "lbfgs": 1, "l2sgd": 2, "ap": 3, "pa": 4, "arow": 5}  # vt_train_algo
LINESEARCHES = {"MoreThuente": 0, "Backtracking": 1, "StrongBacktracking": 2}  # vt_linesearch

# The CRF parameters (sklearn-crfsuite's names) and their defaults, CRFsuite's.
CRF_DEFAULTS = {
    "c1": 0, "c2": 1, "max_iterations": None, "epsilon": 1e-5, "period": 10, "delta": 1e-5,
    "num_memories": 6, "linesearch": "MoreThuente", "max_linesearch": 20,
    "calibration_eta": 0.1, "calibration_rate": 2.0, "calibration_samples": 1000,
    "calibration_candidates": 10, "calibration_max_trials": 20, "min_freq": 0,
    "all_possible_states": False, "all_possible_transitions": False,
}


def _corpus(x, what):
    """(items, files): a path or a list of paths -> files; a list of sentences -> sentences."""
    if x is None:
        return None, None
    if _is_path(x):
        return [x], True
    x = list(x)
    if not x:
        raise ValueError("%s is empty" % what)
    if all(_is_path(i) for i in x):
        return x, True
    if any(_is_path(i) for i in x):
        raise TypeError("%s mixes paths and sentences" % what)
    return x, False


def _write_sentences(sents, path):
    """Writes sentences as a tab-separated corpus (to train on them beside corpus files)."""
    with open(path, "w", encoding="utf-8") as f:
        for rows in sents:
            for r in rows:
                f.write((r if isinstance(r, str) else "\t".join(r)) + "\n")
            f.write("\n")


def _template(template):
    """(text, name): a template file's path or the template text itself."""
    if isinstance(template, os.PathLike) or (
            isinstance(template, str) and "\n" not in template and os.path.isfile(template)):
        with open(template, encoding="utf-8") as f:
            return f.read(), os.fspath(template)
    if not isinstance(template, str):
        raise TypeError("template must be the template text or a path to it")
    return template, "template"


def _algorithm(algorithm, allowed):
    """The vt_train_algo number of `algorithm` (a name of `allowed`); ValueError else."""
    if not isinstance(algorithm, str) or algorithm not in allowed:
        names = [repr(a) for a in allowed]
        raise ValueError("algorithm must be %s or %s, not %r"
                         % (", ".join(names[:-1]), names[-1], algorithm))
    return ALGORITHMS[algorithm]


def _crf_params(params):
    """The `crf` dict of the extension from the CRF parameters by their Python names (every name
    of CRF_DEFAULTS; linesearch checked here, the values' ranges are the library's to check)."""
    ls = params["linesearch"]
    if not isinstance(ls, str) or ls not in LINESEARCHES:
        raise ValueError("linesearch must be 'MoreThuente', 'Backtracking' or "
                         "'StrongBacktracking', not %r" % (ls,))
    crf = dict(params)
    crf["linesearch"] = LINESEARCHES[ls]
    crf["max_iterations"] = 0 if params["max_iterations"] is None else params["max_iterations"]
    crf["possible_states"] = int(bool(crf.pop("all_possible_states")))
    crf["possible_transitions"] = int(bool(crf.pop("all_possible_transitions")))
    return crf


def _threads(threads):
    return 0 if threads is None else threads


def _iteration_line(r):
    dev = ("; dev item accuracy %.2f%%" % (100 * r["dev_accuracy"])
           if r["dev_accuracy"] >= 0 else "")
    return ("iteration %d: loss %.6f, |w| %.4f, |g| %.4f, %d active, %.2f s%s"
            % (r["iteration"], r["loss"], r["feature_norm"], r["error_norm"],
               r["active_features"], r["seconds"], dev))


class _Iterations:
    """The on_iteration of a CRF run: prints a line (verbose), keeps the last report, calls the
    user's callback."""

    def __init__(self, on_iteration, verbose):
        self.on_iteration, self.verbose, self.last = on_iteration, verbose, None

    def __call__(self, r):
        self.last = r
        if self.verbose:
            print(_iteration_line(r), file=sys.stderr, flush=True)
        return bool(self.on_iteration(r)) if self.on_iteration is not None else False


def _model(out, path):
    """The Model written to `out`: opened there when `path` was given, else read into memory."""
    if path is not None:
        return _vitesse.Model(out)
    with open(out, "rb") as f:
        return _vitesse.Model.from_bytes(f.read(), "model")


def train(template, train, *, dev=None, epochs=10, decoder=None, seed=1, min_count=1,
          label_col=-1, path=None, callback=None, progress=None, verbose=False,
          algorithm="perceptron", c1=0, c2=1, max_iterations=None, epsilon=1e-5, period=10,
          delta=1e-5, num_memories=6, linesearch="MoreThuente", max_linesearch=20,
          calibration_eta=0.1, calibration_rate=2.0, calibration_samples=1000,
          calibration_candidates=10, calibration_max_trials=20, min_freq=0,
          all_possible_states=False, all_possible_transitions=False, on_iteration=None,
          threads=None, checkpoint=None, checkpoint_every=None):
    """Train a tagger over feature templates and return it as a Model: an averaged perceptron
    (Collins 2002, the default) or a linear-chain CRF (``algorithm='lbfgs'`` or ``'l2sgd'``).

    The trainer of ``vitesse train``, with the exact decoders inside: the same corpus gives
    the same model file, byte for byte. A CRF minimises CRFsuite's objective,
    -sum log p(y|x) + c1 |w|_1 + c2 ||w||^2, with CRFsuite's parameters (sklearn-crfsuite's
    names) and defaults; the model is a vitesse tagger (its state features are the
    templates' features, its transitions the plain ``B`` template's) that tags as the
    perceptron's does. Observation-dependent ``B`` templates are not trained as a CRF.

    Parameters
    ----------
    template : str or os.PathLike
        Feature templates (CRF++/Wapiti ``U``/``B`` lines, ``%x[row,col]``, ``%t``, ``%m``):
        the text itself, or the path of a template file.
    train : str, os.PathLike, list of paths, or list of sentences
        The training corpus: column files (one token a line, the label last, a blank line
        after each sentence; .gz read), or sentences held in memory, each a list of rows,
        a row a list of column strings with the label last.
    dev : same as `train`, optional
        A development corpus: its token accuracy is reported after every epoch.
    epochs : int, default 10
        Perceptron: passes over the training corpus, shuffled every epoch (`seed`).
    decoder : str, optional
        The exact decoder used in training (None: the fastest exact one for the label
        count, as ``vitesse.decode``'s default at k = 1); a CRF's model records it.
    seed : int, default 1
        The shuffles of the perceptron's epochs and of l2sgd.
    min_count : int, default 1
        Keep features seen at least this often.
    label_col : int, default -1
        The label column (-1: the last).
    path : str or os.PathLike, optional
        Where to write the model file (atomically); None: a temporary file, read back into
        memory and removed.
    callback : callable, optional
        Perceptron: ``callback(report)`` after every epoch with a dict (epoch, epochs,
        sentences, mistakes, train_accuracy, dev_accuracy (-1 without dev), seconds,
        total_seconds); returning True stops training (the model keeps the epochs done).
    progress : callable, optional
        Perceptron: ``progress(epoch, epochs, done, total)`` about 100 times an epoch.
    verbose : bool, default False
        Print a line per epoch (perceptron) or per iteration (CRF) on stderr, like
        ``vitesse train``.
    algorithm : {'perceptron', 'lbfgs', 'l2sgd'}, default 'perceptron'
        'lbfgs': a CRF by L-BFGS (OWL-QN when c1 > 0); 'l2sgd': a CRF by SGD with L2.
    c1, c2 : float, default 0 and 1
        The L1 (lbfgs only) and L2 coefficients.
    max_iterations : int, optional
        lbfgs: the iteration cap (None: none); l2sgd: epochs (None: 1000).
    epsilon, period, delta : default 1e-5, 10, 1e-5
        lbfgs stops when ||g|| / max(1, ||w||) < epsilon; both stop when the loss improved
        less than `delta` (relative) over the last `period` iterations.
    num_memories, linesearch, max_linesearch : default 6, 'MoreThuente', 20
        lbfgs: corrections kept, the line search ('MoreThuente', 'Backtracking',
        'StrongBacktracking'; backtracking whenever c1 > 0) and its evaluations.
    calibration_eta, calibration_rate, calibration_samples, calibration_candidates,
    calibration_max_trials : default 0.1, 2.0, 1000, 10, 20
        l2sgd's learning-rate calibration.
    min_freq : float, default 0
        Drop CRF features of a lower frequency.
    all_possible_states, all_possible_transitions : bool, default False
        A CRF state feature for every label of every feature seen; a transition for every
        label pair.
    on_iteration : callable, optional
        CRF: ``on_iteration(report)`` at the start (iteration 0) and after every iteration,
        with a dict (iteration, evaluations, loss, feature_norm, error_norm,
        active_features, step, seconds, total_seconds, eval_seconds (lbfgs: the seconds in the
        objective and its gradient; -1 for the others), dev_accuracy (-1 without dev));
        returning True stops training (the model keeps the weights reached).
    threads : int, optional
        CRF: threads of the gradient and of the dev evaluation (None or 0: one per core);
        the model is the same bytes for any count. The perceptron trains on one.
    checkpoint : str or os.PathLike, optional
        A file where the whole training state is kept (``vitesse train --checkpoint``): written
        atomically every `checkpoint_every` epochs or iterations (None: every epoch of the
        perceptron and l2sgd, every 10 iterations of lbfgs, but no sooner than 50 times the
        last checkpoint's writing time). A training stopped midway (killed, interrupted) and
        called again with the same arguments continues from it and makes the model an
        uninterrupted run makes. A checkpoint of other templates, data or parameters is
        refused (vitesse.Error, naming what differs). Removed once the model is written.
        Sentences held in memory are written to a temporary file for it.
    checkpoint_every : int, optional
        Epochs or iterations between two checkpoints.

    The CRF parameters with the perceptron, and `callback`, `progress` or `epochs` with a
    CRF, raise ValueError when set to anything but their defaults.

    Returns
    -------
    Model
        The trained tagger; ``model.train_report`` holds the trainer's figures (for a CRF,
        ``epochs`` is the iterations done and ``loss`` the last iteration's loss).

    Raises
    ------
    ValueError
        An unknown `algorithm` or `linesearch`, or parameters of the other algorithm.
    vitesse.Error
        A bad template or corpus ("NAME:LINE: problem"), an unusable decoder, or a CRF
        parameter out of range (the library's message).
    vitesse.FileError
        An unreadable corpus or an unwritable `path`.
    """
    params = {k: v for k, v in locals().items() if k in CRF_DEFAULTS}
    algo = _algorithm(algorithm, ("perceptron", "lbfgs", "l2sgd"))
    crf = _crf_params(params)
    if algo == 0:
        for k, v in list(params.items()) + [("on_iteration", on_iteration)]:
            if v != CRF_DEFAULTS.get(k):
                raise ValueError("%s is a CRF parameter: it needs algorithm='lbfgs' or "
                                 "'l2sgd'" % k)
    else:
        for k, v, default in (("callback", callback, None), ("progress", progress, None),
                              ("epochs", epochs, 10)):
            if v is not default and v != default:
                raise ValueError("%s is the perceptron's: a CRF runs iterations (max_iterations, "
                                 "on_iteration)" % k)
    text, name = _template(template)
    tr, tr_files = _corpus(train, "train")
    if tr is None:
        raise TypeError("train is required")
    dv, dv_files = _corpus(dev, "dev")
    tmpdir = tempfile.TemporaryDirectory(prefix="vitesse-train-")
    try:
        # one kind for both: files then; files too with a checkpoint, whose identity is theirs
        if not tr_files and (checkpoint is not None or (dv is not None and dv_files)):
            tr, tr_files = [os.path.join(tmpdir.name, "train.txt")], True
            _write_sentences(train, tr[0])
        if dv is not None and not dv_files and tr_files:
            dv, dv_files = [os.path.join(tmpdir.name, "dev.txt")], True
            _write_sentences(dev, dv[0])
        ck = {}
        if checkpoint is not None:
            ck = dict(checkpoint=checkpoint, checkpoint_every=int(checkpoint_every or 0),
                      checkpoint_id=_inputs_id(tr, dv, None))
        out = os.fspath(path) if path is not None else os.path.join(tmpdir.name, "model")

        def on_epoch(r):
            if verbose:
                dev_acc = ("  dev accuracy %.2f%%" % (100 * r["dev_accuracy"])
                           if r["dev_accuracy"] >= 0 else "")
                print("epoch %d/%d: %d mistakes, train accuracy %.2f%%%s, %.2fs"
                      % (r["epoch"], r["epochs"], r["mistakes"], 100 * r["train_accuracy"],
                         dev_acc, r["seconds"]), file=sys.stderr, flush=True)
            return bool(callback(r)) if callback is not None else False

        iters = _Iterations(on_iteration, verbose)
        report = _vitesse.train(text, name, tr, dv, tr_files, out, epochs=epochs,
                                decoder=decoder, seed=seed, min_count=min_count,
                                label_col=label_col, on_epoch=on_epoch, on_progress=progress,
                                algorithm=algo, crf=crf if algo else None,
                                threads=_threads(threads), on_iteration=iters, **ck)
        model = _model(out, path)
        if checkpoint is not None and os.path.exists(checkpoint):
            os.remove(checkpoint)  # the model is made: its checkpoint is done with
    finally:
        tmpdir.cleanup()
    report["algorithm"] = algorithm
    if algo:
        report["loss"] = iters.last["loss"] if iters.last else None
    model.train_report = report
    return model


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:32]


def _inputs_id(train, dev, init_model):
    """The identity line of a checkpointed run's inputs: a SHA-256 of every item file (those
    written from sequences in memory too) and of the model it starts from."""
    words = ["train=" + _sha256(p) for p in train]
    words += ["dev=" + _sha256(p) for p in dev or []]
    if init_model is not None:
        words.append("init=" + _sha256(init_model))
    return "inputs " + " ".join(words) + "\n"


def train_items(train, *, dev=None, algorithm="lbfgs", c1=0, c2=1, max_iterations=None,
                epsilon=None, period=10, delta=1e-5, num_memories=6, linesearch="MoreThuente",
                max_linesearch=20, calibration_eta=0.1, calibration_rate=2.0,
                calibration_samples=1000, calibration_candidates=10, calibration_max_trials=20,
                min_freq=0, all_possible_states=False, all_possible_transitions=False,
                pa_type=1, c=1, error_sensitive=True, averaging=True, variance=1, gamma=1,
                init_model=None, seed=1, path=None, on_iteration=None, verbose=False,
                threads=None, checkpoint=None, checkpoint_every=None):
    """Train a linear-chain CRF on CRFsuite items, as ``crfsuite learn`` does, and return it
    as a Model (kind 'crfsuite') whose file is a CRFsuite crf1d model (``crfsuite tag``,
    python-crfsuite and sklearn-crfsuite read it).

    CRFsuite's feature generation and objective, -sum log p(y|x) + c1 |w|_1 + c2 ||w||^2, with
    its parameters (sklearn-crfsuite's names) and defaults; the ``vitesse train --items``
    trainer (the same items give the same model file).

    Parameters
    ----------
    train : str, os.PathLike, list of paths, or iterable of (xseq, yseq) pairs
        CRFsuite item files (a line per item: the label, then TAB-separated attributes,
        ``name:weight`` for a weight other than 1, ``\\:`` and ``\\\\`` escaping ':' and '\\';
        a blank line after each sequence; .gz read), or sequences held in memory as
        python-crfsuite's ``Trainer.append(xseq, yseq)`` takes them (``zip(X, y)`` of
        sklearn-crfsuite's X and y): xseq a list of items, an item a list of attribute
        names or a dict ({name: str} is attribute 'name:str', {name: number or bool} is
        attribute 'name' of that weight, {name: dict or list} the nested attributes prefixed
        'name:'); yseq the labels (str).
    dev : same as `train`, optional
        Development items: their item accuracy is reported after every iteration.
    algorithm : {'lbfgs', 'l2sgd', 'ap', 'pa', 'arow'}, default 'lbfgs'
        'ap', 'pa' and 'arow': CRFsuite's averaged perceptron, passive-aggressive and AROW
        (one thread; CRFsuite's shuffle, so the same items give CRFsuite's model);
        max_iterations is then their epoch cap (None: 100) and c1, c2 and the L-BFGS and
        SGD parameters are not used.
    c1, c2, max_iterations, period, delta, num_memories, linesearch,
    max_linesearch, calibration_eta, calibration_rate, calibration_samples,
    calibration_candidates, calibration_max_trials, min_freq, all_possible_states,
    all_possible_transitions, on_iteration, verbose, threads
        As in ``vitesse.train`` with a CRF.
    epsilon : float, optional
        lbfgs: stop when ||g|| / max(1, ||w||) < epsilon (None: 1e-5); ap, pa, arow: when an
        epoch's loss per sequence is below it (arow: or equal; None: 0).
    pa_type, c, error_sensitive, averaging : default 1, 1, True, True
        pa: no slack (0), PA-I (1) or PA-II (2); the aggressiveness; the cost counts
        sqrt(wrong labels) rather than 1; the weights averaged.
    variance, gamma : default 1, 1
        arow: every weight's initial variance; the trade-off.
    init_model : str or os.PathLike, optional
        A CRFsuite model to continue from: its features keep their weights, new ones start
        at 0.
    seed : int, default 1
        l2sgd's shuffles.
    path : str or os.PathLike, optional
        Where to write the model file (atomically); None: a temporary file, read back into
        memory and removed.
    checkpoint : str or os.PathLike, optional
        A file where the whole training state is kept (``vitesse train --checkpoint``): written
        atomically every `checkpoint_every` iterations or epochs (None: every 10 iterations of
        lbfgs, every epoch of the others, but no sooner than 50 times the last checkpoint's
        writing time after it); when it exists, training continues from it, and the model is the one an
        uninterrupted run makes (any `threads`). A checkpoint of other data or parameters is
        refused (vitesse.Error saying what differs); the data are told apart by a SHA-256 of
        the items. Removed once the model is made. ``on_iteration`` sees only the iterations
        after the checkpoint.
    checkpoint_every : int, optional
        Iterations or epochs between two checkpoints.

    Returns
    -------
    Model
        The CRF (``.kind == 'crfsuite'``: ``.tag_file`` tags item files);
        ``model.train_report`` holds the trainer's figures (``epochs``: the iterations done,
        ``loss``: the last iteration's loss, ``stop_reason``: why training stopped).

    Raises
    ------
    ValueError
        An unknown `algorithm` or `linesearch`; in-memory sequences an item file cannot hold
        (a tab, newline or NUL in a name, a non-finite weight, items and labels of different
        lengths).
    vitesse.Error
        Bad items in a file ("FILE:LINE: problem"), an `init_model` that is not a CRFsuite
        model, or a parameter out of range (the library's message).
    vitesse.FileError
        An unreadable file or an unwritable `path`.
    """
    algo = _algorithm(algorithm, ("lbfgs", "l2sgd", "ap", "pa", "arow"))
    online = algorithm in ("ap", "pa", "arow")
    if epsilon is None:
        epsilon = 0 if online else 1e-5
    crf = _crf_params({k: v for k, v in locals().items() if k in CRF_DEFAULTS})
    crf.update(online_epsilon=epsilon, pa_c=c, arow_variance=variance, arow_gamma=gamma,
               pa_type=pa_type, pa_error_sensitive=int(bool(error_sensitive)),
               pa_averaging=int(bool(averaging)))
    if train is None:
        raise TypeError("train is required")
    tmpdir = tempfile.TemporaryDirectory(prefix="vitesse-train-")
    try:
        tr = item_files(train, "train", tmpdir.name)
        dv = item_files(dev, "dev", tmpdir.name)
        out = os.fspath(path) if path is not None else os.path.join(tmpdir.name, "model")
        iters = _Iterations(on_iteration, verbose)
        ck = {}
        if checkpoint is not None:
            ck = dict(checkpoint=checkpoint, checkpoint_every=int(checkpoint_every or 0),
                      checkpoint_id=_inputs_id(tr, dv, init_model))
        report = _vitesse.train_items(tr, dv, out, algorithm=algo, crf=crf,
                                      init_model=init_model, seed=seed,
                                      threads=_threads(threads), on_iteration=iters, **ck)
        model = _model(out, path)
        if checkpoint is not None and os.path.exists(checkpoint):
            os.remove(checkpoint)  # the model is made: its checkpoint is done with
    finally:
        tmpdir.cleanup()
    report.update(algorithm=algorithm, decoder=None, train_accuracy=None,
                  loss=iters.last["loss"] if iters.last else None)
    model.train_report = report
    return model
