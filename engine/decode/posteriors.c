/* engine/decode/posteriors.c: forward-backward in log space (vt_posteriors): the log partition
 * function and every token's label marginals under the decoders' score model. Only the labels a
 * column can reach (a finite forward score) are summed over, so a constrained column (labels at
 * -inf) costs its allowed labels times L, not L^2. Sentences of VT_POST_FAST_MIN_T tokens or more
 * take the exp-space steps of posteriors_fast.c (a multiply-add per cell instead of an exp, log
 * space where a sum could underflow); shorter ones the two-pass log-sum-exp kernels (lse.h). */
#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "decode/posteriors.h"
#include "decode/posteriors_fast.h"

vt_status vt_posteriors(const vt_trans *trans, vt_arena *arena, const double *E, int32_t T,
                        double *marg, double *logz) {
  if (T < 0 || !logz) return VT_EINVAL;
  const int32_t L = trans->L, ld = trans->ld;
  *logz = T == 0 ? 0.0 : -INFINITY;
  if (T == 0) return VT_OK;
  const size_t n = (size_t)T * (size_t)ld;
  double *al = VT_ARENA_NEW(arena, double, n);
  double *be = VT_ARENA_NEW(arena, double, n);
  double *tmp = VT_ARENA_NEW(arena, double, (size_t)ld);
  double *s2 = VT_ARENA_NEW(arena, double, (size_t)ld);
  int32_t *rows = VT_ARENA_NEW(arena, int32_t, (size_t)L);
  if (!al || !be || !tmp || !s2 || !rows) return VT_ENOMEM;
  const vt_lse_ops *k = vt_lse_active();
  /* long sentences: exp-space steps over per-sentence tables (posteriors_fast.c) */
  vt_post_tables_t pt;
  /* ... unless constraints leave few labels: the log-space steps skip the -inf rows, while the
   * tables cost 2 L^2 exps whatever E holds */
  int64_t finite = 0;
  for (size_t i = 0; i < (size_t)T * (size_t)L; i++) finite += E[i] > -INFINITY;
  const int fast = T >= VT_POST_FAST_MIN_T && finite * 8 >= (int64_t)T * L;
  if (fast && vt_post_tables(trans, arena, k, &pt) != VT_OK) return VT_ENOMEM;

  /* forward: al[t][j] = log sum over prefixes ending in j at t */
  for (int32_t j = 0; j < ld; j++) al[j] = j < L ? trans->S[j] + E[j] : -INFINITY;
  for (int32_t t = 1; t < T; t++) {
    const double *prev = al + (size_t)(t - 1) * ld;
    double *cur = al + (size_t)t * ld;
    int32_t nr = 0;
    for (int32_t i = 0; i < L; i++)
      if (prev[i] > -INFINITY) rows[nr++] = i;
    if (fast)
      vt_post_fwd(trans, &pt, k, prev, rows, nr, cur, tmp);
    else
      k->fwd(prev, rows, nr, trans->A, ld, L, cur, tmp);
    const double *e = E + (size_t)t * L;
    for (int32_t j = 0; j < L; j++) cur[j] += e[j];
    for (int32_t j = L; j < ld; j++) cur[j] = -INFINITY;
  }
  const double *last = al + (size_t)(T - 1) * ld;
  for (int32_t j = 0; j < L; j++) tmp[j] = last[j] + trans->F[j];
  const double z = vt_lse_vec(tmp, L);
  *logz = z;
  if (!marg) return VT_OK;
  if (z == -INFINITY) { /* no path: no distribution; every marginal is 0 */
    memset(marg, 0, (size_t)T * (size_t)L * sizeof *marg);
    return VT_OK;
  }

  /* backward, only at labels the forward pass reaches (the others' marginals are 0) */
  double *b = be + (size_t)(T - 1) * ld;
  for (int32_t j = 0; j < ld; j++) b[j] = j < L ? trans->F[j] : -INFINITY;
  for (int32_t t = T - 2; t >= 0; t--) {
    const double *nb = be + (size_t)(t + 1) * ld, *e = E + (size_t)(t + 1) * L;
    const double *a = al + (size_t)t * ld;
    double *cur = be + (size_t)t * ld;
    for (int32_t j = 0; j < L; j++) tmp[j] = e[j] + nb[j];
    for (int32_t j = L; j < ld; j++) tmp[j] = -INFINITY;
    int32_t nr = 0;
    for (int32_t i = 0; i < L; i++) {
      cur[i] = -INFINITY;
      if (a[i] > -INFINITY) rows[nr++] = i;
    }
    if (fast)
      vt_post_bwd(trans, &pt, k, tmp, rows, nr, cur, s2);
    else
      k->bwd(trans->A, ld, rows, nr, tmp, L, cur);
  }
  for (int32_t t = 0; t < T; t++) {
    const double *a = al + (size_t)t * ld, *bb = be + (size_t)t * ld;
    double *m = marg + (size_t)t * L;
    for (int32_t j = 0; j < L; j++) {
      double x = a[j] + bb[j];
      double p = x > -INFINITY ? exp(x - z) : 0.0;
      m[j] = p > 1.0 ? 1.0 : p; /* rounding may pass 1 by an ulp or so */
    }
  }
  return VT_OK;
}

vt_status vt_posteriors_f32(const vt_trans *trans, vt_arena *arena, const float *E, int32_t T,
                            double *marg, double *logz) {
  if (T < 0 || !logz) return VT_EINVAL;
  size_t n = (size_t)T * (size_t)trans->L;
  double *Ed = VT_ARENA_NEW(arena, double, n + 1);
  if (!Ed) return VT_ENOMEM;
  for (size_t i = 0; i < n; i++) Ed[i] = E[i];
  return vt_posteriors(trans, arena, Ed, T, marg, logz);
}
