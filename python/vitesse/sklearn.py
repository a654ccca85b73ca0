"""vitesse.sklearn: scikit-learn style sequence taggers over vitesse's trainers and decoders.

``CRF`` is sklearn-crfsuite's estimator (CRFsuite's objective, feature dicts in, crf1d models);
``Tagger`` below is the averaged perceptron over column templates.

The shape sklearn-crfsuite users know: ``Tagger().fit(X, y).predict(X)``, where X is a list of
sentences and y a list of label lists. A token is a row of columns (a list of str, or a str),
or a feature dict as in sklearn-crfsuite ({name: value}; values are used as strings, so they
are categorical: numeric feature weights are not supported). scikit-learn is not needed to
import or use it; with it installed, ``clone``, ``GridSearchCV`` and ``cross_val_score`` work.
"""
import os
import tempfile

from . import _vitesse, pycrfsuite
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
        X, y = _paired(X, y, "X", "y", "sentences", "tokens")
        first = next((t for s in X for t in s), None)
        if first is None:
            raise ValueError("X has no tokens")
        self.columns_ = (sorted({k for s in X for t in s for k in t})
                         if isinstance(first, dict) else None)
        train_rows = _with_labels(self._rows(X), y)
        dev_rows = None
        if X_dev is not None or y_dev is not None:
            X_dev, y_dev = _paired(X_dev, y_dev, "X_dev", "y_dev", "sentences", "tokens")
            dev_rows = _with_labels(self._rows(X_dev), y_dev)
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
        """Token accuracy of predict(X) against y; ValueError when y's sentence count or a
        sentence's label count differs from X's."""
        return _accuracy(self.predict(X), y, "sentences", "tokens")

    # -- pickling: the model file's bytes ------------------------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("model_", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "model_bytes_" in state:
            self.model_ = _vitesse.Model.from_bytes(self.model_bytes_, "Tagger")


_CRF_PARAMS = ("algorithm", "min_freq", "all_possible_states", "all_possible_transitions", "c1",
               "c2", "max_iterations", "num_memories", "epsilon", "period", "delta", "linesearch",
               "max_linesearch", "calibration_eta", "calibration_rate", "calibration_samples",
               "calibration_candidates", "calibration_max_trials", "pa_type", "c",
               "error_sensitive", "averaging", "variance", "gamma", "verbose", "model_filename",
               "keep_tempfiles", "trainer_cls", "checkpoint", "checkpoint_every")
_CRF_TRAINING = _CRF_PARAMS[1:_CRF_PARAMS.index("verbose")]  # what the trainer is given
# CRFsuite's name of each parameter sklearn-crfsuite names otherwise (train_items's keywords)
_CRFSUITE_NAME = {kw: name for name, kw in pycrfsuite._KEYWORD.items()}


class CRF:
    """sklearn-crfsuite's CRF estimator over vitesse: ``from vitesse.sklearn import CRF``.

    The same constructor parameters and meanings (None: CRFsuite's default), ``fit(X, y,
    X_dev=None, y_dev=None)``, ``predict``, ``predict_single``, ``predict_marginals``,
    ``predict_marginals_single``, ``score`` (item accuracy), ``classes_``, ``size_``,
    ``training_log_``, ``tagger_`` (a vitesse.pycrfsuite.Tagger), get/set_params and pickling.
    X is a list of sequences, an item a feature dict or a list of attribute names, read by
    python-crfsuite's rules (``{'k': 'v'}`` is attribute 'k:v', a number or bool a weight, a
    nested dict or list its attributes prefixed 'k:'); y the label lists. The model is
    CRFsuite's crf1d file: a model trained by the real sklearn-crfsuite (``model_filename``)
    tags identically here, and this one there.

    Algorithms: 'lbfgs' (the default), 'l2sgd', 'ap', 'pa' and 'arow', as CRFsuite's (the online
    three with its shuffle: the same data give its model). ``num_attributes_``,
    ``attributes_``, ``state_features_`` and ``transition_features_`` are read from the
    model's crf1d file (exact weights).

    vitesse's own: ``checkpoint`` (a path) keeps the whole training state there every
    ``checkpoint_every`` iterations or epochs (default: as ``vitesse.train_items``); a
    fit that finds it continues from it and makes the model an uninterrupted fit makes (a
    checkpoint of other data or parameters raises vitesse.Error); it is removed once fitted.
    """

    def __init__(self, algorithm=None, min_freq=None, all_possible_states=None,
                 all_possible_transitions=None, c1=None, c2=None, max_iterations=None,
                 num_memories=None, epsilon=None, period=None, delta=None, linesearch=None,
                 max_linesearch=None, calibration_eta=None, calibration_rate=None,
                 calibration_samples=None, calibration_candidates=None,
                 calibration_max_trials=None, pa_type=None, c=None, error_sensitive=None,
                 averaging=None, variance=None, gamma=None, verbose=False, model_filename=None,
                 keep_tempfiles=False, trainer_cls=None, checkpoint=None,
                 checkpoint_every=None):
        for p in _CRF_PARAMS:
            setattr(self, p, locals()[p])
        self.training_log_ = None
        self._tagger = None
        self._bytes = None

    # -- scikit-learn's parameter protocol ------------------------------------------------------
    def get_params(self, deep=True):
        """The constructor's parameters, as a dict (scikit-learn's protocol)."""
        return {p: getattr(self, p) for p in _CRF_PARAMS}

    def set_params(self, **params):
        """Sets constructor parameters; returns self. Unknown names raise ValueError."""
        for k, v in params.items():
            if k not in _CRF_PARAMS:
                raise ValueError("CRF has no parameter %r" % (k,))
            setattr(self, k, v)
        return self

    def __repr__(self):
        return "CRF(%s)" % ", ".join("%s=%r" % (p, getattr(self, p)) for p in _CRF_PARAMS
                                     if getattr(self, p) not in (None, False))

    # -- training ------------------------------------------------------------------------------
    def _trainer(self):
        cls = self.trainer_cls or pycrfsuite.Trainer
        trainer = cls(verbose=self.verbose)
        trainer.checkpoint = self.checkpoint  # vitesse's: training continues from it
        trainer.checkpoint_every = self.checkpoint_every
        trainer.select(self.algorithm or "lbfgs")
        for p in _CRF_TRAINING:
            v = getattr(self, p)
            if v is not None:
                trainer.set(_CRFSUITE_NAME.get(p, p), v)
        return trainer

    def fit(self, X, y, X_dev=None, y_dev=None):
        """Trains on sequences X with label lists y (X_dev, y_dev: a holdout set evaluated
        after each iteration, in ``training_log_``); returns self."""
        trainer = self._trainer()
        X, y = _paired(X, y, "X", "y", "sequences", "items")
        for xseq, yseq in zip(X, y):
            trainer.append(xseq, yseq)
        dev = X_dev is not None or y_dev is not None
        if dev:
            X_dev, y_dev = _paired(X_dev, y_dev, "X_dev", "y_dev", "sequences", "items")
            for xseq, yseq in zip(X_dev, y_dev):
                trainer.append(xseq, yseq, group=1)
        with tempfile.TemporaryDirectory(prefix="vitesse-crf-") as d:
            path = self.model_filename or os.path.join(d, "model.crfsuite")
            trainer.train(path, holdout=1 if dev else -1)
            with open(path, "rb") as f:
                self._bytes = f.read()
        self._tagger = None
        self.training_log_ = trainer.logparser
        return self

    @property
    def tagger_(self):
        """The vitesse.pycrfsuite.Tagger of the model (None before fit, unless
        ``model_filename`` names a model)."""
        if self._tagger is None:
            if self._bytes is None and self.model_filename:
                with open(self.model_filename, "rb") as f:
                    self._bytes = f.read()
            if self._bytes is None:
                return None
            tagger = pycrfsuite.Tagger()
            tagger.open_inmemory(self._bytes)
            self._tagger = tagger
        return self._tagger

    def _fitted(self):
        t = self.tagger_
        if t is None:
            raise AttributeError("this CRF is not fitted yet: call fit(X, y) first")
        return t

    # -- prediction ----------------------------------------------------------------------------
    def predict(self, X):
        """The best label sequence of each sequence of X."""
        from .pycrfsuite import _xseq
        model = self._fitted()._model
        return model.tag_many([list(_xseq(x)) for x in X], threads=0)

    def predict_single(self, xseq):
        """The best label sequence of one sequence."""
        return self._fitted().tag(xseq)

    def predict_marginals(self, X):
        """Per sequence, per item, {label: marginal probability}."""
        return [self.predict_marginals_single(x) for x in X]

    def predict_marginals_single(self, xseq):
        """Per item of one sequence, {label: marginal probability}."""
        from .pycrfsuite import _xseq
        model = self._fitted()._model
        _, marg, _ = model.tag(list(_xseq(xseq)), marginals=True)
        labels = model.labels
        return [{y: float(row[j]) for j, y in enumerate(labels)} for row in marg]

    def score(self, X, y):
        """Item accuracy of predict(X) against y (sklearn_crfsuite.metrics.flat_accuracy_score);
        ValueError when y's sequence count or a sequence's label count differs from X's."""
        return _accuracy(self.predict(X), y, "sequences", "items")

    @property
    def classes_(self):
        """The model's labels (None before fit)."""
        t = self.tagger_
        return None if t is None else t.labels()

    @property
    def size_(self):
        """The size of the model file, in bytes (None before fit)."""
        return None if self.tagger_ is None else len(self._bytes)

    @property
    def num_attributes_(self):
        """The number of attributes of the model (None before fit)."""
        t = self.tagger_
        return None if t is None else int(t.info().header["num_attrs"])

    @property
    def attributes_(self):
        """The attribute names, by id (None before fit)."""
        t = self.tagger_
        if t is None:
            return None
        attrs = [None] * self.num_attributes_
        for name, i in t.info().attributes.items():
            attrs[int(i)] = name
        return attrs

    @property
    def state_features_(self):
        """{(attribute, label): weight} (None before fit)."""
        t = self.tagger_
        return None if t is None else t.info().state_features

    @property
    def transition_features_(self):
        """{(label_from, label_to): weight} (None before fit)."""
        t = self.tagger_
        return None if t is None else t.info().transitions

    # -- pickling: the model file's bytes ------------------------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_tagger"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


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


def _paired(X, y, xname, yname, seqs, items):
    """X and y, iterables of sequences (generators too), read once into lists of lists (an
    ItemSequence of X as its items). vitesse.Error (a ValueError) when one of them is None or
    they differ in their sequence count or in a sequence's length, naming the sequence."""
    if X is None or y is None:
        raise _vitesse.Error("%s and %s go together: %s is None"
                             % (xname, yname, xname if X is None else yname))
    X = [list(pycrfsuite._xseq(x)) for x in X]
    y = [list(g) for g in y]
    if len(X) != len(y):
        raise _vitesse.Error("%s has %d %s but %s %d" % (xname, len(X), seqs, yname, len(y)))
    for i, (xseq, yseq) in enumerate(zip(X, y)):
        if len(xseq) != len(yseq):
            raise _vitesse.Error("%s[%d]: %d %s but %s[%d] has %d labels"
                                 % (xname, i, len(xseq), items, yname, i, len(yseq)))
    return X, y


def _accuracy(pred, y, seqs, items):
    """The share of the labels of y (an iterable of label iterables) equal to those predicted,
    `pred` (one label list per sequence of X). ValueError when y and X differ in their sequence
    count or in a sequence's length (naming it): nothing is compared in part."""
    y = [list(g) for g in y]
    if len(y) != len(pred):
        raise ValueError("y has %d %s but X %d" % (len(y), seqs, len(pred)))
    total = right = 0
    for i, (p, g) in enumerate(zip(pred, y)):
        if len(p) != len(g):
            raise ValueError("y[%d] has %d labels but X[%d] %d %s"
                             % (i, len(g), i, len(p), items))
        total += len(g)
        right += sum(a == b for a, b in zip(p, g))
    return right / total if total else 0.0
