/* engine/train/crf_online.c: CRFsuite's averaged perceptron, passive-aggressive and AROW over a
 * compiled item problem (crf_online.h). */
#define _POSIX_C_SOURCE 200809L
#include "train/crf_online.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "train/crf_kern.h"
#include "train/crf_report.h"

void vt_glibc_rand_init(vt_glibc_rand *g) {
  /* glibc's TYPE_3 additive generator: 31 words from the seed by 16807 * x mod (2^31 - 1), three
   * copies, then r[i] = r[i - 31] + r[i - 3] (mod 2^32), the first 310 of those discarded. */
  uint32_t r[344];
  r[0] = 1;
  for (int i = 1; i < 31; i++) {
    int64_t v = (16807 * (int64_t)(int32_t)r[i - 1]) % 2147483647;
    if (v < 0) v += 2147483647;
    r[i] = (uint32_t)v;
  }
  for (int i = 31; i < 34; i++) r[i] = r[i - 31];
  for (int i = 34; i < 344; i++) r[i] = r[i - 31] + r[i - 3];
  for (int i = 310; i < 344; i++) g->r[i % 34] = r[i];
  g->i = 344 % 34;
}

int32_t vt_glibc_rand_next(vt_glibc_rand *g) {
  const int32_t i = g->i;
  const uint32_t v = g->r[(i + 3) % 34] + g->r[(i + 31) % 34]; /* r[i - 31] + r[i - 3] */
  g->r[i] = v;
  g->i = (i + 1) % 34;
  return (int32_t)(v >> 1);
}

/* One run's state. */
typedef struct online {
  const vt_crf_data *d;
  const vt_crf_feats *f;
  int32_t L;
  double *w;     /* the weights tagging uses (ap, pa: w; arow: the means) */
  double *ws;    /* ap, pa: the weighted sums of the updates (for the average) */
  double *cov;   /* arow: the variances */
  double *A;     /* L x L transition scores of w (0: no feature) */
  double *S;     /* max_T x L state scores */
  double *V;     /* max_T x L Viterbi scores */
  int32_t *back; /* max_T x L best predecessors */
  int32_t *path; /* max_T */
  /* pa, arow: the difference of the gold and the Viterbi paths' features, sparse */
  double *delta; /* f->n */
  char *used;    /* f->n */
  int64_t *act;  /* the features collected, first appearances kept (crf_online.h's order) */
  int64_t n_act; /* collected */
  int64_t cap_act;
  int32_t algorithm; /* vt_train_opts.algorithm */
  double c;          /* what collect adds: delta[k] += c * value */
  int failed;        /* out of memory while collecting */
} online;

/* The state scores of sequence s from g->w, CRFsuite's order: each cell's attributes in item
 * order. */
static void online_scores(online *g, int64_t s) {
  const vt_crf_data *d = g->d;
  const vt_crf_feats *f = g->f;
  const size_t Ls = (size_t)g->L;
  const int64_t t0 = d->sent_off[s];
  const int32_t T = (int32_t)(d->sent_off[s + 1] - t0);
  memset(g->S, 0, (size_t)T * Ls * sizeof *g->S);
  for (int32_t t = 0; t < T; t++) {
    double *row = g->S + (size_t)t * Ls;
    for (int64_t i = d->tok_off[t0 + t]; i < d->tok_off[t0 + t + 1]; i++) {
      const int32_t a = d->attr[i];
      const double v = vt_crf_val(d, i);
      for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++) row[f->st_label[q]] += g->w[q] * v;
    }
  }
}

/* The transition scores of g->w. */
static void online_trans(online *g) {
  const size_t LL = (size_t)g->L * (size_t)g->L;
  for (size_t i = 0; i < LL; i++) g->A[i] = g->f->tr_id[i] >= 0 ? g->w[g->f->tr_id[i]] : 0;
}

/* The score of labels y of sequence s (T positions), CRFsuite's order. */
static double online_path_score(const online *g, const int32_t *y, int32_t T) {
  const size_t Ls = (size_t)g->L;
  double sc = g->S[(size_t)y[0]];
  for (int32_t t = 1; t < T; t++) {
    sc += g->A[(size_t)y[t - 1] * Ls + (size_t)y[t]];
    sc += g->S[(size_t)t * Ls + (size_t)y[t]];
  }
  return sc;
}

/* What is done with each feature on a path: the perceptron's update, or collecting. */
typedef void (*feat_fn)(online *g, int64_t k, double value, const double *coef);

/* Calls fn on every feature of path y over sequence s, CRFsuite's order: per position, the
 * state features of its attributes in item order, then the transition from the position
 * before. */
static void online_path_features(online *g, int64_t s, const int32_t *y, feat_fn fn,
                                 const double *coef) {
  const vt_crf_data *d = g->d;
  const vt_crf_feats *f = g->f;
  const int64_t t0 = d->sent_off[s];
  const int32_t T = (int32_t)(d->sent_off[s + 1] - t0);
  for (int32_t t = 0; t < T; t++) {
    for (int64_t i = d->tok_off[t0 + t]; i < d->tok_off[t0 + t + 1]; i++) {
      const int64_t k = vt_crf_feats_state(f, d->attr[i], y[t]);
      if (k >= 0) fn(g, k, vt_crf_val(d, i), coef);
    }
    if (t > 0) {
      const int32_t k = f->tr_id[(size_t)y[t - 1] * (size_t)g->L + (size_t)y[t]];
      if (k >= 0) fn(g, k, 1.0, coef);
    }
  }
}

/* ap: w[k] += coef[0] * value, ws[k] += coef[1] * value. */
static void ap_update(online *g, int64_t k, double value, const double *coef) {
  g->w[k] += coef[0] * value;
  g->ws[k] += coef[1] * value;
}

/* pa, arow: delta[k] += c * value, k listed. */
static void collect(online *g, int64_t k, double value, const double *coef) {
  (void)coef;
  if (g->n_act == g->cap_act) {
    const int64_t cap = 2 * (g->cap_act + 1);
    int64_t *a = realloc(g->act, (size_t)cap * sizeof *a);
    if (!a) {
      g->failed = 1;
      return;
    }
    g->act = a;
    g->cap_act = cap;
  }
  g->act[g->n_act++] = k;
  g->delta[k] += g->c * value;
}

/* Collects gold_c times the gold path's features plus viterbi_c times the Viterbi path's of
 * sequence s into delta, listing each feature once, at its first appearance. */
static void online_delta(online *g, int64_t s, double gold_c, double viterbi_c) {
  for (int64_t i = 0; i < g->n_act; i++) g->delta[g->act[i]] = 0;
  g->n_act = 0;
  g->c = gold_c;
  online_path_features(g, s, g->d->gold + g->d->sent_off[s], collect, NULL);
  g->c = viterbi_c;
  online_path_features(g, s, g->path, collect, NULL);
  int64_t n = 0;
  for (int64_t i = 0; i < g->n_act; i++)
    if (!g->used[g->act[i]]) {
      g->used[g->act[i]] = 1;
      g->act[n++] = g->act[i];
    }
  g->n_act = n;
  for (int64_t i = 0; i < n; i++) g->used[g->act[i]] = 0;
}

/* One sequence: tags it, updates where it is wrong; returns its loss (0 when right). `count`: ap
 * and pa's update counter (CRFsuite's c and u). Every sequence weighs 1 (CRFsuite's instance
 * weight for item files), so its factors of the weight are left out: x * 1.0 is x. */
static double online_step(online *g, const vt_train_opts *o, int64_t s, double count) {
  const vt_crf_data *d = g->d;
  const int32_t T = (int32_t)(d->sent_off[s + 1] - d->sent_off[s]);
  const int32_t *gold = d->gold + d->sent_off[s];
  if (T == 0) return 0;
  online_scores(g, s);
  const double sv = vt_crf_viterbi_first(g->S, g->A, T, g->L, g->V, g->back, g->path);
  int32_t wrong = 0;
  for (int32_t t = 0; t < T; t++) wrong += gold[t] != g->path[t];
  if (wrong == 0) return 0;
  if (o->algorithm == VT_TRAIN_AP) {
    const double up[2] = {1.0, count}, down[2] = {-1.0, -count};
    online_path_features(g, s, gold, ap_update, up);
    online_path_features(g, s, g->path, ap_update, down);
    online_trans(g);
    return wrong / (double)T;
  }
  const double sc = online_path_score(g, gold, T);
  double norm2 = 0;
  if (o->algorithm == VT_TRAIN_PA) {
    const double cost = o->pa_error_sensitive ? sv - sc + sqrt((double)wrong) : sv - sc + 1.;
    online_delta(g, s, 1, -1);
    for (int64_t i = 0; i < g->n_act; i++) norm2 += g->delta[g->act[i]] * g->delta[g->act[i]];
    /* No update when both paths have the same features (CRFsuite would divide by 0). */
    if (norm2 == 0) return cost;
    const double C = o->pa_c;
    double tau = o->pa_type == 1   ? (C < cost / norm2 ? C : cost / norm2)
                 : o->pa_type == 2 ? cost / (norm2 + 0.5 / C)
                                   : cost / norm2;
    const double tauu = tau * count;
    for (int64_t i = 0; i < g->n_act; i++) {
      const int64_t k = g->act[i];
      g->w[k] += tau * g->delta[k];
      g->ws[k] += tauu * g->delta[k];
    }
    online_trans(g);
    return cost;
  }
  /* AROW */
  const double cost = sv - sc + (double)wrong;
  online_delta(g, s, 1.0, -1.0);
  double frac = o->arow_gamma;
  for (int64_t i = 0; i < g->n_act; i++) {
    const int64_t k = g->act[i];
    frac += g->delta[k] * g->delta[k] * g->cov[k];
  }
  const double alpha = cost / frac;
  for (int64_t i = 0; i < g->n_act; i++) {
    const int64_t k = g->act[i];
    const double prod = g->delta[k] * g->delta[k];
    g->w[k] += alpha * g->cov[k] * g->delta[k];
    g->cov[k] = 1.0 / ((1.0 / g->cov[k]) + prod / o->arow_gamma);
  }
  online_trans(g);
  return cost;
}

/* Writes the run's state after epoch e of `epochs` when a checkpoint is due: the epoch, the
 * example count, the weights, their sums (ap, pa) or variances (arow). */
static vt_status online_ckpt_save(const online *g, const vt_ckpt *ck, int32_t e, int32_t epochs,
                                  double count, char *err, size_t errlen) {
  if (!ck || !ck->writer || !vt_ckpt_due(ck, e, epochs)) return VT_OK;
  const size_t n = (size_t)g->f->n;
  vt_ckpt_io io;
  vt_status st = vt_ckpt_begin(&io, ck, vt_ckpt_trainer(g->algorithm), e, err, errlen);
  if (st != VT_OK) return st;
  vt_ckpt_put(&io, &e, sizeof e);
  vt_ckpt_put(&io, &count, sizeof count);
  vt_ckpt_put(&io, &g->f->n, sizeof g->f->n);
  vt_ckpt_put(&io, g->w, n * sizeof *g->w);
  if (g->ws) vt_ckpt_put(&io, g->ws, n * sizeof *g->ws);
  if (g->cov) vt_ckpt_put(&io, g->cov, n * sizeof *g->cov);
  return vt_ckpt_commit(&io, err, errlen);
}

/* Reads a checkpoint's state, when there is one, into g, *done (its epochs) and *count. */
static vt_status online_ckpt_load(online *g, const vt_ckpt *ck, int32_t *done, double *count,
                                  char *err, size_t errlen) {
  *done = 0;
  if (!ck) return VT_OK;
  const size_t n = (size_t)g->f->n;
  vt_ckpt_io io;
  int found;
  vt_status st = vt_ckpt_open(&io, ck, vt_ckpt_trainer(g->algorithm), &found, err, errlen);
  if (st != VT_OK || !found) return st;
  int32_t e;
  int64_t nf;
  double c;
  vt_ckpt_get(&io, &e, sizeof e);
  vt_ckpt_get(&io, &c, sizeof c);
  vt_ckpt_get(&io, &nf, sizeof nf);
  if (nf != g->f->n || e < 1) vt_ckpt_bad(&io);
  vt_ckpt_get(&io, g->w, io.bad ? 0 : n * sizeof *g->w);
  if (g->ws) vt_ckpt_get(&io, g->ws, io.bad ? 0 : n * sizeof *g->ws);
  if (g->cov) vt_ckpt_get(&io, g->cov, io.bad ? 0 : n * sizeof *g->cov);
  if ((st = vt_ckpt_close(&io, err, errlen)) != VT_OK) return st;
  *done = e;
  *count = c;
  return VT_OK;
}

vt_status vt_crf_train_online(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                              double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                              size_t errlen, const vt_ckpt *ck) {
  vt_status st = VT_OK;
  online g;
  memset(&g, 0, sizeof g);
  memset(r, 0, sizeof *r);
  int64_t *perm = NULL;
  double *wa = NULL;
  int64_t *dev_counts = NULL; /* with dev: vt_iter_report.dev_counts */
  if ((st = vt_crf_opts_check(o, err, errlen)) != VT_OK) return st;
  const int64_t N = d->n_sent;
  const int32_t epochs = o->max_iterations ? o->max_iterations : 100;
  const size_t Ls = (size_t)f->L, n = (size_t)(f->n ? f->n : 1);
  const size_t cells = (size_t)(d->max_T > 0 ? d->max_T : 1) * Ls;
  g.d = d;
  g.f = f;
  g.L = f->L;
  g.w = w;
  g.algorithm = o->algorithm;
  g.A = malloc(Ls * Ls * sizeof *g.A);
  g.S = malloc(cells * sizeof *g.S);
  g.V = malloc(cells * sizeof *g.V);
  g.back = malloc(cells * sizeof *g.back);
  g.path = malloc((cells / Ls) * sizeof *g.path);
  perm = malloc((size_t)(N ? N : 1) * sizeof *perm);
  wa = malloc(n * sizeof *wa);
  if (!g.A || !g.S || !g.V || !g.back || !g.path || !perm || !wa) goto nomem;
  if (dev && !(dev_counts = calloc(2 * Ls + 1, sizeof *dev_counts))) goto nomem;
  if (o->algorithm != VT_TRAIN_AROW && !(g.ws = calloc(n, sizeof *g.ws))) goto nomem;
  if (o->algorithm != VT_TRAIN_AP) {
    g.delta = calloc(n, sizeof *g.delta);
    g.used = calloc(n, 1);
    if (!g.delta || !g.used) goto nomem;
  }
  if (o->algorithm == VT_TRAIN_AROW) {
    if (!(g.cov = malloc(n * sizeof *g.cov))) goto nomem;
    for (size_t i = 0; i < n; i++) g.cov[i] = o->arow_variance;
  }
  for (int64_t i = 0; i < N; i++) perm[i] = i;
  vt_glibc_rand rng;
  vt_glibc_rand_init(&rng);
  const double t_start = vt_clock_seconds();
  double cb_time = 0, count = 1;
  int32_t done = 0; /* the epochs a checkpoint did: their shuffles replayed */
  if ((st = online_ckpt_load(&g, ck, &done, &count, err, errlen)) != VT_OK) goto done;
  online_trans(&g);
  for (int32_t e = 1; e <= epochs; e++) {
    const double t_iter = vt_clock_seconds();
    for (int64_t i = 0; i < N; i++) { /* CRFsuite's shuffle */
      const int64_t j = vt_glibc_rand_next(&rng) % (int32_t)N;
      const int64_t tmp = perm[j];
      perm[j] = perm[i];
      perm[i] = tmp;
    }
    if (e <= done) continue;
    double loss = 0;
    for (int64_t i = 0; i < N; i++) {
      loss += online_step(&g, o, perm[i], count);
      if (g.failed) goto nomem;
      if (o->algorithm != VT_TRAIN_AROW) count += 1;
    }
    /* The weights an epoch gives: ap (and pa with averaging) w - ws / count. */
    const double *out = w;
    if (o->algorithm == VT_TRAIN_AP || (o->algorithm == VT_TRAIN_PA && o->pa_averaging)) {
      const double inv = 1. / count;
      for (size_t k = 0; k < (size_t)f->n; k++) wa[k] = w[k] - inv * g.ws[k];
      out = wa;
    }
    r->loss = loss;
    r->iterations = e;
    const double now = vt_clock_seconds();
    vt_iter_report ir;
    vt_crf_epoch_report(&ir, e, loss, out, f->n);
    if (o->algorithm == VT_TRAIN_PA) { /* CRFsuite's norm is of pa's last weights */
      int64_t unused;
      vt_crf_weights_stats(w, f->n, &ir.feature_norm, &unused);
    }
    ir.seconds = now - t_iter;
    ir.total_seconds = now - t_start - cb_time;
    ir.dev_accuracy = dev ? vt_crf_dev_eval(dev, f, out, o->threads, dev_counts) : -1;
    ir.dev_counts = dev_counts;
    const int stop = o->on_iteration ? o->on_iteration(o->ctx, &ir) : 0;
    cb_time += vt_clock_seconds() - now;
    if (e == epochs || stop ||
        (o->algorithm == VT_TRAIN_AROW ? loss / (double)N <= o->online_epsilon
                                       : loss / (double)N < o->online_epsilon)) {
      r->stop = stop          ? "stopped by the callback"
                : e == epochs ? "epoch cap reached"
                              : "converged (epsilon)";
      if (out != w) memcpy(w, out, (size_t)f->n * sizeof *w);
      break;
    }
    if ((st = online_ckpt_save(&g, ck, e, epochs, count, err, errlen)) != VT_OK ||
        (st = vt_ckpt_stop(ck, e, 0, err, errlen)) != VT_OK)
      goto done;
  }
  r->seconds = vt_clock_seconds() - t_start - cb_time;
  goto done;
nomem:
  st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
done:
  free(g.A);
  free(g.S);
  free(g.V);
  free(g.back);
  free(g.path);
  free(g.ws);
  free(g.cov);
  free(g.delta);
  free(g.used);
  free(g.act);
  free(perm);
  free(wa);
  free(dev_counts);
  return st;
}
