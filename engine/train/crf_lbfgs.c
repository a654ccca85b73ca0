/* engine/train/crf_lbfgs.c: L-BFGS / OWL-QN training through liblbfgs, or with a checkpoint
 * through lbfgs.c, whose iterates are liblbfgs's and whose state a checkpoint can hold
 * (crf_lbfgs.h). */
#define _POSIX_C_SOURCE 200809L
#include "train/crf_lbfgs.h"
#include "train/crf_report.h"

#include <lbfgs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "train/crf_grad.h"
#include "train/lbfgs.h"

/* What the liblbfgs callbacks share. */
typedef struct run_ctx {
  vt_crf_grad *G;
  const vt_crf_feats *f;
  const vt_crf_data *dev;
  const vt_train_opts *o;
  const vt_train_comm *comm; /* the processes training together, or NULL */
  int32_t evals;             /* evaluations since the last iteration */
  int first;                 /* no evaluation yet */
  double t_iter;             /* when the iteration began */
  double t_start;            /* when training began */
  double cb_time;            /* seconds spent in callbacks and dev evaluation */
  double ev_time;            /* seconds in evaluations since the last iteration */
  double x0_loss;            /* the objective at the starting weights */
  int stopped;               /* the callback asked to stop */
  int32_t iters;             /* iterations reported */
  double *g0;                /* the gradient at the start, handed to liblbfgs's first evaluation */
  double f0;                 /* the smooth part of the objective there */
  vt_status fail;            /* an evaluation failed: VT_ENOMEM, or VT_ECANCELED (the processes) */
  const char *nonfinite;     /* what became infinite or NaN (the same on every process), or NULL */
  int32_t nonfinite_at;      /* at which iteration */
  int64_t *dev_counts;       /* with dev: the 2 L + 1 counts of vt_iter_report.dev_counts */
  const vt_ckpt *ck;         /* the run's checkpoint (lbfgs.c runs), or NULL */
  char *err;                 /* where a checkpoint's failure is said */
  size_t errlen;
  vt_status ck_fail; /* a checkpoint could not be written (here or on process 0), or the run
                        stopped after one as on_cancel asked (VT_ECANCELED) */
} run_ctx;

static lbfgsfloatval_t evaluate(void *inst, const lbfgsfloatval_t *x, lbfgsfloatval_t *g,
                                const int n, const lbfgsfloatval_t step) {
  (void)step;
  run_ctx *c = inst;
  if (c->g0) { /* liblbfgs starts where iteration 0 was evaluated */
    memcpy(g, c->g0, (size_t)n * sizeof *g);
    c->g0 = NULL; /* counted in iteration 0 */
    return c->f0;
  }
  if (c->fail != VT_OK || c->nonfinite) { /* no more collectives once one failed: liblbfgs is
                                             told to stop */
    memset(g, 0, (size_t)n * sizeof *g);
    return NAN;
  }
  const double t0 = vt_clock_seconds();
  double fx = vt_crf_grad_eval(c->G, x, g);
  if (isnan(fx) && vt_crf_grad_status(c->G) != VT_OK)
    c->fail = vt_crf_grad_status(c->G);
  else if (isnan(fx)) { /* a sequence's loss is NaN: the weights are no longer finite */
    c->nonfinite = "the loss";
    c->nonfinite_at = c->iters + 1;
  }
  const double c2 = c->o->c2;
  if (c2 != 0) {
    double s = 0;
    for (int i = 0; i < n; i++) {
      s += x[i] * x[i];
      g[i] += 2 * c2 * x[i];
    }
    fx += c2 * s;
  }
  c->evals++;
  c->ev_time += vt_clock_seconds() - t0;
  if (c->first) {
    c->first = 0;
    double l1 = 0;
    if (c->o->c1 > 0)
      for (int i = 0; i < n; i++) l1 += fabs(x[i]);
    c->x0_loss = fx + c->o->c1 * l1;
  }
  return fx;
}

/* Reports an iteration (k = 0: the start) to o->on_iteration; returns nonzero to stop. */
static int report(run_ctx *c, const double *x, double fx, double gnorm, double step, int k,
                  int64_t n) {
  const double now = vt_clock_seconds();
  vt_iter_report r;
  memset(&r, 0, sizeof r);
  r.iteration = k;
  r.evaluations = c->evals;
  r.loss = fx;
  r.error_norm = gnorm;
  r.step = step;
  vt_crf_weights_stats(x, n, &r.feature_norm, &r.active_features);
  r.seconds = now - c->t_iter;
  r.eval_seconds = c->ev_time;
  r.total_seconds = now - c->t_start - c->cb_time;
  /* Every process sees the same values: all stop here alike, before the collective below. */
  if (!c->nonfinite)
    c->nonfinite = !isfinite(fx)               ? "the loss"
                   : !isfinite(gnorm)          ? "the gradient norm"
                   : !isfinite(r.feature_norm) ? "the weights"
                                               : NULL;
  if (c->nonfinite) {
    c->nonfinite_at = k;
    return 1;
  }
  r.dev_accuracy =
      c->dev ? vt_crf_dev_eval(c->dev, c->f, x, vt_crf_grad_threads(c->G), c->dev_counts) : -1;
  r.dev_counts = c->dev_counts;
  int stop = c->o->on_iteration ? c->o->on_iteration(c->o->ctx, &r) : 0;
  /* The callback may be one process's only: all stop when it asks. */
  if (c->comm && c->fail == VT_OK) {
    int64_t v = stop != 0;
    if (c->comm->sum_i64(c->comm->ctx, &v, 1) != 0) {
      c->fail = VT_ECANCELED;
      v = 1;
    }
    stop = v != 0;
  }
  c->evals = 0;
  c->ev_time = 0;
  c->t_iter = vt_clock_seconds();
  c->cb_time += c->t_iter - now;
  if (c->fail != VT_OK) return 1;
  if (stop) c->stopped = 1;
  return stop;
}

static int progress(void *inst, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g,
                    const lbfgsfloatval_t fx, const lbfgsfloatval_t xnorm,
                    const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n, int k, int ls) {
  (void)g;
  (void)xnorm;
  (void)ls;
  run_ctx *c = inst;
  c->iters = k;
  return report(c, x, fx, gnorm, step, k, n);
}

/* ---- lbfgs.c's runs, with a checkpoint ---- */

static double eval_own(void *inst, const double *x, double *g, int64_t n, double step) {
  return evaluate(inst, x, g, (int)n, step);
}

static int progress_own(void *inst, const double *x, const double *g, double fx, double xnorm,
                        double gnorm, double step, int64_t n, int k, int ls) {
  return progress(inst, x, g, fx, xnorm, gnorm, step, (int)n, k, ls);
}

/* The checkpoint's state: the optimiser's (its counters, the iterate, gradient, direction,
 * corrections and past objectives) and the run's (iterations reported, the starting loss). */
static void state_io(vt_ckpt_io *io, vt_lbfgs *L, run_ctx *c) {
  int64_t shape[4] = {L->n, L->m, L->past, L->c1 != 0.};
  const int64_t want[4] = {L->n, L->m, L->past, L->c1 != 0.};
  vt_ckpt_rw(io, shape, sizeof shape);
  if (memcmp(shape, want, sizeof shape)) {
    vt_ckpt_bad(io);
    return;
  }
  const size_t n = (size_t)L->n, m = (size_t)L->m;
  vt_ckpt_rw(io, &L->k, sizeof L->k);
  vt_ckpt_rw(io, &L->end, sizeof L->end);
  vt_ckpt_rw(io, &L->fx, sizeof L->fx);
  vt_ckpt_rw(io, &L->step, sizeof L->step);
  vt_ckpt_rw(io, &c->iters, sizeof c->iters);
  vt_ckpt_rw(io, &c->x0_loss, sizeof c->x0_loss);
  vt_ckpt_rw(io, L->x, n * sizeof *L->x);
  vt_ckpt_rw(io, L->g, n * sizeof *L->g);
  vt_ckpt_rw(io, L->d, n * sizeof *L->d);
  vt_ckpt_rw(io, L->s, m * n * sizeof *L->s);
  vt_ckpt_rw(io, L->y, m * n * sizeof *L->y);
  vt_ckpt_rw(io, L->ys, m * sizeof *L->ys);
  if (L->pf) vt_ckpt_rw(io, L->pf, (size_t)L->past * sizeof *L->pf);
  if (!io->writing && (L->k < 2 || L->end < 0 || L->end >= L->m)) vt_ckpt_bad(io);
}

/* After every iteration that goes on: a checkpoint when one is due (process 0 writes it; every
 * process learns whether it could). Nonzero stops the run. */
static int boundary(void *inst, const vt_lbfgs *L) {
  run_ctx *c = inst;
  const int64_t done = L->k - 1;
  if (!vt_ckpt_on_interval(c->ck, done, L->max_iterations)) return 0;
  int64_t want = vt_ckpt_due(c->ck, done, L->max_iterations);
  if (c->comm) { /* process 0's answer */
    want = c->ck->writer ? want : 0;
    if (c->comm->sum_i64(c->comm->ctx, &want, 1) != 0) {
      c->fail = VT_ECANCELED;
      return 1;
    }
  }
  if (!want) return 0;
  vt_status st = VT_OK;
  if (c->ck->writer) {
    vt_ckpt_io io;
    if ((st = vt_ckpt_begin(&io, c->ck, "lbfgs", done, c->err, c->errlen)) == VT_OK) {
      state_io(&io, (vt_lbfgs *)L, c);
      st = vt_ckpt_commit(&io, c->err, c->errlen);
    }
  }
  if (c->comm) {
    int64_t failed = st != VT_OK;
    if (c->comm->sum_i64(c->comm->ctx, &failed, 1) != 0) {
      c->fail = VT_ECANCELED;
      return 1;
    }
    if (failed && st == VT_OK)
      st = vt_fail_into(c->err, c->errlen, VT_EIO, "train: process 0 could not write %s",
                        c->ck->path);
  }
  if (st == VT_OK) st = vt_ckpt_stop(c->ck, done, 1, c->err, c->errlen);
  c->ck_fail = st;
  return st != VT_OK;
}

/* Reads the checkpoint, when there is one, into L and c: *found says whether it did. */
static vt_status resume(vt_lbfgs *L, run_ctx *c, int *found) {
  vt_ckpt_io io;
  vt_status st = vt_ckpt_open(&io, c->ck, "lbfgs", found, c->err, c->errlen);
  if (st != VT_OK || !*found) return st;
  state_io(&io, L, c);
  if ((st = vt_ckpt_close(&io, c->err, c->errlen)) != VT_OK) return st;
  L->started = 1;
  return VT_OK;
}

/* Why liblbfgs stopped, in words; NULL for a failure that is the caller's (memory, parameters). */
static const char *stop_reason(int ret) {
  switch (ret) {
  case LBFGS_SUCCESS: return "converged (epsilon)";
  case LBFGS_STOP: return "converged (delta over period)";
  case LBFGS_ALREADY_MINIMIZED: return "already minimized";
  case LBFGSERR_MAXIMUMITERATION: return "iteration cap reached";
  case LBFGSERR_ROUNDING_ERROR: return "rounding errors prevent progress";
  case LBFGSERR_MAXIMUMLINESEARCH: return "line search evaluation cap reached";
  case LBFGSERR_MINIMUMSTEP: return "line search step below its minimum";
  case LBFGSERR_MAXIMUMSTEP: return "line search step above its maximum";
  case LBFGSERR_WIDTHTOOSMALL: return "line search interval too small";
  case LBFGSERR_INCREASEGRADIENT: return "the gradient increased (line search)";
  case LBFGSERR_INVALIDPARAMETERS: return "logic error in the line search";
  case LBFGSERR_OUTOFINTERVAL: return "line search step out of its interval";
  case LBFGSERR_INCORRECT_TMINMAX: return "line search interval lost";
  case LBFGSERR_CANCELED: return "stopped by the callback";
  default: return NULL;
  }
}

vt_status vt_crf_train_lbfgs(const vt_crf_data *d, const vt_crf_feats *f, const vt_crf_data *dev,
                             double *w, const vt_train_opts *o, vt_crf_result *r, char *err,
                             size_t errlen, const vt_crf_span *span, const vt_ckpt *ck) {
  vt_status st = VT_OK;
  vt_lbfgs L; /* with a checkpoint: lbfgs.c's state */
  memset(&L, 0, sizeof L);
  int resumed = 0;
  const vt_train_comm *comm = span ? span->comm : NULL;
  vt_crf_grad *G = NULL;
  lbfgsfloatval_t *x = NULL, *g0 = NULL;
  run_ctx c;
  memset(&c, 0, sizeof c);
  memset(r, 0, sizeof *r);
  if ((st = vt_crf_opts_check(o, err, errlen)) != VT_OK) return st;
  if (f->n > INT32_MAX)
    return vt_fail_into(err, errlen, VT_EINVAL, "train: %lld features, liblbfgs takes at most %d",
                        (long long)f->n, INT32_MAX);
  st = vt_crf_grad_create(&G, d, f, o->threads, span);
  if (st == VT_OK &&
      (!(x = lbfgs_malloc((int)(f->n ? f->n : 1))) || !(g0 = lbfgs_malloc((int)(f->n ? f->n : 1)))))
    st = VT_ENOMEM;
  if (comm) { /* every process ready, or all stop here */
    int64_t failed = st != VT_OK;
    if (comm->sum_i64(comm->ctx, &failed, 1) != 0 || (st == VT_OK && failed)) {
      st = VT_ECANCELED;
      goto fail;
    }
  }
  if (st == VT_EINVAL) {
    vt_fail_into(err, errlen, st, "train: the corpus part does not fit in its span");
    goto done;
  }
  if (st != VT_OK) goto fail;
  for (int64_t i = 0; i < f->n; i++) x[i] = w[i];
  lbfgs_parameter_t p;
  lbfgs_parameter_init(&p);
  p.m = o->num_memories;
  p.epsilon = o->epsilon;
  p.past = o->period;
  p.delta = o->delta;
  p.max_iterations = o->max_iterations;
  p.max_linesearch = o->max_linesearch;
  p.linesearch = o->linesearch == VT_LINESEARCH_BACKTRACKING ? LBFGS_LINESEARCH_BACKTRACKING_WOLFE
                 : o->linesearch == VT_LINESEARCH_STRONG_BACKTRACKING
                     ? LBFGS_LINESEARCH_BACKTRACKING_STRONG_WOLFE
                     : LBFGS_LINESEARCH_MORETHUENTE;
  if (o->c1 > 0) { /* OWL-QN: the L1 term over every weight; its line search backtracks */
    p.orthantwise_c = o->c1;
    p.orthantwise_start = 0;
    p.orthantwise_end = (int)f->n;
    p.linesearch = LBFGS_LINESEARCH_BACKTRACKING;
  }
  c.G = G;
  c.f = f;
  c.dev = dev;
  c.o = o;
  c.comm = comm;
  c.first = 1;
  if (dev && !(c.dev_counts = calloc(2 * (size_t)f->L + 1, sizeof *c.dev_counts))) {
    st = VT_ENOMEM;
    goto fail;
  }
  if (ck) { /* lbfgs.c, with liblbfgs's parameters, from the checkpoint when there is one */
    vt_lbfgs_init(&L, f->n);
    L.m = p.m;
    L.epsilon = p.epsilon;
    L.past = p.past;
    L.delta = p.delta;
    L.max_iterations = p.max_iterations;
    L.max_linesearch = p.max_linesearch;
    L.linesearch = p.linesearch; /* the same numbers */
    L.min_step = p.min_step;
    L.max_step = p.max_step;
    L.ftol = p.ftol;
    L.wolfe = p.wolfe;
    L.gtol = p.gtol;
    L.xtol = p.xtol;
    L.c1 = p.orthantwise_c;
    c.ck = ck;
    c.err = err;
    c.errlen = errlen;
    st = vt_lbfgs_alloc(&L) ? vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory") : VT_OK;
    if (st == VT_OK) {
      memcpy(L.x, x, (size_t)f->n * sizeof *L.x);
      st = resume(&L, &c, &resumed);
    }
    if (comm) { /* every process resumed alike, or all stop here */
      int64_t v[2] = {st != VT_OK, resumed};
      if (comm->sum_i64(comm->ctx, v, 2) != 0 || (st == VT_OK && (v[0] || v[1] % comm->size))) {
        st = VT_ECANCELED;
        goto fail;
      }
    }
    if (st != VT_OK) goto done;
  }
  double *xv = ck ? L.x : x; /* the iterate */
  c.t_start = c.t_iter = vt_clock_seconds();
  if (resumed) { /* iteration 0 and those the checkpoint holds were reported */
    c.first = 0;
    r->initial_loss = c.x0_loss;
  } else { /* iteration 0: the starting point's objective, reported before the first step */
    double gnorm = 0;
    c.f0 = evaluate(&c, xv, g0, (int)f->n, 0);
    for (int64_t i = 0; i < f->n; i++) gnorm += g0[i] * g0[i];
    if ((st = c.fail) != VT_OK) goto fail;
    c.g0 = g0;
    r->initial_loss = c.x0_loss;
    if (report(&c, xv, c.x0_loss, sqrt(gnorm), 0, 0, f->n)) {
      if ((st = c.fail) != VT_OK) goto fail;
      if (c.nonfinite) goto nonfinite;
      r->loss = c.x0_loss;
      r->stop = "stopped by the callback";
      goto copy;
    }
  }
  lbfgsfloatval_t fx = 0;
  int ret = LBFGS_SUCCESS;
  if (f->n > 0 && ck) {
    ret = vt_lbfgs_run(&L, eval_own, progress_own, boundary, &c);
    fx = L.fx;
  } else if (f->n > 0) {
    ret = lbfgs((int)f->n, x, &fx, evaluate, progress, &c, &p);
  }
  if (c.fail == VT_OK && ret == LBFGSERR_OUTOFMEMORY) c.fail = VT_ENOMEM;
  if ((st = c.fail) != VT_OK) goto fail;
  if ((st = c.ck_fail) != VT_OK) goto done;
  if (c.nonfinite) goto nonfinite;
  r->stop = c.stopped ? "stopped by the callback" : stop_reason(ret);
  if (!r->stop) {
    st = vt_fail_into(err, errlen, VT_EINVAL, "train: liblbfgs refused the parameters (%d)", ret);
    goto done;
  }
  r->loss = fx;
  r->iterations = c.iters;
copy:
  for (int64_t i = 0; i < f->n; i++) w[i] = xv[i];
  r->seconds = vt_clock_seconds() - c.t_start - c.cb_time;
  goto done;
nonfinite:
  st = vt_fail_into(err, errlen, VT_EINVAL,
                    "train: %s is not finite at iteration %d: the values, the weights of --init or "
                    "c1/c2 are too large for double arithmetic",
                    c.nonfinite, (int)c.nonfinite_at);
  goto done;
fail:
  st = vt_fail_into(err, errlen, st,
                    st == VT_ECANCELED ? "train: a collective call or another process failed"
                                       : "train: out of memory");
done:
  vt_lbfgs_free(&L);
  free(c.dev_counts);
  lbfgs_free(x);
  lbfgs_free(g0);
  vt_crf_grad_destroy(G);
  return st;
}
