"""vitesse.sklearn: a scikit-learn style sequence tagger over vitesse's trainer and decoders.

The shape sklearn-crfsuite users know: ``Tagger().fit(X, y).predict(X)``, where X is a list of
sentences and y a list of label lists. A token is a row of columns (a list of str, or a str),
or a feature dict as in sklearn-crfsuite ({name: value}; values are used as strings, so they
are categorical: numeric feature weights are not supported). scikit-learn is not needed to
import or use it; with it installed, ``clone``, ``GridSearchCV`` and ``cross_val_score`` work.
"""
import os
import tempfile

from . import _vitesse
from ._train import train

_PARAMS = ("template", "epochs", "decoder", "seed", "min_count", "algo", "threads")


class Tagger:
    """A linear-chain tagger trained with the averaged perceptron, decoded exactly.

    Parameters
    ----------
    template : str, optional
        Feature templates (CRF++/Wapiti lines, or a path to a template file). None: every
        column of the token and of its neighbours at -2..+2, the column pairs (0, c) of the
        token, and the label bigram (B).
    epochs : int, default 10
    decoder : str, optional
        The exact decoder used in training (None: the library's default for the label count).
    seed : int, default 1
    min_count : int, default 1
    algo : str, optional
        The decoder of predict (None: the model's default, the fastest exact one).
    threads : int, default 0
        Threads of predict (0: one per core).

    Attributes
    ----------
    model_ : vitesse.Model
        The trained model (after fit).
    classes_ : list of str
        The labels seen in training.
    columns_ : list of str or None
        For feature-dict input: the feature names, in column order.
    """

    def __init__(self, template=None, epochs=10, decoder=None, seed=1, min_count=1, algo=None,
                 threads=0):
        self.template = template
        self.epochs = epochs
        self.decoder = decoder
        self.seed = seed
        self.min_count = min_count
        self.algo = algo
        self.threads = threads

    # -- scikit-learn's parameter protocol ------------------------------------------------------
    def get_params(self, deep=True):
        """The constructor's parameters, as a dict (scikit-learn's protocol)."""
        return {p: getattr(self, p) for p in _PARAMS}

    def set_params(self, **params):
        """Sets constructor parameters; returns self. Unknown names raise ValueError."""
        for k, v in params.items():
            if k not in _PARAMS:
                raise ValueError("Tagger has no parameter %r (parameters: %s)"
                                 % (k, ", ".join(_PARAMS)))
            setattr(self, k, v)
        return self

    def __repr__(self):
        changed = ["%s=%r" % (p, getattr(self, p)) for p in _PARAMS
                   if getattr(self, p) != Tagger().get_params()[p]]
        return "Tagger(%s)" % ", ".join(changed)

    # -- rows ----------------------------------------------------------------------------------
    def _rows(self, X):
        """X as sentences of column rows (feature dicts mapped through columns_)."""
        cols = getattr(self, "columns_", None)
        out = []
        for sent in X:
            sent = list(sent)
            if cols is not None:
                sent = [[_cell(tok.get(c)) for c in cols] for tok in sent]
            out.append(sent)
        return out

    def _default_template(self, ncols):
        lines = []
        for c in range(ncols):
            for off in (-2, -1, 0, 1, 2):
                lines.append("U%d_%d:%%x[%d,%d]" % (c, off + 2, off, c))
            if c:
                lines.append("U%d_p:%%x[0,0]/%%x[0,%d]" % (c, c))
        lines.append("B")
        return "\n".join(lines) + "\n"

    # -- estimator -----------------------------------------------------------------------------
    def fit(self, X, y, X_dev=None, y_dev=None):
        """Train on sentences X with label lists y (and optionally a dev set); returns self."""
        X, y = list(X), list(y)
        if len(X) != len(y):
            raise ValueError("X has %d sentences but y %d" % (len(X), len(y)))
        first = next((t for s in X for t in s), None)
        if first is None:
            raise ValueError("X has no tokens")
        self.columns_ = (sorted({k for s in X for t in s for k in t})
                         if isinstance(first, dict) else None)
        train_rows = _with_labels(self._rows(X), y)
        dev_rows = None
        if X_dev is not None:
            dev_rows = _with_labels(self._rows(list(X_dev)), list(y_dev))
        ncols = len(train_rows[next(i for i, s in enumerate(train_rows) if s)][0]) - 1
        template = self.template or self._default_template(ncols)
        with tempfile.TemporaryDirectory(prefix="vitesse-tagger-") as d:
            path = os.path.join(d, "model")
            model = train(template, train_rows, dev=dev_rows, epochs=self.epochs,
                          decoder=self.decoder, seed=self.seed, min_count=self.min_count,
                          path=path)
            with open(path, "rb") as f:
                self.model_bytes_ = f.read()
        self.model_ = _vitesse.Model.from_bytes(self.model_bytes_, "Tagger")
        self.model_.train_report = model.train_report
        self.classes_ = self.model_.labels
        return self

    def _model(self):
        m = getattr(self, "model_", None)
        if m is None:
            raise AttributeError("this Tagger is not fitted yet: call fit(X, y) first")
        return m

    def predict(self, X):
        """The best label sequence of each sentence of X (a list of label lists)."""
        return self._model().tag_many(self._rows(X), threads=self.threads, algo=self.algo)

    def predict_single(self, xseq):
        """The best label sequence of one sentence."""
        return self._model().tag(self._rows([xseq])[0], algo=self.algo)

    def predict_topk(self, X, k=5):
        """Up to k (score, labels) pairs per sentence, best first (exact k-best)."""
        algo = self.algo if self.algo is None or _vitesse.algorithms()[self.algo]["kbest"] \
            else None
        return self._model().tag_many(self._rows(X), threads=self.threads, algo=algo, k=k)

    def score(self, X, y):
        """Token accuracy of predict(X) against y."""
        pred = self.predict(X)
        total = right = 0
        for p, g in zip(pred, y):
            g = list(g)
            if len(p) != len(g):
                raise ValueError("a sentence of %d tokens has %d labels" % (len(p), len(g)))
            total += len(g)
            right += sum(a == b for a, b in zip(p, g))
        return right / total if total else 0.0

    # -- pickling: the model file's bytes ------------------------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("model_", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "model_bytes_" in state:
            self.model_ = _vitesse.Model.from_bytes(self.model_bytes_, "Tagger")


def _cell(v):
    """A feature value as a column string (missing: '_'; no blanks, which separate columns in
    the library's messages and files)."""
    if v is None:
        return "_"
    if isinstance(v, bool):
        return "1" if v else "0"
    s = str(v)
    return s if s else "_"


def _with_labels(rows, y):
    """Rows with the label appended as the last column."""
    out = []
    for i, (sent, labels) in enumerate(zip(rows, y)):
        labels = list(labels)
        if len(sent) != len(labels):
            raise ValueError("sentence %d has %d tokens but %d labels"
                             % (i, len(sent), len(labels)))
        out.append([([r] if isinstance(r, str) else list(r)) + [str(lab)]
                    for r, lab in zip(sent, labels)])
    return out
