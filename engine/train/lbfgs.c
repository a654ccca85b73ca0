/* engine/train/lbfgs.c: L-BFGS / OWL-QN with the caller's state (lbfgs.h).
 *
 * Written after liblbfgs 1.10's algorithm (Nocedal's two-loop recursion; More and Thuente's line
 * search with its trial-interval update; Andrew and Gao's orthant-wise variant): each vector
 * operation is a plain loop in index order, as liblbfgs's portable arithmetic, and each scalar
 * formula keeps its order of operations, so that the doubles are the same. */
#include "train/lbfgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- vector arithmetic, in index order ---- */

static double dot(const double *a, const double *b, int64_t n) {
  double s = 0.;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

static double norm2(const double *a, int64_t n) { return sqrt(dot(a, a, n)); }

static void copy(double *y, const double *x, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = x[i];
}

static void negate(double *y, const double *x, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = -x[i];
}

/* y += c x */
static void axpy(double *y, const double *x, double c, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += c * x[i];
}

static void diff(double *z, const double *x, const double *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) z[i] = x[i] - y[i];
}

static void scale(double *y, double c, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] *= c;
}

static double min2(double a, double b) { return a <= b ? a : b; }
static double max2(double a, double b) { return a >= b ? a : b; }

/* ---- OWL-QN ---- */

static double x1norm(const double *x, int64_t n) {
  double s = 0.;
  for (int64_t i = 0; i < n; i++) s += fabs(x[i]);
  return s;
}

/* The pseudo-gradient of f + c |x|_1 at x. */
static void pseudo_gradient(double *pg, const double *x, const double *g, int64_t n, double c) {
  for (int64_t i = 0; i < n; i++) {
    if (x[i] < 0.)
      pg[i] = g[i] - c;
    else if (0. < x[i])
      pg[i] = g[i] + c;
    else if (g[i] < -c)
      pg[i] = g[i] + c; /* the right partial derivative */
    else if (c < g[i])
      pg[i] = g[i] - c; /* the left one */
    else
      pg[i] = 0.;
  }
}

/* Zeroes the d[i] whose sign differs from sign[i]'s (or either is 0). */
static void project(double *d, const double *sign, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (d[i] * sign[i] <= 0) d[i] = 0;
}

/* ---- line searches: from xp (gradient gp) along s with *stp; x, *f, g the point reached ---- */

typedef struct search {
  vt_lbfgs *L;
  vt_lbfgs_eval_fn eval;
  void *ctx;
} search;

static int backtracking(const search *q, double *f, double *stp, const double *gp) {
  vt_lbfgs *L = q->L;
  const int64_t n = L->n;
  double *x = L->x, *g = L->g;
  const double *s = L->d, *xp = L->xp;
  int count = 0;
  double width;
  (void)gp;
  if (*stp <= 0.) return VT_LBFGSERR_INVALIDPARAMETERS;
  const double dginit = dot(g, s, n);
  if (0 < dginit) return VT_LBFGSERR_INCREASEGRADIENT;
  const double finit = *f, dgtest = L->ftol * dginit;
  for (;;) {
    copy(x, xp, n);
    axpy(x, s, *stp, n);
    *f = q->eval(q->ctx, x, g, n, *stp);
    ++count;
    if (*f > finit + *stp * dgtest) {
      width = 0.5;
    } else {
      if (L->linesearch == VT_LBFGS_ARMIJO) return count;
      const double dg = dot(g, s, n);
      if (dg < L->wolfe * dginit) {
        width = 2.1;
      } else {
        if (L->linesearch == VT_LBFGS_WOLFE) return count;
        if (dg > -L->wolfe * dginit)
          width = 0.5;
        else
          return count; /* the strong Wolfe condition */
      }
    }
    if (*stp < L->min_step) return VT_LBFGSERR_MINIMUMSTEP;
    if (*stp > L->max_step) return VT_LBFGSERR_MAXIMUMSTEP;
    if (L->max_linesearch <= count) return VT_LBFGSERR_MAXIMUMLINESEARCH;
    *stp *= width;
  }
}

/* OWL-QN's: gp is the pseudo-gradient at xp. */
static int backtracking_owlqn(const search *q, double *f, double *stp, const double *gp) {
  vt_lbfgs *L = q->L;
  const int64_t n = L->n;
  double *x = L->x, *g = L->g, *wp = L->w;
  const double *s = L->d, *xp = L->xp;
  int count = 0;
  const double finit = *f;
  if (*stp <= 0.) return VT_LBFGSERR_INVALIDPARAMETERS;
  for (int64_t i = 0; i < n; i++) wp[i] = xp[i] == 0. ? -gp[i] : xp[i]; /* the orthant */
  for (;;) {
    copy(x, xp, n);
    axpy(x, s, *stp, n);
    project(x, wp, n);
    *f = q->eval(q->ctx, x, g, n, *stp);
    *f += x1norm(x, n) * L->c1;
    ++count;
    double dgtest = 0.;
    for (int64_t i = 0; i < n; i++) dgtest += (x[i] - xp[i]) * gp[i];
    if (*f <= finit + L->ftol * dgtest) return count;
    if (*stp < L->min_step) return VT_LBFGSERR_MINIMUMSTEP;
    if (*stp > L->max_step) return VT_LBFGSERR_MAXIMUMSTEP;
    if (L->max_linesearch <= count) return VT_LBFGSERR_MAXIMUMLINESEARCH;
    *stp *= 0.5;
  }
}

/* More and Thuente's trial-interval update: the best step x (fx, dx), the other end y (fy, dy),
 * the trial t (ft, dt); sets the next trial in *t. 0, or a VT_LBFGSERR code.
 *
 * liblbfgs is built with -ffast-math (its configure script adds it), and the compiler rewrites
 * this function's formulas: 1/s multiplies instead of dividing by s, terms are regrouped and
 * differences such as (x + d r) - x become d r. The formulas below are those rewritten forms,
 * operation for operation (GCC 12's optimized tree of liblbfgs 1.10, as Debian builds it), so
 * that the steps are liblbfgs's to the last bit; the other functions of this file compile to
 * the same operations either way. */
static int trial_update(double *x, double *fx, double *dx, double *y, double *fy, double *dy,
                        double *t, const double *ft, const double *dt, const double tmin,
                        const double tmax, int *brackt) {
  const double T = *t, DT = *dt, DX = *dx, FT = *ft;
  const double dtdx = DT * DX;
  const double sdt = signbit(DX) ? -DT : DT; /* dt with dx's sign multiplied in */
  const int dsign = sdt < 0.;
  int bound;
  double newt;
  if (*brackt) {
    if (T <= min2(*x, *y) || max2(*x, *y) <= T) return VT_LBFGSERR_OUTOFINTERVAL;
    if (0. <= DX * (T - *x)) return VT_LBFGSERR_INCREASEGRADIENT;
    if (tmax < tmin) return VT_LBFGSERR_INCORRECT_TMINMAX;
  }
  const double X = *x, FX = *fx;
  if (FX < FT || dsign || fabs(DT) < fabs(DX)) {
    /* the cubic through (x, fx, dx) and (t, ft, dt) */
    const double d = T - X, df = FX - FT, A = DX + df * 3.0 / d, theta = DT + A;
    const double s = max2(fabs(theta), max2(fabs(DT), fabs(DX))), rs = 1.0 / s;
    const double a = theta * rs, under = a * a - dtdx * (rs * rs);
    if (FX < FT) { /* 1: a higher value: bracketed; the cubic's or the mean with the quadratic */
      *brackt = 1;
      bound = 1;
      double gamma = sqrt(under) * s;
      if (X > T) gamma = -gamma;
      const double g1 = gamma - DX, r = (g1 + theta) / (g1 + (DT + gamma)), dr = d * r;
      const double mc = X + dr, qd = DX * 0.5 / (DX + df / d) * d;
      newt = fabs(dr) < fabs(qd) ? mc : (X + qd - mc) * 0.5 + mc;
    } else if (dsign) { /* 2: lower, opposite slopes: bracketed; the cubic's or the secant's */
      *brackt = 1;
      bound = 0;
      double gamma = sqrt(under) * s;
      if (X > T) gamma = -gamma;
      const double g1 = gamma - DX, r = (g1 + theta) / (g1 + (DT + gamma));
      const double mc = X + d * r, m2 = DT / (DT - DX) * (X - T);
      newt = fabs(mc - T) > fabs(m2) ? mc : m2 + T;
    } else { /* 3: lower, same slopes, shrinking: the cubic's (or a bound) or the secant's */
      bound = 1;
      double gamma = sqrt(max2(under, 0.0)) * s;
      if (X < T) gamma = -gamma;
      const double r = (A + gamma) / (gamma * 2.0 + (DX - DT));
      double mc, tm; /* the cubic's step, and t - it */
      if (r < 0. && gamma != 0.) {
        tm = d * r;
        mc = T - tm;
      } else {
        mc = a < 0 ? tmax : tmin;
        tm = T - mc;
      }
      const double m2 = DT / (DT - DX) * (X - T), mq = m2 + T;
      if (*brackt)
        newt = fabs(tm) < fabs(m2) ? mc : mq;
      else
        newt = fabs(tm) > fabs(m2) ? mc : mq;
    }
  } else { /* 4: lower, same slopes, not shrinking: the cubic through t and y, or a bound */
    bound = 0;
    if (*brackt) {
      const double d = *y - T, B = (FT - *fy) * 3.0 / d + *dy, theta = DT + B;
      const double s = max2(fabs(theta), max2(fabs(*dy), fabs(DT))), rs = 1.0 / s;
      const double a = theta * rs;
      double gamma = sqrt(a * a - rs * rs * (DT * *dy)) * s;
      if (*y < T) gamma = -gamma;
      const double r = (gamma + B) / (*dy + gamma * 2.0 - DT);
      newt = d * r + T;
    } else {
      newt = X < T ? tmax : tmin;
    }
  }
  if (FX < FT) { /* a: y <- t */
    *y = T;
    *fy = FT;
    *dy = DT;
  } else {
    if (dsign) { /* c: y <- x */
      *y = X;
      *fy = FX;
      *dy = DX;
    }
    *x = T; /* b and c: x <- t */
    *fx = FT;
    *dx = DT;
  }
  if (tmax < newt) newt = tmax;
  if (newt < tmin) newt = tmin;
  if (*brackt && bound) { /* not too close to the far end */
    const double mq = *x + (*y - *x) * 0.66;
    if (*x < *y) {
      if (mq < newt) newt = mq;
    } else {
      if (newt < mq) newt = mq;
    }
  }
  *t = newt;
  return 0;
}

static int more_thuente(const search *q, double *f, double *stp, const double *gp) {
  vt_lbfgs *L = q->L;
  const int64_t n = L->n;
  double *x = L->x, *g = L->g;
  const double *s = L->d, *xp = L->xp;
  int count = 0, brackt = 0, stage1 = 1, uinfo = 0;
  double dg, stx, fx, dgx, sty, fy, dgy, fxm, dgxm, fym, dgym, fm, dgm, ftest1, stmin, stmax;
  (void)gp;
  if (*stp <= 0.) return VT_LBFGSERR_INVALIDPARAMETERS;
  const double dginit = dot(g, s, n);
  if (0 < dginit) return VT_LBFGSERR_INCREASEGRADIENT;
  const double finit = *f, dgtest = L->ftol * dginit;
  double width = L->max_step - L->min_step, prev_width = 2.0 * width;
  stx = sty = 0.;
  fx = fy = finit;
  dgx = dgy = dginit;
  for (;;) {
    if (brackt) {
      stmin = min2(stx, sty);
      stmax = max2(stx, sty);
    } else {
      stmin = stx;
      stmax = *stp + 4.0 * (*stp - stx);
    }
    if (*stp < L->min_step) *stp = L->min_step;
    if (L->max_step < *stp) *stp = L->max_step;
    if ((brackt &&
         ((*stp <= stmin || stmax <= *stp) || L->max_linesearch <= count + 1 || uinfo != 0)) ||
        (brackt && (stmax - stmin <= L->xtol * stmax)))
      *stp = stx; /* an unusual end: the best step so far */
    copy(x, xp, n);
    axpy(x, s, *stp, n);
    *f = q->eval(q->ctx, x, g, n, *stp);
    dg = dot(g, s, n);
    ftest1 = finit + *stp * dgtest;
    ++count;
    if (brackt && ((*stp <= stmin || stmax <= *stp) || uinfo != 0))
      return VT_LBFGSERR_ROUNDING_ERROR;
    if (*stp == L->max_step && *f <= ftest1 && dg <= dgtest) return VT_LBFGSERR_MAXIMUMSTEP;
    if (*stp == L->min_step && (ftest1 < *f || dgtest <= dg)) return VT_LBFGSERR_MINIMUMSTEP;
    if (brackt && (stmax - stmin) <= L->xtol * stmax) return VT_LBFGSERR_WIDTHTOOSMALL;
    if (L->max_linesearch <= count) return VT_LBFGSERR_MAXIMUMLINESEARCH;
    if (*f <= ftest1 && fabs(dg) <= L->gtol * (-dginit)) return count;
    if (stage1 && *f <= ftest1 && min2(L->ftol, L->gtol) * dginit <= dg) stage1 = 0;
    if (stage1 && ftest1 < *f && *f <= fx) { /* the modified function predicts the step */
      fm = *f - *stp * dgtest;
      fxm = fx - stx * dgtest;
      fym = fy - sty * dgtest;
      dgm = dg - dgtest;
      dgxm = dgx - dgtest;
      dgym = dgy - dgtest;
      uinfo =
          trial_update(&stx, &fxm, &dgxm, &sty, &fym, &dgym, stp, &fm, &dgm, stmin, stmax, &brackt);
      fx = fxm + stx * dgtest;
      fy = fym + sty * dgtest;
      dgx = dgxm + dgtest;
      dgy = dgym + dgtest;
    } else {
      uinfo = trial_update(&stx, &fx, &dgx, &sty, &fy, &dgy, stp, f, &dg, stmin, stmax, &brackt);
    }
    if (brackt) { /* force a sufficient decrease of the interval */
      if (0.66 * prev_width <= fabs(sty - stx)) *stp = stx + 0.5 * (sty - stx);
      prev_width = width;
      width = fabs(sty - stx);
    }
  }
}

/* ---- the run ---- */

void vt_lbfgs_init(vt_lbfgs *L, int64_t n) {
  memset(L, 0, sizeof *L);
  L->n = n;
  L->m = 6;
  L->epsilon = 1e-5;
  L->past = 0;
  L->delta = 1e-5;
  L->max_iterations = 0;
  L->linesearch = VT_LBFGS_MORETHUENTE;
  L->max_linesearch = 40;
  L->min_step = 1e-20;
  L->max_step = 1e20;
  L->ftol = 1e-4;
  L->wolfe = 0.9;
  L->gtol = 0.9;
  L->xtol = 1.0e-16;
  L->k = 1;
}

int vt_lbfgs_alloc(vt_lbfgs *L) {
  const size_t n = (size_t)(L->n > 0 ? L->n : 1), m = (size_t)L->m;
  L->x = calloc(n, sizeof *L->x);
  L->g = calloc(n, sizeof *L->g);
  L->d = calloc(n, sizeof *L->d);
  L->xp = calloc(n, sizeof *L->xp);
  L->gp = calloc(n, sizeof *L->gp);
  L->w = calloc(n, sizeof *L->w);
  L->pg = L->c1 != 0. ? calloc(n, sizeof *L->pg) : NULL;
  L->s = calloc(m * n, sizeof *L->s);
  L->y = calloc(m * n, sizeof *L->y);
  L->ys = calloc(m, sizeof *L->ys);
  L->alpha = calloc(m, sizeof *L->alpha);
  L->pf = L->past > 0 ? calloc((size_t)L->past, sizeof *L->pf) : NULL;
  if (!L->x || !L->g || !L->d || !L->xp || !L->gp || !L->w || (L->c1 != 0. && !L->pg) || !L->s ||
      !L->y || !L->ys || !L->alpha || (L->past > 0 && !L->pf)) {
    vt_lbfgs_free(L);
    return -1;
  }
  return 0;
}

void vt_lbfgs_free(vt_lbfgs *L) {
  free(L->x);
  free(L->g);
  free(L->d);
  free(L->xp);
  free(L->gp);
  free(L->w);
  free(L->pg);
  free(L->s);
  free(L->y);
  free(L->ys);
  free(L->alpha);
  free(L->pf);
  L->x = L->g = L->d = L->xp = L->gp = L->w = L->pg = L->s = L->y = L->ys = L->alpha = L->pf = NULL;
}

/* The gradient the direction and the tests use: g, or OWL-QN's pseudo-gradient. */
static const double *grad_of(const vt_lbfgs *L) { return L->c1 != 0. ? L->pg : L->g; }

int vt_lbfgs_run(vt_lbfgs *L, vt_lbfgs_eval_fn eval, vt_lbfgs_progress_fn progress,
                 int (*boundary)(void *ctx, const vt_lbfgs *L), void *ctx) {
  const int64_t n = L->n;
  const int m = L->m;
  double *x = L->x, *g = L->g, *d = L->d;
  double xnorm, gnorm, ys, yy, beta;
  const search q = {L, eval, ctx};
  int (*linesearch)(const search *, double *, double *, const double *) =
      L->c1 != 0.                             ? backtracking_owlqn
      : L->linesearch == VT_LBFGS_MORETHUENTE ? more_thuente
                                              : backtracking;
  if (!L->started) { /* the start, its direction and step */
    L->fx = eval(ctx, x, g, n, 0);
    if (L->c1 != 0.) {
      L->fx += x1norm(x, n) * L->c1;
      pseudo_gradient(L->pg, x, g, n, L->c1);
    }
    if (L->pf) L->pf[0] = L->fx;
    negate(d, grad_of(L), n);
    xnorm = norm2(x, n);
    gnorm = norm2(grad_of(L), n);
    if (xnorm < 1.0) xnorm = 1.0;
    if (gnorm / xnorm <= L->epsilon) return VT_LBFGS_ALREADY_MINIMIZED;
    L->step = 1.0 / norm2(d, n);
    L->k = 1;
    L->end = 0;
    L->started = 1;
  } else if (L->c1 != 0.) {
    pseudo_gradient(L->pg, x, g, n, L->c1); /* scratch: made again from x and g */
  }
  for (;;) {
    copy(L->xp, x, n);
    copy(L->gp, g, n);
    const int ls = linesearch(&q, &L->fx, &L->step, L->c1 != 0. ? L->pg : L->gp);
    if (L->c1 != 0.) pseudo_gradient(L->pg, x, g, n, L->c1);
    if (ls < 0) { /* back to the last point */
      copy(x, L->xp, n);
      copy(g, L->gp, n);
      return ls;
    }
    xnorm = norm2(x, n);
    gnorm = norm2(grad_of(L), n);
    const int k = L->k;
    if (progress) {
      const int ret = progress(ctx, x, g, L->fx, xnorm, gnorm, L->step, n, k, ls);
      if (ret) return ret;
    }
    if (xnorm < 1.0) xnorm = 1.0;
    if (gnorm / xnorm <= L->epsilon) return VT_LBFGS_SUCCESS;
    if (L->pf) {
      if (L->past <= k) { /* the relative improvement over `past` iterations */
        const double rate = (L->pf[k % L->past] - L->fx) / L->fx;
        if (rate < L->delta) return VT_LBFGS_STOP;
      }
      L->pf[k % L->past] = L->fx;
    }
    if (L->max_iterations != 0 && L->max_iterations < k + 1) return VT_LBFGSERR_MAXIMUMITERATION;
    /* s = x - xp, y = g - gp into slot `end` */
    double *sk = L->s + (size_t)L->end * (size_t)n, *yk = L->y + (size_t)L->end * (size_t)n;
    diff(sk, x, L->xp, n);
    diff(yk, g, L->gp, n);
    ys = dot(yk, sk, n);
    yy = dot(yk, yk, n);
    L->ys[L->end] = ys;
    const int bound = m <= k ? m : k;
    L->k = k + 1;
    L->end = (L->end + 1) % m;
    /* the two-loop recursion: d = -H g */
    negate(d, grad_of(L), n);
    int j = L->end;
    for (int i = 0; i < bound; i++) {
      j = (j + m - 1) % m;
      const double *sj = L->s + (size_t)j * (size_t)n, *yj = L->y + (size_t)j * (size_t)n;
      L->alpha[j] = dot(sj, d, n);
      L->alpha[j] /= L->ys[j];
      axpy(d, yj, -L->alpha[j], n);
    }
    scale(d, ys / yy, n);
    for (int i = 0; i < bound; i++) {
      const double *sj = L->s + (size_t)j * (size_t)n, *yj = L->y + (size_t)j * (size_t)n;
      beta = dot(yj, d, n);
      beta /= L->ys[j];
      axpy(d, sj, L->alpha[j] - beta, n);
      j = (j + 1) % m;
    }
    if (L->c1 != 0.) /* stay in the orthant */
      for (int64_t i = 0; i < n; i++)
        if (d[i] * L->pg[i] >= 0) d[i] = 0;
    L->step = 1.0;
    if (boundary) {
      const int ret = boundary(ctx, L);
      if (ret) return ret;
    }
  }
}
