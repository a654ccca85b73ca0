/* python/src/module.c: the extension module vitesse._vitesse: exceptions, decoder options, the arena cache,
 * library facts (version, SIMD level, algorithms) and the module table. */
#define VTPY_MODULE_C
#include "vtpy.h"

#include <sched.h> /* Python.h defines _GNU_SOURCE: sched_getaffinity, CPU_COUNT */
#include <stdatomic.h>
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
    const char *name = PyUnicode_AsUTF8(algo);
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

/* ---- library facts ---- */

static PyObject *py_simd(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(vt_simd_name(vt_simd_active()));
}

static PyObject *py_algorithms(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  PyObject *d = PyDict_New();
  for (int a = 0; d && a < VT_ALGO_COUNT_; a++) {
    if (!vt_algo_available((vt_algo)a)) continue;
    PyObject *v = Py_BuildValue("{s:O,s:O}", "exact", vt_algo_exact(a) ? Py_True : Py_False,
                                "kbest", vt_algo_kbest(a) ? Py_True : Py_False);
    if (!v || PyDict_SetItemString(d, vt_algo_name(a), v) < 0) {
      Py_XDECREF(v);
      Py_CLEAR(d);
      break;
    }
    Py_DECREF(v);
  }
  return d;
}

static PyObject *py_default_algo(PyObject *self, PyObject *args) {
  (void)self;
  int L, k = 1;
  if (!PyArg_ParseTuple(args, "i|i", &L, &k)) return NULL;
  if (L < 1 || k < 1) {
    PyErr_SetString(PyExc_ValueError, "labels and k must be >= 1");
    return NULL;
  }
  vt_decode_opts o;
  vt_decode_opts_default(&o, L, k);
  return PyUnicode_FromString(vt_algo_name(o.algo));
}

static PyMethodDef methods[] = {
    {"decode", (PyCFunction)(void (*)(void))vtpy_decode, METH_VARARGS | METH_KEYWORDS,
     vtpy_decode_doc},
    {"train", (PyCFunction)(void (*)(void))vtpy_train, METH_VARARGS | METH_KEYWORDS,
     vtpy_train_doc},
    {"simd", py_simd, METH_NOARGS,
     "simd()\n--\n\nThe kernel level the decoders use: 'scalar', 'avx2' or 'avx512' (the "
     "best the CPU supports unless the environment variable VITESSE_SIMD chose one)."},
    {"algorithms", py_algorithms, METH_NOARGS,
     "algorithms()\n--\n\nThe decoders of this build: {name: {'exact': bool, 'kbest': bool}}."},
    {"default_algo", py_default_algo, METH_VARARGS,
     "default_algo(labels, k=1)\n--\n\nThe decoder algo=None picks for lattices of `labels` "
     "labels and k paths (the library's measured rule: viterbi below 128 labels at k = 1, "
     "viterbi-astar for k > 1, iter-viterbi-astar from 128 labels)."},
    {NULL, NULL, 0, NULL}};

static void module_free(void *m) {
  (void)m;
  vtpy_arena_free_cached();
  vtpy_engine_free_cached();
}

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "vitesse._vitesse",
    "The C extension of vitesse: a thin layer over libvitesse's public API (vitesse.h).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    module_free};

/* Adds `obj` to module `m` under `name` (a new reference is taken). Returns 0 or -1. */
static int add(PyObject *m, const char *name, PyObject *obj) {
  Py_INCREF(obj);
  if (PyModule_AddObject(m, name, obj) < 0) {
    Py_DECREF(obj);
    return -1;
  }
  return 0;
}

PyMODINIT_FUNC PyInit__vitesse(void) {
  import_array();
  PyObject *m = NULL, *bases = NULL;
  if (vt_version_number() / 10000 != VT_VERSION_MAJOR || vt_version_number() < VT_VERSION_NUMBER) {
    PyErr_Format(PyExc_ImportError, "libvitesse %s does not match vitesse.h %d.%d.%d", vt_version(),
                 VT_VERSION_MAJOR, VT_VERSION_MINOR, VT_VERSION_PATCH);
    return NULL;
  }
  if (PyType_Ready(&vtpy_TransType) < 0 || PyType_Ready(&vtpy_ModelType) < 0) return NULL;
  m = PyModule_Create(&moduledef);
  if (!m) return NULL;
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
  if (add(m, "Error", vtpy_Error) < 0 || add(m, "FileError", vtpy_FileError) < 0 ||
      add(m, "Transitions", (PyObject *)&vtpy_TransType) < 0 ||
      add(m, "Model", (PyObject *)&vtpy_ModelType) < 0 ||
      PyModule_AddStringConstant(m, "library_version", vt_version()) < 0 ||
      PyModule_AddIntConstant(m, "DEFAULT_L_ITER", VT_DEFAULT_L_ITER) < 0)
    goto fail;
  return m;
fail:
  Py_XDECREF(bases);
  Py_XDECREF(m);
  return NULL;
}
