/* io/lattice_file.h: the set of .npy files `vitesse decode` reads, loaded and validated.
 *
 *   E  emissions, float32/float64, shape (n_rows, L): the sentences' rows stacked in order
 *   N  lengths, int32/int64, shape (n_sent,): sentence s is rows offset[s]..offset[s+1] of E
 *   A  transitions, float32/float64, shape (L, L), A[i, j] scores label i followed by j
 *   S  start scores, F end scores: float32/float64, shape (L,) (optional)
 *   R  rank order, int32/int64, shape (L,), a permutation of 0..L-1 (optional)
 *
 * Scores may be -inf (forbidden) but never NaN or +inf, nor of magnitude 1e295 or more (a path
 * sum of 2 T + 1 of them could overflow to inf). Every problem is reported as one line
 * "PATH: problem" naming the file and, for values, the offending element. */
#ifndef VT_IO_LATTICE_FILE_H
#define VT_IO_LATTICE_FILE_H

#include <stdint.h>

#include "io/npy.h"
#include "vitesse.h"

typedef struct vt_lattice_file {
  int32_t L;       /* labels, >= 1 */
  int64_t n_sent;  /* sentences */
  int64_t n_rows;  /* rows of E = sum of lengths */
  vt_npy E;        /* kept mapped; VT_NPY_F32 or VT_NPY_F64, shape (n_rows, L) */
  int64_t *offset; /* n_sent + 1 row offsets: sentence s is rows offset[s] .. offset[s+1] */
  double *A;       /* L*L row-major, converted to double */
  double *S, *F;   /* L each, or NULL when not given */
  int32_t *R;      /* L, or NULL when not given */
} vt_lattice_file;

/* Loads and validates a lattice set: E from `e_path`, N from `n_path`, A from `a_path`, and S, F,
 * R from `s_path`, `f_path`, `r_path` when those are not NULL. Checks: E is 2-D float with
 * L = columns >= 1 and no NaN or +inf element (the message names it as [row, col]); N is 1-D
 * int, every length >= 0 and <= INT32_MAX, and the lengths sum to the rows of E (E may have 0
 * rows); A is float of shape (L, L) without NaN/+inf; S and F are float of shape (L,) without
 * NaN/+inf; R is int of shape (L,) and a permutation of 0..L-1.
 * Returns VT_OK; VT_EIO when a file cannot be read; VT_EFORMAT for any invalid content;
 * VT_EUNSUPPORTED on a big-endian host; VT_ENOMEM. On failure *lf is zeroed (nothing to free)
 * and `err` (errlen bytes, may be 0) holds one line "PATH: problem", NUL-terminated. */
/* (a_path may be NULL: no transitions are loaded.) */
int vt_lattice_file_load(vt_lattice_file *lf, const char *e_path, const char *n_path,
                         const char *a_path, const char *s_path, const char *f_path,
                         const char *r_path, char *err, size_t errlen);

/* The transition part of vt_lattice_file_load, for a set whose E is loaded (lf->L set): A from
 * `a_path` (NULL: none), and S, F, R when not NULL, checked against L; messages name `e_path`
 * as the file that gave L. On failure the caller frees `lf`. */
int vt_lattice_file_load_trans(vt_lattice_file *lf, const char *e_path, const char *a_path,
                               const char *s_path, const char *f_path, const char *r_path,
                               char *err, size_t errlen);

/* A transition model from .npy files alone: A (`a_path`, (L, L)), and S, F, R (L,) when not
 * NULL, bound as vt_trans_create binds them. Returns VT_OK, or a failure with "PATH: problem" in
 * err. */
vt_status vt_trans_file_load(vt_trans **out, const char *a_path, const char *s_path,
                             const char *f_path, const char *r_path, char *err, size_t errlen);

/* Unmaps and frees everything and zeroes *lf. Idempotent; fine on a zeroed struct and NULL. */
void vt_lattice_file_free(vt_lattice_file *lf);

/* Returns the length T of sentence `s` (0 <= s < n_sent); it fits in int32. */
int32_t vt_lattice_file_len(const vt_lattice_file *lf, int64_t s);

/* Returns a pointer to the first emission row of sentence `s` (T*L values, row-major) inside the
 * mapping of E: `const float *` when lf->E.dtype is VT_NPY_F32 (for vt_decode_f32), `const
 * double *` when it is VT_NPY_F64 (for vt_decode). Valid until vt_lattice_file_free. */
const void *vt_lattice_file_rows(const vt_lattice_file *lf, int64_t s);

/* Copies the emissions of sentence `s` into `dst` (T*L doubles, row-major), converting float32
 * exactly. */
void vt_lattice_file_copy(const vt_lattice_file *lf, int64_t s, double *dst);

#endif
