/* engine/core/trans.c: binds a transition model once, into padded row-major and transposed layouts.
 */
#include "core/bounds.h"
#include "core/trans_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int score_ok(double v) { return !isnan(v) && v != INFINITY; }

vt_status vt_trans_create(vt_trans **out, int32_t L, const double *A, const double *S,
                          const double *F, const int32_t *rank) {
  vt_status st = VT_ENOMEM;
  vt_trans *tr = NULL;
  *out = NULL;
  if (L < 1 || !A) return VT_EINVAL;
  if ((int64_t)L * L > ((int64_t)1 << 31)) return VT_EINVAL;
  tr = calloc(1, sizeof *tr);
  if (!tr) goto fail;
  tr->L = L;
  tr->ld = vt_pad_up(L);
  size_t mat = (size_t)L * (size_t)tr->ld * sizeof(double);
  tr->A = aligned_alloc(64, mat);
  tr->S = calloc((size_t)L, sizeof(double));
  tr->F = calloc((size_t)L, sizeof(double));
  tr->rank = malloc((size_t)L * sizeof(int32_t));
  tr->rank_of = malloc((size_t)L * sizeof(int32_t));
  if (!tr->A || !tr->S || !tr->F || !tr->rank || !tr->rank_of) goto fail;

  st = VT_EFORMAT;
  for (int32_t i = 0; i < L; i++) {
    for (int32_t j = 0; j < tr->ld; j++) {
      double v = j < L ? A[(size_t)i * L + j] : -INFINITY;
      if (!score_ok(v)) goto fail;
      tr->A[(size_t)i * tr->ld + j] = v;
    }
  }
  for (int32_t y = 0; y < L; y++) {
    if (S) tr->S[y] = S[y];
    if (F) tr->F[y] = F[y];
    if (!score_ok(tr->S[y]) || !score_ok(tr->F[y])) goto fail;
  }

  st = VT_EINVAL;
  for (int32_t y = 0; y < L; y++) tr->rank_of[y] = -1;
  for (int32_t r = 0; r < L; r++) {
    int32_t y = rank ? rank[r] : r;
    if (y < 0 || y >= L || tr->rank_of[y] != -1) goto fail;
    tr->rank[r] = y;
    tr->rank_of[y] = r;
  }
  st = vt_bounds_build(tr);
  if (st != VT_OK) goto fail;
  *out = tr;
  return VT_OK;
fail:
  vt_trans_destroy(tr);
  return st;
}

void vt_trans_destroy(vt_trans *trans) {
  if (!trans) return;
  vt_bounds_free(trans);
  free(trans->A);
  free(trans->S);
  free(trans->F);
  free(trans->rank);
  free(trans->rank_of);
  free(trans);
}

int32_t vt_trans_labels(const vt_trans *trans) { return trans->L; }

double vt_path_score(const vt_trans *trans, const double *E, int32_t T, const int32_t *labels) {
  if (T <= 0) return 0.0;
  const int32_t L = trans->L;
  double s = trans->S[labels[0]] + E[labels[0]];
  for (int32_t t = 1; t < T; t++) {
    s = s + trans->A[(size_t)labels[t - 1] * trans->ld + labels[t]];
    s = s + E[(size_t)t * L + labels[t]];
  }
  return s + trans->F[labels[T - 1]];
}
