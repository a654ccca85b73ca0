"""vitesse.train: train an averaged-perceptron tagger and get a Model back."""
import os
import sys
import tempfile

from . import _vitesse


def _is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))


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


def train(template, train, *, dev=None, epochs=10, decoder=None, seed=1, min_count=1,
          label_col=-1, path=None, callback=None, progress=None, verbose=False):
    """Train an averaged-perceptron tagger (Collins 2002) and return it as a Model.

    The trainer of ``vitesse train``, with the exact decoders inside: the same corpus gives
    the same model file, byte for byte.

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
        Passes over the training corpus, shuffled every epoch (`seed`).
    decoder : str, optional
        The exact decoder used in training (None: the fastest exact one for the label
        count, as ``vitesse.decode``'s default at k = 1).
    seed : int, default 1
    min_count : int, default 1
        Keep features seen at least this often.
    label_col : int, default -1
        The label column (-1: the last).
    path : str or os.PathLike, optional
        Where to write the model file (atomically); None: a temporary file, read back into
        memory and removed.
    callback : callable, optional
        ``callback(report)`` after every epoch with a dict (epoch, epochs, sentences,
        mistakes, train_accuracy, dev_accuracy (-1 without dev), seconds, total_seconds);
        returning True stops training (the model keeps the epochs done).
    progress : callable, optional
        ``progress(epoch, epochs, done, total)`` about 100 times an epoch.
    verbose : bool, default False
        Print a line per epoch on stderr, like ``vitesse train``.

    Returns
    -------
    Model
        The trained tagger; ``model.train_report`` holds the trainer's figures.

    Raises
    ------
    vitesse.Error
        A bad template or corpus ("NAME:LINE: problem"), or an unusable decoder.
    vitesse.FileError
        An unreadable corpus or an unwritable `path`.
    """
    text, name = _template(template)
    tr, tr_files = _corpus(train, "train")
    if tr is None:
        raise TypeError("train is required")
    dv, dv_files = _corpus(dev, "dev")
    tmpdir = tempfile.TemporaryDirectory(prefix="vitesse-train-")
    try:
        if dv is not None and dv_files != tr_files:  # one kind for both: files then
            if not tr_files:
                tr, tr_files = [os.path.join(tmpdir.name, "train.txt")], True
                _write_sentences(train, tr[0])
            else:
                dv = [os.path.join(tmpdir.name, "dev.txt")]
                _write_sentences(dev, dv[0])
        out = os.fspath(path) if path is not None else os.path.join(tmpdir.name, "model")

        def on_epoch(r):
            if verbose:
                dev_acc = ("  dev accuracy %.2f%%" % (100 * r["dev_accuracy"])
                           if r["dev_accuracy"] >= 0 else "")
                print("epoch %d/%d: %d mistakes, train accuracy %.2f%%%s, %.2fs"
                      % (r["epoch"], r["epochs"], r["mistakes"], 100 * r["train_accuracy"],
                         dev_acc, r["seconds"]), file=sys.stderr, flush=True)
            return bool(callback(r)) if callback is not None else False

        report = _vitesse.train(text, name, tr, dv, tr_files, out, epochs=epochs,
                                decoder=decoder, seed=seed, min_count=min_count,
                                label_col=label_col, on_epoch=on_epoch, on_progress=progress)
        if path is not None:
            model = _vitesse.Model(out)
        else:
            with open(out, "rb") as f:
                model = _vitesse.Model.from_bytes(f.read(), "model")
    finally:
        tmpdir.cleanup()
    model.train_report = report
    return model
