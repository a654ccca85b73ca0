/* engine/train/crf_sgd.c: SGD with L2 regularisation for CRFs, CRFsuite's l2sgd method (its
 * train_l2sgd.c; docs/training.md): per sequence the loss (lambda/2)||w||^2 - log p(y|x) with
 * lambda = 2 c2 / N, the rate eta_t = 1 / (lambda (t0 + t)), the weight decay kept as one scale
 * factor, and t0 from a calibration on a sample. One sequence at a time: single-threaded. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "train/crf_fb.h"
#include "train/crf_kern.h"
#include "train/crf_report.h"
#include "train/crf_sgd.h"
#include "train/perc_step.h"

/* The state of a run: weights as scale * w. */
typedef struct sgd {
  const vt_crf_data *d;
  const vt_crf_feats *f;
  double *w, scale, lambda;
  vt_crf_batch b;
  double *M, *GA;   /* dense transitions */
  vt_crf_sparse sp; /* or their sparse form (crf_sparse.h), when the pairs seen are few */
  int sparse;
  double *G; /* sp.nnz: a sequence's transition counts */
  int oom;   /* a sequence's tables could not be allocated (a NaN loss is otherwise the weights') */
} sgd;

/* Forward-backward of sequence s at the weights scale * w into g->b (and the transition counts
 * into GA or G); its loss (+inf: no path; NaN: out of memory). */
static double sgd_fb(sgd *g, int64_t s) {
  double mA;
  if (vt_crf_batch_set(&g->b, g->d, s, s + 1) != VT_OK) {
    g->oom = 1;
    return NAN;
  }
  if (g->sparse) {
    vt_crf_sparse_set(&g->sp, g->w, g->scale, &mA);
    memset(g->G, 0, (size_t)g->sp.nnz * sizeof *g->G);
  } else {
    vt_crf_trans_exp(g->f, g->w, g->scale, g->M, &mA);
  }
  vt_crf_fb_scores(&g->b, g->d, g->f, g->w, g->scale);
  if (vt_crf_fb_batch(&g->b, g->d, g->f, g->w, g->scale, g->M, g->sparse ? &g->sp : NULL, mA, g->G))
    return INFINITY;
  return g->b.loss[0];
}

/* One update on sequence s at rate eta; returns its loss before the update (+inf: no path). */
static double sgd_step(sgd *g, int64_t s, double eta) {
  const vt_crf_data *d = g->d;
  const vt_crf_feats *f = g->f;
  const int32_t L = f->L;
  const size_t LL = (size_t)L * (size_t)L;
  g->scale *= 1.0 - eta * g->lambda;
  const double gain = eta / g->scale;
  const double loss = sgd_fb(g, s);
  if (!isfinite(loss)) return loss;
  if (!g->sparse) {
    memset(g->GA, 0, LL * sizeof *g->GA);
    vt_crf_fb_trans_grad(&g->b, L, 0, L, g->GA);
  }
  /* w += gain * (observed - expected): states item by item, then the transitions. */
  const int64_t t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
  for (int64_t t = 0; t < T; t++) {
    const double *p = g->b.P + (size_t)t * (size_t)L; /* one sequence: row t is position t */
    const int32_t y = d->gold[t0 + t];
    for (int64_t i = d->tok_off[t0 + t]; i < d->tok_off[t0 + t + 1]; i++) {
      const int32_t a = d->attr[i];
      const double v = vt_crf_val(d, i);
      for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++)
        g->w[q] += gain * v * ((f->st_label[q] == y) - p[f->st_label[q]]);
    }
    if (t > 0) {
      int32_t k = f->tr_id[(size_t)d->gold[t0 + t - 1] * (size_t)L + (size_t)y];
      if (k >= 0) g->w[k] += gain;
    }
  }
  if (g->sparse)
    for (int64_t e = 0; e < g->sp.nnz; e++) g->w[g->sp.id[e]] -= gain * g->sp.m[e] * g->G[e];
  else
    for (size_t i = 0; i < LL; i++)
      if (f->tr_id[i] >= 0) g->w[f->tr_id[i]] -= gain * g->M[i] * g->GA[i];
  if (g->scale < 1e-20) { /* fold the scale in before it underflows */
    for (int64_t i = 0; i < f->n; i++) g->w[i] *= g->scale;
    g->scale = 1;
  }
  return loss;
}

/* scale * ||w||^2. */
static double sgd_norm2(const sgd *g) {
  double s = 0;
  for (int64_t i = 0; i < g->f->n; i++) s += g->w[i] * g->w[i];
  return s * g->scale * g->scale;
}

/* One epoch over order[0, n) from step count *t with offset t0; returns the summed losses (NaN:
 * out of memory). */
static double sgd_epoch(sgd *g, const int64_t *order, int64_t n, double t0, int64_t *t) {
  double sum = 0;
  for (int64_t i = 0; i < n; i++) {
    const double eta = 1.0 / (g->lambda * (t0 + (double)*t));
    sum += sgd_step(g, order[i], eta);
    ++*t;
  }
  return sum;
}

/* CRFsuite's calibration: from eta0, rates are raised by `rate` while the sample's objective
 * after one epoch beats the starting one, then lowered from eta0; the best of at most
 * `candidates` good rates (or `max_trials` tries) wins. Returns t0 = 1 / (lambda eta). */
static double sgd_calibrate(sgd *g, const double *w0, const int64_t *sample, int64_t n,
                            const vt_train_opts *o) {
  const double rate = o->calibration_rate;
  double eta = o->calibration_eta, best_eta = o->calibration_eta, best = INFINITY;
  memcpy(g->w, w0, (size_t)g->f->n * sizeof *g->w);
  g->scale = 1;
  double init = 0;
  for (int64_t i = 0; i < n; i++) {
    const double l = sgd_fb(g, sample[i]);
    if (g->oom) return NAN;
    init += l;
  }
  init += 0.5 * g->lambda * sgd_norm2(g) * (double)n;
  int decreasing = 0;
  int32_t left = o->calibration_candidates;
  for (int32_t trial = 0; trial < o->calibration_max_trials && (left > 0 || !decreasing); trial++) {
    memcpy(g->w, w0, (size_t)g->f->n * sizeof *g->w);
    g->scale = 1;
    int64_t t = 0;
    double loss = sgd_epoch(g, sample, n, 1.0 / (g->lambda * eta), &t);
    if (g->oom) return NAN; /* a NaN loss otherwise: the rate diverged, a bad trial */
    loss += 0.5 * g->lambda * sgd_norm2(g) * (double)n;
    if ((o->crfsuite_learn & VT_TRAIN_CALIBRATION_TRIALS) &&
        o->on_iteration) { /* CRFsuite's "Trial #k (eta = E): LOSS" */
      vt_iter_report ir;
      memset(&ir, 0, sizeof ir);
      ir.calibration_trial = trial + 1;
      ir.calibration_start = init;
      ir.loss = loss;
      ir.step = eta;
      ir.dev_accuracy = ir.eval_seconds = -1;
      o->on_iteration(o->ctx, &ir); /* a trial cannot stop training */
    }
    if (isfinite(loss) && loss < init) {
      left--;
      if (loss < best) {
        best = loss;
        best_eta = eta;
      }
    } else if (!decreasing) {
      decreasing = 1;
      left = o->calibration_candidates;
      eta = o->calibration_eta;
    }
    eta = decreasing ? eta / rate : eta * rate;
  }
  return 1.0 / (g->lambda * best_eta);
}

/* What a checkpoint holds besides the weights and the loss history. */
typedef struct sgd_state {
  int32_t done;        /* epochs done */
  int64_t t;           /* steps done */
  double t0;           /* the calibrated offset */
  double scale;        /* of the weights */
  double initial_loss; /* epoch 0's */
} sgd_state;

/* Writes the state after epoch s->done of `epochs` when a checkpoint is due: s, the losses of
 * epochs 0..done and the weights (w, without the scale). */
static vt_status sgd_ckpt_save(const sgd *g, const vt_ckpt *ck, const sgd_state *s,
                               const double *hist, int32_t epochs, char *err, size_t errlen) {
  if (!ck || !ck->writer || !vt_ckpt_due(ck, s->done, epochs)) return VT_OK;
  vt_ckpt_io io;
  vt_status st = vt_ckpt_begin(&io, ck, "l2sgd", s->done, err, errlen);
  if (st != VT_OK) return st;
  vt_ckpt_put(&io, &s->done, sizeof s->done);
  vt_ckpt_put(&io, &s->t, sizeof s->t);
  vt_ckpt_put(&io, &s->t0, sizeof s->t0);
  vt_ckpt_put(&io, &s->scale, sizeof s->scale);
  vt_ckpt_put(&io, &s->initial_loss, sizeof s->initial_loss);
  vt_ckpt_put(&io, &g->f->n, sizeof g->f->n);
  vt_ckpt_put(&io, hist, ((size_t)s->done + 1) * sizeof *hist);
  vt_ckpt_put(&io, g->w, (size_t)g->f->n * sizeof *g->w);
  return vt_ckpt_commit(&io, err, errlen);
}

/* Reads a checkpoint, when there is one, into *s, hist and the weights (s->done stays 0
 * without). */
static vt_status sgd_ckpt_load(sgd *g, const vt_ckpt *ck, sgd_state *s, double *hist,
                               int32_t epochs, char *err, size_t errlen) {
  if (!ck) return VT_OK;
  vt_ckpt_io io;
  int found;
  vt_status st = vt_ckpt_open(&io, ck, "l2sgd", &found, err, errlen);
  if (st != VT_OK || !found) return st;
  sgd_state x;
  int64_t n;
  vt_ckpt_get(&io, &x.done, sizeof x.done);
  vt_ckpt_get(&io, &x.t, sizeof x.t);
  vt_ckpt_get(&io, &x.t0, sizeof x.t0);
  vt_ckpt_get(&io, &x.scale, sizeof x.scale);
  vt_ckpt_get(&io, &x.initial_loss, sizeof x.initial_loss);
  vt_ckpt_get(&io, &n, sizeof n);
  if (n != g->f->n || x.done < 1 || x.done >= epochs || x.t < 0) vt_ckpt_bad(&io);
  if (!io.bad) {
    vt_ckpt_get(&io, hist, ((size_t)x.done + 1) * sizeof *hist);
    vt_ckpt_get(&io, g->w, (size_t)n * sizeof *g->w);
  }
  if ((st = vt_ckpt_close(&io, err, errlen)) != VT_OK) return st;
  *s = x;
  g->scale = x.scale;
  return VT_OK;
}

vt_status vt_crf_train_sgd(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                           double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                           size_t errlen, const vt_ckpt *ck) {
  vt_status st = VT_OK;
  sgd g;
  memset(&g, 0, sizeof g);
  int64_t *order = NULL;
  double *w0 = NULL, *hist = NULL;
  int64_t *dev_counts = NULL; /* with dev: vt_iter_report.dev_counts */
  memset(r, 0, sizeof *r);
  if ((st = vt_crf_opts_check(o, err, errlen)) != VT_OK) return st;
  const int64_t N = d->n_sent;
  const int32_t epochs = o->max_iterations ? o->max_iterations : 1000;
  const size_t LL = (size_t)f->L * (size_t)f->L;
  g.d = d;
  g.f = f;
  g.w = w;
  g.scale = 1;
  g.lambda = 2.0 * o->c2 / (double)(N ? N : 1);
  g.M = malloc(LL * sizeof *g.M);
  g.GA = malloc(LL * sizeof *g.GA);
  if ((g.sparse = vt_crf_sparse_fits(f))) {
    if (vt_crf_sparse_init(&g.sp, f) != VT_OK ||
        !(g.G = malloc((size_t)(g.sp.nnz ? g.sp.nnz : 1) * sizeof *g.G)))
      goto nomem;
  }
  order = malloc((size_t)(N ? N : 1) * sizeof *order);
  w0 = malloc((size_t)(f->n ? f->n : 1) * sizeof *w0);
  hist = malloc(((size_t)epochs + 1) * sizeof *hist);
  if (!g.M || !g.GA || !order || !w0 || !hist) goto nomem;
  if (dev && !(dev_counts = calloc(2 * (size_t)f->L + 1, sizeof *dev_counts))) goto nomem;
  memcpy(w0, w, (size_t)f->n * sizeof *w0);
  for (int64_t i = 0; i < N; i++) order[i] = i;
  uint64_t rng = o->seed;
  vt_train_shuffle(order, N, &rng);
  const double t_start = vt_clock_seconds();
  double cb_time = 0;
  const int64_t n_sample = N < o->calibration_samples ? N : o->calibration_samples;
  sgd_state ss = {0, 0, 0, 1, 0};
  if ((st = sgd_ckpt_load(&g, ck, &ss, hist, epochs, err, errlen)) != VT_OK) goto done;
  const double t0 = ss.done ? ss.t0 : sgd_calibrate(&g, w0, order, n_sample, o);
  if (isnan(t0)) goto nomem;
  if (!ss.done) {
    memcpy(w, w0, (size_t)f->n * sizeof *w);
    g.scale = 1;
  }
  int64_t t = ss.t;
  for (int32_t e = 0; e < ss.done; e++) vt_train_shuffle(order, N, &rng);
  r->initial_loss = ss.initial_loss;
  for (int32_t e = ss.done ? ss.done + 1 : 0; e <= epochs; e++) {
    double t_iter = vt_clock_seconds();
    double loss = 0;
    if (e == 0) { /* the starting point */
      for (int64_t i = 0; i < N; i++) {
        const double l = sgd_fb(&g, i);
        if (g.oom) goto nomem;
        loss += l;
      }
      loss += o->c2 * sgd_norm2(&g);
      r->initial_loss = loss;
    } else {
      vt_train_shuffle(order, N, &rng);
      loss = sgd_epoch(&g, order, N, t0, &t);
      if (g.oom) goto nomem;
      loss += o->c2 * sgd_norm2(&g);
    }
    if (!isfinite(loss)) {
      st = vt_fail_into(err, errlen, VT_EINVAL,
                        "train: the loss is not finite at epoch %d: the values, the weights of "
                        "--init or c2 are too large for double arithmetic",
                        (int)e);
      goto done;
    }
    hist[e] = loss;
    r->loss = loss;
    r->iterations = e;
    const double now = vt_clock_seconds();
    vt_iter_report ir;
    for (int64_t i = 0; i < f->n; i++) w0[i] = w[i] * g.scale; /* w0: the weights as they are */
    vt_crf_epoch_report(&ir, e, loss, w0, f->n);
    ir.step = e ? 1.0 / (g.lambda * (t0 + (double)t)) : 0;
    ir.seconds = now - t_iter;
    ir.total_seconds = now - t_start - cb_time;
    ir.dev_accuracy = dev ? vt_crf_dev_eval(dev, f, w0, o->threads, dev_counts) : -1;
    ir.dev_counts = dev_counts;
    int stop = o->on_iteration ? o->on_iteration(o->ctx, &ir) : 0;
    cb_time += vt_clock_seconds() - now;
    if (stop) {
      r->stop = "stopped by the callback";
      break;
    }
    if (e >= o->period && o->period > 0 && e > 0) {
      const double before = hist[e - o->period];
      if ((before - loss) / loss < o->delta) {
        r->stop = "converged (delta over period)";
        break;
      }
    }
    if (e == epochs) r->stop = "epoch cap reached";
    const sgd_state now_s = {e, t, t0, g.scale, r->initial_loss};
    if ((st = sgd_ckpt_save(&g, ck, &now_s, hist, epochs, err, errlen)) != VT_OK ||
        (st = vt_ckpt_stop(ck, now_s.done, 0, err, errlen)) != VT_OK)
      goto done;
  }
  for (int64_t i = 0; i < f->n; i++) w[i] *= g.scale;
  r->seconds = vt_clock_seconds() - t_start - cb_time;
  goto done;
nomem:
  st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
done:
  vt_crf_batch_free(&g.b);
  free(g.M);
  free(g.GA);
  free(g.G);
  vt_crf_sparse_free(&g.sp);
  free(order);
  free(w0);
  free(hist);
  free(dev_counts);
  return st;
}
