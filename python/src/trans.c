/* python/src/trans.c: score checks and vitesse.Transitions, a transition model bound once
 * (vt_trans) that decode reuses call after call. */
#include "vtpy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Scores of magnitude at least this are refused: a path sum of them could overflow (the
 * library's lattice readers use the same bound). */
#define SCORE_LIMIT 1e295

/* Index of the first bad score of x[0..n), or n when all are good; counts argmaxes when asked.
 * Blocks of 512 are first checked without branches (the compiler vectorises that loop), and only
 * a block holding a bad value is searched for its index. */
#define SCAN_BODY(T)                                                                               \
  do {                                                                                             \
    const T *v = x;                                                                                \
    for (size_t b = 0; b < n; b += 512) {                                                          \
      const size_t e = n - b < 512 ? n : b + 512;                                                  \
      int bad = 0;                                                                                 \
      for (size_t i = b; i < e; i++) {                                                             \
        const T d = v[i];                                                                          \
        bad |= (!(d < (T)SCORE_LIMIT)) | ((d <= -(T)SCORE_LIMIT) & (d != -(T)INFINITY));           \
      }                                                                                            \
      if (bad)                                                                                     \
        for (size_t i = b; i < e; i++) {                                                           \
          const T d = v[i];                                                                        \
          if (!(d < (T)SCORE_LIMIT) || (d <= -(T)SCORE_LIMIT && d != -(T)INFINITY)) return i;      \
        }                                                                                          \
    }                                                                                              \
    if (counts)                                                                                    \
      for (size_t r = 0; r + (size_t)L <= n; r += (size_t)L) {                                     \
        int32_t arg = 0;                                                                           \
        for (int32_t y = 1; y < L; y++)                                                            \
          if (v[r + (size_t)y] > v[r + (size_t)arg]) arg = y;                                      \
        counts[arg]++;                                                                             \
      }                                                                                            \
    return n;                                                                                      \
  } while (0)

static size_t scan_f32(const float *x, size_t n, int32_t L, int64_t *counts) { SCAN_BODY(float); }
static size_t scan_f64(const double *x, size_t n, int32_t L, int64_t *counts) { SCAN_BODY(double); }

int vtpy_check_scores(const void *x, int f64, size_t n, const char *name, int ndim,
                      const npy_intp *shape, int32_t L, int64_t *counts) {
  size_t bad;
  if (n >= ((size_t)1 << 16)) {
    Py_BEGIN_ALLOW_THREADS
    bad = f64 ? scan_f64(x, n, L, counts) : scan_f32(x, n, L, counts);
    Py_END_ALLOW_THREADS
  } else {
    bad = f64 ? scan_f64(x, n, L, counts) : scan_f32(x, n, L, counts);
  }
  if (bad == n) return 0;
  double d = f64 ? ((const double *)x)[bad] : (double)((const float *)x)[bad];
  char where[160] = "";
  size_t rest = bad, len = 0;
  npy_intp idx[NPY_MAXDIMS];
  for (int i = ndim - 1; i >= 0; i--) {
    idx[i] = shape[i] ? (npy_intp)(rest % (size_t)shape[i]) : 0;
    rest = shape[i] ? rest / (size_t)shape[i] : 0;
  }
  for (int i = 0; i < ndim && len < sizeof where - 24; i++)
    len += (size_t)snprintf(where + len, sizeof where - len, "%s%lld", i ? ", " : "",
                            (long long)idx[i]);
  PyErr_Format(PyExc_ValueError, "%s[%s] is %s: scores must be finite or -inf", name, where,
               isnan(d)   ? "nan"
               : isinf(d) ? "+inf"
                          : "too large (|score| >= 1e295)");
  return -1;
}

/* Converts `obj` to a C-contiguous double array of `ndim` dims, each of length L. New
 * reference, or NULL with an exception naming `name`. */
static PyArrayObject *as_scores(PyObject *obj, const char *name, int ndim, int32_t L) {
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 0, 0, NPY_ARRAY_IN_ARRAY);
  if (!a) return NULL;
  int ok = PyArray_NDIM(a) == ndim;
  for (int i = 0; ok && i < ndim; i++) ok = PyArray_DIM(a, i) == L;
  if (!ok) {
    PyErr_Format(PyExc_ValueError,
                 "%s must have shape (%d,) to match the transitions, not %d "
                 "dims of length %lld",
                 name, (int)L, PyArray_NDIM(a),
                 (long long)(PyArray_NDIM(a) ? PyArray_DIM(a, 0) : 0));
    Py_DECREF(a);
    return NULL;
  }
  if (vtpy_check_scores(PyArray_DATA(a), 1, (size_t)PyArray_SIZE(a), name, ndim, PyArray_DIMS(a), L,
                        NULL) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

/* Copies the (L,) double vector `obj` (None: zeros) into a new malloc'd array; NULL on error. */
static double *vector(PyObject *obj, const char *name, int32_t L) {
  double *v = calloc((size_t)L, sizeof *v);
  if (!v) return (double *)PyErr_NoMemory();
  if (obj == Py_None) return v;
  PyArrayObject *a = as_scores(obj, name, 1, L);
  if (!a) {
    free(v);
    return NULL;
  }
  memcpy(v, PyArray_DATA(a), (size_t)L * sizeof *v);
  Py_DECREF(a);
  return v;
}

/* Reads the rank permutation `obj` (L,) into rank[]; 0 or -1 with an exception. */
static int read_rank(PyObject *obj, int32_t L, int32_t *rank) {
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (!a) return -1;
  int ok = PyArray_DIM(a, 0) == L;
  char *seen = ok ? calloc((size_t)L, 1) : NULL;
  if (ok && !seen) {
    Py_DECREF(a);
    PyErr_NoMemory();
    return -1;
  }
  const int64_t *r = PyArray_DATA(a);
  for (int32_t i = 0; ok && i < L; i++) {
    ok = r[i] >= 0 && r[i] < L && !seen[r[i]];
    if (ok) seen[r[i]] = 1;
    rank[i] = (int32_t)r[i];
  }
  free(seen);
  Py_DECREF(a);
  if (!ok) PyErr_Format(PyExc_ValueError, "rank must be a permutation of 0..%d", (int)L - 1);
  return ok ? 0 : -1;
}

vtpy_Trans *vtpy_trans_new(PyObject *A, PyObject *S, PyObject *F, PyObject *rank,
                           const int64_t *rank_counts) {
  vtpy_Trans *t = NULL;
  int32_t *perm = NULL;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(A, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
  if (!a) goto fail;
  npy_intp L = PyArray_DIM(a, 0);
  if (L < 1 || L > INT32_MAX / 2 || PyArray_DIM(a, 1) != L) {
    PyErr_Format(PyExc_ValueError,
                 "transitions must be a square (L, L) array with L >= 1, "
                 "not %lld x %lld",
                 (long long)L, (long long)PyArray_DIM(a, 1));
    goto fail;
  }
  if (vtpy_check_scores(PyArray_DATA(a), 1, (size_t)PyArray_SIZE(a), "transitions", 2,
                        PyArray_DIMS(a), (int32_t)L, NULL) < 0)
    goto fail;
  t = PyObject_New(vtpy_Trans, &vtpy_TransType);
  if (!t) goto fail;
  t->trans = NULL;
  t->L = (int32_t)L;
  t->S = t->F = NULL;
  t->A = malloc((size_t)(L * L) * sizeof *t->A);
  if (!t->A) {
    PyErr_NoMemory();
    goto fail;
  }
  memcpy(t->A, PyArray_DATA(a), (size_t)(L * L) * sizeof *t->A);
  if (!(t->S = vector(S, "start", t->L)) || !(t->F = vector(F, "end", t->L))) goto fail;
  t->has_rank = rank != Py_None || rank_counts;
  if (t->has_rank) {
    perm = malloc((size_t)L * sizeof *perm);
    if (!perm) {
      PyErr_NoMemory();
      goto fail;
    }
    if (rank != Py_None ? read_rank(rank, t->L, perm) < 0
                        : vt_rank_from_counts(rank_counts, t->L, perm) != VT_OK) {
      if (!PyErr_Occurred()) PyErr_NoMemory();
      goto fail;
    }
  }
  vt_status st = vt_trans_create(&t->trans, t->L, t->A, t->S, t->F, perm);
  if (st != VT_OK) {
    vtpy_raise(st, "transitions");
    goto fail;
  }
  free(perm);
  Py_DECREF(a);
  return t;
fail:
  free(perm);
  Py_XDECREF(a);
  Py_XDECREF(t);
  return NULL;
}

static void trans_dealloc(vtpy_Trans *t) {
  vt_trans_destroy(t->trans);
  free(t->A);
  free(t->S);
  free(t->F);
  PyObject_Free(t);
}

static PyObject *trans_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  (void)type;
  static char *kwlist[] = {"transitions", "start", "end", "rank", NULL};
  PyObject *A, *S = Py_None, *F = Py_None, *rank = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO:Transitions", kwlist, &A, &S, &F, &rank))
    return NULL;
  return (PyObject *)vtpy_trans_new(A, S, F, rank, NULL);
}

static PyObject *trans_labels(vtpy_Trans *t, void *unused) {
  (void)unused;
  return PyLong_FromLong(t->L);
}

/* Returns a new (n,) or (n, n) double array copied from `src`. */
static PyObject *copy_out(const double *src, int nd, int32_t L) {
  npy_intp dims[2] = {L, L};
  PyObject *a = PyArray_SimpleNew(nd, dims, NPY_DOUBLE);
  if (a) memcpy(PyArray_DATA((PyArrayObject *)a), src, (size_t)PyArray_NBYTES((PyArrayObject *)a));
  return a;
}

static PyObject *trans_A(vtpy_Trans *t, void *u) {
  (void)u;
  return copy_out(t->A, 2, t->L);
}
static PyObject *trans_S(vtpy_Trans *t, void *u) {
  (void)u;
  return copy_out(t->S, 1, t->L);
}
static PyObject *trans_F(vtpy_Trans *t, void *u) {
  (void)u;
  return copy_out(t->F, 1, t->L);
}

static PyGetSetDef trans_getset[] = {
    {"labels", (getter)trans_labels, NULL, "The number of labels L.", NULL},
    {"transitions", (getter)trans_A, NULL, "A copy of the (L, L) float64 transition scores.", NULL},
    {"start", (getter)trans_S, NULL, "A copy of the (L,) start scores (zeros when none).", NULL},
    {"end", (getter)trans_F, NULL, "A copy of the (L,) end scores (zeros when none).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject vtpy_TransType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "vitesse.Transitions",
    .tp_basicsize = sizeof(vtpy_Trans),
    .tp_dealloc = (destructor)trans_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Transitions(transitions, start=None, end=None, rank=None)\n--\n\n"
              "A transition model bound once, for many calls of decode.\n\n"
              "Parameters\n----------\n"
              "transitions : array_like, shape (L, L)\n"
              "    ``transitions[i, j]`` scores label i followed by label j; -inf forbids it.\n"
              "start, end : array_like, shape (L,), optional\n"
              "    Scores of the first and last label (zeros when None).\n"
              "rank : array_like of int, shape (L,), optional\n"
              "    The labels by decreasing prior, used by the staggered and A* decoders for\n"
              "    speed (never for the result's score). None: the identity order.\n\n"
              "Binding converts the scores into the layouts the decoders read (O(L^2)); pass\n"
              "the object to ``decode`` in place of the array to pay that once. NaN and +inf\n"
              "raise ValueError naming the index.",
    .tp_getset = trans_getset,
    .tp_new = trans_new,
};
