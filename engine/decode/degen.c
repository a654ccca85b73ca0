/* engine/decode/degen.c: the degenerate lattice (see degen.h): allocation, rank-space emissions and
 * their suffix maxima, forward and backward passes with pruning, lower bounds, expansion. */
#include "decode/degen.h"

#include "decode/budget.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double dmax(double a, double b) { return a > b ? a : b; }

/* Score of a rank-space path, left to right, exactly as vt_path_score evaluates it. */
double vt_degen_path_score(const vt_degen *s, const int32_t *y) {
  const vt_bounds *b = s->bd;
  double v = b->Sr[y[0]] + s->Er[y[0]];
  for (int32_t t = 1; t < s->T; t++) {
    v = v + b->Ar[(size_t)y[t - 1] * s->ld + y[t]];
    v = v + s->Er[(size_t)t * s->le + y[t]];
  }
  return v + b->Fr[y[s->T - 1]];
}

/* The passes: generic code over the row operations of the kernels' level (s->ops). */

/* Applies the dead rule and the pruning test to the live active nodes [0, hi) of column t and
 * to its degenerate node (nothing when pruning is off), and lowers hi past the dead tail. */
static void column_prune(vt_degen *s, int32_t t) {
  if (!s->prune) return;
  const double cut = s->lb - s->slack;
  s->hi[t] = s->ops->row_prune(s->P + (size_t)t * s->ld, s->Er + (size_t)t * s->le,
                               s->Q + (size_t)t * s->ld, s->hi[t], cut, &s->pruned);
  if (s->deg[t]) {
    double e = s->Esuf[(size_t)t * s->K + vt_level_of(s->n[t])];
    double v = s->Pd[t] + e + s->Qd[t];
    if (v < cut || v == -INFINITY) {
      s->deg[t] = 0; /* every inactive label of the column is out: it stops expanding */
      s->pruned++;
    }
  }
}

/* One step of a pass on the max-plus kernel: out/arg over the nc live nodes of the column from
 * the np live values of the previous one (rows of M, stride ld). With no live previous node every
 * value is -inf with argument 0, as the kernel gives. */
static inline void maxplus_step(const vt_degen *s, const double *prev, int32_t np, const double *M,
                                double *out, int32_t *arg, int32_t nc) {
  if (np > 0) {
    s->kern->maxplus(prev, np, M, s->ld, NULL, nc, out, arg);
    return;
  }
  for (int32_t j = 0; j < nc; j++) {
    out[j] = -INFINITY;
    arg[j] = 0;
  }
}

/* Forward pass from column t0 >= 1 (columns before it are kept; t0 = 1 is a full pass):
 * recomputes P (and back pointers) column by column, prunes, and writes the best path into
 * s->path. Returns its score (-inf when the lattice has no finite path). */
static double forward(vt_degen *s, int32_t t0) {
  const vt_bounds *b = s->bd;
  const int32_t T = s->T, L = s->L, ld = s->ld, K = s->K;
  if (t0 <= 1) {
    for (int32_t j = 0; j < s->hi[0]; j++) s->P[j] = b->Sr[j];
    if (s->deg[0]) s->Pd[0] = b->s_suf[vt_level_of(s->n[0])];
    column_prune(s, 0);
    t0 = 1;
  }
  for (int32_t t = t0; t < T; t++) {
    /* Only the live prefixes [0, hi) take part: the nodes after them are dead (-inf). */
    const int32_t np = s->n[t - 1], hp = s->hi[t - 1], hc = s->hi[t];
    const double *Pp = s->P + (size_t)(t - 1) * ld, *Ep = s->Er + (size_t)(t - 1) * s->le;
    double *alpha = s->vec;
    s->ops->row_add(alpha, Pp, Ep, hp); /* dead: -inf stays -inf */
    double *P = s->P + (size_t)t * ld;
    int32_t *bp = s->ptr + (size_t)t * ld;
    maxplus_step(s, alpha, hp, b->Ar, P, bp, hc);
    if (s->deg[t - 1]) {
      const int32_t kp = vt_level_of(np);
      const double ad = s->Pd[t - 1] + s->Esuf[(size_t)(t - 1) * K + kp];
      if (ad != -INFINITY) s->ops->row_raise(P, bp, ad, b->from_max + (size_t)kp * L, np, hc);
    }
    if (s->deg[t]) {
      const int32_t kc = vt_level_of(s->n[t]);
      const double *to = b->to_max + (size_t)kc * L;
      double best = hp > 0 ? alpha[0] + to[0] : -INFINITY;
      int32_t arg = 0;
      for (int32_t i = 1; i < hp; i++) {
        double v = alpha[i] + to[i];
        if (v > best) {
          best = v;
          arg = i;
        }
      }
      if (s->deg[t - 1]) {
        const int32_t kp = vt_level_of(np);
        double v = s->Pd[t - 1] + s->Esuf[(size_t)(t - 1) * K + kp] + b->both_max[kp * K + kc];
        if (v > best) {
          best = v;
          arg = np;
        }
      }
      s->Pd[t] = best;
      s->ptrd[t] = arg;
    }
    column_prune(s, t);
  }
  /* Best final node: active ones first, the degenerate last (lowest index wins a tie). */
  const int32_t nl = s->n[T - 1];
  const double *P = s->P + (size_t)(T - 1) * ld, *E = s->Er + (size_t)(T - 1) * s->le;
  double best = -INFINITY;
  int32_t arg = -1;
  for (int32_t j = 0; j < s->hi[T - 1]; j++) {
    double v = P[j] + E[j] + b->Fr[j];
    if (v > best) {
      best = v;
      arg = j;
    }
  }
  if (s->deg[T - 1]) {
    const int32_t k = vt_level_of(nl);
    double v = s->Pd[T - 1] + s->Esuf[(size_t)(T - 1) * K + k] + b->f_suf[k];
    if (v > best) {
      best = v;
      arg = nl;
    }
  }
  if (arg < 0) return -INFINITY;
  for (int32_t t = T - 1; t >= 0; t--) {
    s->path[t] = arg;
    if (t > 0) arg = arg < s->n[t] ? s->ptr[(size_t)t * ld + arg] : s->ptrd[t];
  }
  return best;
}

/* Backward pass: the mirror image, recomputing Q (and next pointers) from the last column. */
static double backward(vt_degen *s) {
  const vt_bounds *b = s->bd;
  const int32_t T = s->T, L = s->L, ld = s->ld, K = s->K;
  {
    double *Q = s->Q + (size_t)(T - 1) * ld;
    for (int32_t j = 0; j < s->hi[T - 1]; j++) Q[j] = b->Fr[j];
    if (s->deg[T - 1]) s->Qd[T - 1] = b->f_suf[vt_level_of(s->n[T - 1])];
    column_prune(s, T - 1);
  }
  for (int32_t t = T - 2; t >= 0; t--) {
    const int32_t nx = s->n[t + 1], hx = s->hi[t + 1], hc = s->hi[t];
    const double *Qx = s->Q + (size_t)(t + 1) * ld, *Ex = s->Er + (size_t)(t + 1) * s->le;
    double *beta = s->vec;
    s->ops->row_add(beta, Qx, Ex, hx);
    double *Q = s->Q + (size_t)t * ld;
    int32_t *np = s->ptr + (size_t)t * ld;
    maxplus_step(s, beta, hx, b->Art, Q, np, hc);
    if (s->deg[t + 1]) {
      const int32_t kx = vt_level_of(nx);
      const double bd = s->Qd[t + 1] + s->Esuf[(size_t)(t + 1) * K + kx];
      if (bd != -INFINITY) s->ops->row_raise(Q, np, bd, b->to_max + (size_t)kx * L, nx, hc);
    }
    if (s->deg[t]) {
      const int32_t kc = vt_level_of(s->n[t]);
      const double *from = b->from_max + (size_t)kc * L;
      double best = hx > 0 ? beta[0] + from[0] : -INFINITY;
      int32_t arg = 0;
      for (int32_t j = 1; j < hx; j++) {
        double v = beta[j] + from[j];
        if (v > best) {
          best = v;
          arg = j;
        }
      }
      if (s->deg[t + 1]) {
        const int32_t kx = vt_level_of(nx);
        double v = s->Qd[t + 1] + s->Esuf[(size_t)(t + 1) * K + kx] + b->both_max[kc * K + kx];
        if (v > best) {
          best = v;
          arg = nx;
        }
      }
      s->Qd[t] = best;
      s->ptrd[t] = arg;
    }
    column_prune(s, t);
  }
  const int32_t n0 = s->n[0];
  const double *Q = s->Q, *E = s->Er;
  double best = -INFINITY;
  int32_t arg = -1;
  for (int32_t j = 0; j < s->hi[0]; j++) {
    double v = b->Sr[j] + E[j] + Q[j];
    if (v > best) {
      best = v;
      arg = j;
    }
  }
  if (s->deg[0]) {
    const int32_t k = vt_level_of(n0);
    double v = b->s_suf[k] + s->Esuf[k] + s->Qd[0];
    if (v > best) {
      best = v;
      arg = n0;
    }
  }
  if (arg < 0) return -INFINITY;
  for (int32_t t = 0; t < T; t++) {
    s->path[t] = arg;
    if (t + 1 < T) arg = arg < s->n[t] ? s->ptr[(size_t)t * ld + arg] : s->ptrd[t];
  }
  return best;
}

double vt_degen_forward(vt_degen *s) { return forward(s, 1); }

void vt_degen_slack_exact(vt_degen *s) {
  const vt_bounds *b = s->bd;
  int e;
  if (s->exact_tried || s->slack == 0) return;
  s->exact_tried = 1;
  (void)frexp(4.0 * s->mag, &e); /* 4 mag < 2^e: every sum is below 2^(q + 51) units */
  const int32_t q = e - 51;
  if (!isfinite(s->mag) || b->q_a < q || b->q_sf < q || q < -1000) return;
  const double scale = ldexp(1.0, -q);
  for (int32_t t = 0; t < s->T; t++)
    if (!s->ops->row_integral(s->Er + (size_t)t * s->le, s->L, scale)) return;
  s->slack = 0;
}

double vt_degen_forward_from(vt_degen *s, int32_t t0) { return forward(s, t0); }

double vt_degen_backward(vt_degen *s) { return backward(s); }

/* Raises lb with a real path made from the last pass's best path: each degenerate node is
 * replaced by the inactive label with the best emission there. Returns 1 if the path was
 * all active. */
int vt_degen_lb_raise(vt_degen *s) {
  int all_active = 1;
  for (int32_t t = 0; t < s->T; t++) {
    int32_t i = s->path[t];
    if (i < s->n[t]) {
      s->alt[t] = i;
    } else {
      all_active = 0;
      const double *E = s->Er + (size_t)t * s->le;
      s->alt[t] = s->n[t] + s->kern->argmax(E + s->n[t], s->L - s->n[t]);
    }
  }
  double v = vt_degen_path_score(s, s->alt);
  if (v > s->lb) s->lb = v;
  return all_active;
}

/* Greedy (beam 1) path: the initial lower bound. Each step is one row, cur + A[y][j] + E[t][j]
 * in the order of the path score, and an argmax. */
void vt_degen_lb_greedy(vt_degen *s) {
  const vt_bounds *b = s->bd;
  const int32_t L = s->L, ld = s->ld;
  double *v = s->vec;
  for (int32_t j = 0; j < L; j++) v[j] = b->Sr[j] + s->Er[j];
  int32_t y = s->kern->argmax(v, L);
  double cur = v[y];
  s->alt[0] = y;
  for (int32_t t = 1; t < s->T && cur != -INFINITY; t++) {
    vt_degen_row_step(s, v, cur, b->Ar + (size_t)y * ld, s->Er + (size_t)t * s->le, L);
    y = s->kern->argmax(v, L);
    cur = v[y];
    s->alt[t] = y;
  }
  s->lb = cur == -INFINITY ? -INFINITY : vt_degen_path_score(s, s->alt);
}

/* Rank-space emissions (E itself when the rank is the identity, else gathered into `buf`), their
 * suffix maxima at every level (segment maxima [2^k, 2^(k+1)) combined from the top), and the
 * rounding slack from the largest finite magnitudes. */
static void emissions_prepare(vt_degen *s, const vt_trans *tr, const double *E, double *buf) {
  const int32_t T = s->T, L = s->L, K = s->K;
  const vt_bounds *b = s->bd;
  if (b->Ar == tr->A) { /* identity rank */
    s->Er = E;
    s->le = L;
  } else {
    for (int32_t t = 0; t < T; t++)
      s->ops->gather(buf + (size_t)t * L, E + (size_t)t * L, tr->rank, L);
    s->Er = buf;
    s->le = L;
  }
  double mag = b->mag_sf + (double)(T > 1 ? T - 1 : 0) * b->mag_a;
  for (int32_t t = 0; t < T; t++) {
    const double *row = s->Er + (size_t)t * L;
    double *suf = s->Esuf + (size_t)t * K;
    double run = -INFINITY, lo = INFINITY, mx, mn;
    for (int32_t k = b->K - 1; k >= 0; k--) {
      int32_t a = (int32_t)1 << k, e = a * 2 < L ? a * 2 : L;
      if (e - a >= 8) {
        s->kern->range(row + a, e - a, &mx, &mn);
        run = dmax(run, mx);
        lo = mn < lo ? mn : lo;
      } else { /* short segments inline: a kernel call costs more than their few values */
        for (int32_t r = a; r < e; r++) {
          run = dmax(run, row[r]);
          lo = row[r] > -INFINITY && row[r] < lo ? row[r] : lo;
        }
      }
      suf[k] = run;
    }
    run = dmax(run, row[0]);
    lo = row[0] > -INFINITY && row[0] < lo ? row[0] : lo;
    /* The largest finite magnitude of the column: from its max and its finite min. */
    double m = 0;
    if (run > -INFINITY) m = dmax(m, fabs(run));
    if (lo < INFINITY) m = dmax(m, fabs(lo));
    mag += m;
  }
  s->mag = mag;
  s->exact_tried = 0;
  s->slack = mag * (4.0 * T + 16.0) * DBL_EPSILON;
}

/* Naive suffix bound (Huang et al. eq. 9, plus the end score): Q for the first forward pass. */
void vt_degen_q_naive(vt_degen *s) {
  const vt_bounds *b = s->bd;
  const int32_t T = s->T, ld = s->ld, K = s->K;
  double fmax = b->Fr[0], h;
  for (int32_t r = 1; r < s->L; r++) fmax = dmax(fmax, b->Fr[r]);
  h = fmax;
  for (int32_t t = T - 1; t >= 0; t--) {
    double *Q = s->Q + (size_t)t * ld;
    for (int32_t j = 0; j < s->n[t]; j++) Q[j] = h;
    s->Qd[t] = h;
    /* Max emission of column t: rank 0 or the suffix [1, L). */
    double em = s->Er[(size_t)t * s->le];
    if (b->K > 0) em = dmax(em, s->Esuf[(size_t)t * K]);
    h = h + b->a_max + em; /* finite or -inf: no term is +inf */
  }
}

/* Doubles the active labels of column t (capped at L); new labels inherit the degenerate node's
 * bounds. */
void vt_degen_expand(vt_degen *s, int32_t t) {
  const int32_t n = s->n[t], m = n * 2 < s->L ? n * 2 : s->L;
  double *P = s->P + (size_t)t * s->ld, *Q = s->Q + (size_t)t * s->ld;
  for (int32_t j = n; j < m; j++) {
    P[j] = s->Pd[t];
    Q[j] = s->Qd[t];
  }
  s->n[t] = s->hi[t] = m; /* the new labels live (the degenerate node did) */
  if (m == s->L) s->deg[t] = 0;
}

void vt_degen_expand_far(vt_degen *s, int32_t t, int32_t extra) {
  const double cut = s->lb - s->slack;
  vt_degen_expand(s, t);
  for (int32_t more = 0; more < extra && s->deg[t]; more++) {
    const double e = s->Esuf[(size_t)t * s->K + vt_level_of(s->n[t])];
    if (s->Pd[t] + e + s->Qd[t] < cut) break; /* the rest would be pruned: stop here */
    vt_degen_expand(s, t);
  }
}

double vt_degen_pass_cost(const vt_degen *s, int64_t *cells) {
  double cost = 0;
  int32_t prev = 0;
  for (int32_t t = 0; t < s->T; t++) {
    const int32_t c = s->hi[t] + s->deg[t];
    *cells += s->n[t] + s->deg[t];
    cost += VT_W_PASS_COLUMN + VT_W_PASS_CELL * (double)prev * (double)c;
    prev = c;
  }
  return cost;
}

int32_t vt_degen_through(const vt_degen *s, const int32_t *path) {
  int32_t through = 0;
  for (int32_t t = 0; t < s->T; t++) through += s->deg[t] && path[t] == s->n[t];
  return through;
}

/* The largest transition block of the next pass, in entries. */
static double pass_block(const vt_degen *s) {
  double most = 0;
  for (int32_t t = 1; t < s->T; t++) {
    const double b = (double)(s->hi[t - 1] + s->deg[t - 1]) * (double)(s->hi[t] + s->deg[t]);
    if (b > most) most = b;
  }
  return most;
}

int vt_degen_hopeless(const vt_degen *s, int32_t through, vt_probe_rule rule, double next,
                      vt_budget *bud) {
  double frac = INFINITY; /* the lowest share of the rules that apply */
  if (through < 0) return 0;
  if (bud->left < bud->probe_left)
    frac = rule.past; /* past the probe */
  else if (bud->left - next < bud->probe_left)
    frac = VT_PROBE_DEGEN_CROSS; /* this pass would take it past the probe */
  if (bud->full > 0 && next >= rule.big * bud->full && rule.big_past < frac &&
      pass_block(s) > VT_PASS_CACHED_CELLS)
    frac = rule.big_past; /* a big pass out of the cache (bud->full = 0: no budget) */
  if (!((double)through >= frac * (double)s->T)) return 0;
  bud->over = 1;
  return 1;
}

int vt_degen_pass_start(const vt_degen *s, int32_t through, vt_probe_rule rule, double cost,
                        int forward, int ends, vt_budget *bud) {
  if (vt_degen_hopeless(s, through, rule, cost, bud)) return 1;
  if (ends && forward) {
    /* The last pass (budget.h, "The last pass"): with no degenerate node left it ends the search,
     * for at most what the full decoder would cost; it is charged what is left. */
    int32_t t = 0;
    while (t < s->T && !s->deg[t]) t++;
    if (t == s->T && cost > bud->left) cost = bud->left > 0 ? bud->left : 0;
  }
  return (!forward && vt_budget_short(bud, 2.0 * cost)) || vt_budget_charge(bud, cost);
}

void vt_degen_stats_add(const vt_degen *s, int64_t iters, vt_decode_stats *stats) {
  int64_t active = 0;
  for (int32_t t = 0; t < s->T; t++) active += s->n[t];
  stats->iterations += iters;
  stats->active_labels += active;
  stats->nodes += active + s->T;
  stats->pruned += s->pruned;
}

double vt_degen_chain(const vt_degen *s, const int32_t *y) {
  double v = vt_degen_start(s, y[0]) + vt_degen_emit(s, 0, y[0]);
  for (int32_t t = 1; t < s->T; t++) {
    v = v + vt_degen_trans(s, t - 1, y[t - 1], y[t]);
    v = v + vt_degen_emit(s, t, y[t]);
  }
  return v + vt_degen_end(s, y[s->T - 1]);
}

vt_status vt_degen_init(vt_degen *s, const vt_trans *tr, vt_arena *arena, const double *E,
                        int32_t T, int32_t n0) {
  memset(s, 0, sizeof *s);
  const int32_t L = tr->L, ld = tr->ld, K = tr->bd.K > 0 ? tr->bd.K : 1;
  s->T = T;
  s->L = L;
  s->ld = ld;
  s->K = K;
  s->bd = &tr->bd;
  s->kern = vt_kernels_active();
  s->ops = vt_degen_ops_for(s->kern->level);
  s->lb = -INFINITY;
  s->prune = 1;
  const int identity = tr->bd.Ar == tr->A;
  double *Ebuf = identity ? NULL : VT_ARENA_NEW(arena, double, (size_t)T *L);
  s->Esuf = VT_ARENA_NEW(arena, double, (size_t)T *K);
  s->P = VT_ARENA_NEW(arena, double, (size_t)T *ld);
  s->Q = VT_ARENA_NEW(arena, double, (size_t)T *ld);
  s->Pd = VT_ARENA_NEW(arena, double, T);
  s->Qd = VT_ARENA_NEW(arena, double, T);
  s->n = VT_ARENA_NEW(arena, int32_t, T);
  s->hi = VT_ARENA_NEW(arena, int32_t, T);
  s->deg = VT_ARENA_NEW(arena, uint8_t, T);
  s->ptr = VT_ARENA_NEW(arena, int32_t, (size_t)T * ld);
  s->ptrd = VT_ARENA_NEW(arena, int32_t, T);
  s->vec = VT_ARENA_NEW(arena, double, ld);
  s->path = VT_ARENA_NEW(arena, int32_t, T);
  s->alt = VT_ARENA_NEW(arena, int32_t, T);
  if ((!identity && !Ebuf) || !s->Esuf || !s->P || !s->Q || !s->Pd || !s->Qd || !s->n || !s->hi ||
      !s->deg || !s->ptr || !s->ptrd || !s->vec || !s->path || !s->alt)
    return VT_ENOMEM;
  emissions_prepare(s, tr, E, Ebuf);
  const int32_t n = n0 < L ? n0 : L;
  for (int32_t t = 0; t < T; t++) {
    s->n[t] = s->hi[t] = n;
    s->deg[t] = n < L;
    s->Pd[t] = s->Qd[t] = 0; /* defined before any pass (expansion copies them) */
  }
  return VT_OK;
}
