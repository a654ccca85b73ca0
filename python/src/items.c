/* python/src/items.c: _vitesse.write_items, python-crfsuite's sequences written as a CRFsuite
 * item file in C, for the common items only (vitesse/_items.py's _fields_fast cases): writing
 * a large corpus from Python dicts took as long as a fifth of the training. Anything else (another
 * type, a character an item line cannot hold, an empty name or label, a label holding a
 * control byte) makes it return None
 * before it has checked everything, and the Python writer (which says what is wrong) writes the
 * file again from the start. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vtpy.h"

/* A growing line buffer. */
typedef struct line {
  char *p;
  size_t n, cap;
} line;

static int line_put(line *l, const char *s, size_t n) {
  if (l->n + n > l->cap) {
    size_t cap = l->cap ? l->cap : 256;
    while (cap < l->n + n) cap *= 2;
    char *p = PyMem_Realloc(l->p, cap);
    if (!p) return -1;
    l->p = p;
    l->cap = cap;
  }
  memcpy(l->p + l->n, s, n);
  l->n += n;
  return 0;
}

/* Appends s escaped as an item field (CRFsuite's "\:" and "\\"); 1 when s holds a tab, newline or
 * NUL (the caller falls back), -1 out of memory. */
static int put_escaped(line *l, const char *s, Py_ssize_t n) {
  Py_ssize_t from = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    const char c = s[i];
    if (c == '\t' || c == '\n' || c == '\0') return 1;
    if (c == ':' || c == '\\') {
      if (line_put(l, s + from, (size_t)(i - from)) || line_put(l, "\\", 1)) return -1;
      from = i;
    }
  }
  return line_put(l, s + from, (size_t)(n - from)) ? -1 : 0;
}

/* The UTF-8 of an exact, non-empty str; NULL (no exception set) for anything else. */
static const char *text_of(PyObject *o, Py_ssize_t *n) {
  if (!PyUnicode_CheckExact(o)) return NULL;
  const char *s = PyUnicode_AsUTF8AndSize(o, n);
  if (!s) PyErr_Clear();
  return s && *n > 0 ? s : NULL;
}

/* Appends "\t" and the fields of one item; 0, 1 (fall back) or -1 (error set). */
static int put_item(line *l, PyObject *item) {
  Py_ssize_t nk, nv;
  const char *k, *v;
  int r;
  if (PyList_CheckExact(item)) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(item); i++) {
      if (!(k = text_of(PyList_GET_ITEM(item, i), &nk))) return 1;
      if (line_put(l, "\t", 1)) return -1;
      if ((r = put_escaped(l, k, nk))) return r;
    }
    return 0;
  }
  if (!PyDict_CheckExact(item)) return 1;
  Py_ssize_t pos = 0;
  PyObject *key, *val;
  while (PyDict_Next(item, &pos, &key, &val)) {
    if (!(k = text_of(key, &nk))) return 1;
    if (line_put(l, "\t", 1)) return -1;
    if ((r = put_escaped(l, k, nk))) return r;
    if (PyUnicode_CheckExact(val)) { /* {k: v}: the attribute "k:v" */
      if (!(v = PyUnicode_AsUTF8AndSize(val, &nv))) {
        PyErr_Clear();
        return 1;
      }
      if (line_put(l, "\\:", 2)) return -1;
      if ((r = put_escaped(l, v, nv))) return r;
    } else if (PyBool_Check(val)) {
      if (val == Py_False && line_put(l, ":0.0", 4)) return -1;
    } else if (PyFloat_CheckExact(val) || PyLong_CheckExact(val)) {
      const double w = PyFloat_CheckExact(val) ? PyFloat_AS_DOUBLE(val) : PyLong_AsDouble(val);
      if (w == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 1;
      }
      if (!isfinite(w)) return 1;
      if (w != 1.0) { /* ":" and repr(w), as Python's "%r" */
        char *s = PyOS_double_to_string(w, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (!s) return -1;
        r = line_put(l, ":", 1) || line_put(l, s, strlen(s)) ? -1 : 0;
        PyMem_Free(s);
        if (r) return r;
      }
    } else {
      return 1;
    }
  }
  return 0;
}

/* Writes one (xseq, yseq) pair's lines to f; 0 written (or an empty pair, *n unchanged), 1 fall
 * back, -1 error set. */
static int put_pair(FILE *f, line *l, PyObject *pair, Py_ssize_t *n) {
  if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) return 1;
  PyObject *x = PyTuple_GET_ITEM(pair, 0), *y = PyTuple_GET_ITEM(pair, 1);
  if (!PyList_CheckExact(x) || !PyList_CheckExact(y) || PyList_GET_SIZE(x) != PyList_GET_SIZE(y))
    return 1;
  const Py_ssize_t T = PyList_GET_SIZE(x);
  if (T == 0) return 0;
  for (Py_ssize_t t = 0; t < T; t++) {
    Py_ssize_t nl;
    const char *lab = text_of(PyList_GET_ITEM(y, t), &nl);
    int r;
    if (!lab) return 1;
    for (Py_ssize_t i = 0; i < nl; i++) /* a control byte: the Python writer says which */
      if ((unsigned char)lab[i] < 0x20 || lab[i] == 0x7f) return 1;
    l->n = 0;
    if ((r = put_escaped(l, lab, nl)) || (r = put_item(l, PyList_GET_ITEM(x, t)))) return r;
    if (line_put(l, "\n", 1)) return -1;
    if (fwrite(l->p, 1, l->n, f) != l->n) {
      PyErr_SetFromErrno(PyExc_OSError);
      return -1;
    }
  }
  if (fputc('\n', f) == EOF) {
    PyErr_SetFromErrno(PyExc_OSError);
    return -1;
  }
  (*n)++;
  return 0;
}

PyObject *vtpy_write_items(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *pairs, *path, *ret = NULL;
  if (!PyArg_ParseTuple(args, "O!O&", &PyList_Type, &pairs, PyUnicode_FSConverter, &path))
    return NULL;
  line l = {NULL, 0, 0};
  Py_ssize_t n = 0;
  int r = 0;
  FILE *f = fopen(PyBytes_AS_STRING(path), "wb");
  if (!f) {
    PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    goto done;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pairs) && r == 0; i++)
    r = put_pair(f, &l, PyList_GET_ITEM(pairs, i), &n);
  if (fclose(f) != 0 && r == 0) {
    PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    r = -1;
  }
  if (r == 0)
    ret = PyLong_FromSsize_t(n);
  else if (r == 1) {
    Py_INCREF(Py_None);
    ret = Py_None;
  }
done:
  PyMem_Free(l.p);
  Py_DECREF(path);
  return ret;
}
