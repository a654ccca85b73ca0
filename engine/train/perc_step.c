/* engine/train/perc_step.c: the perceptron's per-sentence steps (see perc_step.h).
 *
 * Per sentence: emissions from the current weights (sparse rows added into a T x L buffer),
 * exact decoding with the chosen decoder, and, when the prediction differs from the gold path,
 * the update +1 on the gold features and -1 on the predicted ones. The bound transition model
 * is changed in place for just the cells the update touched (vt_trans_update), so decoding
 * always sees the current weights at O(T) cost instead of a new O(L^2) binding. */
#define _POSIX_C_SOURCE 200809L
#include "train/perc_step.h"

#include <stdlib.h>

#include "core/clock.h"
#include "text/strhash.h"

vt_status vt_train_obs_deltas(const vt_weights *W, const vt_wover *D, const int32_t *bfeat,
                              int32_t n_b, int32_t T, int avg, vt_arena *arena,
                              vt_obs_lattice *lat) {
  int64_t *doff = VT_ARENA_NEW(arena, int64_t, (size_t)T + 1);
  if (!doff) return VT_ENOMEM;
  int64_t n = 0;
  doff[0] = 0;
  for (int32_t t = 0; t < T; t++) {
    if (t > 0)
      for (int32_t k = 0; k < n_b; k++) {
        int32_t f = bfeat[(size_t)t * n_b + k];
        if (f >= 0) n += W->v[f].n + (D && D->slot[f] >= 0 ? D->d[D->slot[f]].n : 0);
      }
    doff[t + 1] = n;
  }
  int32_t *key = VT_ARENA_NEW(arena, int32_t, (size_t)n + 1);
  double *val = VT_ARENA_NEW(arena, double, (size_t)n + 1);
  if (!key || !val) return VT_ENOMEM;
  int64_t d = 0;
  for (int32_t t = 1; t < T; t++)
    for (int32_t k = 0; k < n_b; k++) {
      int32_t f = bfeat[(size_t)t * n_b + k];
      if (f < 0) continue;
      const vt_wvec *v = &W->v[f];
      for (int32_t i = 0; i < v->n; i++, d++) {
        key[d] = vt_wvec_key(v, i);
        val[d] = avg ? vt_weights_avg(W, vt_wvec_w(v, i), v->u[i]) : vt_wvec_w(v, i);
      }
      if (!D || D->slot[f] < 0) continue;
      /* vt_obs_decode sums entries with the same key: D's deltas add to W's weights */
      const vt_wvec *dv = &D->d[D->slot[f]];
      for (int32_t i = 0; i < dv->n; i++, d++) {
        key[d] = vt_wvec_key(dv, i);
        val[d] = vt_wvec_w(dv, i);
      }
    }
  lat->doff = doff;
  lat->dkey = key;
  lat->dval = val;
  return VT_OK;
}

void vt_train_shuffle(int64_t *order, int64_t n, uint64_t *rng) {
  /* Fisher-Yates with a splitmix64 stream: the same seed gives the same orders. */
  for (int64_t i = n - 1; i > 0; i--) {
    *rng += 0x9E3779B97F4A7C15ull;
    int64_t j = (int64_t)(vt_mix64(*rng) % (uint64_t)(i + 1));
    int64_t tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
}

vt_status vt_train_update(vt_weights *W, const vt_tcorpus *c, int64_t t0, int32_t T,
                          const int32_t *p, int32_t *cprev, int32_t *ccur, double *cval,
                          int32_t *n_cells, int *se_changed) {
  const int32_t L = W->L, *y = c->gold + t0;
  const double cnt = W->c;
  int32_t nc = 0;
  for (int32_t t = 0; t < T; t++) {
    if (y[t] == p[t]) continue;
    const int32_t *fs = c->ufeat + (t0 + t) * c->n_u;
    for (int32_t k = 0; k < c->n_u; k++) {
      if (fs[k] < 0) continue;
      if (vt_weights_add(W, fs[k], y[t], 1.0) != VT_OK) return VT_ENOMEM;
      if (vt_weights_add(W, fs[k], p[t], -1.0) != VT_OK) return VT_ENOMEM;
    }
  }
  for (int32_t t = 1; t < T; t++) {
    if (y[t - 1] == p[t - 1] && y[t] == p[t]) continue;
    size_t g = (size_t)y[t - 1] * L + (size_t)y[t], q = (size_t)p[t - 1] * L + (size_t)p[t];
    W->A[g] += 1.0;
    W->Au[g] += cnt;
    W->A[q] -= 1.0;
    W->Au[q] -= cnt;
    cprev[nc] = y[t - 1];
    ccur[nc] = y[t];
    cprev[nc + 1] = p[t - 1];
    ccur[nc + 1] = p[t];
    nc += 2;
    const int32_t *bf = c->bfeat + (t0 + t) * c->n_b;
    for (int32_t k = 0; k < c->n_b; k++) {
      if (bf[k] < 0) continue;
      if (vt_weights_add(W, bf[k], (int32_t)g, 1.0) != VT_OK) return VT_ENOMEM;
      if (vt_weights_add(W, bf[k], (int32_t)q, -1.0) != VT_OK) return VT_ENOMEM;
    }
  }
  for (int32_t i = 0; i < nc; i++) cval[i] = W->A[(size_t)cprev[i] * L + (size_t)ccur[i]];
  *se_changed = 0;
  if (y[0] != p[0]) {
    W->S[y[0]] += 1.0;
    W->Su[y[0]] += cnt;
    W->S[p[0]] -= 1.0;
    W->Su[p[0]] -= cnt;
    *se_changed = 1;
  }
  if (y[T - 1] != p[T - 1]) {
    W->F[y[T - 1]] += 1.0;
    W->Fu[y[T - 1]] += cnt;
    W->F[p[T - 1]] -= 1.0;
    W->Fu[p[T - 1]] -= cnt;
    *se_changed = 1;
  }
  *n_cells = nc;
  return VT_OK;
}

vt_status vt_train_scratch_alloc(vt_train_scratch *x, size_t maxT) {
  x->cprev = malloc(2 * maxT * sizeof *x->cprev);
  x->ccur = malloc(2 * maxT * sizeof *x->ccur);
  x->cval = malloc(2 * maxT * sizeof *x->cval);
  return x->cprev && x->ccur && x->cval ? VT_OK : VT_ENOMEM;
}

void vt_train_scratch_free(vt_train_scratch *x) {
  free(x->cprev);
  free(x->ccur);
  free(x->cval);
  x->cprev = x->ccur = NULL;
  x->cval = NULL;
}

vt_status vt_train_predict(const vt_weights *W, const vt_tcorpus *c, const vt_trans *tr,
                           const vt_decode_opts *opts, int64_t s, vt_arena *arena, double *E,
                           int32_t *pred, vt_decode_stats *stats, double *decode_seconds) {
  const int64_t t0 = c->sent_off[s];
  vt_weights_emit(W, c->ufeat + t0 * c->n_u, c->n_u, (int32_t)(c->sent_off[s + 1] - t0), E, 0);
  return vt_train_predict_from(W, c, tr, opts, s, arena, E, pred, stats, decode_seconds);
}

vt_status vt_train_predict_from(const vt_weights *W, const vt_tcorpus *c, const vt_trans *tr,
                                const vt_decode_opts *opts, int64_t s, vt_arena *arena,
                                const double *E, int32_t *pred, vt_decode_stats *stats,
                                double *decode_seconds) {
  const int64_t t0 = c->sent_off[s];
  const int32_t T = (int32_t)(c->sent_off[s + 1] - t0), L = W->L;
  double score, d0 = vt_clock_seconds();
  int32_t np;
  vt_status st;
  if (!tr) {
    vt_obs_lattice lat = {L, T, W->A, W->S, W->F, E, NULL, NULL, NULL, NULL};
    st = vt_train_obs_deltas(W, NULL, c->bfeat + t0 * c->n_b, c->n_b, T, 0, arena, &lat);
    if (st == VT_OK) st = vt_obs_decode(&lat, opts, arena, pred, &score, &np, stats);
  } else {
    st = vt_decode(tr, opts, arena, E, T, pred, &score, &np, stats);
  }
  *decode_seconds += vt_clock_seconds() - d0;
  vt_arena_reset(arena);
  return st;
}

vt_status vt_train_learn(vt_weights *W, vt_trans *tr, const vt_tcorpus *c, int64_t s,
                         const int32_t *pred, vt_train_scratch *x, int64_t *tok_err,
                         int64_t *sent_err) {
  const int64_t t0 = c->sent_off[s];
  const int32_t T = (int32_t)(c->sent_off[s + 1] - t0);
  vt_status st = VT_OK;
  int32_t wrong = 0;
  for (int32_t t = 0; t < T; t++) wrong += pred[t] != c->gold[t0 + t];
  if (wrong) {
    int32_t nc;
    int se;
    *tok_err += wrong;
    (*sent_err)++;
    st = vt_train_update(W, c, t0, T, pred, x->cprev, x->ccur, x->cval, &nc, &se);
    if (st == VT_OK && tr)
      st = vt_trans_update(tr, nc, x->cprev, x->ccur, x->cval, se ? W->S : NULL, se ? W->F : NULL);
  }
  W->c += 1;
  return st;
}
