/* engine/staggered.c: exact 1-best staggered decoding (Kaji et al. 2010; Huang et al. 2012,
 * Algorithms 1-2), with alternating forward/backward passes, alpha/beta node pruning against a
 * lower bound, and plain (every column) or column-wise expansion.
 *
 * Rank space: column t holds the active labels [0, n[t)) of the rank order, n a power of two or
 * L, plus, while n[t] < L and it is not pruned, one degenerate node standing for [n[t], L) whose
 * scores are the suffix maxima of vt_bounds. Per node we keep P (the best prefix score into the
 * node, without its emission) from the last forward pass and Q (the best suffix score after the
 * node, without its emission) from the last backward pass; both are upper bounds on the original
 * lattice, and a node whose P or Q is -inf is dead for good (bounds only fall as the lattice is
 * refined). Newly active labels inherit the degenerate node's P and Q.
 *
 * Exactness in floating point:
 * - A node is pruned only when P + E + Q < lb - slack, where slack bounds the rounding error of
 *   any summation order of a path's terms ((4T + 16) eps times the sum of magnitudes), so the path
 *   with the best computed left-to-right score is never pruned.
 * - The search stops only on a forward pass whose best path is all active. A forward pass
 *   evaluates left to right like the printed score, and rounding is monotone, so that path's
 *   score is >= the computed score of every original path (Lemma 1 holds exactly). A backward
 *   pass that ends all active only skips the next expansion; the forward pass after it confirms.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "arena.h"
#include "decoders.h"
#include "kernel.h"

typedef struct sd_lattice {
  int32_t T, L, ld, K;
  const vt_bounds *bd;
  const vt_kernels *kern;
  const double *Er; /* T rows of le: rank-space emissions (E itself when the rank is identity) */
  int32_t le;       /* row stride of Er */
  double *Esuf;     /* T x K: Esuf[t*K + k] = max_{r >= 2^k} Er[t][r] */
  double *P, *Q;   /* T x ld */
  double *Pd, *Qd; /* T: the degenerate node's */
  int32_t *n;      /* T: active labels */
  uint8_t *deg;    /* T: degenerate node alive */
  int32_t *ptr;    /* T x ld: back (forward pass) or next (backward pass) pointers */
  int32_t *ptrd;   /* T: the degenerate node's */
  double *vec;     /* ld scratch: alpha or beta of one column */
  int32_t *path;   /* T: best path of the last pass, index n[t] = degenerate */
  int32_t *alt;    /* T: a real path derived from it, for the lower bound */
  double lb, slack;
  int64_t pruned;
} sd_lattice;

static double dmax(double a, double b) { return a > b ? a : b; }

/* Score of a rank-space path, left to right, exactly as vt_path_score evaluates it. */
static double path_score_rank(const sd_lattice *s, const int32_t *y) {
  const vt_bounds *b = s->bd;
  double v = b->Sr[y[0]] + s->Er[y[0]];
  for (int32_t t = 1; t < s->T; t++) {
    v = v + b->Ar[(size_t)y[t - 1] * s->ld + y[t]];
    v = v + s->Er[(size_t)t * s->le + y[t]];
  }
  return v + b->Fr[y[s->T - 1]];
}

/* Kills a node for good. */
static inline void node_kill(double *P, double *Q) {
  *P = -INFINITY;
  *Q = -INFINITY;
}

/* Applies the dead rule and the pruning test to the active nodes [0, n) of column t and to its
 * degenerate node. */
static void column_prune(sd_lattice *s, int32_t t) {
  const double cut = s->lb - s->slack;
  double *P = s->P + (size_t)t * s->ld, *Q = s->Q + (size_t)t * s->ld;
  const double *E = s->Er + (size_t)t * s->le;
  int64_t pruned = 0;
  /* Branch-free so that it vectorizes: a node dies when its bound falls below the cut or is -inf
   * (P, E or Q -inf; none can be +inf). */
  for (int32_t j = 0; j < s->n[t]; j++) {
    const double v = P[j] + E[j] + Q[j];
    const int below = v < cut, dead = v == -INFINITY;
    pruned += below & !dead;
    P[j] = below | dead ? -INFINITY : P[j];
    Q[j] = below | dead ? -INFINITY : Q[j];
  }
  s->pruned += pruned;
  if (s->deg[t]) {
    double e = s->Esuf[(size_t)t * s->K + vt_level_of(s->n[t])];
    double v = s->Pd[t] + e + s->Qd[t];
    if (v < cut || v == -INFINITY) {
      s->deg[t] = 0; /* every inactive label of the column is out: it stops expanding */
      s->pruned++;
    }
  }
}

/* Forward pass: recomputes P (and back pointers) column by column, prunes, and writes the best
 * path into s->path. Returns its score (-inf when the lattice has no finite path). */
static double pass_forward(sd_lattice *s) {
  const vt_bounds *b = s->bd;
  const int32_t T = s->T, L = s->L, ld = s->ld, K = s->K;
  for (int32_t j = 0; j < s->n[0]; j++) s->P[j] = b->Sr[j];
  if (s->deg[0]) s->Pd[0] = b->s_suf[vt_level_of(s->n[0])];
  column_prune(s, 0);
  for (int32_t t = 1; t < T; t++) {
    const int32_t np = s->n[t - 1], nc = s->n[t];
    const double *Pp = s->P + (size_t)(t - 1) * ld, *Ep = s->Er + (size_t)(t - 1) * s->le;
    double *alpha = s->vec;
    for (int32_t i = 0; i < np; i++) alpha[i] = Pp[i] + Ep[i]; /* dead: -inf stays -inf */
    double *P = s->P + (size_t)t * ld;
    int32_t *bp = s->ptr + (size_t)t * ld;
    s->kern->maxplus(alpha, np, b->Ar, ld, NULL, nc, P, bp);
    if (s->deg[t - 1]) {
      const int32_t kp = vt_level_of(np);
      const double ad = s->Pd[t - 1] + s->Esuf[(size_t)(t - 1) * K + kp];
      if (ad != -INFINITY) {
        const double *from = b->from_max + (size_t)kp * L;
        for (int32_t j = 0; j < nc; j++) {
          double v = ad + from[j];
          if (v > P[j]) {
            P[j] = v;
            bp[j] = np;
          }
        }
      }
    }
    if (s->deg[t]) {
      const int32_t kc = vt_level_of(nc);
      const double *to = b->to_max + (size_t)kc * L;
      double best = alpha[0] + to[0];
      int32_t arg = 0;
      for (int32_t i = 1; i < np; i++) {
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
  for (int32_t j = 0; j < nl; j++) {
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
static double pass_backward(sd_lattice *s) {
  const vt_bounds *b = s->bd;
  const int32_t T = s->T, L = s->L, ld = s->ld, K = s->K;
  {
    double *Q = s->Q + (size_t)(T - 1) * ld;
    for (int32_t j = 0; j < s->n[T - 1]; j++) Q[j] = b->Fr[j];
    if (s->deg[T - 1]) s->Qd[T - 1] = b->f_suf[vt_level_of(s->n[T - 1])];
    column_prune(s, T - 1);
  }
  for (int32_t t = T - 2; t >= 0; t--) {
    const int32_t nx = s->n[t + 1], nc = s->n[t];
    const double *Qx = s->Q + (size_t)(t + 1) * ld, *Ex = s->Er + (size_t)(t + 1) * s->le;
    double *beta = s->vec;
    for (int32_t j = 0; j < nx; j++) beta[j] = Qx[j] + Ex[j];
    double *Q = s->Q + (size_t)t * ld;
    int32_t *np = s->ptr + (size_t)t * ld;
    s->kern->maxplus(beta, nx, b->Art, ld, NULL, nc, Q, np);
    if (s->deg[t + 1]) {
      const int32_t kx = vt_level_of(nx);
      const double bd = s->Qd[t + 1] + s->Esuf[(size_t)(t + 1) * K + kx];
      if (bd != -INFINITY) {
        const double *to = b->to_max + (size_t)kx * L;
        for (int32_t i = 0; i < nc; i++) {
          double v = bd + to[i];
          if (v > Q[i]) {
            Q[i] = v;
            np[i] = nx;
          }
        }
      }
    }
    if (s->deg[t]) {
      const int32_t kc = vt_level_of(nc);
      const double *from = b->from_max + (size_t)kc * L;
      double best = beta[0] + from[0];
      int32_t arg = 0;
      for (int32_t j = 1; j < nx; j++) {
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
  for (int32_t j = 0; j < n0; j++) {
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

/* Raises lb with a real path made from the last pass's best path: each degenerate node is
 * replaced by the inactive label with the best emission there. Returns 1 if the path was
 * all active. */
static int lb_raise(sd_lattice *s) {
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
  double v = path_score_rank(s, s->alt);
  if (v > s->lb) s->lb = v;
  return all_active;
}

/* Greedy (beam 1) path: the initial lower bound. Each step is a max-plus kernel call with one
 * previous label (cur + A[y][j] + E[t][j], the order of the path score) and an argmax. */
static void lb_greedy(sd_lattice *s, int32_t *arg_scratch) {
  const vt_bounds *b = s->bd;
  const int32_t L = s->L, ld = s->ld;
  double *v = s->vec;
  for (int32_t j = 0; j < L; j++) v[j] = b->Sr[j] + s->Er[j];
  int32_t y = s->kern->argmax(v, L);
  double cur = v[y];
  s->alt[0] = y;
  for (int32_t t = 1; t < s->T && cur != -INFINITY; t++) {
    s->kern->maxplus(&cur, 1, b->Ar + (size_t)y * ld, ld, s->Er + (size_t)t * s->le, L, v,
                     arg_scratch);
    y = s->kern->argmax(v, L);
    cur = v[y];
    s->alt[t] = y;
  }
  s->lb = cur == -INFINITY ? -INFINITY : path_score_rank(s, s->alt);
}

/* Rank-space emissions (E itself when the rank is the identity, else gathered into `buf`), their
 * suffix maxima at every level (segment maxima [2^k, 2^(k+1)) combined from the top), and the
 * rounding slack from the largest finite magnitudes. */
static void emissions_prepare(sd_lattice *s, const vt_trans *tr, const double *E, double *buf) {
  const int32_t T = s->T, L = s->L, K = s->K;
  const vt_bounds *b = s->bd;
  if (b->Ar == tr->A) { /* identity rank */
    s->Er = E;
    s->le = L;
  } else {
    for (int32_t t = 0; t < T; t++) {
      const double *src = E + (size_t)t * L;
      double *dst = buf + (size_t)t * L;
      for (int32_t r = 0; r < L; r++) dst[r] = src[tr->rank[r]];
    }
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
      s->kern->range(row + a, e - a, &mx, &mn);
      run = dmax(run, mx);
      lo = mn < lo ? mn : lo;
      suf[k] = run;
    }
    s->kern->range(row, 1, &mx, &mn);
    run = dmax(run, mx);
    lo = mn < lo ? mn : lo;
    /* The largest finite magnitude of the column: from its max and its finite min. */
    double m = 0;
    if (run > -INFINITY) m = dmax(m, fabs(run));
    if (lo < INFINITY) m = dmax(m, fabs(lo));
    mag += m;
  }
  s->slack = mag * (4.0 * T + 16.0) * DBL_EPSILON;
}

/* Naive suffix bound (Huang et al. eq. 9, plus the end score): Q for the first forward pass. */
static void q_naive(sd_lattice *s) {
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
static void column_expand(sd_lattice *s, int32_t t) {
  const int32_t n = s->n[t], m = n * 2 < s->L ? n * 2 : s->L;
  double *P = s->P + (size_t)t * s->ld, *Q = s->Q + (size_t)t * s->ld;
  for (int32_t j = n; j < m; j++) {
    P[j] = s->Pd[t];
    Q[j] = s->Qd[t];
  }
  s->n[t] = m;
  if (m == s->L) s->deg[t] = 0;
}

vt_status vt_staggered_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                              const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats) {
  sd_lattice s;
  memset(&s, 0, sizeof s);
  const int32_t L = tr->L, ld = tr->ld, K = tr->bd.K > 0 ? tr->bd.K : 1;
  const int colwise = opts->algo == VT_ALGO_STAGGERED_COL;
  s.T = T;
  s.L = L;
  s.ld = ld;
  s.K = K;
  s.bd = &tr->bd;
  s.kern = vt_kernels_active();
  double *Ebuf = tr->bd.Ar == tr->A ? NULL : VT_ARENA_NEW(arena, double, (size_t)T * L);
  int32_t *arg_scratch = VT_ARENA_NEW(arena, int32_t, ld);
  s.Esuf = VT_ARENA_NEW(arena, double, (size_t)T * K);
  s.P = VT_ARENA_NEW(arena, double, (size_t)T * ld);
  s.Q = VT_ARENA_NEW(arena, double, (size_t)T * ld);
  s.Pd = VT_ARENA_NEW(arena, double, T);
  s.Qd = VT_ARENA_NEW(arena, double, T);
  s.n = VT_ARENA_NEW(arena, int32_t, T);
  s.deg = VT_ARENA_NEW(arena, uint8_t, T);
  s.ptr = VT_ARENA_NEW(arena, int32_t, (size_t)T * ld);
  s.ptrd = VT_ARENA_NEW(arena, int32_t, T);
  s.vec = VT_ARENA_NEW(arena, double, ld);
  s.path = VT_ARENA_NEW(arena, int32_t, T);
  s.alt = VT_ARENA_NEW(arena, int32_t, T);
  if ((tr->bd.Ar != tr->A && !Ebuf) || !arg_scratch || !s.Esuf || !s.P || !s.Q || !s.Pd || !s.Qd || !s.n || !s.deg || !s.ptr ||
      !s.ptrd || !s.vec || !s.path || !s.alt)
    return VT_ENOMEM;

  emissions_prepare(&s, tr, E, Ebuf);
  for (int32_t t = 0; t < T; t++) {
    s.n[t] = 1;
    s.deg[t] = L > 1;
  }
  q_naive(&s);
  lb_greedy(&s, arg_scratch);

  int64_t iters = 0;
  int forward = 1, skip_expand = 0;
  double best;
  out->n = 0;
  for (;;) {
    iters++;
    for (int32_t t = 0; t < T; t++) stats->cells += s.n[t] + s.deg[t];
    best = forward ? pass_forward(&s) : pass_backward(&s);
    if (best == -INFINITY) break; /* the degenerate lattice bounds every path: none is finite */
    int all_active = lb_raise(&s);
    if (all_active && forward) {
      for (int32_t t = 0; t < T; t++) out->labels[t] = tr->rank[s.path[t]];
      out->scores[0] = best;
      out->n = 1;
      break;
    }
    skip_expand = all_active; /* a backward all-active path: confirm it forward first */
    if (!skip_expand) {
      int expanded = 0;
      for (int32_t t = 0; t < T; t++) {
        if (!s.deg[t]) continue;
        if (colwise && s.path[t] != s.n[t]) continue;
        column_expand(&s, t);
        expanded = 1;
      }
      /* The best path used a degenerate node, which is alive, so something always expands. */
      (void)expanded;
    }
    forward = !forward;
  }
  int64_t active = 0;
  for (int32_t t = 0; t < T; t++) active += s.n[t];
  stats->iterations += iters;
  stats->active_labels += active;
  stats->nodes += active + T;
  stats->pruned += s.pruned;
  return VT_OK;
}
