/* python/src/train.c: vitesse._vitesse.train: the averaged-perceptron trainer (vt_train_tagger on
 * corpus files, vt_train_tagger_mem on sentences held in Python), with Python callbacks. The GIL is
 * released while training and taken back inside each callback. vitesse.train (Python) is the
 * friendly front: template text or path, a temporary model file, verbose output. */
#include "vtpy.h"

#include <string.h>

/* The callbacks and the first exception one of them raised (training stops at the next epoch's
 * end then; a KeyboardInterrupt seen between callbacks counts too). */
typedef struct {
  PyObject *on_start, *on_epoch, *on_progress; /* callables or None */
  PyObject *type, *value, *tb;                 /* the stored exception */
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
  return Py_BuildValue(
      "{s:L,s:L,s:i,s:L,s:i,s:s,s:i,s:d,s:d,s:d,s:d,s:L,s:K}", "sentences", (long long)r->sentences,
      "tokens", (long long)r->tokens, "labels", r->labels, "features", (long long)r->features,
      "templates", r->templates, "decoder", vt_algo_name(r->decoder), "epochs", r->epochs,
      "read_seconds", r->read_seconds, "train_seconds", r->train_seconds, "train_accuracy",
      r->train_accuracy, "dev_accuracy", r->dev_accuracy, "model_features",
      (long long)r->model_features, "model_bytes", (unsigned long long)r->model_bytes);
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
  if (c->type) stop = 1;
  PyGILState_Release(g);
  return stop;
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

PyObject *vtpy_train(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwlist[] = {"template",  "template_name", "train",    "dev",         "files",
                           "path",      "epochs",        "decoder",  "seed",        "min_count",
                           "label_col", "on_start",      "on_epoch", "on_progress", NULL};
  const char *tmpl, *tmpl_name, *decoder = NULL;
  Py_ssize_t tmpl_len;
  PyObject *train, *dev, *out_obj = NULL;
  int files, epochs = 10, label_col = -1;
  unsigned long long seed = 1;
  unsigned int min_count = 1;
  callbacks cb = {Py_None, Py_None, Py_None, NULL, NULL, NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#sOOpO&|$izKIiOOO:train", kwlist, &tmpl, &tmpl_len,
                                   &tmpl_name, &train, &dev, &files, PyUnicode_FSConverter,
                                   &out_obj, &epochs, &decoder, &seed, &min_count, &label_col,
                                   &cb.on_start, &cb.on_epoch, &cb.on_progress))
    return NULL;
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
  o.ctx = &cb;
  if (!keep) goto done;
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
  if (cb.type) {
    PyErr_Restore(cb.type, cb.value, cb.tb);
    cb.type = cb.value = cb.tb = NULL;
  } else if (st != VT_OK) {
    vtpy_raise(st, "train");
  } else {
    result = report_dict(&rep);
  }
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
  return result;
}

const char vtpy_train_doc[] =
    "train(template, template_name, train, dev, files, path, *, epochs=10, decoder=None, "
    "seed=1, min_count=1, label_col=-1, on_start=None, on_epoch=None, on_progress=None)\n--\n\n"
    "The trainer under vitesse.train: writes the model to `path` and returns the training "
    "report (a dict). `files`: train and dev are lists of corpus paths, else lists of "
    "sentences. on_epoch(report) returning true stops training.";
