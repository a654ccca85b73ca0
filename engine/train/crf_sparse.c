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
