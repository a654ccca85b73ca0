/* python/src/module.c: the extension module vitesse._vitesse: library facts (version, SIMD
 * level, algorithms), the module table and its initialisation. */
#include "vtpy.h"

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

static PyObject *py_max_model_memory(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *arg = Py_None;
  if (!PyArg_ParseTuple(args, "|O", &arg)) return NULL;
  if (arg != Py_None) {
    unsigned long long v = PyLong_AsUnsignedLongLong(arg);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_SetString(PyExc_ValueError, "max_model_memory: expected a number of bytes >= 0");
      return NULL;
    }
    vt_model_memory_limit_set((uint64_t)v);
  }
  return PyLong_FromUnsignedLongLong((unsigned long long)vt_model_memory_limit());
}

static PyMethodDef methods[] = {
    {"decode", (PyCFunction)(void (*)(void))vtpy_decode, METH_VARARGS | METH_KEYWORDS,
     vtpy_decode_doc},
    {"train", (PyCFunction)(void (*)(void))vtpy_train, METH_VARARGS | METH_KEYWORDS,
     vtpy_train_doc},
    {"train_items", (PyCFunction)(void (*)(void))vtpy_train_items, METH_VARARGS | METH_KEYWORDS,
     vtpy_train_items_doc},
    {"write_items", vtpy_write_items, METH_VARARGS,
     "write_items(pairs, path): (xseq, yseq) pairs of common items as an item file; the "
     "sequences written, or None when the Python writer must do it"},
    {"simd", py_simd, METH_NOARGS,
     "simd()\n--\n\nThe kernel level the decoders use: 'scalar', 'avx2' or 'avx512' (the "
     "best the CPU supports unless the environment variable VITESSE_SIMD chose one)."},
    {"max_model_memory", py_max_model_memory, METH_VARARGS,
     "max_model_memory(nbytes=None)\n--\n\nThe bound on what one model may need once opened, in "
     "bytes (its L x L tables take 32 bytes a label pair): a model over it is refused with "
     "vitesse.Error before anything is allocated. With nbytes, sets it for every model opened "
     "after (0: the default, half of the physical memory); returns the bound in force."},
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
  PyObject *m = NULL;
  if (vt_version_number() / 10000 != VT_VERSION_MAJOR || vt_version_number() < VT_VERSION_NUMBER) {
    PyErr_Format(PyExc_ImportError, "libvitesse %s does not match vitesse.h %d.%d.%d", vt_version(),
                 VT_VERSION_MAJOR, VT_VERSION_MINOR, VT_VERSION_PATCH);
    return NULL;
  }
  if (PyType_Ready(&vtpy_TransType) < 0 || PyType_Ready(&vtpy_ModelType) < 0) return NULL;
  m = PyModule_Create(&moduledef);
  if (!m) return NULL;
  if (vtpy_common_init() < 0) goto fail;
  if (add(m, "Error", vtpy_Error) < 0 || add(m, "FileError", vtpy_FileError) < 0 ||
      add(m, "Transitions", (PyObject *)&vtpy_TransType) < 0 ||
      add(m, "Model", (PyObject *)&vtpy_ModelType) < 0 ||
      PyModule_AddStringConstant(m, "library_version", vt_version()) < 0 ||
      PyModule_AddIntConstant(m, "DEFAULT_L_ITER", VT_DEFAULT_L_ITER) < 0)
    goto fail;
  return m;
fail:
  Py_XDECREF(m);
  return NULL;
}
