/* python/src/common.c: what every type and function of the extension shares: the exception
 * classes and the raising of a vt_status, the decoder options, the thread count, the arena
 * cache, and NumPy's API table (imported here, once). */
#define VTPY_COMMON_C
#include "vtpy.h"

#include <sched.h> /* Python.h defines _GNU_SOURCE: sched_getaffinity, CPU_COUNT */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

PyObject *vtpy_Error;
PyObject *vtpy_FileError;

PyObject *vtpy_raise(vt_status st, const char *what) {
  if (st == VT_ENOMEM) return PyErr_NoMemory();
  const char *msg = vt_last_error();
  PyObject *cls = st == VT_EIO ? vtpy_FileError : vtpy_Error;
  PyObject *exc = msg && *msg ? PyObject_CallFunction(cls, "s", msg)
                              : PyObject_CallFunction(cls, "s:s", what, vt_strerror(st));
  if (!exc) return NULL;
  PyObject *code = PyLong_FromLong(st);
  /* .status: the vt_status code (VT_EFORMAT, ...), for programs that tell failures apart. */
  if (!code || PyObject_SetAttrString(exc, "status", code) < 0) {
    Py_XDECREF(code);
    Py_DECREF(exc);
    return NULL;
  }
  Py_DECREF(code);
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return NULL;
}

/* Sets ValueError listing the algorithm names this build implements. */
static void unknown_algo(const char *name) {
  char list[512] = "";
  size_t n = 0;
  for (int a = 0; a < VT_ALGO_COUNT_; a++)
    if (vt_algo_available((vt_algo)a) && n < sizeof list - 40)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", vt_algo_name(a));
  PyErr_Format(PyExc_ValueError, "unknown algo '%s' (one of: %s)", name, list);
}

int vtpy_decode_opts(PyObject *algo, int k, PyObject *beam, int32_t L, vt_decode_opts *opts) {
  vt_decode_opts_init(opts);
  if (k < 1) {
    PyErr_Format(PyExc_ValueError, "k must be >= 1, not %d", k);
    return -1;
  }
  long width = 0;
  if (beam && beam != Py_None) {
    width = PyLong_AsLong(beam);
    if (width == -1 && PyErr_Occurred()) return -1;
    if (width < 1 || width > INT32_MAX) {
      PyErr_Format(PyExc_ValueError, "beam must be >= 1, not %ld", width);
      return -1;
    }
  }
  if (algo && algo != Py_None) {
    if (!PyUnicode_Check(algo)) {
      PyErr_SetString(PyExc_TypeError, "algo must be a str or None");
      return -1;
    }
    const char *name = vtpy_utf8(algo, "algo");
    if (!name) return -1;
    vt_status st = vt_algo_parse(name, &opts->algo);
    if (st == VT_EUNSUPPORTED) {
      PyErr_Format(PyExc_ValueError, "algo '%s' is not implemented in this version", name);
      return -1;
    }
    if (st != VT_OK) {
      unknown_algo(name);
      return -1;
    }
  } else if (width) {
    opts->algo = VT_ALGO_BEAM;
  } else if (L >= 1) {
    vt_decode_opts_default(opts, L, k);
  } else {
    opts->algo = VT_ALGO_COUNT_; /* the model's default, chosen later */
  }
  opts->k = k;
  if (width) {
    if (opts->algo != VT_ALGO_BEAM) {
      PyErr_Format(PyExc_ValueError, "beam is a width for algo='beam', not '%s'",
                   vt_algo_name(opts->algo));
      return -1;
    }
    opts->beam = (int32_t)width;
  }
  if (k > 1 && opts->algo != VT_ALGO_COUNT_ && !vt_algo_kbest(opts->algo)) {
    PyErr_Format(PyExc_ValueError,
                 "algo '%s' returns one path; k = %d needs a k-best decoder (kbest-viterbi, astar, "
                 "viterbi-astar, iter-viterbi-astar, beam) or algo=None",
                 vt_algo_name(opts->algo), k);
    return -1;
  }
  return 0;
}

int vtpy_threads_check(int threads) {
  if (threads >= 0 && threads <= VTPY_MAX_THREADS) return 0;
  PyErr_Format(PyExc_ValueError, "threads must be in 0..%d (0: one per core), not %d",
               VTPY_MAX_THREADS, threads);
  return -1;
}

const char *vtpy_utf8(PyObject *o, const char *what) {
  Py_ssize_t n;
  const char *u = PyUnicode_AsUTF8AndSize(o, &n);
  if (!u && PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
    /* a lone surrogate (what UTF-8 cannot encode): name it and where it is, not the codec */
    const Py_ssize_t len = PyUnicode_GET_LENGTH(o);
    Py_ssize_t at = 0;
    while (at < len && !Py_UNICODE_IS_SURROGATE(PyUnicode_READ_CHAR(o, at))) at++;
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s: a str UTF-8 cannot encode (a lone surrogate at %zd): %R",
                 what, at, o);
    return NULL;
  }
  if (u && memchr(u, '\0', (size_t)n)) {
    PyErr_Format(PyExc_ValueError, "%s: a str with an embedded NUL character", what);
    return NULL;
  }
  return u;
}

int vtpy_threads(int threads) {
  if (threads > 0) return threads;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* ---- the arena cache ---- */

static _Atomic(vt_arena *) cached_arena;

vt_arena *vtpy_arena_take(void) {
  vt_arena *a = atomic_exchange(&cached_arena, NULL);
  if (a) return a;
  if (vt_arena_create(&a, 0) != VT_OK) return NULL;
  return a;
}

void vtpy_arena_give(vt_arena *a) {
  if (!a) return;
  vt_arena_reset(a);
  vt_arena *none = NULL;
  if (!atomic_compare_exchange_strong(&cached_arena, &none, a)) vt_arena_destroy(a);
}

void vtpy_arena_free_cached(void) { vt_arena_destroy(atomic_exchange(&cached_arena, NULL)); }

int vtpy_common_init(void) {
  PyObject *bases = NULL;
  import_array1(-1);
  if (!vtpy_Error) {
    vtpy_Error = PyErr_NewExceptionWithDoc(
        "vitesse.Error",
        "A failure reported by libvitesse; str() is the library's one-line message and "
        ".status its vt_status code. A ValueError (bad input, unsupported options).",
        PyExc_ValueError, NULL);
    if (!vtpy_Error) goto fail;
  }
  if (!vtpy_FileError) {
    bases = PyTuple_Pack(2, vtpy_Error, PyExc_OSError);
    if (!bases) goto fail;
    vtpy_FileError = PyErr_NewExceptionWithDoc(
        "vitesse.FileError",
        "A file could not be opened, read or written: a vitesse.Error and an OSError.", bases,
        NULL);
    Py_CLEAR(bases);
    if (!vtpy_FileError) goto fail;
  }
  return 0;
fail:
  Py_XDECREF(bases);
  return -1;
}
