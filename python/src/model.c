/* python/src/model.c: vitesse.Model: a model file opened once (vt_model), tagging sentences held in
 * Python (vt_tagger: on the calling thread, or one per worker thread for tag_many) and corpus files
 * (vt_engine_tag). The GIL is released while tagging. */
#include "vtpy.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Taggers kept for the next calls: one per set of decoder options in use, or per Python thread
 * tagging at the same time, up to this many (making one costs milliseconds: its arena and row
 * cache). */
enum { TAGGER_SLOTS = 4 };

/* A tagger kept for the next call with the same options. */
typedef struct {
  vt_tagger *t;
  vt_decode_opts opts;
  int use_opts; /* 0: the model's default (opts NULL) */
} cached_tagger;

typedef struct {
  PyObject_HEAD vt_model *m;
  vt_model_info info;
  PyObject *path;         /* str or None */
  PyObject *labels;       /* list of str: label (joint: POS tag) names */
  PyObject *chunk_labels; /* list of str (joint), else empty */
  _Atomic(cached_tagger *) cache[TAGGER_SLOTS];
  PyObject *dict; /* attributes set from Python (vitesse.train sets train_report) */
} Model;

static void cached_free(cached_tagger *c) {
  if (!c) return;
  vt_tagger_destroy(c->t);
  free(c);
}

/* The decoder options of a call: `use` 0 when the model's default applies. 0 or -1. */
static int model_opts(Model *self, PyObject *algo, int k, PyObject *beam, vt_decode_opts *o,
                      int *use) {
  if (vtpy_decode_opts(algo, k, beam, 0, o) < 0) return -1;
  *use = 1;
  if (o->algo == VT_ALGO_COUNT_) {
    if (k == 1) {
      *use = 0;
      return 0;
    }
    vt_model_default_decoder(self->m, k, o);
  }
  vt_status st = vt_model_check_decoder(self->m, o);
  if (st != VT_OK) {
    vtpy_raise(st, "decoder");
    return -1;
  }
  return 0;
}

/* Returns a tagger for the options (a cached one when one matches), or NULL with *st. */
static cached_tagger *tagger_take(Model *self, const vt_decode_opts *o, int use, vt_status *st) {
  for (int i = 0; i < TAGGER_SLOTS; i++) {
    cached_tagger *c = atomic_exchange(&self->cache[i], NULL);
    if (!c) continue;
    if (c->use_opts == use && (!use || !memcmp(&c->opts, o, sizeof *o))) return c;
    cached_tagger *none = NULL;
    if (!atomic_compare_exchange_strong(&self->cache[i], &none, c)) cached_free(c);
  }
  cached_tagger *c = calloc(1, sizeof *c);
  if (!c) {
    *st = VT_ENOMEM;
    return NULL;
  }
  c->use_opts = use;
  if (use) c->opts = *o;
  if ((*st = vt_tagger_create(&c->t, self->m, use ? o : NULL)) != VT_OK) {
    free(c);
    return NULL;
  }
  return c;
}

/* Keeps `c` in a free slot, or frees it when all are taken. */
static void tagger_give(Model *self, cached_tagger *c) {
  for (int i = 0; c && i < TAGGER_SLOTS; i++) {
    cached_tagger *none = NULL;
    if (atomic_compare_exchange_strong(&self->cache[i], &none, c)) return;
  }
  cached_free(c);
}

typedef vtpy_sentences sentences;

/* What tagging the sentences writes: per sentence k*T labels, k scores, T chunks, n_paths. */
typedef struct {
  int32_t k;
  int64_t *lab_at; /* first label of each sentence in labels (k*T apart) */
  int32_t *labels, *chunks;
  double *scores;
  int32_t *n_paths;
  int items;           /* a CRFsuite model: each token's one cell is an item line */
  int32_t L;           /* with marginals: the model's labels */
  double *marg;        /* with marginals: T*L per sentence, at lab_at[i] * L */
  double *logz;        /* with marginals: per sentence */
  const int32_t *path; /* path_score: the path of sentence 0 to score */
  double path_score;
} tag_results;

static void results_free(tag_results *r) {
  PyMem_Free(r->lab_at);
  PyMem_Free(r->labels);
  PyMem_Free(r->chunks);
  PyMem_Free(r->scores);
  PyMem_Free(r->n_paths);
  PyMem_Free(r->marg);
  PyMem_Free(r->logz);
}

static int results_alloc(tag_results *r, const sentences *s, int32_t k, int items, int32_t L) {
  memset(r, 0, sizeof *r);
  r->k = k;
  r->items = items;
  r->L = L;
  int64_t tokens = 0;
  r->lab_at = PyMem_Malloc((size_t)(s->n_sent + 1) * sizeof *r->lab_at);
  for (int64_t i = 0; r->lab_at && i < s->n_sent; i++) {
    r->lab_at[i] = tokens;
    tokens += s->T[i];
  }
  r->labels = PyMem_Malloc((size_t)(k * tokens + 1) * sizeof *r->labels);
  r->chunks = PyMem_Malloc((size_t)(tokens + 1) * sizeof *r->chunks);
  r->scores = PyMem_Malloc((size_t)(k * s->n_sent + 1) * sizeof *r->scores);
  r->n_paths = PyMem_Calloc((size_t)(s->n_sent + 1), sizeof *r->n_paths);
  if (L > 0) {
    r->marg = PyMem_Malloc((size_t)(tokens * L + 1) * sizeof *r->marg);
    r->logz = PyMem_Malloc((size_t)(s->n_sent + 1) * sizeof *r->logz);
  }
  if (r->lab_at && r->labels && r->chunks && r->scores && r->n_paths &&
      (L == 0 || (r->marg && r->logz)))
    return 0;
  results_free(r);
  PyErr_NoMemory();
  return -1;
}

/* Tags sentence i with tagger t. GIL released. */
static vt_status tag_one(vt_tagger *t, const sentences *s, tag_results *r, int64_t i) {
  vt_tag_out out;
  memset(&out, 0, sizeof out);
  out.labels = r->labels + r->lab_at[i] * r->k;
  out.scores = r->scores + i * r->k;
  out.chunks = r->chunks + r->lab_at[i];
  if (r->marg) out.marg = r->marg + r->lab_at[i] * r->L;
  out.path = r->path;
  vt_status st = r->items ? vt_tagger_tag_items(t, s->cells + s->at[i], s->T[i], &out)
                          : vt_tagger_tag(t, s->cells + s->at[i], s->T[i], s->ncols[i], &out);
  r->n_paths[i] = out.n_paths;
  if (r->logz) r->logz[i] = out.logz;
  if (r->path) r->path_score = out.path_score;
  return st;
}

/* Tags the sentences of `s` on the calling thread with a cached tagger for the options (`use` 0:
 * the model's default), the GIL released. Returns a status. */
static vt_status tag_here(Model *self, const vt_decode_opts *o, int use, const sentences *s,
                          tag_results *r) {
  vt_status st = VT_OK;
  Py_BEGIN_ALLOW_THREADS
  cached_tagger *c = tagger_take(self, o, use, &st);
  for (int64_t i = 0; c && i < s->n_sent && st == VT_OK; i++) st = tag_one(c->t, s, r, i);
  tagger_give(self, c);
  Py_END_ALLOW_THREADS
  return st;
}

/* ---- tag_many's worker threads ---- */

typedef struct {
  Model *self;
  const vt_decode_opts *opts; /* NULL: the model's default */
  const sentences *s;
  tag_results *r;
  atomic_llong next;
  atomic_int failed;
  pthread_mutex_t lock;
  vt_status st;
  char err[512];
} pool;

static void pool_fail(pool *p, vt_status st) {
  pthread_mutex_lock(&p->lock);
  if (p->st == VT_OK) {
    p->st = st;
    snprintf(p->err, sizeof p->err, "%s", vt_last_error());
  }
  pthread_mutex_unlock(&p->lock);
  atomic_store(&p->failed, 1);
}

static void *pool_work(void *arg) {
  pool *p = arg;
  vt_tagger *t = NULL;
  vt_status st = vt_tagger_create(&t, p->self->m, p->opts);
  if (st != VT_OK) {
    pool_fail(p, st);
    return NULL;
  }
  for (;;) {
    long long i = atomic_fetch_add(&p->next, 1);
    if (i >= p->s->n_sent || atomic_load(&p->failed)) break;
    if ((st = tag_one(t, p->s, p->r, i)) != VT_OK) {
      pool_fail(p, st);
      break;
    }
  }
  vt_tagger_destroy(t);
  return NULL;
}

/* Tags every sentence on `threads` threads (the calling one among them). GIL released. */
static vt_status pool_run(pool *p, int threads) {
  pthread_t tid[256];
  int started = 0;
  if (threads > 256) threads = 256;
  for (; started < threads - 1; started++)
    if (pthread_create(&tid[started], NULL, pool_work, p) != 0) break;
  pool_work(p);
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  return p->st;
}

/* ---- results to Python ---- */

/* The labels of path p of sentence i: list of str (joint: (pos, chunk) tuples). */
static PyObject *path_labels(Model *self, const sentences *s, const tag_results *r, int64_t i,
                             int32_t p) {
  const int32_t T = s->T[i];
  const int32_t *y = r->labels + r->lab_at[i] * r->k + (int64_t)p * T;
  const int joint = (self->info.can & VT_CAN_CHUNKS) != 0;
  PyObject *list = PyList_New(T);
  for (int32_t t = 0; list && t < T; t++) {
    PyObject *name = PyList_GET_ITEM(self->labels, y[t]);
    if (joint) {
      PyObject *chunk = PyList_GET_ITEM(self->chunk_labels, r->chunks[r->lab_at[i] + t]);
      name = PyTuple_Pack(2, name, chunk);
      if (!name) {
        Py_CLEAR(list);
        break;
      }
    } else {
      Py_INCREF(name);
    }
    PyList_SET_ITEM(list, t, name);
  }
  return list;
}

/* The (T, L) marginals of sentence i as a new float64 array. */
static PyObject *sentence_marginals(const sentences *s, const tag_results *r, int64_t i) {
  npy_intp dims[2] = {s->T[i], r->L};
  PyObject *a = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (a)
    memcpy(PyArray_DATA((PyArrayObject *)a), r->marg + r->lab_at[i] * r->L,
           (size_t)s->T[i] * (size_t)r->L * sizeof(double));
  return a;
}

static PyObject *sentence_paths(Model *self, const sentences *s, const tag_results *r, int64_t i);

/* One sentence's result: k = 1: its labels (None: no finite path); else (score, labels)s; with
 * marginals, (that, marginals, log Z). */
static PyObject *sentence_result(Model *self, const sentences *s, const tag_results *r, int64_t i) {
  PyObject *paths = sentence_paths(self, s, r, i);
  if (!paths || !r->marg) return paths;
  PyObject *marg = sentence_marginals(s, r, i);
  if (!marg) {
    Py_DECREF(paths);
    return NULL;
  }
  return Py_BuildValue("(NNd)", paths, marg, r->logz[i]);
}

static PyObject *sentence_paths(Model *self, const sentences *s, const tag_results *r, int64_t i) {
  if (r->k == 1) {
    if (r->n_paths[i] < 1) Py_RETURN_NONE;
    return path_labels(self, s, r, i, 0);
  }
  PyObject *list = PyList_New(r->n_paths[i]);
  for (int32_t p = 0; list && p < r->n_paths[i]; p++) {
    PyObject *lab = path_labels(self, s, r, i, p);
    PyObject *item = lab ? Py_BuildValue("(dN)", r->scores[i * r->k + p], lab) : NULL;
    if (!item) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, p, item);
  }
  return list;
}

/* ---- methods ---- */

/* CRFsuite models tag python-crfsuite sequences (an item a list of attribute names or a dict):
 * their item lines, made by vitesse._items.item_lines. New reference: the sequence's lines
 * (`one`), or a list of them per sequence; NULL with an exception set. */
static PyObject *item_lines(PyObject *seq, int one) {
  PyObject *mod = PyImport_ImportModule("vitesse._items");
  PyObject *fn = mod ? PyObject_GetAttrString(mod, "item_lines") : NULL;
  Py_XDECREF(mod);
  if (!fn) return NULL;
  PyObject *r = NULL;
  if (one) {
    r = PyObject_CallFunction(fn, "Os", seq, "xseq");
  } else {
    PyObject *outer = PySequence_Fast(seq, "sentences must be a sequence of sequences");
    if (outer) {
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(outer);
      r = PyList_New(n);
      for (Py_ssize_t i = 0; r && i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, "sentences[%lld]", (long long)i);
        PyObject *lines = PyObject_CallFunction(fn, "Os", PySequence_Fast_GET_ITEM(outer, i), what);
        if (!lines) {
          Py_CLEAR(r);
          break;
        }
        PyList_SET_ITEM(r, i, lines);
      }
      Py_DECREF(outer);
    }
  }
  Py_DECREF(fn);
  return r;
}

/* Reads the sentences of a tag call: rows of columns, or (CRFsuite models) item sequences; and
 * sets up the results (marginals: L entries a token). 0, or -1 with an exception set. */
static int read_input(Model *self, PyObject *seq, int one, int32_t k, int marginals, sentences *s,
                      tag_results *r) {
  const int items = (self->info.can & VT_CAN_ITEMS) != 0;
  if (marginals && !(self->info.can & VT_CAN_MARGINALS)) {
    PyErr_Format(PyExc_ValueError,
                 "marginals: only tagger and CRFsuite models have them, not "
                 "a %s model",
                 vt_model_kind_name(self->info.kind));
    return -1;
  }
  PyObject *lines = items ? item_lines(seq, one) : NULL;
  if (items && !lines) return -1;
  int rc = vtpy_sentences_read(s, items ? lines : seq, one);
  Py_XDECREF(lines); /* s keeps the str objects its cells point into */
  if (rc < 0) return -1;
  if (results_alloc(r, s, k, items, marginals ? self->info.labels : 0) < 0) {
    vtpy_sentences_free(s);
    return -1;
  }
  return 0;
}

static PyObject *model_tag(Model *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"tokens", "algo", "k", "beam", "marginals", NULL};
  PyObject *tokens, *algo = Py_None, *beam = Py_None;
  int k = 1, marginals = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OiOp:tag", kwlist, &tokens, &algo, &k, &beam,
                                   &marginals))
    return NULL;
  vt_decode_opts o;
  int use;
  sentences s;
  tag_results r;
  PyObject *result = NULL;
  if (model_opts(self, algo, k, beam, &o, &use) < 0) return NULL;
  if (PyUnicode_Check(tokens)) {
    PyErr_SetString(PyExc_TypeError, "tokens must be a list of rows (a str is one sentence "
                                     "of one token? pass [token])");
    return NULL;
  }
  if (read_input(self, tokens, 1, k, marginals, &s, &r) < 0) return NULL;
  vt_status st = tag_here(self, &o, use, &s, &r);
  if (st != VT_OK)
    vtpy_raise(st, "tag");
  else
    result = sentence_result(self, &s, &r, 0);
  results_free(&r);
  vtpy_sentences_free(&s);
  return result;
}

static PyObject *model_path_score(Model *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"tokens", "labels", NULL};
  PyObject *tokens, *labels;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:path_score", kwlist, &tokens, &labels))
    return NULL;
  if (!(self->info.can & VT_CAN_MARGINALS))
    return PyErr_Format(PyExc_ValueError,
                        "path_score: only tagger and CRFsuite models score a path, not a %s "
                        "model",
                        vt_model_kind_name(self->info.kind));
  PyObject *ys = PySequence_Fast(labels, "labels must be a sequence of label names");
  if (!ys) return NULL;
  sentences s;
  tag_results r;
  int32_t *path = NULL;
  PyObject *result = NULL;
  if (read_input(self, tokens, 1, 1, 1, &s, &r) < 0) {
    Py_DECREF(ys);
    return NULL;
  }
  const Py_ssize_t T = PySequence_Fast_GET_SIZE(ys);
  if (T != s.T[0]) {
    PyErr_Format(PyExc_ValueError, "path_score: %zd labels for %d tokens", T, (int)s.T[0]);
    goto done;
  }
  if (!(path = PyMem_Malloc((size_t)(T + 1) * sizeof *path))) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t t = 0; t < T; t++) {
    PyObject *y = PySequence_Fast_GET_ITEM(ys, t);
    Py_ssize_t id = PyUnicode_Check(y) ? PySequence_Index(self->labels, y) : -1;
    if (id < 0) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "path_score: label %zd, %R, is not a label of the model", t,
                   y);
      goto done;
    }
    path[t] = (int32_t)id;
  }
  r.path = path;
  vt_status st = tag_here(self, NULL, 0, &s, &r);
  if (st != VT_OK)
    vtpy_raise(st, "path_score");
  else
    result = Py_BuildValue("(dd)", r.path_score, r.logz[0]);
done:
  PyMem_Free(path);
  results_free(&r);
  vtpy_sentences_free(&s);
  Py_DECREF(ys);
  return result;
}

static PyObject *model_tag_many(Model *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"sentences", "threads", "algo", "k", "beam", "marginals", NULL};
  PyObject *seq, *algo = Py_None, *beam = Py_None;
  int k = 1, threads = 0, marginals = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$iOiOp:tag_many", kwlist, &seq, &threads, &algo, &k,
                                   &beam, &marginals))
    return NULL;
  if (vtpy_threads_check(threads) < 0) return NULL;
  vt_decode_opts o;
  int use;
  sentences s;
  tag_results r;
  PyObject *result = NULL;
  if (model_opts(self, algo, k, beam, &o, &use) < 0) return NULL;
  if (read_input(self, seq, 0, k, marginals, &s, &r) < 0) return NULL;
  int n = vtpy_threads(threads);
  if (n > s.n_sent) n = (int)s.n_sent;
  vt_status st = VT_OK;
  char err[512] = "";
  if (n <= 1) {
    st = tag_here(self, &o, use, &s, &r);
  } else {
    pool p;
    memset(&p, 0, sizeof p);
    p.self = self;
    p.opts = use ? &o : NULL;
    p.s = &s;
    p.r = &r;
    pthread_mutex_init(&p.lock, NULL);
    Py_BEGIN_ALLOW_THREADS
    st = pool_run(&p, n);
    Py_END_ALLOW_THREADS
    pthread_mutex_destroy(&p.lock);
    snprintf(err, sizeof err, "%s", p.err);
  }
  if (st != VT_OK) {
    if (err[0] && st != VT_ENOMEM)
      PyErr_SetString(vtpy_Error, err);
    else
      vtpy_raise(st, "tag_many");
  } else if ((result = PyList_New(s.n_sent))) {
    for (int64_t i = 0; i < s.n_sent; i++) {
      PyObject *one = sentence_result(self, &s, &r, i);
      if (!one) {
        Py_CLEAR(result);
        break;
      }
      PyList_SET_ITEM(result, i, one);
    }
  }
  results_free(&r);
  vtpy_sentences_free(&s);
  return result;
}

/* Converts a path or a list of paths into a NULL-terminated array of PyBytes (fsencoded). */
static int file_list(PyObject *obj, PyObject **keep) {
  PyObject *list = PyList_New(0);
  if (!list) return -1;
  int one = PyUnicode_Check(obj) || PyBytes_Check(obj) || PyObject_HasAttrString(obj, "__fspath__");
  PyObject *seq = one ? NULL : PySequence_Fast(obj, "path_in must be a path or a list of paths");
  if (!one && !seq) goto fail;
  Py_ssize_t n = one ? 1 : PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(one ? obj : PySequence_Fast_GET_ITEM(seq, i), &b)) goto fail;
    int rc = PyList_Append(list, b);
    Py_DECREF(b);
    if (rc < 0) goto fail;
  }
  Py_XDECREF(seq);
  *keep = list;
  return 0;
fail:
  Py_XDECREF(seq);
  Py_DECREF(list);
  return -1;
}

static PyObject *model_tag_file(Model *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"path_in", "path_out",     "algo", "k", "beam",
                           "threads", "batch_tokens", "bind", NULL};
  PyObject *in, *out_obj = NULL, *algo = Py_None, *beam = Py_None, *files = NULL;
  int k = 1, threads = 0;
  long long batch_tokens = 0;
  const char *bind = "core";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|$OiOiLs:tag_file", kwlist, &in,
                                   PyUnicode_FSConverter, &out_obj, &algo, &k, &beam, &threads,
                                   &batch_tokens, &bind))
    return NULL;
  PyObject *result = NULL;
  const char **paths = NULL;
  vt_engine *e = NULL;
  vt_output *of = NULL;
  vt_tag_opts to;
  vt_tag_opts_init(&to);
  int use;
  if (model_opts(self, algo, k, beam, &to.decode, &use) < 0) goto done;
  if (!use) to.decode.k = 0; /* the model's default decoder */
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  vtpy_interrupt intr = {NULL, NULL, NULL, NULL};
  eo.progress = vtpy_interrupt_progress;
  eo.progress_ctx = &intr;
  if (vtpy_threads_check(threads) < 0) goto done;
  if (batch_tokens < 0) {
    PyErr_SetString(PyExc_ValueError, "batch_tokens must be >= 0");
    goto done;
  }
  eo.threads = threads;
  if (batch_tokens) eo.batch_tokens = batch_tokens;
  if (vt_bind_parse(bind, &eo.bind) != VT_OK) {
    PyErr_Format(PyExc_ValueError, "bind must be 'core', 'numa' or 'none', not '%s'", bind);
    goto done;
  }
  if (file_list(in, &files) < 0) goto done;
  Py_ssize_t n = PyList_GET_SIZE(files);
  if (!(paths = PyMem_Malloc((size_t)(n + 1) * sizeof *paths))) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) paths[i] = PyBytes_AS_STRING(PyList_GET_ITEM(files, i));
  const char *out_path = PyBytes_AS_STRING(out_obj);
  vt_status st;
  vt_run_report rep;
  memset(&rep, 0, sizeof rep);
  Py_BEGIN_ALLOW_THREADS
  st = vt_engine_create(&e, &eo);
  intr.e = e;
  if (st == VT_OK) st = vt_output_open(&of, out_path);
  if (st == VT_OK)
    st = vt_engine_tag(e, self->m, &to, paths, (int)n, vt_sink_file, vt_output_file(of), &rep);
  if (st == VT_OK) {
    st = vt_output_commit(of);
    of = NULL;
  }
  Py_END_ALLOW_THREADS
  if (vtpy_interrupt_raise(&intr)) goto done; /* Ctrl-C: no output file is left */
  if (st != VT_OK) {
    vtpy_raise(st, "tag_file");
    goto done;
  }
  result = Py_BuildValue("{s:L,s:L,s:d}", "sentences", (long long)rep.sentences, "tokens",
                         (long long)rep.tokens, "seconds", rep.wall_seconds);
done:
  vt_output_abort(of);
  vt_engine_destroy(e);
  PyMem_Free(paths);
  Py_XDECREF(files);
  Py_XDECREF(out_obj);
  return result;
}

/* ---- construction ---- */

PyObject *vtpy_model_wrap(vt_model *m, PyObject *path) {
  Model *self = PyObject_New(Model, &vtpy_ModelType);
  if (!self) {
    vt_model_close(m);
    return NULL;
  }
  self->m = m;
  self->dict = NULL;
  for (int i = 0; i < TAGGER_SLOTS; i++) atomic_init(&self->cache[i], NULL);
  vt_model_describe(m, &self->info);
  Py_INCREF(path);
  self->path = path;
  self->labels = PyList_New(self->info.labels);
  self->chunk_labels = PyList_New(self->info.chunk_labels);
  if (!self->labels || !self->chunk_labels) goto fail;
  for (int32_t y = 0; y < self->info.labels; y++) {
    PyObject *s = PyUnicode_DecodeUTF8(vt_model_label_name(m, y),
                                       (Py_ssize_t)strlen(vt_model_label_name(m, y)), "replace");
    if (!s) goto fail;
    PyList_SET_ITEM(self->labels, y, s);
  }
  for (int32_t c = 0; c < self->info.chunk_labels; c++) {
    PyObject *s = PyUnicode_FromString(vt_model_chunk_name(m, c));
    if (!s) goto fail;
    PyList_SET_ITEM(self->chunk_labels, c, s);
  }
  return (PyObject *)self;
fail:
  Py_DECREF(self);
  return NULL;
}

static PyObject *model_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  (void)type;
  static char *kwlist[] = {"path", NULL};
  PyObject *path_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:Model", kwlist, PyUnicode_FSConverter, &path_obj))
    return NULL;
  vt_model *m = NULL;
  vt_status st;
  Py_BEGIN_ALLOW_THREADS
  st = vt_model_open(&m, PyBytes_AS_STRING(path_obj));
  Py_END_ALLOW_THREADS
  PyObject *r = NULL;
  if (st != VT_OK) {
    vtpy_raise(st, "model");
  } else {
    PyObject *name = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(path_obj));
    if (name)
      r = vtpy_model_wrap(m, name);
    else
      vt_model_close(m);
    Py_XDECREF(name);
  }
  Py_DECREF(path_obj);
  return r;
}

static PyObject *model_from_bytes(PyObject *cls, PyObject *args, PyObject *kw) {
  (void)cls;
  static char *kwlist[] = {"data", "name", NULL};
  Py_buffer buf;
  const char *name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|z:from_bytes", kwlist, &buf, &name)) return NULL;
  vt_model *m = NULL;
  vt_status st;
  Py_BEGIN_ALLOW_THREADS
  st = vt_model_open_memory(&m, buf.buf, (size_t)buf.len, name);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&buf);
  if (st != VT_OK) return vtpy_raise(st, "model");
  return vtpy_model_wrap(m, Py_None);
}

static PyObject *model_save(Model *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"path", "format", NULL};
  PyObject *path_obj = NULL;
  const char *format = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|$z:save", kwlist, PyUnicode_FSConverter, &path_obj,
                                   &format))
    return NULL;
  vt_status st;
  Py_BEGIN_ALLOW_THREADS
  st = vt_model_save_as(self->m, PyBytes_AS_STRING(path_obj), format);
  Py_END_ALLOW_THREADS
  Py_DECREF(path_obj);
  if (st != VT_OK) return vtpy_raise(st, "save");
  Py_RETURN_NONE;
}

/* The bytes of file `path` (vt_file_read): a new bytes object, or NULL with OSError (or
 * MemoryError) set. */
static PyObject *file_bytes(const char *path) {
  char *buf = NULL;
  size_t len = 0;
  vt_status st = vt_file_read(path, 0, &buf, &len);
  if (st == VT_ENOMEM) return PyErr_NoMemory();
  if (st != VT_OK) return PyErr_Format(PyExc_OSError, "%s", vt_last_error());
  PyObject *r = PyBytes_FromStringAndSize(buf, (Py_ssize_t)len);
  free(buf);
  return r;
}

/* The model as the bytes of its file (format: NULL, "vitesse" or "crfsuite"), written through a
 * private temporary folder. A model with no writer that opens from its bytes (a joint model)
 * gives the file it was opened from. New reference, or NULL with an exception set. */
static PyObject *model_bytes(Model *self, const char *format) {
  const uint32_t can = self->info.can;
  if (!(can & VT_CAN_SAVE) && (can & VT_CAN_OPEN_MEMORY) && !format && self->path != Py_None) {
    PyObject *p = PyUnicode_EncodeFSDefault(self->path);
    PyObject *r = p ? file_bytes(PyBytes_AS_STRING(p)) : NULL;
    Py_XDECREF(p);
    return r;
  }
  if (!(can & VT_CAN_SAVE)) {
    PyErr_Format(PyExc_TypeError, "a %s model%s cannot be written as bytes",
                 vt_model_kind_name(self->info.kind),
                 can & VT_CAN_OPEN_MEMORY ? " not opened from a file" : "");
    return NULL;
  }
  const char *tmp = getenv("TMPDIR");
  char dir[4096], file[4200];
  snprintf(dir, sizeof dir, "%s/vitesse.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return PyErr_SetFromErrnoWithFilename(PyExc_OSError, dir);
  snprintf(file, sizeof file, "%s/model", dir);
  vt_status st;
  Py_BEGIN_ALLOW_THREADS
  st = vt_model_save_as(self->m, file, format);
  Py_END_ALLOW_THREADS
  PyObject *r = st == VT_OK ? file_bytes(file) : vtpy_raise(st, "to_bytes");
  remove(file);
  rmdir(dir);
  return r;
}

static PyObject *model_to_bytes(Model *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"format", NULL};
  const char *format = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|$z:to_bytes", kwlist, &format)) return NULL;
  return model_bytes(self, format);
}

/* Pickling: Model.from_bytes(its bytes), then its path back. */
static PyObject *model_reduce(Model *self, PyObject *unused) {
  (void)unused;
  PyObject *data = model_bytes(self, NULL);
  if (!data) return NULL;
  PyObject *from = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
  if (!from) {
    Py_DECREF(data);
    return NULL;
  }
  return Py_BuildValue("(N(NO))", from, data, Py_None);
}

static void model_dealloc(Model *self) {
  for (int i = 0; i < TAGGER_SLOTS; i++) cached_free(atomic_exchange(&self->cache[i], NULL));
  vt_model_close(self->m);
  Py_XDECREF(self->path);
  Py_XDECREF(self->labels);
  Py_XDECREF(self->chunk_labels);
  Py_XDECREF(self->dict);
  PyObject_Free(self);
}

static PyObject *get_labels(Model *self, void *u) {
  (void)u;
  return PyList_GetSlice(self->labels, 0, PyList_GET_SIZE(self->labels));
}

static PyObject *get_chunk_labels(Model *self, void *u) {
  (void)u;
  return PyList_GetSlice(self->chunk_labels, 0, PyList_GET_SIZE(self->chunk_labels));
}

static PyObject *get_kind(Model *self, void *u) {
  (void)u;
  return PyUnicode_FromString(vt_model_kind_name(self->info.kind));
}

static PyObject *get_path(Model *self, void *u) {
  (void)u;
  Py_INCREF(self->path);
  return self->path;
}

static PyObject *get_info(Model *self, void *u) {
  (void)u;
  const vt_model_info *i = &self->info;
  vt_decode_opts o;
  vt_model_default_decoder(self->m, 1, &o);
  return Py_BuildValue("{s:s,s:i,s:i,s:i,s:i,s:K,s:K,s:s,s:s,s:O,s:z}", "kind",
                       vt_model_kind_name(i->kind), "labels", i->labels, "chunk_labels",
                       i->chunk_labels, "columns", i->columns, "epochs", i->epochs,
                       "train_sentences", (unsigned long long)i->train_sentences, "train_tokens",
                       (unsigned long long)i->train_tokens, "train_decoder",
                       i->decoder ? i->decoder : "", "default_algo", vt_algo_name(o.algo),
                       "obs_bigram", i->obs_bigram ? Py_True : Py_False, "templates", i->templates);
}

static PyMethodDef model_methods[] = {
    {"tag", (PyCFunction)(void (*)(void))model_tag, METH_VARARGS | METH_KEYWORDS,
     "tag(tokens, *, algo=None, k=1, beam=None, marginals=False)\n--\n\n"
     "Tag one sentence.\n\n"
     "Parameters\n----------\n"
     "tokens : list of rows, or of items\n"
     "    One sentence: a row per token, a list of column strings (the columns the model's\n"
     "    templates read; a label column may be there or not) or a plain str for one-column\n"
     "    input. CRFsuite models: python-crfsuite's xseq, an item per token (a list of\n"
     "    attribute names, or a dict: {name: str} is attribute 'name:str', {name: number}\n"
     "    attribute 'name' of that weight, {name: dict or list} nested).\n"
     "algo, k, beam\n"
     "    The decoder, as in ``vitesse.decode``; None: the model's default (the fastest exact\n"
     "    one for its label count, as ``vitesse tag``).\n"
     "marginals : bool\n"
     "    Tagger and CRFsuite models: also every label's marginal probability at every token\n"
     "    and log Z (a path's probability is exp(score - log Z)).\n\n"
     "Returns\n-------\n"
     "list of str, or list of (float, list of str)\n"
     "    k = 1: the label of each token (joint models: (POS, chunk) pairs; None when no path\n"
     "    has a finite score). k > 1: up to k (score, labels) pairs, best first.\n"
     "    With marginals: (that, marginals, log_z), marginals a float64 array (T, L) whose\n"
     "    columns follow ``labels``."},
    {"tag_many", (PyCFunction)(void (*)(void))model_tag_many, METH_VARARGS | METH_KEYWORDS,
     "tag_many(sentences, *, threads=0, algo=None, k=1, beam=None, marginals=False)\n--\n\n"
     "Tag many sentences on `threads` threads (0: one per core), each with its own tagger\n"
     "over the shared model; the results are those of ``tag``, one per sentence, in order."},
    {"path_score", (PyCFunction)(void (*)(void))model_path_score, METH_VARARGS | METH_KEYWORDS,
     "path_score(tokens, labels)\n--\n\n"
     "The score of the label sequence `labels` (names) over `tokens` (as ``tag`` takes them),\n"
     "and log Z: its probability is exp(score - log_z). Tagger models without\n"
     "observation-dependent bigram templates, and CRFsuite models. Returns (score, log_z)."},
    {"tag_file", (PyCFunction)(void (*)(void))model_tag_file, METH_VARARGS | METH_KEYWORDS,
     "tag_file(path_in, path_out, *, algo=None, k=1, beam=None, threads=0, batch_tokens=0, "
     "bind='core')\n--\n\n"
     "Tag column corpus file(s) `path_in` (a path or a list; .gz inflated) into `path_out`\n"
     "(written atomically) on the library's engine: the bytes of ``vitesse tag``. Returns\n"
     "{'sentences', 'tokens', 'seconds'}."},
    {"save", (PyCFunction)(void (*)(void))model_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, *, format=None)\n--\n\n"
     "Write a tagger or CRFsuite model to `path`, atomically: a vitesse model file (format\n"
     "None or 'vitesse'; mapped at load), or for a CRFsuite model format='crfsuite', the crf1d\n"
     "file CRFsuite 0.12 writes (``crfsuite tag`` reads it)."},
    {"to_bytes", (PyCFunction)(void (*)(void))model_to_bytes, METH_VARARGS | METH_KEYWORDS,
     "to_bytes(*, format=None)\n--\n\n"
     "The bytes ``save`` writes (a joint model: the file it was opened from);\n"
     "``Model.from_bytes`` opens them. Pickling a Model stores these bytes."},
    {"__reduce__", (PyCFunction)model_reduce, METH_NOARGS, "Pickling: the model's bytes."},
    {"from_bytes", (PyCFunction)(void (*)(void))model_from_bytes,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_bytes(data, name=None)\n--\n\n"
     "Open a tagger or joint model from the bytes of its file (copied); `name` names it in\n"
     "error messages."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef model_getset[] = {
    {"labels", (getter)get_labels, NULL,
     "The label names (joint models: the POS tags), label 0 "
     "first.",
     NULL},
    {"chunk_labels", (getter)get_chunk_labels, NULL, "Joint models: the chunk labels; else [].",
     NULL},
    {"kind", (getter)get_kind, NULL, "'tagger', 'joint', 'transitions' or 'crfsuite'.", NULL},
    {"path", (getter)get_path, NULL, "The file it was opened from (None: from_bytes).", NULL},
    {"info", (getter)get_info, NULL, "What the model is and how it was trained (a dict).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject vtpy_ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vitesse.Model",
    .tp_basicsize = sizeof(Model),
    .tp_dictoffset = offsetof(Model, dict),
    .tp_dealloc = (destructor)model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Model(path)\n--\n\n"
              "A model file that ``vitesse tag`` accepts (a tagger from ``vitesse train`` or\n"
              "``vitesse.train``, a joint POS + chunk model, or an (L, L) .npy transition\n"
              "matrix), opened once (mapped read-only) and shared by every thread.\n\n"
              "Raises vitesse.FileError when it cannot be read, vitesse.Error when it is no\n"
              "model or is damaged.",
    .tp_methods = model_methods,
    .tp_getset = model_getset,
    .tp_new = model_new,
};
