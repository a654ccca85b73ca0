/* io/lattice_file.c: loads the E, N, A (S, F, R) .npy files of a lattice set and validates them. */
#include "io/lattice_file.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/outfile.h"

/* Scans are chunked: a branch-free pass finds whether a chunk holds a bad value, then a second
 * pass over that chunk only locates it. */
#define VT_SCAN_CHUNK 4096

static int is_float(vt_npy_dtype t) { return t == VT_NPY_F32 || t == VT_NPY_F64; }

static const char *dtype_name(vt_npy_dtype t) {
  switch (t) {
  case VT_NPY_F32: return "float32";
  case VT_NPY_F64: return "float64";
  case VT_NPY_I32: return "int32";
  case VT_NPY_I64: return "int64";
  }
  return "?";
}

/* Returns the index of the first NaN or +inf among x[0..n), or -1. (-inf is allowed.) */
static int64_t scan_f32(const float *x, int64_t n) {
  for (int64_t i0 = 0; i0 < n; i0 += VT_SCAN_CHUNK) {
    int64_t i1 = n - i0 < VT_SCAN_CHUNK ? n : i0 + VT_SCAN_CHUNK;
    int bad = 0;
    for (int64_t i = i0; i < i1; i++) bad |= !(x[i] < INFINITY);
    if (bad)
      for (int64_t i = i0; i < i1; i++)
        if (!(x[i] < INFINITY)) return i;
  }
  return -1;
}

/* The largest magnitude of a finite score: a path sums at most 2 T + 1 of them (T < 2^31), so
 * the sum stays finite (float32 scores are always below it). */
#define VT_SCORE_MAX 1e295

/* 1 when x is NaN, +inf, or finite with |x| >= VT_SCORE_MAX (-inf is allowed). */
static int bad_f64(double x) {
  return !((x < VT_SCORE_MAX && x > -VT_SCORE_MAX) || x == -INFINITY);
}

/* As scan_f32, for float64, also finding finite scores of magnitude VT_SCORE_MAX or more. */
static int64_t scan_f64(const double *x, int64_t n) {
  for (int64_t i0 = 0; i0 < n; i0 += VT_SCAN_CHUNK) {
    int64_t i1 = n - i0 < VT_SCAN_CHUNK ? n : i0 + VT_SCAN_CHUNK;
    int bad = 0;
    for (int64_t i = i0; i < i1; i++) bad |= bad_f64(x[i]);
    if (bad)
      for (int64_t i = i0; i < i1; i++)
        if (bad_f64(x[i])) return i;
  }
  return -1;
}

/* Elements scanned between two releases of the pages behind the scan (4-8 MB). */
#define VT_SCAN_RELEASE ((int64_t)1 << 20)

/* Checks a float array for NaN, +inf and too large a magnitude; names the element as [i] (1-D) or
 * [row, col] (2-D). A mapped array is scanned in slices whose pages are released behind the scan,
 * so validating a large E does not leave it all resident. */
static int check_scores(const vt_npy *x, const char *path, char *err, size_t errlen) {
  int64_t i = -1;
  for (int64_t s0 = 0; s0 < x->count && i < 0; s0 += VT_SCAN_RELEASE) {
    int64_t n = x->count - s0 < VT_SCAN_RELEASE ? x->count - s0 : VT_SCAN_RELEASE;
    i = x->dtype == VT_NPY_F32 ? scan_f32((const float *)x->data + s0, n)
                               : scan_f64((const double *)x->data + s0, n);
    if (i >= 0)
      i += s0;
    else
      vt_npy_release(x, s0, n);
  }
  if (i < 0) return VT_OK;
  double v = vt_npy_get_f(x, i);
  char what[64];
  if (isnan(v) || isinf(v))
    snprintf(what, sizeof what, "%s", isnan(v) ? "NaN" : "+inf");
  else
    snprintf(what, sizeof what, "%.17g, too large", v);
  char at[64];
  if (x->ndim == 2)
    snprintf(at, sizeof at, "[%" PRId64 ", %" PRId64 "]", i / x->shape[1], i % x->shape[1]);
  else
    snprintf(at, sizeof at, "[%" PRId64 "]", i);
  vt_errorf(err, errlen, path,
            "element %s is %s (scores must be -inf or finite of magnitude below %g, so that a "
            "path sum cannot overflow)",
            at, what, VT_SCORE_MAX);
  return VT_EFORMAT;
}

/* Opens `path` and checks its kind (float or integer) and ndim. `what` describes the expected
 * shape for the message, e.g. "(rows, labels)". */
static int open_checked(vt_npy *x, const char *path, int want_float, int want_ndim,
                        const char *what, char *err, size_t errlen) {
  char shp[64];
  int st = vt_npy_open(x, path, err, errlen);
  if (st != VT_OK) return st;
  if (is_float(x->dtype) != want_float) {
    vt_errorf(err, errlen, path, "dtype %s not allowed here: expected %s", dtype_name(x->dtype),
              want_float ? "float32 or float64 (<f4 or <f8)" : "int32 or int64 (<i4 or <i8)");
    goto fail;
  }
  if (x->ndim != want_ndim) {
    vt_errorf(err, errlen, path, "expected a %d-D array of shape %s, got shape %s", want_ndim, what,
              vt_npy_shape_str(x, shp, sizeof shp));
    goto fail;
  }
  return VT_OK;
fail:
  vt_npy_close(x);
  return VT_EFORMAT;
}

/* Loads a float vector (want_ndim 1) or matrix (2) of L or L x L scores, as doubles. */
static int load_scores(double **out, const char *path, int want_ndim, int32_t L, const char *e_path,
                       char *err, size_t errlen) {
  int st;
  vt_npy x;
  char shp[64];
  *out = NULL;
  st = open_checked(&x, path, 1, want_ndim, want_ndim == 1 ? "(labels,)" : "(labels, labels)", err,
                    errlen);
  if (st != VT_OK) return st;
  st = VT_EFORMAT;
  if (x.shape[0] != L || (want_ndim == 2 && x.shape[1] != L)) {
    if (want_ndim == 1)
      vt_errorf(err, errlen, path, "expected shape (%" PRId32 ",) (labels of %s), got %s", L,
                e_path, vt_npy_shape_str(&x, shp, sizeof shp));
    else
      vt_errorf(err, errlen, path,
                "expected shape (%" PRId32 ", %" PRId32 ") (labels of %s), got %s", L, L, e_path,
                vt_npy_shape_str(&x, shp, sizeof shp));
    goto fail;
  }
  if ((st = check_scores(&x, path, err, errlen)) != VT_OK) goto fail;
  st = VT_ENOMEM;
  *out = malloc((size_t)x.count * sizeof(double));
  if (!*out) {
    vt_errorf(err, errlen, path, "out of memory");
    goto fail;
  }
  for (int64_t i = 0; i < x.count; i++) (*out)[i] = vt_npy_get_f(&x, i);
  vt_npy_close(&x);
  return VT_OK;
fail:
  vt_npy_close(&x);
  return st;
}

static int load_lengths(vt_lattice_file *lf, const char *n_path, const char *e_path, char *err,
                        size_t errlen) {
  int st;
  vt_npy n;
  st = open_checked(&n, n_path, 0, 1, "(sentences,)", err, errlen);
  if (st != VT_OK) return st;
  st = VT_ENOMEM;
  lf->n_sent = n.shape[0];
  lf->offset = malloc(((size_t)lf->n_sent + 1) * sizeof(int64_t));
  if (!lf->offset) {
    vt_errorf(err, errlen, n_path, "out of memory");
    goto fail;
  }
  st = VT_EFORMAT;
  int64_t sum = 0;
  lf->offset[0] = 0;
  for (int64_t s = 0; s < lf->n_sent; s++) {
    int64_t len = vt_npy_get_i(&n, s);
    if (len < 0) {
      vt_errorf(err, errlen, n_path, "length [%" PRId64 "] is negative (%" PRId64 ")", s, len);
      goto fail;
    }
    if (len > INT32_MAX) {
      vt_errorf(err, errlen, n_path,
                "length [%" PRId64 "] = %" PRId64 " is too large "
                "(at most %" PRId32 ")",
                s, len, INT32_MAX);
      goto fail;
    }
    sum = sum <= INT64_MAX - len ? sum + len : INT64_MAX; /* saturates: only the message sees it */
    lf->offset[s + 1] = sum;
  }
  if (sum != lf->n_rows) {
    vt_errorf(err, errlen, n_path, "lengths sum to %" PRId64 " but %s has %" PRId64 " rows", sum,
              e_path, lf->n_rows);
    goto fail;
  }
  vt_npy_close(&n);
  return VT_OK;
fail:
  vt_npy_close(&n);
  return st;
}

static int load_rank(vt_lattice_file *lf, const char *r_path, const char *e_path, char *err,
                     size_t errlen) {
  int st;
  vt_npy r;
  char shp[64];
  int64_t *seen = NULL;
  int32_t L = lf->L;
  st = open_checked(&r, r_path, 0, 1, "(labels,)", err, errlen);
  if (st != VT_OK) return st;
  st = VT_EFORMAT;
  if (r.shape[0] != L) {
    vt_errorf(err, errlen, r_path, "expected shape (%" PRId32 ",) (labels of %s), got %s", L,
              e_path, vt_npy_shape_str(&r, shp, sizeof shp));
    goto fail;
  }
  st = VT_ENOMEM;
  lf->R = malloc((size_t)L * sizeof(int32_t));
  seen = malloc((size_t)L * sizeof(int64_t)); /* seen[label] = first index holding it, or -1 */
  if (!lf->R || !seen) {
    vt_errorf(err, errlen, r_path, "out of memory");
    goto fail;
  }
  st = VT_EFORMAT;
  for (int32_t y = 0; y < L; y++) seen[y] = -1;
  for (int32_t i = 0; i < L; i++) {
    int64_t y = vt_npy_get_i(&r, i);
    if (y < 0 || y >= L) {
      vt_errorf(err, errlen, r_path,
                "element [%" PRId32 "] = %" PRId64 " is out of range "
                "0..%" PRId32 " (not a permutation)",
                i, y, L - 1);
      goto fail;
    }
    if (seen[y] >= 0) {
      vt_errorf(err, errlen, r_path,
                "element [%" PRId32 "] = %" PRId64 " repeats element "
                "[%" PRId64 "] (not a permutation)",
                i, y, seen[y]);
      goto fail;
    }
    seen[y] = i;
    lf->R[i] = (int32_t)y;
  }
  free(seen);
  vt_npy_close(&r);
  return VT_OK;
fail:
  free(seen);
  free(lf->R);
  lf->R = NULL;
  vt_npy_close(&r);
  return st;
}

int vt_lattice_file_load(vt_lattice_file *lf, const char *e_path, const char *n_path,
                         const char *a_path, const char *s_path, const char *f_path,
                         const char *r_path, char *err, size_t errlen) {
  int st = VT_EINVAL;
  char shp[64];
  memset(lf, 0, sizeof *lf);
  if (err && errlen) err[0] = '\0';
  if (!e_path || !n_path) {
    vt_errorf(err, errlen, "vt_lattice_file_load", "emissions and lengths files are required");
    goto fail;
  }
  st = open_checked(&lf->E, e_path, 1, 2, "(rows, labels)", err, errlen);
  if (st != VT_OK) goto fail;
  st = VT_EFORMAT;
  if (lf->E.shape[1] < 1 || lf->E.shape[1] > INT32_MAX) {
    vt_errorf(err, errlen, e_path,
              "shape %s: the number of labels (columns) must be in "
              "1..%" PRId32,
              vt_npy_shape_str(&lf->E, shp, sizeof shp), INT32_MAX);
    goto fail;
  }
  lf->L = (int32_t)lf->E.shape[1];
  lf->n_rows = lf->E.shape[0];
  if ((st = load_lengths(lf, n_path, e_path, err, errlen)) != VT_OK) goto fail;
  if ((st = vt_lattice_file_load_trans(lf, e_path, a_path, s_path, f_path, r_path, err, errlen)) !=
      VT_OK)
    goto fail;
  if ((st = check_scores(&lf->E, e_path, err, errlen)) != VT_OK) goto fail;
  return VT_OK;
fail:
  vt_lattice_file_free(lf);
  return st;
}

int vt_lattice_file_load_trans(vt_lattice_file *lf, const char *e_path, const char *a_path,
                               const char *s_path, const char *f_path, const char *r_path,
                               char *err, size_t errlen) {
  int st = VT_OK;
  if (a_path && (st = load_scores(&lf->A, a_path, 2, lf->L, e_path, err, errlen)) != VT_OK)
    return st;
  if (s_path && (st = load_scores(&lf->S, s_path, 1, lf->L, e_path, err, errlen)) != VT_OK)
    return st;
  if (f_path && (st = load_scores(&lf->F, f_path, 1, lf->L, e_path, err, errlen)) != VT_OK)
    return st;
  if (r_path && (st = load_rank(lf, r_path, e_path, err, errlen)) != VT_OK) return st;
  return VT_OK;
}

void vt_lattice_file_free(vt_lattice_file *lf) {
  if (!lf) return;
  vt_npy_close(&lf->E);
  free(lf->offset);
  free(lf->A);
  free(lf->S);
  free(lf->F);
  free(lf->R);
  memset(lf, 0, sizeof *lf);
}

int32_t vt_lattice_file_len(const vt_lattice_file *lf, int64_t s) {
  return (int32_t)(lf->offset[s + 1] - lf->offset[s]);
}

const void *vt_lattice_file_rows(const vt_lattice_file *lf, int64_t s) {
  size_t at = (size_t)lf->offset[s] * (size_t)lf->L * vt_npy_itemsize(lf->E.dtype);
  return (const char *)lf->E.data + at;
}

void vt_lattice_file_copy(const vt_lattice_file *lf, int64_t s, double *dst) {
  size_t n = (size_t)vt_lattice_file_len(lf, s) * (size_t)lf->L;
  const void *src = vt_lattice_file_rows(lf, s);
  if (lf->E.dtype == VT_NPY_F64) {
    if (n) memcpy(dst, src, n * sizeof(double));
  } else {
    const float *f = src;
    for (size_t i = 0; i < n; i++) dst[i] = f[i];
  }
}

vt_status vt_trans_file_load(vt_trans **out, const char *a_path, const char *s_path,
                             const char *f_path, const char *r_path, char *err, size_t errlen) {
  vt_lattice_file tf;
  vt_npy a;
  memset(&tf, 0, sizeof tf);
  *out = NULL;
  vt_status st = (vt_status)vt_npy_open(&a, a_path, err, errlen);
  if (st != VT_OK) return st;
  tf.L = a.ndim >= 1 && a.shape[0] >= 1 && a.shape[0] <= INT32_MAX ? (int32_t)a.shape[0] : 1;
  vt_npy_close(&a);
  st = (vt_status)vt_lattice_file_load_trans(&tf, a_path, a_path, s_path, f_path, r_path, err,
                                             errlen);
  if (st == VT_OK && (st = vt_trans_create(out, tf.L, tf.A, tf.S, tf.F, tf.R)) != VT_OK)
    vt_errorf(err, errlen, a_path, "%s", vt_strerror(st));
  vt_lattice_file_free(&tf);
  return st;
}
