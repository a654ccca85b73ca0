/* python/src/sentences.c: sentences held in Python (a list of rows; a row a str or a list of str)
 * as the cell pointers vt_tagger_tag and vt_train_tagger_mem read, the str objects held meanwhile.
 */
#include "vtpy.h"

#include <string.h>

typedef vtpy_sentences sentences;

void vtpy_sentences_free(sentences *s) {
  PyMem_Free(s->cells);
  PyMem_Free(s->at);
  PyMem_Free(s->T);
  PyMem_Free(s->ncols);
  Py_CLEAR(s->keep);
  memset(s, 0, sizeof *s); /* freeing twice is harmless */
}

/* Appends the UTF-8 of str `o` to the cells; 0 or -1 with an exception naming the place. */
static int add_cell(sentences *s, size_t *n, size_t *cap, PyObject *o, int64_t sent, int64_t t) {
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError,
                 "sentence %lld, token %lld: a row is a str or a list of str, "
                 "not %.80s",
                 (long long)sent, (long long)t, Py_TYPE(o)->tp_name);
    return -1;
  }
  char what[96];
  snprintf(what, sizeof what, "sentence %lld, token %lld", (long long)sent, (long long)t);
  const char *u = vtpy_utf8(o, what);
  if (!u || PyList_Append(s->keep, o) < 0) return -1;
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 256;
    const char **p = PyMem_Realloc(s->cells, c * sizeof *p);
    if (!p) {
      PyErr_NoMemory();
      return -1;
    }
    s->cells = p;
    *cap = c;
  }
  s->cells[(*n)++] = u;
  return 0;
}

int vtpy_sentences_read(sentences *s, PyObject *seq, int one) {
  memset(s, 0, sizeof *s);
  PyObject *outer = one ? NULL : PySequence_Fast(seq, "sentences must be a sequence");
  if (!one && !outer) return -1;
  s->n_sent = one ? 1 : PySequence_Fast_GET_SIZE(outer);
  size_t n = 0, cap = 0;
  s->keep = PyList_New(0);
  s->at = PyMem_Malloc((size_t)(s->n_sent + 1) * sizeof *s->at);
  s->T = PyMem_Malloc((size_t)(s->n_sent + 1) * sizeof *s->T);
  s->ncols = PyMem_Malloc((size_t)(s->n_sent + 1) * sizeof *s->ncols);
  if (!s->keep || !s->at || !s->T || !s->ncols) {
    if (s->keep) PyErr_NoMemory();
    goto fail;
  }
  for (int64_t i = 0; i < s->n_sent; i++) {
    PyObject *sent = one ? seq : PySequence_Fast_GET_ITEM(outer, i);
    PyObject *rows = PySequence_Fast(sent, "a sentence must be a sequence of rows");
    if (!rows) goto fail;
    Py_ssize_t T = PySequence_Fast_GET_SIZE(rows);
    s->at[i] = (int64_t)n;
    s->T[i] = (int32_t)T;
    s->ncols[i] = 1;
    for (Py_ssize_t t = 0; t < T; t++) {
      PyObject *row = PySequence_Fast_GET_ITEM(rows, t);
      int32_t nc = 1;
      int bad = 0;
      if (PyUnicode_Check(row)) {
        bad = add_cell(s, &n, &cap, row, i, t);
      } else {
        PyObject *cols = PySequence_Fast(row, "a row must be a str or a list of str");
        if (!cols) {
          Py_DECREF(rows);
          goto fail;
        }
        nc = (int32_t)PySequence_Fast_GET_SIZE(cols);
        for (int32_t c = 0; !bad && c < nc; c++)
          bad = add_cell(s, &n, &cap, PySequence_Fast_GET_ITEM(cols, c), i, t);
        Py_DECREF(cols);
        if (!bad && nc < 1) {
          PyErr_Format(PyExc_ValueError, "sentence %lld, token %lld: a row without columns",
                       (long long)i, (long long)t);
          bad = 1;
        }
      }
      if (!t) s->ncols[i] = nc;
      if (!bad && t && nc != s->ncols[i]) {
        PyErr_Format(PyExc_ValueError,
                     "sentence %lld, token %lld: %d columns, the first token "
                     "has %d",
                     (long long)i, (long long)t, (int)nc, (int)s->ncols[i]);
        bad = 1;
      }
      if (bad) {
        Py_DECREF(rows);
        goto fail;
      }
    }
    Py_DECREF(rows);
  }
  Py_XDECREF(outer);
  return 0;
fail:
  Py_XDECREF(outer);
  vtpy_sentences_free(s);
  return -1;
}
