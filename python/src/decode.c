/* python/src/decode.c: vitesse.decode: the exact decoders on emission arrays held by NumPy.
 *
 * One sentence, or one thread: vt_decode on the calling thread, straight from the caller's
 * array. Many sentences on several threads: the batch engine (vt_engine_decode) over the array
 * wrapped in place (vt_lattices_wrap); its text output is parsed back into the label arrays and
 * each path's score recomputed in double exactly as vt_path_score does. The GIL is released
 * around both. */
#include "vtpy.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the engine cache: one engine kept for the next call with the same thread count ---- */

typedef struct {
  vt_engine *e;
  int threads;
  vtpy_interrupt intr; /* Ctrl-C: the engine's progress callback runs the signal handlers */
} cached_engine;

static _Atomic(cached_engine *) engine_cache;

/* Returns an engine of `threads` workers (0: one per core), or NULL with the status in *st. */
static cached_engine *engine_take(int threads, vt_status *st) {
  cached_engine *c = atomic_exchange(&engine_cache, NULL);
  if (c && c->threads == threads) return c;
  if (c) {
    vt_engine_destroy(c->e);
    free(c);
  }
  c = calloc(1, sizeof *c);
  if (!c) {
    *st = VT_ENOMEM;
    return NULL;
  }
  vt_engine_opts o;
  vt_engine_opts_init(&o);
  o.threads = threads;
  o.progress = vtpy_interrupt_progress;
  o.progress_ctx = &c->intr;
  c->threads = threads;
  if ((*st = vt_engine_create(&c->e, &o)) != VT_OK) {
    free(c);
    return NULL;
  }
  c->intr.e = c->e;
  return c;
}

void vtpy_engine_free_cached(void) {
  cached_engine *c = atomic_exchange(&engine_cache, NULL);
  if (c) vt_engine_destroy(c->e);
  free(c);
}

static void engine_give(cached_engine *c) {
  cached_engine *none = NULL;
  if (c && !atomic_compare_exchange_strong(&engine_cache, &none, c)) {
    vt_engine_destroy(c->e);
    free(c);
  }
}

/* ---- parsing the engine's output: sentence<TAB>rank<TAB>score<TAB>labels lines ---- */

typedef struct {
  int64_t n_sent;
  const int64_t *len; /* tokens of each sentence */
  int32_t **labels;   /* each sentence's k*T label buffer */
  int32_t *n_paths;   /* paths found per sentence */
  int32_t k, L;
  char *pend; /* a line cut between two sink calls */
  size_t pend_len, pend_cap;
  char err[160];
} sink_ctx;

/* Reads a decimal number at *p (< end); returns -1 when there is none. */
static int64_t read_uint(const char **p, const char *end) {
  const char *q = *p;
  int64_t v = 0;
  if (q >= end || *q < '0' || *q > '9') return -1;
  while (q < end && *q >= '0' && *q <= '9' && v < ((int64_t)1 << 56)) v = v * 10 + (*q++ - '0');
  *p = q;
  return v;
}

static int parse_line(sink_ctx *c, const char *p, const char *end) {
  int64_t s = read_uint(&p, end);
  if (s < 0 || s >= c->n_sent || p >= end || *p++ != '\t') return -1;
  int64_t r = read_uint(&p, end);
  if (r < 0 || r >= c->k || p >= end || *p++ != '\t') return -1;
  int no_path = end - p >= 4 && memcmp(p, "-inf", 4) == 0;
  while (p < end && *p != '\t') p++; /* the score: recomputed exactly afterwards */
  if (p >= end) return -1;
  p++;
  if (no_path) return p == end ? 0 : -1;
  const int64_t T = c->len[s];
  int32_t *out = c->labels[s] + r * T;
  for (int64_t t = 0; t < T; t++) {
    if (t && (p >= end || *p++ != ' ')) return -1;
    int64_t y = read_uint(&p, end);
    if (y < 0 || y >= c->L) return -1;
    out[t] = (int32_t)y;
  }
  if (p != end) return -1;
  if (c->n_paths[s] < r + 1) c->n_paths[s] = (int32_t)(r + 1);
  return 0;
}

/* Parses the complete lines of data[0..len); returns the bytes consumed, or -1. */
static ptrdiff_t parse_lines(sink_ctx *c, const char *data, size_t len) {
  const char *p = data, *end = data + len;
  for (;;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return p - data;
    if (parse_line(c, p, nl) < 0) {
      snprintf(c->err, sizeof c->err, "decode: unexpected engine output line: %.60s", p);
      return -1;
    }
    p = nl + 1;
  }
}

static vt_status sink(void *ctx, const char *data, size_t len) {
  sink_ctx *c = ctx;
  if (c->pend_len) { /* finish the cut line first */
    const char *nl = memchr(data, '\n', len);
    size_t take = nl ? (size_t)(nl - data) + 1 : len;
    if (c->pend_len + take > c->pend_cap) {
      size_t cap = 2 * (c->pend_len + take);
      char *b = realloc(c->pend, cap);
      if (!b) return VT_ENOMEM;
      c->pend = b;
      c->pend_cap = cap;
    }
    memcpy(c->pend + c->pend_len, data, take);
    c->pend_len += take;
    data += take;
    len -= take;
    if (!nl) return VT_OK;
    if (parse_lines(c, c->pend, c->pend_len) < 0) return VT_EFORMAT;
    c->pend_len = 0;
  }
  ptrdiff_t used = parse_lines(c, data, len);
  if (used < 0) return VT_EFORMAT;
  size_t rest = len - (size_t)used;
  if (rest) {
    if (rest > c->pend_cap) {
      char *b = realloc(c->pend, 2 * rest);
      if (!b) return VT_ENOMEM;
      c->pend = b;
      c->pend_cap = 2 * rest;
    }
    memcpy(c->pend, data + used, rest);
    c->pend_len = rest;
  }
  return VT_OK;
}

/* ---- one call ---- */

typedef struct {
  const char *E; /* first score of sentence 0 */
  int f64;       /* double scores, else float */
  int32_t L, k;
  int64_t n_sent;
  int64_t *len;     /* tokens of each sentence */
  size_t *row;      /* first row of each sentence in E */
  int32_t **labels; /* per sentence: k*len[s] labels (the NumPy arrays' data) */
  double *scores;   /* k per sentence */
  int32_t *n_paths; /* per sentence */
} job;

static const void *rows_of(const job *j, int64_t s) {
  return j->E + j->row[s] * (size_t)j->L * (j->f64 ? sizeof(double) : sizeof(float));
}

/* Decodes every sentence on this thread. GIL released. Returns a status. */
static vt_status run_here(const job *j, const vtpy_Trans *t, const vt_decode_opts *opts) {
  vt_arena *arena = vtpy_arena_take();
  if (!arena) return VT_ENOMEM;
  vt_status st = VT_OK;
  for (int64_t s = 0; s < j->n_sent && st == VT_OK; s++) {
    const void *E = rows_of(j, s);
    const int32_t T = (int32_t)j->len[s];
    double *sc = j->scores + s * j->k;
    st = j->f64
             ? vt_decode(t->trans, opts, arena, E, T, j->labels[s], sc, &j->n_paths[s], NULL)
             : vt_decode_f32(t->trans, opts, arena, E, T, j->labels[s], sc, &j->n_paths[s], NULL);
    vt_arena_reset(arena);
  }
  vtpy_arena_give(arena);
  return st;
}

/* The score of path `y` (T labels) over emission rows `E`, left to right in double: the
 * arithmetic of vt_path_score, so that scores equal those of run_here. */
static double path_score(const vtpy_Trans *t, const void *E, int f64, int64_t T, const int32_t *y) {
  if (T <= 0) return 0.0;
  const int32_t L = t->L;
#define EM(i) (f64 ? ((const double *)E)[i] : (double)((const float *)E)[i])
  double s = t->S[y[0]] + EM(y[0]);
  for (int64_t i = 1; i < T; i++) {
    s = s + t->A[(size_t)y[i - 1] * (size_t)L + (size_t)y[i]];
    s = s + EM((size_t)i * (size_t)L + (size_t)y[i]);
  }
#undef EM
  return s + t->F[y[T - 1]];
}

/* Decodes on the engine's workers. GIL released. Returns a status; a parse failure's message
 * goes to err. */
static vt_status run_engine(const job *j, const vtpy_Trans *t, const vt_decode_opts *opts,
                            int threads, char *err, size_t errlen, vtpy_interrupt *intr) {
  vt_status st = VT_OK;
  vt_lattices *lat = NULL;
  char *packed = NULL;
  const size_t elsize = j->f64 ? sizeof(double) : sizeof(float);
  const char *E = j->E;
  sink_ctx c = {j->n_sent, j->len, j->labels, j->n_paths, j->k, j->L, NULL, 0, 0, ""};
  /* The engine reads sentences back to back: a padded batch with short sentences is packed. */
  size_t rows = 0;
  int gaps = 0;
  for (int64_t s = 0; s < j->n_sent; s++) {
    gaps |= j->row[s] != rows;
    rows += (size_t)j->len[s];
  }
  if (gaps) {
    if (!(packed = malloc(rows * (size_t)j->L * elsize + 1))) return VT_ENOMEM;
    for (int64_t s = 0, at = 0; s < j->n_sent; at += j->len[s], s++)
      memcpy(packed + (size_t)at * (size_t)j->L * elsize, rows_of(j, s),
             (size_t)j->len[s] * (size_t)j->L * elsize);
    E = packed;
  }
  cached_engine *ce = NULL;
  if ((st = vt_lattices_wrap(&lat, E, j->f64, j->L, j->len, j->n_sent)) != VT_OK) goto done;
  if (!(ce = engine_take(threads, &st))) goto done;
  st = vt_engine_decode(ce->e, t->trans, opts, lat, sink, &c, NULL);
  *intr = ce->intr; /* an exception a signal handler raised, handed to the caller */
  ce->intr.type = ce->intr.value = ce->intr.tb = NULL;
  if (st == VT_OK && c.pend_len) {
    snprintf(c.err, sizeof c.err, "decode: the engine's output ends in a cut line");
    st = VT_EFORMAT;
  }
  if (st != VT_OK) goto done;
  for (int64_t s = 0, at = 0; s < j->n_sent; at += j->len[s], s++)
    for (int32_t p = 0; p < j->n_paths[s]; p++)
      j->scores[s * j->k + p] = path_score(t, E + (size_t)at * (size_t)j->L * elsize, j->f64,
                                           j->len[s], j->labels[s] + (size_t)p * (size_t)j->len[s]);
done:
  if (c.err[0]) snprintf(err, errlen, "%s", c.err);
  engine_give(ce);
  vt_lattices_close(lat);
  free(packed);
  free(c.pend);
  return st;
}

/* `obj` as emissions: a float32/float64 array of 2 or 3 dims, read in place when it is
 * C-contiguous, aligned and in native byte order, else copied so (Fortran order, strided views,
 * byte-swapped data); other real arrays (integers, bool, long double) and lists copied as
 * float64. float16 is refused: its 11-bit significand would round the scores the decoders add.
 * New reference or NULL with an exception. */
static PyArrayObject *emission_array(PyObject *obj) {
  int want = NPY_DOUBLE;
  if (PyArray_Check(obj)) {
    PyArrayObject *in = (PyArrayObject *)obj;
    int type = PyArray_TYPE(in);
    if (type == NPY_HALF) {
      PyErr_SetString(PyExc_TypeError,
                      "emissions must not be float16: its 11-bit precision rounds the scores "
                      "(convert with emissions.astype(np.float32))");
      return NULL;
    }
    if (type == NPY_FLOAT32 || type == NPY_FLOAT64)
      want = type;
    else if (!PyArray_ISINTEGER(in) && !PyArray_ISBOOL(in) && !PyArray_ISFLOAT(in)) {
      PyErr_Format(PyExc_TypeError, "emissions must be real numbers (float32 or float64), not %s",
                   PyArray_DESCR(in)->typeobj->tp_name);
      return NULL;
    }
  }
  /* In place when it already is what the decoders read; else a C-contiguous native copy. */
  PyArrayObject *a =
      (PyArrayObject *)PyArray_FROMANY(obj, want, 0, 0, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
  if (!a) return NULL;
  if (PyArray_NDIM(a) != 2 && PyArray_NDIM(a) != 3) {
    PyErr_Format(PyExc_ValueError,
                 "emissions must have 2 dims (T, L) or 3 dims (B, T, L), "
                 "not %d",
                 PyArray_NDIM(a));
  } else if (PyArray_DIM(a, PyArray_NDIM(a) - 1) < 1 ||
             PyArray_DIM(a, PyArray_NDIM(a) - 1) > INT32_MAX / 2) {
    PyErr_Format(PyExc_ValueError, "emissions must have at least one label column, not %lld",
                 (long long)PyArray_DIM(a, PyArray_NDIM(a) - 1));
  } else {
    return a;
  }
  Py_DECREF(a);
  return NULL;
}

/* Fills j->len and j->row from `lengths` (None or 1-D ints) for emissions `a`. 0 or -1. */
static int read_lengths(job *j, PyArrayObject *a, PyObject *lengths) {
  const int nd = PyArray_NDIM(a);
  const npy_intp rows = PyArray_DIM(a, 0), Tmax = nd == 3 ? PyArray_DIM(a, 1) : rows;
  PyArrayObject *l = NULL;
  if (lengths != Py_None) {
    PyArrayObject *any = (PyArrayObject *)PyArray_FROM_O(lengths);
    int ints = any && PyArray_NDIM(any) == 1 && (PyArray_ISINTEGER(any) || !PyArray_SIZE(any));
    l = ints ? (PyArrayObject *)PyArray_FROMANY((PyObject *)any, NPY_INT64, 1, 1,
                                                NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST)
             : NULL;
    Py_XDECREF(any);
    if (!l) {
      PyErr_Clear();
      PyErr_SetString(PyExc_TypeError, "lengths must be a 1-D sequence of integers");
      return -1;
    }
    j->n_sent = PyArray_DIM(l, 0);
  } else {
    j->n_sent = nd == 3 ? rows : 1;
  }
  if (nd == 3 && j->n_sent != rows) {
    PyErr_Format(PyExc_ValueError, "lengths has %lld entries but emissions holds %lld sentences",
                 (long long)j->n_sent, (long long)rows);
    goto fail;
  }
  j->len = PyMem_Malloc((size_t)(j->n_sent + 1) * sizeof *j->len);
  j->row = PyMem_Malloc((size_t)(j->n_sent + 1) * sizeof *j->row);
  if (!j->len || !j->row) {
    PyErr_NoMemory();
    goto fail;
  }
  const int64_t *lv = l ? PyArray_DATA(l) : NULL;
  int64_t sum = 0;
  for (int64_t s = 0; s < j->n_sent; s++) {
    int64_t T = lv ? lv[s] : Tmax;
    if (T < 0 || T > Tmax || T > INT32_MAX) {
      PyErr_Format(PyExc_ValueError, "lengths[%lld] = %lld is out of range 0..%lld", (long long)s,
                   (long long)T, (long long)(Tmax < INT32_MAX ? Tmax : INT32_MAX));
      goto fail;
    }
    j->len[s] = T;
    j->row[s] = nd == 3 ? (size_t)(s * Tmax) : (size_t)sum;
    sum += T;
  }
  if (nd == 2 && sum != rows) {
    PyErr_Format(PyExc_ValueError, "lengths sum to %lld but emissions has %lld rows",
                 (long long)sum, (long long)rows);
    goto fail;
  }
  Py_XDECREF(l);
  return 0;
fail:
  Py_XDECREF(l);
  return -1;
}

/* posteriors=True: sentence s's marginals (a new (T, L) float64 array) into *marg and log Z into
 * *logz, with the transitions of `t`. 0, or -1 with an exception set. */
static int sentence_posteriors(const job *j, const vtpy_Trans *t, int64_t s, PyObject **marg,
                               double *logz) {
  npy_intp dims[2] = {(npy_intp)j->len[s], j->L};
  PyArrayObject *m = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (!m) return -1;
  vt_status st = VT_ENOMEM;
  double *out = PyArray_DATA(m);
  const void *E = rows_of(j, s);
  const int32_t T = (int32_t)j->len[s];
  Py_BEGIN_ALLOW_THREADS
  vt_arena *arena = vtpy_arena_take();
  if (arena)
    st = j->f64 ? vt_posteriors(t->trans, arena, E, T, out, logz)
                : vt_posteriors_f32(t->trans, arena, E, T, out, logz);
  vtpy_arena_give(arena);
  Py_END_ALLOW_THREADS
  if (st != VT_OK) {
    Py_DECREF(m);
    vtpy_raise(st, "posteriors");
    return -1;
  }
  *marg = (PyObject *)m;
  return 0;
}

/* Builds the result: per sentence, a list of (score, labels) tuples. */
static PyObject *sentence_result(const job *j, int64_t s, PyObject *arr) {
  PyObject *list = PyList_New(j->n_paths[s]);
  const npy_intp T = (npy_intp)j->len[s];
  for (int32_t p = 0; list && p < j->n_paths[s]; p++) {
    PyObject *lab;
    if (j->k == 1) {
      Py_INCREF(arr);
      lab = arr;
    } else {
      lab = PySequence_GetSlice(arr, p * T, (p + 1) * T);
    }
    PyObject *item = lab ? Py_BuildValue("(dN)", j->scores[s * j->k + p], lab) : NULL;
    if (!item) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, p, item);
  }
  return list;
}

PyObject *vtpy_decode(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwlist[] = {"emissions", "transitions", "start", "end",     "lengths",    "algo",
                           "k",         "beam",        "rank",  "threads", "posteriors", NULL};
  PyObject *E_obj, *A_obj, *S = Py_None, *F = Py_None, *lengths = Py_None, *algo = Py_None;
  PyObject *beam = Py_None, *rank = Py_None;
  int k = 1, threads = 0, posteriors = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOO$OiOOip:decode", kwlist, &E_obj, &A_obj, &S, &F,
                                   &lengths, &algo, &k, &beam, &rank, &threads, &posteriors))
    return NULL;
  PyObject *result = NULL, *arrays = NULL;
  vtpy_Trans *t = NULL;
  int64_t *counts = NULL;
  job j;
  memset(&j, 0, sizeof j);
  PyArrayObject *a = emission_array(E_obj);
  if (!a) return NULL;
  const int nd = PyArray_NDIM(a);
  const int single = nd == 2 && lengths == Py_None;
  j.L = (int32_t)PyArray_DIM(a, nd - 1);
  j.f64 = PyArray_TYPE(a) == NPY_FLOAT64;
  j.E = PyArray_DATA(a);
  if (vtpy_threads_check(threads) < 0) goto done;
  if (read_lengths(&j, a, lengths) < 0) goto done;
  vt_decode_opts opts; /* options first: a bad one fails before the O(T L) score check */
  if (vtpy_decode_opts(algo, k, beam, j.L, &opts) < 0) goto done;
  const int bound = PyObject_TypeCheck(A_obj, &vtpy_TransType);
  if (bound && (S != Py_None || F != Py_None || rank != Py_None)) {
    PyErr_SetString(PyExc_ValueError, "start, end and rank belong to the Transitions object");
    goto done;
  }
  if (!bound && rank == Py_None && !(counts = PyMem_Calloc((size_t)j.L, sizeof *counts))) {
    PyErr_NoMemory();
    goto done;
  }
  /* Only the sentences' rows are checked: a padded batch may hold anything past a length. */
  for (int64_t s = 0; s < j.n_sent; s++) {
    npy_intp shape[2] = {nd == 3 ? (npy_intp)j.len[s] : PyArray_DIM(a, 0), j.L};
    char name[48] = "emissions";
    if (nd == 3) snprintf(name, sizeof name, "emissions[%lld]", (long long)s);
    if (nd == 3 || s == 0) {
      size_t n = (size_t)(nd == 3 ? j.len[s] : PyArray_DIM(a, 0)) * (size_t)j.L;
      if (vtpy_check_scores(rows_of(&j, s), j.f64, n, name, 2, shape, j.L, counts) < 0) goto done;
    }
  }
  if (bound) {
    Py_INCREF(A_obj);
    t = (vtpy_Trans *)A_obj;
  } else if (!(t = vtpy_trans_new(A_obj, S, F, rank, counts))) {
    goto done;
  }
  if (t->L != j.L) {
    PyErr_Format(PyExc_ValueError, "emissions have %d labels but the transitions %d", (int)j.L,
                 (int)t->L);
    goto done;
  }
  j.k = k;
  /* The label arrays, made before the GIL is released; the decoders write into them. */
  if (!(arrays = PyList_New(j.n_sent))) goto done;
  j.labels = PyMem_Malloc((size_t)(j.n_sent + 1) * sizeof *j.labels);
  j.scores = PyMem_Malloc((size_t)(j.n_sent * k + 1) * sizeof *j.scores);
  j.n_paths = PyMem_Calloc((size_t)(j.n_sent + 1), sizeof *j.n_paths);
  if (!j.labels || !j.scores || !j.n_paths) {
    PyErr_NoMemory();
    goto done;
  }
  for (int64_t s = 0; s < j.n_sent; s++) {
    npy_intp n = (npy_intp)(k * j.len[s]);
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_INT32);
    if (!arr) goto done;
    PyList_SET_ITEM(arrays, s, arr);
    j.labels[s] = PyArray_DATA((PyArrayObject *)arr);
  }
  vt_status st;
  char err[160] = "";
  vtpy_interrupt intr = {NULL, NULL, NULL, NULL};
  if (j.n_sent <= 1 || threads == 1) {
    Py_BEGIN_ALLOW_THREADS
    st = run_here(&j, t, &opts);
    Py_END_ALLOW_THREADS
  } else {
    Py_BEGIN_ALLOW_THREADS
    st = run_engine(&j, t, &opts, threads, err, sizeof err, &intr);
    Py_END_ALLOW_THREADS
  }
  if (vtpy_interrupt_raise(&intr)) goto done;
  if (st != VT_OK) {
    if (err[0])
      PyErr_SetString(vtpy_Error, err);
    else
      vtpy_raise(st, "decode");
    goto done;
  }
  if ((result = PyList_New(j.n_sent))) {
    for (int64_t s = 0; s < j.n_sent; s++) {
      PyObject *r = sentence_result(&j, s, PyList_GET_ITEM(arrays, s)), *marg = NULL;
      double logz = 0;
      if (r && posteriors) /* (paths, marginals, log Z) */
        r = sentence_posteriors(&j, t, s, &marg, &logz) < 0 ? (Py_DECREF(r), NULL)
                                                            : Py_BuildValue("(NNd)", r, marg, logz);
      if (!r) {
        Py_CLEAR(result);
        break;
      }
      PyList_SET_ITEM(result, s, r);
    }
  }
  if (result && single) { /* one sentence: its result, not a list of one */
    PyObject *one = PyList_GET_ITEM(result, 0);
    Py_INCREF(one);
    Py_SETREF(result, one);
  }
done:
  PyMem_Free(j.len);
  PyMem_Free(j.row);
  PyMem_Free(j.labels);
  PyMem_Free(j.scores);
  PyMem_Free(j.n_paths);
  PyMem_Free(counts);
  Py_XDECREF(arrays);
  Py_XDECREF(t);
  Py_DECREF(a);
  return result;
}

const char vtpy_decode_doc[] =
    "decode(emissions, transitions, start=None, end=None, lengths=None, *, algo=None, k=1, "
    "beam=None, rank=None, threads=0, posteriors=False)\n--\n\n"
    "Find the best label sequences of linear-chain lattices, exactly.\n\n"
    "The score of a path y over a sentence of T tokens is\n"
    "``start[y0] + sum_t emissions[t, yt] + sum_{t>=1} transitions[y(t-1), yt] + end[y(T-1)]``,\n"
    "evaluated left to right in double precision.\n\n"
    "Parameters\n"
    "----------\n"
    "emissions : ndarray of float32 or float64, shape (T, L), (sum T, L) or (B, T, L)\n"
    "    Emission scores. (T, L) without `lengths` is one sentence; (sum T, L) with `lengths`\n"
    "    holds the sentences one after the other; (B, T, L) is a padded batch (rows past a\n"
    "    sentence's length are ignored). C-contiguous, aligned, native-order float32/float64\n"
    "    arrays are read in place (no copy); other float32/float64 arrays (Fortran order,\n"
    "    strided views, byte-swapped) are copied so, other real arrays and lists copied as\n"
    "    float64; float16 raises (its precision would round the scores). ``-inf`` forbids a\n"
    "    label; NaN and +inf raise ValueError naming the index.\n"
    "transitions : array_like, shape (L, L), or Transitions\n"
    "    ``transitions[i, j]`` scores label i followed by label j (``-inf`` forbids it). A\n"
    "    ``vitesse.Transitions`` object is bound once and reused (then no start/end/rank).\n"
    "start, end : array_like, shape (L,), optional\n"
    "    Scores of the first and the last label (zeros when None).\n"
    "lengths : array_like of int, shape (S,), optional\n"
    "    Tokens of each sentence (0 allowed). Required for (sum T, L); optional for\n"
    "    (B, T, L) (default: every sentence T tokens long).\n"
    "algo : str, optional\n"
    "    The decoder: 'viterbi', 'viterbi-scalar', 'kbest-viterbi', 'staggered',\n"
    "    'staggered-col', 'astar', 'iter-astar', 'viterbi-astar', 'iter-viterbi-astar' (all\n"
    "    exact) or 'beam' (approximate). None (default) picks the library's fastest exact\n"
    "    decoder for L and k, by measurement: 'viterbi' below 128 labels ('viterbi-astar' for\n"
    "    k > 1), 'iter-viterbi-astar' from 128 labels (``vitesse.default_algo(L, k)``).\n"
    "k : int, default 1\n"
    "    Paths wanted per sentence, best first (k > 1 needs a k-best decoder or algo=None).\n"
    "beam : int, optional\n"
    "    Beam width of algo='beam' (with algo=None it selects 'beam').\n"
    "rank : array_like of int, shape (L,), optional\n"
    "    The labels by decreasing prior, for the staggered and A* decoders' speed. None: by how\n"
    "    often each label is a row's emission argmax in the input, as ``vitesse decode``.\n"
    "threads : int, default 0\n"
    "    Workers for several sentences: 0 = one per core, through the library's batch engine;\n"
    "    1 = the calling thread. One sentence always runs on the calling thread.\n"
    "posteriors : bool, default False\n"
    "    Also each sentence's label marginals (forward-backward over the same scores) and\n"
    "    log Z: a path's probability is exp(score - log Z).\n\n"
    "Returns\n"
    "-------\n"
    "list of (float, ndarray of int32)\n"
    "    For one sentence: up to k ``(score, labels)`` pairs, best first, distinct, scores\n"
    "    non-increasing; one pair ``(0.0, [])`` for T = 0; an empty list when no path has a\n"
    "    finite score. For several sentences: one such list per sentence, in order. With\n"
    "    posteriors, each sentence's result is ``(pairs, marginals, log_z)``, marginals a\n"
    "    float64 array (T, L).\n\n"
    "Raises\n"
    "------\n"
    "TypeError\n"
    "    Emissions that are not real numbers, or float16.\n"
    "ValueError\n"
    "    Wrong shapes, lengths that do not fit, NaN or +inf scores, an\n"
    "    unknown algo or options that do not go together (vitesse.Error for those the\n"
    "    library reports).\n\n"
    "Notes\n"
    "-----\n"
    "The GIL is released while decoding. Ties between equally scored paths are broken\n"
    "deterministically (the same output on any thread count and SIMD level). Ctrl-C stops\n"
    "a run on the engine once its running batches finish (KeyboardInterrupt); a run on the\n"
    "calling thread sees it when it returns.\n\n"
    "Examples\n"
    "--------\n"
    ">>> import numpy as np, vitesse\n"
    ">>> E = np.log(np.array([[.6, .4], [.3, .7]], dtype=np.float32))\n"
    ">>> A = np.log(np.array([[.9, .1], [.2, .8]]))\n"
    ">>> [(round(s, 3), y.tolist()) for s, y in vitesse.decode(E, A, k=2)]\n"
    "[(-1.496, [1, 1]), (-1.82, [0, 0])]\n";
