/* python/src/train.c: vitesse._vitesse.train and train_items: the trainers over templates
 * (vt_train_tagger on corpus files, vt_train_tagger_mem on sentences held in Python; the averaged
 * perceptron or a CRF) and over CRFsuite item files (vt_train_items: a CRF), with Python
 * callbacks. The GIL is released while training and taken back inside each callback.
 * vitesse.train and vitesse.train_items (Python) are the friendly fronts: names of algorithms
 * and line searches, template text or path, items held in memory, a temporary model file,
 * verbose output. */
#include "vtpy.h"

#include <stddef.h>
#include <string.h>

/* The callbacks and the first exception one of them raised (training stops at the next epoch's
 * end then; a KeyboardInterrupt seen between callbacks counts too). With a checkpoint, the
 * training writes it there and returns VT_ECANCELED (on_cancel), no model; without, it stops
 * as a callback's true result stops it. */
typedef struct {
  PyObject *on_start, *on_epoch, *on_progress, *on_iteration; /* callables or None */
  PyObject *type, *value, *tb;                                /* the stored exception */
  int checkpoint;                                             /* the run keeps one */
} callbacks;

/* Keeps the pending exception, if any and if none is kept yet. GIL held. */
static void keep_error(callbacks *c) {
  if (!PyErr_Occurred()) return;
  if (c->type) {
    PyErr_Clear();
    return;
  }
  PyErr_Fetch(&c->type, &c->value, &c->tb);
}

static PyObject *report_dict(const vt_train_report *r) {
  return Py_BuildValue("{s:L,s:L,s:i,s:L,s:i,s:s,s:i,s:d,s:d,s:d,s:d,s:L,s:K,s:z}", "sentences",
                       (long long)r->sentences, "tokens", (long long)r->tokens, "labels", r->labels,
                       "features", (long long)r->features, "templates", r->templates, "decoder",
                       vt_algo_name(r->decoder), "epochs", r->epochs, "read_seconds",
                       r->read_seconds, "train_seconds", r->train_seconds, "train_accuracy",
                       r->train_accuracy, "dev_accuracy", r->dev_accuracy, "model_features",
                       (long long)r->model_features, "model_bytes",
                       (unsigned long long)r->model_bytes, "stop_reason", r->stop_reason);
}

static void cb_start(void *ctx, const vt_train_report *r) {
  callbacks *c = ctx;
  PyGILState_STATE g = PyGILState_Ensure();
  if (c->on_start != Py_None && !c->type) {
    PyObject *d = report_dict(r);
    PyObject *res = d ? PyObject_CallOneArg(c->on_start, d) : NULL;
    Py_XDECREF(res);
    Py_XDECREF(d);
  }
  keep_error(c);
  PyGILState_Release(g);
}

static void cb_progress(void *ctx, int32_t epoch, int32_t epochs, int64_t done, int64_t total) {
  callbacks *c = ctx;
  PyGILState_STATE g = PyGILState_Ensure();
  if (!c->type && PyErr_CheckSignals() == 0 && c->on_progress != Py_None) {
    PyObject *res = PyObject_CallFunction(c->on_progress, "iiLL", (int)epoch, (int)epochs,
                                          (long long)done, (long long)total);
    Py_XDECREF(res);
  }
  keep_error(c);
  PyGILState_Release(g);
}

static int cb_epoch(void *ctx, const vt_epoch_report *r) {
  callbacks *c = ctx;
  int stop = 0;
  PyGILState_STATE g = PyGILState_Ensure();
  if (!c->type && PyErr_CheckSignals() == 0 && c->on_epoch != Py_None) {
    PyObject *d =
        Py_BuildValue("{s:i,s:i,s:L,s:L,s:d,s:d,s:d,s:d}", "epoch", r->epoch, "epochs", r->epochs,
                      "sentences", (long long)r->sentences, "mistakes", (long long)r->mistakes,
                      "train_accuracy", r->train_accuracy, "dev_accuracy", r->dev_accuracy,
                      "seconds", r->seconds, "total_seconds", r->total_seconds);
    PyObject *res = d ? PyObject_CallOneArg(c->on_epoch, d) : NULL;
    if (res) stop = PyObject_IsTrue(res) == 1;
    Py_XDECREF(res);
    Py_XDECREF(d);
  }
  keep_error(c);
  if (c->type && !c->checkpoint) stop = 1;
  PyGILState_Release(g);
  return stop;
}

/* Whether an exception is kept, or a signal (^C) raised one since the last callback: the
 * checkpoint is then written and training stops (vt_train_opts.on_cancel). */
static int cb_cancel(void *ctx) {
  callbacks *c = ctx;
  PyGILState_STATE g = PyGILState_Ensure();
  if (!c->type && PyErr_CheckSignals() != 0) keep_error(c);
  const int cancel = c->type != NULL;
  PyGILState_Release(g);
  return cancel;
}

/* A CRF iteration (vt_iter_report) to on_iteration as a dict; its true result stops training. */
static int cb_iteration(void *ctx, const vt_iter_report *r) {
  callbacks *c = ctx;
  int stop = 0;
  PyGILState_STATE g = PyGILState_Ensure();
  if (!c->type && PyErr_CheckSignals() == 0 && c->on_iteration != Py_None) {
    PyObject *d = Py_BuildValue("{s:i,s:i,s:d,s:d,s:d,s:L,s:d,s:d,s:d,s:d,s:d}", "iteration",
                                r->iteration, "evaluations", r->evaluations, "loss", r->loss,
                                "feature_norm", r->feature_norm, "error_norm", r->error_norm,
                                "active_features", (long long)r->active_features, "step", r->step,
                                "seconds", r->seconds, "total_seconds", r->total_seconds,
                                "eval_seconds", r->eval_seconds, "dev_accuracy", r->dev_accuracy);
    PyObject *res = d ? PyObject_CallOneArg(c->on_iteration, d) : NULL;
    if (res) stop = PyObject_IsTrue(res) == 1;
    Py_XDECREF(res);
    Py_XDECREF(d);
  }
  keep_error(c);
  if (c->type && !c->checkpoint) stop = 1;
  PyGILState_Release(g);
  return stop;
}

/* The CRF parameters of vt_train_opts that `crf` dicts name (vitesse._train passes them under
 * these names, checked and converted: linesearch as its vt_linesearch number, max_iterations
 * 0 for none, the possible_* flags as 0 or 1). */
static const struct {
  const char *name;
  int is_double; /* else int32_t */
  size_t offset;
} crf_fields[] = {
    {"c1", 1, offsetof(vt_train_opts, c1)},
    {"c2", 1, offsetof(vt_train_opts, c2)},
    {"max_iterations", 0, offsetof(vt_train_opts, max_iterations)},
    {"epsilon", 1, offsetof(vt_train_opts, epsilon)},
    {"period", 0, offsetof(vt_train_opts, period)},
    {"delta", 1, offsetof(vt_train_opts, delta)},
    {"num_memories", 0, offsetof(vt_train_opts, num_memories)},
    {"linesearch", 0, offsetof(vt_train_opts, linesearch)},
    {"max_linesearch", 0, offsetof(vt_train_opts, max_linesearch)},
    {"calibration_eta", 1, offsetof(vt_train_opts, calibration_eta)},
    {"calibration_rate", 1, offsetof(vt_train_opts, calibration_rate)},
    {"calibration_samples", 0, offsetof(vt_train_opts, calibration_samples)},
    {"calibration_candidates", 0, offsetof(vt_train_opts, calibration_candidates)},
    {"calibration_max_trials", 0, offsetof(vt_train_opts, calibration_max_trials)},
    {"min_freq", 1, offsetof(vt_train_opts, min_freq)},
    {"possible_states", 0, offsetof(vt_train_opts, possible_states)},
    {"possible_transitions", 0, offsetof(vt_train_opts, possible_transitions)},
    {"online_epsilon", 1, offsetof(vt_train_opts, online_epsilon)},
    {"pa_c", 1, offsetof(vt_train_opts, pa_c)},
    {"arow_variance", 1, offsetof(vt_train_opts, arow_variance)},
    {"arow_gamma", 1, offsetof(vt_train_opts, arow_gamma)},
    {"pa_type", 0, offsetof(vt_train_opts, pa_type)},
    {"pa_error_sensitive", 0, offsetof(vt_train_opts, pa_error_sensitive)},
    {"pa_averaging", 0, offsetof(vt_train_opts, pa_averaging)},
};

/* Sets o's CRF parameters from the dict `crf` (None: the library's defaults stay). The values
 * are not range-checked here: the library checks them and says what is wrong. Returns 0, or -1
 * with TypeError (a value of the wrong type, an unknown name) or ValueError (an integer beyond
 * 32 bits). */
static int crf_opts_set(PyObject *crf, vt_train_opts *o) {
  if (crf == Py_None) return 0;
  if (!PyDict_Check(crf)) {
    PyErr_SetString(PyExc_TypeError, "crf must be a dict of CRF parameters");
    return -1;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(crf, &pos, &key, &value)) {
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    size_t i = 0, n = sizeof crf_fields / sizeof crf_fields[0];
    while (name && i < n && strcmp(name, crf_fields[i].name)) i++;
    if (!name || i == n) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "unknown CRF parameter %R", key);
      return -1;
    }
    char *field = (char *)o + crf_fields[i].offset;
    if (crf_fields[i].is_double) {
      double v = PyFloat_AsDouble(value);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", name,
                     Py_TYPE(value)->tp_name);
        return -1;
      }
      memcpy(field, &v, sizeof v);
    } else {
      PyObject *ix = PyNumber_Index(value); /* int, NumPy integers; not float */
      if (!ix) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name,
                     Py_TYPE(value)->tp_name);
        return -1;
      }
      long long v = PyLong_AsLongLong(ix);
      Py_DECREF(ix);
      if ((v == -1 && PyErr_Occurred()) || v < INT32_MIN || v > INT32_MAX) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must fit in 32 bits, not %R", name, value);
        return -1;
      }
      int32_t v32 = (int32_t)v;
      memcpy(field, &v32, sizeof v32);
    }
  }
  return 0;
}

/* File names of `list` (str or PathLike items) as a NULL-terminated array; `keep` holds the
 * bytes objects. Returns the count or -1. */
static Py_ssize_t file_names(PyObject *list, PyObject *keep, const char ***out) {
  PyObject *seq = PySequence_Fast(list, "a list of paths");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **names = PyMem_Malloc((size_t)(n + 1) * sizeof *names);
  if (!names) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &b) ||
        PyList_Append(keep, b) < 0) {
      Py_XDECREF(b);
      Py_DECREF(seq);
      PyMem_Free(names);
      return -1;
    }
    names[i] = PyBytes_AS_STRING(b);
    Py_DECREF(b);
  }
  Py_DECREF(seq);
  *out = names;
  return n;
}

/* The vt_sentence_in array of sentences `s` (PyMem; NULL with an exception). */
static vt_sentence_in *sentence_in(const vtpy_sentences *s) {
  vt_sentence_in *in = PyMem_Malloc((size_t)(s->n_sent + 1) * sizeof *in);
  if (!in) return (vt_sentence_in *)PyErr_NoMemory();
  for (int64_t i = 0; i < s->n_sent; i++) {
    in[i].cells = s->cells + s->at[i];
    in[i].T = s->T[i];
    in[i].ncols = s->ncols[i];
  }
  return in;
}

/* What a training call returns: the exception a callback raised (restored, cb's copy cleared),
 * else the library's error, else the report (a dict). */
static PyObject *train_result(callbacks *cb, vt_status st, const char *what,
                              const vt_train_report *rep) {
  if (cb->type) {
    PyErr_Restore(cb->type, cb->value, cb->tb);
    cb->type = cb->value = cb->tb = NULL;
    return NULL;
  }
  if (st != VT_OK) return vtpy_raise(st, what);
  return report_dict(rep);
}

PyObject *vtpy_train(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwlist[] = {
      "template",   "template_name",    "train",         "dev",       "files",     "path",
      "epochs",     "decoder",          "seed",          "min_count", "label_col", "on_start",
      "on_epoch",   "on_progress",      "algorithm",     "crf",       "threads",   "on_iteration",
      "checkpoint", "checkpoint_every", "checkpoint_id", NULL};
  const char *tmpl, *tmpl_name, *decoder = NULL, *ck_id = NULL;
  Py_ssize_t tmpl_len;
  PyObject *train, *dev, *out_obj = NULL, *crf = Py_None, *ck_arg = Py_None, *ck_obj = NULL;
  int files, epochs = 10, label_col = -1, algorithm = VT_TRAIN_PERCEPTRON, threads = 0;
  int ck_every = 0;
  unsigned long long seed = 1;
  unsigned int min_count = 1;
  callbacks cb = {Py_None, Py_None, Py_None, Py_None, NULL, NULL, NULL, 0};
  if (!PyArg_ParseTupleAndKeywords(
          args, kw, "s#sOOpO&|$izKIiOOOiOiOOiz:train", kwlist, &tmpl, &tmpl_len, &tmpl_name, &train,
          &dev, &files, PyUnicode_FSConverter, &out_obj, &epochs, &decoder, &seed, &min_count,
          &label_col, &cb.on_start, &cb.on_epoch, &cb.on_progress, &algorithm, &crf, &threads,
          &cb.on_iteration, &ck_arg, &ck_every, &ck_id))
    return NULL;
  if (ck_arg != Py_None && !PyUnicode_FSConverter(ck_arg, &ck_obj)) {
    Py_DECREF(out_obj);
    return NULL;
  }
  PyObject *result = NULL, *keep = PyList_New(0);
  const char **tf = NULL, **df = NULL;
  vtpy_sentences ts, ds;
  vt_sentence_in *ti = NULL, *di = NULL;
  memset(&ts, 0, sizeof ts);
  memset(&ds, 0, sizeof ds);
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.templates = tmpl;
  o.templates_len = (size_t)tmpl_len;
  o.templates_name = tmpl_name;
  o.epochs = epochs;
  o.seed = seed;
  o.min_count = min_count;
  o.label_col = label_col;
  o.on_start = cb_start;
  o.on_epoch = cb_epoch;
  o.on_progress = cb_progress;
  o.on_iteration = cb_iteration;
  o.ctx = &cb;
  o.algorithm = algorithm;
  o.threads = threads;
  o.checkpoint = ck_obj ? PyBytes_AS_STRING(ck_obj) : NULL;
  o.checkpoint_every = ck_every;
  o.checkpoint_id = ck_id;
  o.on_cancel = cb_cancel;
  cb.checkpoint = ck_obj != NULL;
  if (!keep || crf_opts_set(crf, &o) < 0 || vtpy_threads_check(threads) < 0) goto done;
  if (epochs < 1) {
    PyErr_Format(PyExc_ValueError, "epochs must be >= 1, not %d", epochs);
    goto done;
  }
  if (decoder) {
    vt_decode_opts d;
    PyObject *name = PyUnicode_FromString(decoder);
    int bad = !name || vtpy_decode_opts(name, 1, Py_None, 2, &d) < 0;
    Py_XDECREF(name);
    if (bad) goto done;
    o.decoder = d.algo;
    o.decoder_set = 1;
  }
  const char *out_path = PyBytes_AS_STRING(out_obj);
  vt_train_report rep;
  memset(&rep, 0, sizeof rep);
  vt_status st;
  if (files) {
    Py_ssize_t nt = file_names(train, keep, &tf), nd = 0;
    if (nt < 0 || (dev != Py_None && (nd = file_names(dev, keep, &df)) < 0)) goto done;
    Py_BEGIN_ALLOW_THREADS
    st = vt_train_tagger(&o, tf, (int)nt, df, (int)nd, out_path, &rep);
    Py_END_ALLOW_THREADS
  } else {
    if (vtpy_sentences_read(&ts, train, 0) < 0) goto done;
    if (dev != Py_None && vtpy_sentences_read(&ds, dev, 0) < 0) goto done;
    if (!(ti = sentence_in(&ts)) || !(di = sentence_in(&ds))) goto done;
    Py_BEGIN_ALLOW_THREADS
    st = vt_train_tagger_mem(&o, ti, ts.n_sent, di, ds.n_sent, out_path, &rep);
    Py_END_ALLOW_THREADS
  }
  result = train_result(&cb, st, "train", &rep);
done:
  Py_XDECREF(cb.type);
  Py_XDECREF(cb.value);
  Py_XDECREF(cb.tb);
  PyMem_Free(tf);
  PyMem_Free(df);
  PyMem_Free(ti);
  PyMem_Free(di);
  vtpy_sentences_free(&ts);
  vtpy_sentences_free(&ds);
  Py_XDECREF(keep);
  Py_XDECREF(out_obj);
  Py_XDECREF(ck_obj);
  return result;
}

const char vtpy_train_doc[] =
    "train(template, template_name, train, dev, files, path, *, epochs=10, decoder=None, "
    "seed=1, min_count=1, label_col=-1, on_start=None, on_epoch=None, on_progress=None, "
    "algorithm=0, crf=None, threads=0, on_iteration=None, checkpoint=None, checkpoint_every=0, "
    "checkpoint_id=None)\n--\n\n"
    "The trainer under vitesse.train: writes the model to `path` and returns the training "
    "report (a dict). `files`: train and dev are lists of corpus paths, else lists of "
    "sentences. `algorithm`: 0 the averaged perceptron, 1 L-BFGS, 2 SGD (a CRF, with the "
    "parameters of the dict `crf`). on_epoch(report) (perceptron) and on_iteration(report) "
    "(CRF) returning true stop training. `checkpoint`, `checkpoint_every`, `checkpoint_id`: as "
    "train_items's.";

PyObject *vtpy_train_items(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwlist[] = {
      "train",         "dev",     "path",     "algorithm",    "crf",        "init_model",
      "seed",          "threads", "on_start", "on_iteration", "checkpoint", "checkpoint_every",
      "checkpoint_id", NULL};
  PyObject *train, *dev, *out_obj = NULL, *init_arg = Py_None, *init_obj = NULL, *crf = Py_None;
  PyObject *ck_arg = Py_None, *ck_obj = NULL;
  const char *ck_id = NULL;
  int algorithm = VT_TRAIN_LBFGS, threads = 0, ck_every = 0;
  unsigned long long seed = 1;
  callbacks cb = {Py_None, Py_None, Py_None, Py_None, NULL, NULL, NULL, 0};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO&|$iOOKiOOOiz:train_items", kwlist, &train, &dev,
                                   PyUnicode_FSConverter, &out_obj, &algorithm, &crf, &init_arg,
                                   &seed, &threads, &cb.on_start, &cb.on_iteration, &ck_arg,
                                   &ck_every, &ck_id))
    return NULL;
  if ((init_arg != Py_None && !PyUnicode_FSConverter(init_arg, &init_obj)) ||
      (ck_arg != Py_None && !PyUnicode_FSConverter(ck_arg, &ck_obj))) {
    Py_DECREF(out_obj);
    Py_XDECREF(init_obj);
    return NULL;
  }
  PyObject *result = NULL, *keep = PyList_New(0);
  const char **tf = NULL, **df = NULL;
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.algorithm = algorithm;
  o.seed = seed;
  o.threads = threads;
  o.init_model = init_obj ? PyBytes_AS_STRING(init_obj) : NULL;
  o.checkpoint = ck_obj ? PyBytes_AS_STRING(ck_obj) : NULL;
  o.checkpoint_every = ck_every;
  o.checkpoint_id = ck_id;
  o.on_cancel = cb_cancel;
  cb.checkpoint = ck_obj != NULL;
  o.on_start = cb_start;
  o.on_iteration = cb_iteration;
  o.ctx = &cb;
  if (!keep || crf_opts_set(crf, &o) < 0 || vtpy_threads_check(threads) < 0) goto done;
  Py_ssize_t nt = file_names(train, keep, &tf), nd = 0;
  if (nt < 0 || (dev != Py_None && (nd = file_names(dev, keep, &df)) < 0)) goto done;
  const char *out_path = PyBytes_AS_STRING(out_obj);
  vt_train_report rep;
  memset(&rep, 0, sizeof rep);
  vt_status st;
  Py_BEGIN_ALLOW_THREADS
  st = vt_train_items(&o, tf, (int)nt, df, (int)nd, out_path, &rep);
  Py_END_ALLOW_THREADS
  result = train_result(&cb, st, "train_items", &rep);
done:
  Py_XDECREF(cb.type);
  Py_XDECREF(cb.value);
  Py_XDECREF(cb.tb);
  PyMem_Free(tf);
  PyMem_Free(df);
  Py_XDECREF(keep);
  Py_XDECREF(out_obj);
  Py_XDECREF(init_obj);
  Py_XDECREF(ck_obj);
  return result;
}

const char vtpy_train_items_doc[] =
    "train_items(train, dev, path, *, algorithm=1, crf=None, init_model=None, seed=1, "
    "threads=0, on_start=None, on_iteration=None, checkpoint=None, checkpoint_every=0, "
    "checkpoint_id=None)\n--\n\n"
    "The CRF trainer under vitesse.train_items: trains on the CRFsuite item files `train` (a "
    "list of paths; `dev` a list or None), writes a CRFsuite model to `path` and returns the "
    "training report (a dict). `algorithm`: 1 L-BFGS, 2 SGD, with the parameters of the dict "
    "`crf`. on_iteration(report) returning true stops training. `checkpoint`: a path where the "
    "training state is kept every `checkpoint_every` iterations or epochs (0: the default) and "
    "training continues from when it exists; `checkpoint_id`: the identity lines of the inputs "
    "it is kept with (vt_train_opts).";
