/* engine/train/crf_sparse.c: transitions as a constant plus a sparse part (crf_sparse.h). */
#include "train/crf_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int vt_crf_sparse_fits(const vt_crf_feats *f) {
  return f->n_trans * 4 <= (int64_t)f->L * (int64_t)f->L;
}

void vt_crf_sparse_free(vt_crf_sparse *sp) {
  free(sp->from);
  free(sp->to);
  free(sp->id);
  free(sp->s);
  free(sp->m);
  memset(sp, 0, sizeof *sp);
}

vt_status vt_crf_sparse_init(vt_crf_sparse *sp, const vt_crf_feats *f) {
  memset(sp, 0, sizeof *sp);
  const int64_t n = f->n_trans ? f->n_trans : 1;
  sp->L = f->L;
  sp->from = malloc((size_t)n * sizeof *sp->from);
  sp->to = malloc((size_t)n * sizeof *sp->to);
  sp->id = malloc((size_t)n * sizeof *sp->id);
  sp->s = malloc((size_t)n * sizeof *sp->s);
  sp->m = malloc((size_t)n * sizeof *sp->m);
  if (!sp->from || !sp->to || !sp->id || !sp->s || !sp->m) {
    vt_crf_sparse_free(sp);
    return VT_ENOMEM;
  }
  for (int32_t i = 0; i < f->L; i++)
    for (int32_t j = 0; j < f->L; j++) {
      int32_t k = f->tr_id[(size_t)i * (size_t)f->L + (size_t)j];
      if (k < 0) continue;
      sp->from[sp->nnz] = i;
      sp->to[sp->nnz] = j;
      sp->id[sp->nnz++] = k;
    }
  return VT_OK;
}

void vt_crf_sparse_set(vt_crf_sparse *sp, const double *w, double ws, double *mA) {
  double m = sp->nnz < (int64_t)sp->L * sp->L ? 0.0 : -INFINITY;
  for (int64_t e = 0; e < sp->nnz; e++)
    if (w[sp->id[e]] * ws > m) m = w[sp->id[e]] * ws;
  sp->c = exp(-m);
  for (int64_t e = 0; e < sp->nnz; e++) {
    sp->m[e] = exp(w[sp->id[e]] * ws - m);
    sp->s[e] = sp->m[e] - sp->c;
  }
  *mA = m;
}

void vt_crf_sparse_fwd(const vt_crf_sparse *sp, const double *aT, int32_t n, double *oT) {
  const size_t ns = (size_t)n;
  for (size_t i = 0; i < (size_t)sp->L * ns; i++) oT[i] = sp->c;
  for (int64_t e = 0; e < sp->nnz; e++) {
    const double s = sp->s[e];
    const double *a = aT + (size_t)sp->from[e] * ns;
    double *o = oT + (size_t)sp->to[e] * ns;
    for (size_t k = 0; k < ns; k++) o[k] += s * a[k];
  }
}

void vt_crf_sparse_bwd(const vt_crf_sparse *sp, const double *yT, const double *ysum,
                       const double *aT, int32_t n, double *oT, double *G) {
  const size_t ns = (size_t)n;
  for (int32_t i = 0; i < sp->L; i++)
    for (size_t k = 0; k < ns; k++) oT[(size_t)i * ns + k] = sp->c * ysum[k];
  for (int64_t e = 0; e < sp->nnz; e++) {
    const double s = sp->s[e];
    const double *y = yT + (size_t)sp->to[e] * ns, *a = aT + (size_t)sp->from[e] * ns;
    double *o = oT + (size_t)sp->from[e] * ns;
    double acc = 0;
    for (size_t k = 0; k < ns; k++) {
      o[k] += s * y[k];
      acc += a[k] * y[k];
    }
    G[e] += acc;
  }
}

void vt_crf_transpose(const double *in, int32_t n, int32_t L, double *out) {
  const size_t ns = (size_t)n, Ls = (size_t)L;
  /* In tiles of 8 x 8, so that both sides stay in a few cache lines. */
  for (size_t k0 = 0; k0 < ns; k0 += 8)
    for (size_t y0 = 0; y0 < Ls; y0 += 8) {
      const size_t k1 = k0 + 8 < ns ? k0 + 8 : ns, y1 = y0 + 8 < Ls ? y0 + 8 : Ls;
      for (size_t y = y0; y < y1; y++)
        for (size_t k = k0; k < k1; k++) out[y * ns + k] = in[k * Ls + y];
    }
}
