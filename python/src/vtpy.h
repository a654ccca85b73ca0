/* python/src/vtpy.h: what the files of the extension module vitesse._vitesse share.
 *
 * The module is a thin layer over the public header vitesse.h only: it checks Python arguments,
 * releases the GIL around the library's work and turns vt_status codes into exceptions that
 * carry vt_last_error()'s one-line message. */
#ifndef VT_PYTHON_SRC_VTPY_H
#define VT_PYTHON_SRC_VTPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL vtpy_ARRAY_API
#ifndef VTPY_COMMON_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <vitesse.h>

/* Imports NumPy's API and makes the exception classes (once). Returns 0, or -1 with an
 * exception set. */
int vtpy_common_init(void);

/* The exception classes: Error (a ValueError) and FileError (an Error and an OSError). */
extern PyObject *vtpy_Error;
extern PyObject *vtpy_FileError;

/* Raises the exception for failing status `st` with vt_last_error()'s message (or, when it is
 * empty, `what` and vt_strerror(st)); VT_ENOMEM raises MemoryError. Returns NULL. Call with the
 * GIL held, on the thread that made the failing call (the message is per thread). */
PyObject *vtpy_raise(vt_status st, const char *what);

/* Parses the decoder options of decode, Model.tag and friends into *opts: `algo` None (the
 * library's default for L labels and k: vt_decode_opts_default) or a name, `beam` None or a
 * width (with algo None it selects "beam"). L < 1 means "the model decides": opts->algo is
 * then left as VT_ALGO_COUNT_ when algo and beam are None. Returns 0, or -1 with an exception
 * set (unknown name, k < 1, a 1-best decoder asked for k > 1, beam < 1). */
int vtpy_decode_opts(PyObject *algo, int k, PyObject *beam, int32_t L, vt_decode_opts *opts);

/* The most threads a call takes, as the CLI's --threads. */
#define VTPY_MAX_THREADS 4096

/* 0 when `threads` is in 0..VTPY_MAX_THREADS, else -1 with ValueError set. */
int vtpy_threads_check(int threads);

/* The UTF-8 of str `o`, or NULL with an exception set: ValueError naming `what` when it holds a
 * NUL character (the library reads NUL-terminated strings, so the rest would be lost) or a
 * character UTF-8 cannot encode (a lone surrogate, named with its index). */
const char *vtpy_utf8(PyObject *o, const char *what);

/* Returns the worker count `threads` (>= 0; 0 = one per core) resolves to on this machine. */
int vtpy_threads(int threads);

/* A bound transition model (vitesse.Transitions): the vt_trans plus the double arrays A, S, F
 * (owned) that scores of engine output are recomputed with. */
typedef struct {
  PyObject_HEAD vt_trans *trans;
  int32_t L;
  double *A, *S, *F; /* L*L, L, L */
  int has_rank;
} vtpy_Trans;

extern PyTypeObject vtpy_TransType;

/* Makes a Transitions from `A` (L, L), `S`, `F` (L,) or None, and `rank` (L,) or None (identity
 * when `rank_counts` is NULL, else ranked by those counts). New reference, or NULL with an
 * exception set (bad shapes, NaN or +inf named by index, a rank that is no permutation). */
vtpy_Trans *vtpy_trans_new(PyObject *A, PyObject *S, PyObject *F, PyObject *rank,
                           const int64_t *rank_counts);

/* Checks the `n` scores of `x` (float32 when `f64` is 0, else double) for NaN, +inf and
 * magnitudes of 1e295 or more (a path sum could overflow), raising ValueError that names
 * `name` and the index (unravelled over `shape` of `ndim` dims) of the first bad one. With
 * `counts` (L entries, zeroed by the caller; rows of L values), also counts how often each
 * label is a row's argmax (strict >, lowest label first: the CLI's rank rule). Runs without the
 * GIL for large inputs. Returns 0 or -1 with an exception set. */
int vtpy_check_scores(const void *x, int f64, size_t n, const char *name, int ndim,
                      const npy_intp *shape, int32_t L, int64_t *counts);

/* Module functions (decode.c, train.c). */
PyObject *vtpy_decode(PyObject *self, PyObject *args, PyObject *kw);
PyObject *vtpy_train(PyObject *self, PyObject *args, PyObject *kw);
PyObject *vtpy_train_items(PyObject *self, PyObject *args, PyObject *kw);
/* write_items(pairs, path): a list of (xseq, yseq) pairs of common items written as a CRFsuite
 * item file; the sequences written, or None for the Python writer to do it (items.c). */
PyObject *vtpy_write_items(PyObject *self, PyObject *args);
extern const char vtpy_decode_doc[];
extern const char vtpy_train_doc[];
extern const char vtpy_train_items_doc[];

/* The Model type (model.c). */
extern PyTypeObject vtpy_ModelType;

/* Sentences held in Python (a list of rows per sentence; a row is a str or a list of str),
 * as cell pointers the library reads. */
typedef struct {
  const char **cells; /* all sentences' cells, row-major per sentence */
  int64_t n_sent;
  int64_t *at; /* first cell of each sentence */
  int32_t *T, *ncols;
  PyObject *keep; /* the str objects the cells point into, held for the call */
} vtpy_sentences;

/* Reads `seq` (a sequence of sentences; one sentence when `one`) into *s. Returns 0, or -1 with
 * an exception naming the sentence and token (a row not a str or list of str, rows of
 * different column counts). */
int vtpy_sentences_read(vtpy_sentences *s, PyObject *seq, int one);

/* Frees what vtpy_sentences_read took (not `s` itself). */
void vtpy_sentences_free(vtpy_sentences *s);

/* Wraps an opened model into a Model object (steals `m`: closed on failure). */
PyObject *vtpy_model_wrap(vt_model *m, PyObject *path);

/* Arenas for decoding on the calling thread: one cached for reuse so that a loop of small
 * calls allocates nothing. vtpy_arena_take returns the cached one or a new one (NULL: out of
 * memory); vtpy_arena_give resets it and caches it, or frees it when one is cached already.
 * Thread-safe, GIL not needed. */
vt_arena *vtpy_arena_take(void);
void vtpy_arena_give(vt_arena *a);
void vtpy_arena_free_cached(void);

/* Frees the engine decode keeps for its next call (module teardown). */
void vtpy_engine_free_cached(void);

/* Ctrl-C in an engine run (interrupt.c): give the engine vtpy_interrupt_progress as its
 * progress callback with a vtpy_interrupt as context, `e` set to the engine (NULL: do nothing).
 * A signal handler that raises during the run cancels it and keeps the exception;
 * vtpy_interrupt_raise (GIL held, after the run) sets it again and returns 1, or returns 0. */
typedef struct {
  vt_engine *e;
  PyObject *type, *value, *tb;
} vtpy_interrupt;

void vtpy_interrupt_progress(void *ctx, const vt_progress *p);
int vtpy_interrupt_raise(vtpy_interrupt *in);

#endif
