/* engine/train/crfpp_train.c: CRF++'s objective and stopping rule over liblbfgs, its error
 * counts by crf_report.h's Viterbi pass (crfpp_train.h). */
#define _POSIX_C_SOURCE 200809L
#include "train/crfpp_train.h"

#include <lbfgs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "train/blas.h"
#include "train/crf_report.h"
#include "train/crfpp_lattice.h"

vt_status vt_crfpp_feats(vt_crf_feats *f, int32_t n_attr, int32_t L, int transitions) {
  const size_t Ls = (size_t)L;
  memset(f, 0, sizeof *f);
  f->L = L;
  f->n_attr = n_attr;
  f->n_state = (int64_t)n_attr * L;
  f->st_off = malloc(((size_t)n_attr + 1) * sizeof *f->st_off);
  f->st_label = malloc((size_t)(f->n_state ? f->n_state : 1) * sizeof *f->st_label);
  f->tr_id = malloc((L > 0 ? Ls * Ls : 1) * sizeof *f->tr_id);
  if (!f->st_off || !f->st_label || !f->tr_id) {
    vt_crf_feats_free(f);
    return VT_ENOMEM;
  }
  for (int32_t a = 0; a <= n_attr; a++) f->st_off[a] = (int64_t)a * L;
  for (int64_t q = 0; q < f->n_state; q++) f->st_label[q] = (int32_t)(q % L);
  f->n_trans = transitions ? (int64_t)Ls * (int64_t)Ls : 0;
  for (size_t i = 0; i < Ls * Ls; i++) f->tr_id[i] = transitions ? (int32_t)(f->n_state + i) : -1;
  f->n = f->n_state + f->n_trans;
  return VT_OK;
}

double vt_crfpp_objective(vt_crf_grad *G, const vt_crf_feats *f, const double *w, double *g,
                          double C, int l1) {
  double obj = vt_crf_grad_eval(G, w, g);
  double reg = 0;
  if (l1) {
    for (int64_t i = 0; i < f->n; i++) reg += fabs(w[i]);
    return obj + reg / C;
  }
  for (int64_t i = 0; i < f->n; i++) {
    reg += w[i] * w[i];
    if (g) g[i] += w[i] / C;
  }
  return obj + reg / (2 * C);
}

/* What the liblbfgs callbacks share. */
typedef struct run_ctx {
  const vt_crf_data *d;
  const vt_crf_feats *f;
  const vt_crfpp_learn_opts *o;
  vt_crf_grad *G;
  const vt_crfpp_problem *P; /* instead of d, f and G: a problem in crf_learn's weight ids */
  vt_crfpp_lattice *lat;     /* its scratch */
  double *last;              /* the point last evaluated */
  double last_obj;           /* the objective there */
  double *last_g;            /* the gradient there (liblbfgs's form) */
  double last_fx;            /* the smooth part there */
  int32_t iter;              /* evaluations done */
  int converge;              /* evaluations running whose relative change was below eta */
  int capture;               /* the cap is reached: the next point asked for is the result */
  int done;                  /* the stopping rule fired: evaluations now cost nothing */
  const char *stop;          /* why */
  vt_status fail;            /* an evaluation failed, or the callback stopped the run */
  const char *fail_what;
} run_ctx;

static lbfgsfloatval_t evaluate(void *inst, const lbfgsfloatval_t *x, lbfgsfloatval_t *g,
                                const int n, const lbfgsfloatval_t step) {
  (void)step;
  run_ctx *c = inst;
  if (c->capture) { /* crf_learn's last step moves its weights to the next point unevaluated */
    memcpy(c->last, x, (size_t)n * sizeof *x);
    c->capture = 0;
    c->done = 1;
  }
  if (c->done) { /* stopped: hand back the last values until liblbfgs gives up */
    memcpy(g, c->last_g, (size_t)n * sizeof *g);
    return c->last_fx;
  }
  const double t0 = vt_clock_seconds();
  const int l1 = c->o->algorithm == VT_CRFPP_L1;
  const double C = c->o->cost;
  int64_t te = 0, se = 0;
  double obj = c->P ? vt_crfpp_problem_objective(c->P, c->lat, x, g, C, l1, &te, &se)
                    : vt_crfpp_objective(c->G, c->f, x, g, C, l1);
  if (!c->P && isnan(obj) && vt_crf_grad_status(c->G) != VT_OK) {
    c->fail = vt_crf_grad_status(c->G);
    c->fail_what = c->fail == VT_ENOMEM ? "out of memory" : "the gradient failed";
  } else if (!isfinite(obj)) {
    c->fail = VT_EINVAL;
    c->fail_what = "the objective is not finite: the cost (-c) is too large for double arithmetic";
  }
  if (c->fail == VT_OK && !c->P) {
    vt_crf_errors(c->d, c->f, x, c->o->threads, &te, &se);
    if (te < 0) {
      c->fail = VT_ENOMEM;
      c->fail_what = "out of memory";
    }
  }
  if (c->fail != VT_OK) { /* stop at once: liblbfgs is handed a flat point */
    c->done = 1;
    memset(g, 0, (size_t)n * sizeof *g);
    memcpy(c->last_g, g, (size_t)n * sizeof *g);
    c->last_fx = 0;
    return 0;
  }
  vt_crfpp_iteration it;
  memset(&it, 0, sizeof it);
  it.iter = c->iter;
  const int64_t n_tok = c->P ? c->P->n_tok : c->d->n_tok;
  const int64_t n_sent = c->P ? c->P->n_sent : c->d->n_sent;
  it.terr = n_tok ? (double)te / (double)n_tok : 0;
  it.serr = n_sent ? (double)se / (double)n_sent : 0;
  it.act = n;
  if (l1) {
    it.act = 0;
    for (int i = 0; i < n; i++) it.act += x[i] != 0;
  }
  it.obj = obj;
  it.diff = c->iter == 0 ? 1.0 : fabs(c->last_obj - obj) / c->last_obj;
  memcpy(c->last, x, (size_t)n * sizeof *x);
  c->last_obj = obj;
  c->iter++;
  c->converge = it.diff < c->o->eta ? c->converge + 1 : 0;
  it.seconds = vt_clock_seconds() - t0;
  if (c->o->on_iteration && c->o->on_iteration(c->o->ctx, &it)) {
    c->fail = VT_ECANCELED;
    c->fail_what = "stopped by the callback";
  }
  if (c->fail != VT_OK || c->iter >= c->o->maxiter || c->converge == 3) {
    c->stop = c->fail != VT_OK   ? c->fail_what
              : c->converge == 3 ? "converged (diff below eta three times)"
                                 : "iteration cap reached";
    /* at the cap crf_learn still takes the step to the next point (kept unevaluated); on
     * convergence it keeps this one */
    if (c->fail == VT_OK && c->converge != 3)
      c->capture = 1;
    else
      c->done = 1;
    memcpy(c->last_g, g, (size_t)n * sizeof *g);
  }
  /* liblbfgs minimises the smooth part; OWL-QN adds |x|_1 / C itself */
  double smooth = obj;
  if (l1) {
    double reg = 0;
    for (int i = 0; i < n; i++) reg += fabs(x[i]);
    smooth = obj - reg / C;
  }
  c->last_fx = smooth;
  return smooth;
}

static int progress(void *inst, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g,
                    const lbfgsfloatval_t fx, const lbfgsfloatval_t xnorm,
                    const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n, int k, int ls) {
  (void)x, (void)g, (void)fx, (void)xnorm, (void)gnorm, (void)step, (void)n, (void)k, (void)ls;
  const run_ctx *c = inst;
  return c->done;
}

/* Why liblbfgs stopped on its own, in words. */
static const char *lbfgs_reason(int ret) {
  switch (ret) {
  case LBFGS_SUCCESS: return "converged (gradient norm)";
  case LBFGS_ALREADY_MINIMIZED: return "already minimized";
  case LBFGSERR_ROUNDING_ERROR: return "rounding errors prevent progress";
  case LBFGSERR_MAXIMUMLINESEARCH: return "line search evaluation cap reached";
  case LBFGSERR_MINIMUMSTEP: return "line search step below its minimum";
  case LBFGSERR_MAXIMUMSTEP: return "line search step above its maximum";
  case LBFGSERR_WIDTHTOOSMALL: return "line search interval too small";
  case LBFGSERR_INCREASEGRADIENT: return "the gradient increased (line search)";
  default: return "the line search failed";
  }
}

/* Runs liblbfgs over c's objective from w (n weights; the result in w). Returns as
 * vt_crfpp_train. */
static vt_status lbfgs_run(run_ctx *c, int n, double *w, const vt_crfpp_learn_opts *o,
                           vt_crfpp_learn_report *r, char *err, size_t errlen) {
  vt_status st = VT_OK;
  lbfgsfloatval_t *x = NULL;
  const size_t bytes = (size_t)(n ? n : 1) * sizeof(double);
  if (!(x = lbfgs_malloc(n ? n : 1)) || !(c->last = malloc(bytes)) ||
      !(c->last_g = malloc(bytes))) {
    st = vt_fail_into(err, errlen, VT_ENOMEM, "crf_learn: out of memory");
    goto done;
  }
  const double t0 = vt_clock_seconds();
  c->o = o;
  memcpy(x, w, (size_t)n * sizeof *x);
  memcpy(c->last, w, (size_t)n * sizeof *x);
  lbfgs_parameter_t p;
  lbfgs_parameter_init(&p);
  p.m = 5;          /* crf_learn's msize */
  p.epsilon = 1e-7; /* crf_learn's ||g|| / max(1, ||w||) test */
  p.past = 0;
  p.max_iterations = 0;
  p.max_linesearch = 20; /* crf_learn's maxfev */
  p.linesearch = LBFGS_LINESEARCH_MORETHUENTE;
  if (o->algorithm == VT_CRFPP_L1) {
    p.orthantwise_c = 1.0 / o->cost;
    p.orthantwise_start = 0;
    p.orthantwise_end = n;
    p.linesearch = LBFGS_LINESEARCH_BACKTRACKING;
  }
  lbfgsfloatval_t fx = 0;
  int ret = LBFGS_SUCCESS;
  if (o->maxiter > 0) ret = lbfgs(n, x, &fx, evaluate, progress, c, &p);
  if (c->fail != VT_OK) {
    st = vt_fail_into(err, errlen, c->fail, "crf_learn: %s at iteration %d", c->fail_what,
                      (int)c->iter);
    goto done;
  }
  if (ret == LBFGSERR_OUTOFMEMORY) {
    st = vt_fail_into(err, errlen, VT_ENOMEM, "crf_learn: out of memory");
    goto done;
  }
  if (ret == LBFGSERR_INVALIDPARAMETERS || ret == LBFGSERR_INVALID_N ||
      ret == LBFGSERR_INVALID_N_SSE || ret == LBFGSERR_INVALID_X_SSE) {
    st = vt_fail_into(err, errlen, VT_EINVAL, "crf_learn: liblbfgs refused the parameters (%d)",
                      ret);
    goto done;
  }
  /* crf_learn keeps the point it evaluated last */
  memcpy(w, c->last, (size_t)n * sizeof *w);
  r->iterations = c->iter;
  r->stop = c->stop ? c->stop : o->maxiter == 0 ? "iteration cap reached" : lbfgs_reason(ret);
  r->seconds = vt_clock_seconds() - t0;
done:
  lbfgs_free(x);
  free(c->last);
  free(c->last_g);
  return st;
}

/* Whether n weights are more than liblbfgs takes (then said in err). */
static int too_many(int64_t n, char *err, size_t errlen) {
  if (n <= INT32_MAX) return 0;
  vt_fail_into(err, errlen, VT_EINVAL, "crf_learn: %lld weights, liblbfgs takes at most %d",
               (long long)n, INT32_MAX);
  return 1;
}

vt_status vt_crfpp_train(const vt_crf_data *d, const vt_crf_feats *f, double *w,
                         const vt_crfpp_learn_opts *o, vt_crfpp_learn_report *r, char *err,
                         size_t errlen) {
  vt_status st = VT_OK;
  vt_crf_grad *G = NULL;
  run_ctx c;
  memset(&c, 0, sizeof c);
  if (too_many(f->n, err, errlen)) return VT_EINVAL;
  if ((st = vt_blas_load(err, errlen)) != VT_OK) return st;
  if ((st = vt_crf_grad_create(&G, d, f, o->threads, NULL)) != VT_OK)
    return vt_fail_into(err, errlen, st == VT_OK ? VT_ENOMEM : st,
                        st == VT_EINVAL ? "crf_learn: the corpus does not fit"
                                        : "crf_learn: out of memory");
  c.d = d;
  c.f = f;
  c.G = G;
  st = lbfgs_run(&c, (int)f->n, w, o, r, err, errlen);
  vt_crf_grad_destroy(G);
  return st;
}

vt_status vt_crfpp_train_problem(const vt_crfpp_problem *p, double *w, const vt_crfpp_learn_opts *o,
                                 vt_crfpp_learn_report *r, char *err, size_t errlen) {
  vt_status st = VT_OK;
  vt_crfpp_lattice lat;
  run_ctx c;
  memset(&c, 0, sizeof c);
  if (too_many(p->n, err, errlen)) return VT_EINVAL;
  if (vt_crfpp_lattice_init(&lat, p->L, p->max_T) != VT_OK)
    return vt_fail_into(err, errlen, VT_ENOMEM, "crf_learn: out of memory");
  c.P = p;
  c.lat = &lat;
  st = lbfgs_run(&c, (int)p->n, w, o, r, err, errlen);
  vt_crfpp_lattice_free(&lat);
  return st;
}
