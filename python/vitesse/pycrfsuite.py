"""python-crfsuite's interface over vitesse: ``import vitesse.pycrfsuite as pycrfsuite``.

``Trainer`` (append, select, set/get, set_params/get_params, params, help, train, clear) trains a
CRF with CRFsuite's objective and feature generation through ``vitesse.train_items``, and writes
the crf1d model file ``crfsuite tag`` and the real python-crfsuite read; ``Tagger`` (open,
open_inmemory, close, labels, set, tag, probability, marginal) tags with such a model, whoever
wrote it, through ``vitesse.Model``: the same labels, probabilities and marginals as
``crfsuite tag``. ``ItemSequence`` keeps a sequence's items as python-crfsuite reads them.

``Tagger.info`` and ``Tagger.dump`` read the model's weights back from its crf1d file.
Every algorithm of CRFsuite is offered: 'lbfgs', 'l2sgd', 'ap', 'pa' and 'arow'.
"""
import contextlib
import math
import os
import threading

from . import _crf1d, _vitesse
from ._items import ItemTypeError, _attributes, _check_label, _item_text
from ._train import train_items

__all__ = ["Trainer", "BaseTrainer", "Tagger", "ItemSequence", "CRFSuiteError"]


class CRFSuiteError(_vitesse.Error):
    """A training run that failed (python-crfsuite's name; a vitesse.Error): the message
    names what is wrong."""


class ItemSequence:
    """A sequence's items as python-crfsuite reads them: an item a list of attribute names
    (weight 1) or a dict ({name: str} is attribute 'name:str', {name: number or bool} attribute
    'name' of that weight, {name: dict or list} its attributes prefixed 'name:')."""

    def __init__(self, pyseq):
        if isinstance(pyseq, ItemSequence):
            self._items = list(pyseq._items)
            return
        if isinstance(pyseq, (str, bytes, dict)):
            raise TypeError("a sequence is a list of items, not a %s" % type(pyseq).__name__)
        self._items = [dict(_attributes(x, "item %d" % t)) for t, x in enumerate(pyseq)]

    def items(self):
        """The items, each a dict {attribute name: weight}."""
        return [dict(i) for i in self._items]

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return "<ItemSequence (%d)>" % len(self)


def _xseq(xseq):
    """What vitesse.Model.tag takes for python-crfsuite's xseq (an ItemSequence's dicts)."""
    return xseq._items if isinstance(xseq, ItemSequence) else xseq


def _intbool(txt):
    return bool(int(txt))


# CRFsuite 0.12's parameters of each algorithm: (name, default, type, help).
_FEATURE = [
    ("feature.minfreq", 0.0, float,
     "The minimum frequency of features."),
    ("feature.possible_states", False, _intbool,
     "Force to generate possible state features."),
    ("feature.possible_transitions", False, _intbool,
     "Force to generate possible transition features."),
]
_PARAMS = {
    "lbfgs": _FEATURE + [
        ("c1", 0.0, float, "Coefficient for L1 regularization."),
        ("c2", 1.0, float, "Coefficient for L2 regularization."),
        ("max_iterations", 2147483647, int,
         "The maximum number of iterations for L-BFGS optimization."),
        ("num_memories", 6, int,
         "The number of limited memories for approximating the inverse hessian matrix."),
        ("epsilon", 1e-5, float, "Epsilon for testing the convergence of the objective."),
        ("period", 10, int,
         "The duration of iterations to test the stopping criterion."),
        ("delta", 1e-5, float,
         "The threshold for the stopping criterion; an L-BFGS iteration stops when the\n"
         "improvement of the log likelihood over the last ${period} iterations is no\n"
         "greater than this threshold."),
        ("linesearch", "MoreThuente", str,
         "The line search algorithm used in L-BFGS updates:\n"
         "{   'MoreThuente': More and Thuente's method,\n"
         "    'Backtracking': Backtracking method with regular Wolfe condition,\n"
         "    'StrongBacktracking': Backtracking method with strong Wolfe condition\n}\n"),
        ("max_linesearch", 20, int,
         "The maximum number of trials for the line search algorithm."),
    ],
    "l2sgd": _FEATURE + [
        ("c2", 1.0, float, "Coefficient for L2 regularization."),
        ("max_iterations", 1000, int,
         "The maximum number of iterations (epochs) for SGD optimization."),
        ("period", 10, int,
         "The duration of iterations to test the stopping criterion."),
        ("delta", 1e-6, float,
         "The threshold for the stopping criterion; an optimization process stops when\n"
         "the improvement of the log likelihood over the last ${period} iterations is no\n"
         "greater than this threshold."),
        ("calibration.eta", 0.1, float, "The initial value of learning rate (eta) used for "
         "calibration."),
        ("calibration.rate", 2.0, float, "The rate of increase/decrease of learning rate for "
         "calibration."),
        ("calibration.samples", 1000, lambda v: int(float(v)),
         "The number of instances used for calibration."),
        ("calibration.candidates", 10, int, "The number of candidates of learning rate."),
        ("calibration.max_trials", 20, int, "The maximum number of trials of learning rates "
         "for calibration."),
    ],
}
_ONLINE = [("max_iterations", 100, int, "The maximum number of iterations."),
           ("epsilon", 0.0, float, "The stopping criterion (the mean loss).")]
_PARAMS["averaged-perceptron"] = _FEATURE + [
    ("max_iterations", 100, int, "The maximum number of iterations."),
    ("epsilon", 0.0, float,
     "The stopping criterion (the ratio of incorrect label predictions)."),
]
_PARAMS["passive-aggressive"] = _FEATURE + [
    ("type", 1, int,
     "The strategy for updating feature weights: {\n    0: PA without slack variables,\n"
     "    1: PA type I,\n    2: PA type II\n}.\n"),
    ("c", 1.0, float, "The aggressiveness parameter."),
    ("error_sensitive", 1, int, "Consider the number of incorrect labels to the cost function."),
    ("averaging", 1, int,
     "Compute the average of feature weights (similarly to Averaged Perceptron)."),
] + _ONLINE
_PARAMS["arow"] = _FEATURE + [
    ("variance", 1.0, float, "The initial variance of every feature weight."),
    ("gamma", 1.0, float, "Tradeoff parameter."),
] + _ONLINE
# train_items's name of each algorithm named otherwise
_TRAIN_NAME = {"averaged-perceptron": "ap", "passive-aggressive": "pa"}
# train_items's keyword of each parameter
_KEYWORD = {"feature.minfreq": "min_freq", "feature.possible_states": "all_possible_states",
            "feature.possible_transitions": "all_possible_transitions",
            "calibration.eta": "calibration_eta", "calibration.rate": "calibration_rate",
            "calibration.samples": "calibration_samples",
            "calibration.candidates": "calibration_candidates",
            "calibration.max_trials": "calibration_max_trials", "type": "pa_type"}
_ALIASES = {"ap": "averaged-perceptron", "pa": "passive-aggressive"}


class TrainLog:
    """What a training run reported, in python-crfsuite's logparser terms: ``iterations`` (a
    dict per iteration: num, loss, feature_norm, error_norm, active_features,
    linesearch_step, time, and with a holdout group item_accuracy_float), ``last_iteration``,
    and ``log`` (the lines printed)."""

    def __init__(self):
        self.iterations, self.last_iteration, self.log = [], None, []
        self.featgen_num_features = None
        self.training_seconds = None
        self.stop_reason = None  # why training stopped (vitesse's train_report["stop_reason"])


class BaseTrainer:
    """python-crfsuite's Trainer: sequences appended in memory, an algorithm and its
    parameters, then ``train(model_path)``. With ``checkpoint`` (a path; vitesse's own), the
    training state is kept there every ``checkpoint_every`` iterations or epochs, and a train()
    that finds it continues from it (``vitesse.train_items``)."""

    def __init__(self, algorithm=None, params=None, verbose=True, checkpoint=None,
                 checkpoint_every=None):
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self._data = []
        self._algorithm = "lbfgs"
        self._values = {}
        self.verbose = verbose
        self.logparser = None
        if algorithm is not None:
            self.select(algorithm)
        if params is not None:
            self.set_params(params)

    def message(self, message):
        """Receives the training messages (a line each); prints them when ``verbose``."""
        if self.verbose:
            print(message, end="")

    def append(self, xseq, yseq, group=0):
        """Adds a sequence: ``xseq`` its items (a list, or an ItemSequence), ``yseq`` as many
        labels; ``group`` selects it for holdout evaluation (``train(holdout=group)``)."""
        items = list(_xseq(xseq))
        labels = [_item_text(y, "sequence %d label %d" % (len(self._data), t))
                  for t, y in enumerate(yseq)]
        for t, y in enumerate(labels):  # what a model cannot hold: refused now, not after training
            _check_label(y, "sequence %d label %d" % (len(self._data), t))
        if len(items) != len(labels):
            raise _vitesse.Error("The numbers of items and labels differ: |x| = %d, |y| = %d"
                                 % (len(items), len(labels)))
        self._data.append((items, labels, int(group)))

    def select(self, algorithm, type="crf1d"):
        """Chooses the training algorithm, 'lbfgs', 'l2sgd', 'ap' ('averaged-perceptron'),
        'pa' ('passive-aggressive') or 'arow' (the graphical model 'crf1d'), its parameters
        back to their defaults."""
        name = _ALIASES.get(str(algorithm).lower(), str(algorithm).lower())
        if type != "crf1d" or name not in _PARAMS:
            raise ValueError("Bad arguments: algorithm=%r, type=%r (vitesse trains 'lbfgs', "
                             "'l2sgd', 'ap', 'pa' and 'arow' from items)" % (name, type))
        self._algorithm = name
        self._values = {}  # as CRFsuite: a new algorithm starts from its own defaults

    def _spec(self):
        return {name: (default, cast, doc) for name, default, cast, doc in
                _PARAMS[self._algorithm]}

    def params(self):
        """The parameter names of the selected algorithm."""
        return [name for name, _, _, _ in _PARAMS[self._algorithm]]

    def set(self, name, value):
        """Sets a parameter (CRFsuite's name: 'c1', 'feature.minfreq', ...)."""
        spec = self._spec()
        if name not in spec:
            raise ValueError("Parameter not found: %s" % name)
        if isinstance(value, bool):
            value = int(value)
        try:
            self._values[name] = spec[name][1](str(value))
        except ValueError:
            raise ValueError("Parameter %s: bad value %r" % (name, value)) from None

    def get(self, name):
        """A parameter's value (its default when not set)."""
        spec = self._spec()
        if name not in spec:
            raise ValueError("Parameter not found: %s" % name)
        return self._values.get(name, spec[name][0])

    def set_params(self, params):
        """Sets every parameter of the dict ``{name: value}``."""
        for key, value in params.items():
            self.set(key, value)

    def get_params(self):
        """Every parameter of the selected algorithm and its value."""
        return {name: self.get(name) for name in self.params()}

    def help(self, name):
        """A parameter's description."""
        spec = self._spec()
        if name not in spec:
            raise ValueError("Parameter not found: %s" % name)
        return spec[name][2]

    def clear(self):
        """Removes every appended sequence."""
        self._data = []

    def _before_train(self):
        pass

    def _on_iteration(self, r):
        pass

    def train(self, model, holdout=-1):
        """Trains on the appended sequences (those of group ``holdout`` evaluated after each
        iteration instead) and writes the crf1d model file to ``model`` ('' or None: no file).
        The model is CRFsuite's: ``Tagger``, ``crfsuite tag`` and python-crfsuite read it."""
        self._before_train()
        train = [(x, y) for x, y, g in self._data if g != holdout]
        dev = [(x, y) for x, y, g in self._data if g == holdout] or None
        if not train:
            raise ValueError("no sequences to train on (append some first)")
        # every parameter, CRFsuite's defaults included (they differ between algorithms)
        kw = {_KEYWORD.get(name, name): value for name, value in self.get_params().items()}
        if kw.get("max_iterations") == 2147483647:
            kw["max_iterations"] = None
        path = os.fspath(model) if model else None
        log = self.logparser
        try:
            m = train_items(train, dev=dev, algorithm=_TRAIN_NAME.get(self._algorithm,
                                                                      self._algorithm), path=path,
                            on_iteration=self._on_iteration,
                            checkpoint=getattr(self, "checkpoint", None),
                            checkpoint_every=getattr(self, "checkpoint_every", None), **kw)
        except ItemTypeError:
            raise  # a wrong type in the sequences: a TypeError too
        except _vitesse.Error as e:
            raise CRFSuiteError(str(e)) from None
        if log is not None:
            log.training_seconds = sum(i["time"] for i in log.iterations)
            log.stop_reason = getattr(m, "train_report", {}).get("stop_reason")
        return m


class Trainer(BaseTrainer):
    """python-crfsuite's Trainer with its hooks: after each iteration ``on_iteration(log,
    info)`` (log: the iteration's text, info: its dict, see ``logparser``); ``logparser``
    keeps every iteration's figures (sklearn-crfsuite's ``training_log_``)."""

    def _before_train(self):
        self.logparser = TrainLog()
        self.on_start("Start training: %d sequences, algorithm %s\n"
                      % (len(self._data), self._algorithm))

    def _on_iteration(self, r):
        if r["iteration"] == 0:  # the loss at w = 0: no step taken yet
            return None
        info = {"num": r["iteration"], "scores": {}, "loss": r["loss"],
                "feature_norm": r["feature_norm"], "time": r["seconds"]}
        if self._algorithm in ("lbfgs", "l2sgd"):  # what CRFsuite prints of these only
            info.update(error_norm=r["error_norm"], active_features=r["active_features"],
                        linesearch_step=r["step"], linesearch_trials=r["evaluations"])
        if r.get("dev_accuracy", -1) >= 0:
            info["item_accuracy_float"] = r["dev_accuracy"]
        text = "***** Iteration #%d *****\nLoss: %f\nFeature norm: %f\n" % (
            info["num"], info["loss"], info["feature_norm"])
        if "error_norm" in info:
            text += ("Error norm: %f\nActive features: %d\nLine search trials: %d\n"
                     "Line search step: %f\n" % (info["error_norm"], info["active_features"],
                                                 info["linesearch_trials"],
                                                 info["linesearch_step"]))
        text += "Seconds required for this iteration: %.3f\n\n" % info["time"]
        self.logparser.iterations.append(info)
        self.logparser.last_iteration = info
        self.logparser.log.append(text)
        if self.verbose:
            self.on_iteration(text, info)
        return None

    def on_start(self, log):
        self.message(log)

    def on_iteration(self, log, info):
        print(log, end="")


class Tagger:
    """python-crfsuite's Tagger: a CRFsuite model (a crf1d file from ``crfsuite learn``,
    python-crfsuite, ``Trainer.train``, or vitesse's native copy), then ``set``/``tag``,
    ``probability`` and ``marginal`` over one sequence.

    Threads may share a Tagger: ``tag(xseq)`` tags the sequence it is given, whatever other
    threads set meanwhile (it is then the sequence set, as in python-crfsuite); ``set`` then
    ``tag()``, ``probability`` or ``marginal`` work on the sequence set last, by any thread."""

    def __init__(self):
        self._model, self._info = None, None
        # (items, marginals or None) of the sequence set: replaced whole, never in part, so a
        # reader sees one sequence and its own marginals; the lock orders the replacements
        self._seq = None
        self._lock = threading.Lock()

    def _opened(self, model, what):
        if model.kind != "crfsuite":
            raise ValueError("Invalid model %s: a %s model, not a CRFsuite one"
                             % (what, model.kind))
        with self._lock:
            self._model, self._seq, self._info = model, None, None
        return contextlib.closing(self)

    def open(self, name):
        """Opens a model file; returns a context manager that closes it."""
        try:
            m = _vitesse.Model(name)
        except _vitesse.Error as e:
            raise ValueError("Error opening model file %r: %s" % (name, e)) from None
        return self._opened(m, "file %r" % (name,))

    def open_inmemory(self, value):
        """Opens a model from the bytes of its file."""
        if not isinstance(value, bytes):
            raise TypeError("expected bytes, not %s" % type(value).__name__)
        try:
            m = _vitesse.Model.from_bytes(value)
        except _vitesse.Error as e:
            raise ValueError("Error opening model: %s" % e) from None
        return self._opened(m, "(in memory)")

    def close(self):
        """Closes the model."""
        with self._lock:
            self._model, self._seq, self._info = None, None, None

    def _need(self, sequence=True):
        """(model, the sequence set's (items, marginals) or None), read together."""
        with self._lock:
            model, seq = self._model, self._seq
        if model is None:
            raise ValueError("no model: open one first")
        if sequence and seq is None:
            raise ValueError("no sequence: set one, or pass it to tag")
        return model, seq

    def _set(self, model, x, marg=None, only_if=None):
        """Makes `x` (with its marginals) the sequence set, if `model` is still the one open
        (and with `only_if`, if that is still the sequence set)."""
        with self._lock:
            if self._model is model and (only_if is None or self._seq is only_if):
                self._seq = (x, marg)

    def labels(self):
        """The model's labels."""
        return self._need(sequence=False)[0].labels

    def set(self, xseq):
        """Sets the sequence ``tag``, ``probability`` and ``marginal`` work on."""
        model = self._need(sequence=False)[0]
        x = list(_xseq(xseq))
        model.tag(x)  # checks the items now
        self._set(model, x)

    def tag(self, xseq=None):
        """The best label sequence of ``xseq`` (None: the sequence set last); ``xseq`` is then
        the sequence set."""
        if xseq is None:
            model, (x, _) = self._need()
            return model.tag(x) if x else []
        model = self._need(sequence=False)[0]
        x = list(_xseq(xseq))
        labels = model.tag(x)
        self._set(model, x)
        return labels

    def probability(self, yseq):
        """P(yseq | the sequence set)."""
        model, (x, _) = self._need()
        score, log_z = model.path_score(x, list(yseq))
        return math.exp(score - log_z)

    def marginal(self, y, pos):
        """The marginal probability of label ``y`` at position ``pos`` of the sequence set."""
        model, seq = self._need()
        x, marg = seq
        labels = model.labels
        if y not in labels:
            raise ValueError("unknown label %r" % (y,))
        if not 0 <= pos < len(x):
            raise IndexError("position %d of a sequence of %d items" % (pos, len(x)))
        if marg is None:
            marg = model.tag(x, marginals=True)[1]
            self._set(model, x, marg, only_if=seq)
        return float(marg[pos, labels.index(y)])

    def info(self):
        """The model's parameters (a ParsedDump: header, labels, attributes, transitions,
        state_features), read from its crf1d file."""
        model = self._need(sequence=False)[0]
        if self._info is None:
            self._info = _crf1d.parse(model.to_bytes(format="crfsuite"))
        return self._info

    def dump(self, filename=None):
        """Writes what ``crfsuite dump`` prints for the model to `filename` (None: stdout)."""
        text = _crf1d.dump_text(self.info())
        if filename is None:
            print(text, end="")
        else:
            with open(filename, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
