/* engine/train/train_ipm.c: the averaged perceptron on several cores by iterative parameter mixing
 * (McDonald, Hall & Mann 2010; see vt_train_run_ipm in train.h).
 *
 * Threads share nothing they write: during an epoch a shard reads the mixed weights W (never
 * written then) and writes only its own deltas, transitions, decoder and buffers; the mix that
 * follows runs in parallel over features (each thread owns whole feature vectors, transition
 * cells) and adds the shards in shard order. So the weights, and the model, are the same bits
 * for any thread count and schedule.
 *
 * A shard decodes with its current weights without a second pass over its deltas: the first
 * update of a feature copies the feature's mixed vector into the shard (vt_wover), and emissions
 * take a feature's vector from the shard when it owns one, else from W. Memory per shard: the
 * deltas and copies of the features it updated in the epoch, L x L transitions (current, deltas
 * and their accumulators: 3 L^2 doubles) and its bound transition model, and 4 bytes a feature
 * (its slot). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "core/omp_tsan.h"
#include "train/perc_step.h"
#include "train/train_eval.h"
#include "train/train_ipm.h"

/* One shard's state; everything here is written by the thread running the shard only. */
typedef struct shard {
  vt_wover own;     /* the features it updated this epoch: deltas and current weights */
  double c;         /* example number of the sentence being trained */
  double *dA, *dAu; /* this epoch's transition deltas and their accumulators (L x L) */
  double *dS, *dSu, *dF, *dFu;
  double *A, *S, *F; /* current transitions: the mixed ones plus the deltas */
  vt_trans *tr;      /* bound to A, S, F (NULL for observation-dependent bigram models) */
  vt_arena *arena;
  double *E, *cval;
  int32_t *pred, *cprev, *ccur;
  vt_decode_stats stats;
  double decode_seconds;
  int64_t tok_err, sent_err;
  vt_status st;
} shard;

static void shard_free(shard *h) {
  vt_wover_free(&h->own);
  double *arrays[] = {h->dA, h->dAu, h->dS, h->dSu, h->dF, h->dFu, h->A, h->S, h->F, h->E, h->cval};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  vt_trans_destroy(h->tr);
  vt_arena_destroy(h->arena);
  free(h->pred);
  free(h->cprev);
  free(h->ccur);
  memset(h, 0, sizeof *h);
}

static vt_status shard_alloc(shard *h, const vt_weights *W, size_t maxT) {
  const size_t L = (size_t)W->L;
  memset(h, 0, sizeof *h);
  if (vt_wover_init(&h->own, W->n_feat) != VT_OK) return VT_ENOMEM;
  h->dA = malloc(L * L * sizeof *h->dA);
  h->dAu = malloc(L * L * sizeof *h->dAu);
  h->dS = malloc(L * sizeof *h->dS);
  h->dSu = malloc(L * sizeof *h->dSu);
  h->dF = malloc(L * sizeof *h->dF);
  h->dFu = malloc(L * sizeof *h->dFu);
  h->A = malloc(L * L * sizeof *h->A);
  h->S = malloc(L * sizeof *h->S);
  h->F = malloc(L * sizeof *h->F);
  h->E = malloc(maxT * L * sizeof *h->E);
  h->pred = malloc(maxT * sizeof *h->pred);
  h->cprev = malloc(2 * maxT * sizeof *h->cprev);
  h->ccur = malloc(2 * maxT * sizeof *h->ccur);
  h->cval = malloc(2 * maxT * sizeof *h->cval);
  if (!h->dA || !h->dAu || !h->dS || !h->dSu || !h->dF || !h->dFu || !h->A || !h->S || !h->F ||
      !h->E || !h->pred || !h->cprev || !h->ccur || !h->cval ||
      vt_arena_create(&h->arena, 0) != VT_OK)
    return VT_ENOMEM;
  return VT_OK;
}

/* Forgets the last epoch's deltas and private copies. */
static void shard_clear(shard *h, int32_t L) {
  const size_t l = (size_t)L;
  vt_wover_clear(&h->own);
  memset(h->dA, 0, l * l * sizeof *h->dA);
  memset(h->dAu, 0, l * l * sizeof *h->dAu);
  memset(h->dS, 0, l * sizeof *h->dS);
  memset(h->dSu, 0, l * sizeof *h->dSu);
  memset(h->dF, 0, l * sizeof *h->dF);
  memset(h->dFu, 0, l * sizeof *h->dFu);
}

/* The perceptron update of one sentence (gold y, prediction p) into the shard's deltas, at
 * example number h->c (features first updated are copied from the mixed weights W); the shard's
 * current transitions follow, and the changed cells' new values go to cprev/ccur/cval for
 * vt_trans_update. *se_changed: S or F changed. */
static vt_status shard_update(shard *h, const vt_weights *W, const vt_tcorpus *c, int64_t t0,
                              int32_t T, int32_t *n_cells, int *se_changed) {
  const int32_t L = W->L, *y = c->gold + t0, *p = h->pred;
  const double cnt = h->c;
  int32_t nc = 0;
  for (int32_t t = 0; t < T; t++) {
    if (y[t] == p[t]) continue;
    const int32_t *fs = c->ufeat + (t0 + t) * c->n_u;
    for (int32_t k = 0; k < c->n_u; k++) {
      if (fs[k] < 0) continue;
      if (vt_wover_add(&h->own, W, fs[k], y[t], 1.0, cnt) != VT_OK) return VT_ENOMEM;
      if (vt_wover_add(&h->own, W, fs[k], p[t], -1.0, cnt) != VT_OK) return VT_ENOMEM;
    }
  }
  for (int32_t t = 1; t < T; t++) {
    if (y[t - 1] == p[t - 1] && y[t] == p[t]) continue;
    size_t g = (size_t)y[t - 1] * L + (size_t)y[t], q = (size_t)p[t - 1] * L + (size_t)p[t];
    h->dA[g] += 1.0;
    h->dAu[g] += cnt;
    h->dA[q] -= 1.0;
    h->dAu[q] -= cnt;
    h->A[g] += 1.0;
    h->A[q] -= 1.0;
    h->cprev[nc] = y[t - 1];
    h->ccur[nc] = y[t];
    h->cprev[nc + 1] = p[t - 1];
    h->ccur[nc + 1] = p[t];
    nc += 2;
    const int32_t *bf = c->bfeat + (t0 + t) * c->n_b;
    for (int32_t k = 0; k < c->n_b; k++) {
      if (bf[k] < 0) continue;
      if (vt_wover_add(&h->own, W, bf[k], (int32_t)g, 1.0, cnt) != VT_OK) return VT_ENOMEM;
      if (vt_wover_add(&h->own, W, bf[k], (int32_t)q, -1.0, cnt) != VT_OK) return VT_ENOMEM;
    }
  }
  for (int32_t i = 0; i < nc; i++) h->cval[i] = h->A[(size_t)h->cprev[i] * L + (size_t)h->ccur[i]];
  *se_changed = 0;
  if (y[0] != p[0]) {
    h->dS[y[0]] += 1.0, h->dSu[y[0]] += cnt, h->S[y[0]] += 1.0;
    h->dS[p[0]] -= 1.0, h->dSu[p[0]] -= cnt, h->S[p[0]] -= 1.0;
    *se_changed = 1;
  }
  if (y[T - 1] != p[T - 1]) {
    h->dF[y[T - 1]] += 1.0, h->dFu[y[T - 1]] += cnt, h->F[y[T - 1]] += 1.0;
    h->dF[p[T - 1]] -= 1.0, h->dFu[p[T - 1]] -= cnt, h->F[p[T - 1]] -= 1.0;
    *se_changed = 1;
  }
  *n_cells = nc;
  return VT_OK;
}

/* What every shard of an epoch shares (read-only, but for the progress counter). */
typedef struct epoch_ctx {
  const vt_weights *W;
  const vt_tcorpus *train;
  const int64_t *order;
  const int32_t *rank;
  int obs_bigram;
  const vt_perc_opts *o;
  vt_decode_opts dopts;
  int32_t shards, epoch;
  int64_t done; /* sentences done by all shards (omp atomic) */
} epoch_ctx;

/* Shard s's epoch: sentences order[s], order[s + shards], ... from the mixed weights x->W. */
static vt_status shard_epoch(shard *h, epoch_ctx *x, int32_t s) {
  const vt_weights *W = x->W;
  const vt_tcorpus *tc = x->train;
  const int32_t L = W->L;
  const size_t LL = (size_t)L * (size_t)L;
  vt_status st;
  shard_clear(h, L);
  memcpy(h->A, W->A, LL * sizeof *h->A);
  memcpy(h->S, W->S, (size_t)L * sizeof *h->S);
  memcpy(h->F, W->F, (size_t)L * sizeof *h->F);
  vt_trans_destroy(h->tr);
  h->tr = NULL;
  if (!x->obs_bigram && (st = vt_trans_create(&h->tr, L, h->A, h->S, h->F, x->rank)) != VT_OK)
    return st;
  const int64_t n = tc->n_sent, tick = n / 100 + 1;
  const double c0 = W->c;
  int64_t next = 0;
  for (int64_t i = 0, j = s; j < n; i++, j += x->shards) {
    const int64_t sid = x->order[j], t0 = tc->sent_off[sid];
    const int32_t T = (int32_t)(tc->sent_off[sid + 1] - t0);
    h->c = c0 + (double)i;
    vt_weights_emit_over(W, &h->own, tc->ufeat + t0 * tc->n_u, tc->n_u, T, h->E);
    double score, d0 = vt_clock_seconds();
    int32_t np;
    if (x->obs_bigram) {
      vt_obs_lattice lat = {L, T, h->A, h->S, h->F, h->E, NULL, NULL, NULL};
      st = vt_train_obs_deltas(W, &h->own, tc->bfeat + t0 * tc->n_b, tc->n_b, T, 0, h->arena, &lat);
      if (st == VT_OK)
        st = vt_obs_decode(&lat, &x->dopts, h->arena, h->pred, &score, &np, &h->stats);
    } else {
      st = vt_decode(h->tr, &x->dopts, h->arena, h->E, T, h->pred, &score, &np, &h->stats);
    }
    h->decode_seconds += vt_clock_seconds() - d0;
    vt_arena_reset(h->arena);
    if (st != VT_OK) return st;
    int32_t wrong = 0;
    for (int32_t t = 0; t < T; t++) wrong += h->pred[t] != tc->gold[t0 + t];
    if (wrong) {
      int32_t nc;
      int se;
      h->tok_err += wrong;
      h->sent_err++;
      if ((st = shard_update(h, W, tc, t0, T, &nc, &se)) != VT_OK) return st;
      if (h->tr && (st = vt_trans_update(h->tr, nc, h->cprev, h->ccur, h->cval, se ? h->S : NULL,
                                         se ? h->F : NULL)) != VT_OK)
        return st;
    }
    int64_t done;
#pragma omp atomic capture
    done = ++x->done;
    /* callbacks run on the calling thread only (OpenMP's thread 0 is the caller) */
    if (x->o->progress && omp_get_thread_num() == 0 && done >= next) {
      x->o->progress(x->o->ctx, x->epoch, x->o->epochs, done, n);
      next = done + tick;
    }
  }
  return VT_OK;
}

/* W += the mean of the shards' deltas, shard by shard in order for every weight. Parallel over
 * features and cells: each thread writes whole feature vectors and cells of its own. */
static vt_status mix(vt_weights *W, shard *sh, int32_t ns, int nthreads) {
  const double k = (double)ns;
  const int64_t nf = W->n_feat, LL = (int64_t)W->L * W->L;
  int bad = 0;
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
#pragma omp for schedule(dynamic, 4096)
    for (int64_t f = 0; f < nf; f++)
      for (int32_t s = 0; s < ns; s++) {
        const int32_t slot = sh[s].own.slot[f];
        if (slot < 0) continue;
        const vt_wvec *v = &sh[s].own.d[slot];
        for (int32_t i = 0; i < v->n; i++) {
          double w = vt_wvec_w(v, i), u = v->u[i];
          if (w == 0 && u == 0) continue; /* a dense delta's untouched labels */
          if (vt_weights_add_wu(W, (int32_t)f, vt_wvec_key(v, i), w / k, u / k) != VT_OK) {
#pragma omp atomic write
            bad = 1;
          }
        }
      }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < LL; i++)
      for (int32_t s = 0; s < ns; s++) {
        W->A[i] += sh[s].dA[i] / k;
        W->Au[i] += sh[s].dAu[i] / k;
      }
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  for (int32_t y = 0; y < W->L; y++)
    for (int32_t s = 0; s < ns; s++) {
      W->S[y] += sh[s].dS[y] / k;
      W->Su[y] += sh[s].dSu[y] / k;
      W->F[y] += sh[s].dF[y] / k;
      W->Fu[y] += sh[s].dFu[y] / k;
    }
  return bad ? VT_ENOMEM : VT_OK;
}

vt_status vt_train_run_ipm(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                           const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                           vt_perc_report *rep, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  const int32_t ns = o->shards;
  int nthreads = o->threads > 0 ? o->threads : omp_get_max_threads();
  if (nthreads > ns) nthreads = ns;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  shard *sh = calloc((size_t)ns, sizeof *sh);
  int64_t *order = malloc(((size_t)train->n_sent + 1) * sizeof *order);
  if (!sh || !order) goto fail;
  const size_t maxT = (size_t)(train->max_T > 0 ? train->max_T : 1);
  for (int32_t s = 0; s < ns; s++)
    if (shard_alloc(&sh[s], W, maxT) != VT_OK) goto fail;
  epoch_ctx x = {W, train, order, rank, obs_bigram, o, {0}, ns, 0, 0};
  vt_decode_opts_init(&x.dopts);
  x.dopts.algo = o->algo;
  for (int64_t s = 0; s < train->n_sent; s++) order[s] = s;
  uint64_t rng = o->seed;
  /* the averaging clock: examples of the largest shard */
  const double per_epoch = (double)((train->n_sent + ns - 1) / ns);

  for (int32_t epoch = 1; epoch <= o->epochs; epoch++) {
    double t_start = vt_clock_seconds();
    vt_train_shuffle(order, train->n_sent, &rng);
    x.epoch = epoch;
    x.done = 0;
#pragma omp parallel num_threads(nthreads)
    {
      VT_OMP_BEGIN();
#pragma omp for schedule(dynamic, 1)
      for (int32_t s = 0; s < ns; s++) sh[s].st = shard_epoch(&sh[s], &x, s);
      VT_OMP_END();
    }
    VT_OMP_JOINED();
    int64_t tok_err = 0, sent_err = 0;
    for (int32_t s = 0; s < ns; s++) {
      if ((st = sh[s].st) != VT_OK) {
        if (st != VT_ENOMEM)
          vt_errorf(err, errlen, NULL, "training: decoding failed: %s", vt_strerror(st));
        goto fail;
      }
      tok_err += sh[s].tok_err;
      sent_err += sh[s].sent_err;
      sh[s].tok_err = sh[s].sent_err = 0;
    }
    if ((st = mix(W, sh, ns, nthreads)) != VT_OK) goto fail;
    W->c += per_epoch;
    int stop = 0;
    st = vt_train_epoch_end(W, train, dev, rank, obs_bigram, o, epoch, tok_err, sent_err,
                            vt_clock_seconds() - t_start, rep, &stop);
    if (st != VT_OK) goto fail;
    if (stop) break;
  }
  st = VT_OK;
  goto done;
fail:
  if (st == VT_ENOMEM) vt_errorf(err, errlen, NULL, "training: out of memory");
done:
  for (int32_t s = 0; sh && s < ns; s++) {
    vt_decode_stats_add(&rep->decode, &sh[s].stats);
    rep->decode_seconds += sh[s].decode_seconds;
    shard_free(&sh[s]);
  }
  free(sh);
  free(order);
  return st;
}
