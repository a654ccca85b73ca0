/* engine/decode/viterbi_astar.c: k-best Viterbi A* (Huang et al. 2012, Algorithm 3): one Viterbi
 * forward pass on the SIMD kernels, then a backward A* whose heuristic is the exact forward score.
 *
 * Paths form a tree. A root is the Viterbi path into one final node. A node of the tree, (t, y,
 * parent), is the path made of the Viterbi prefix into node y of column t followed by the
 * parent's labels after t; it is created when its parent is popped, for every position t below
 * the parent's own deviation point and every y other than the back pointer there (one-edge
 * deviations). Its subtree is every path with those labels after t and y at t. Each path has
 * exactly one place in the tree (its deviation point is the last position up to which it follows
 * back pointers), so no path is ever produced twice, whatever the rounding.
 *
 * Exactness in floating point. The score of a path is its left-to-right evaluation s. Every path
 * in the subtree of (t, y, parent) shares its labels after t, and its prefix evaluates to at most
 * alpha(t, y) (the forward value is the maximum of the evaluated prefixes, and rounding is
 * monotone), so s(node) bounds its whole subtree. A new node gets the cheap key e + slack, where
 * e = alpha + (suffix summed right to left) is within slack/2 of s (slack bounds the error of any
 * summation order, degen.h); when such an estimated item reaches the top, s is computed (O(T))
 * and the node goes back with key s. An exact item on top therefore beats every path not yet
 * output: the outputs are the k best in exact order, ties broken by node creation order.
 *
 * Splitting (iter-viterbi-astar on a degenerate lattice). Without it the search ranks lattice
 * paths, a degenerate node standing for a whole column suffix. With it only real paths come out:
 * a node whose Viterbi prefix reaches a degenerate node (at its last column u) is not a path but
 * a bound; when popped it is replaced by its deviations down to column u, where every active
 * node and the degenerate node itself are deviations. A degenerate node of column t, popped, is
 * split into the column's inactive labels (estimated with its prefix bound Pd, or the exact start
 * score at t = 0); an inactive label of column t >= 1, popped, pushes every live node of column
 * t - 1 (and its degenerate node) in front of it. These children partition the parent's real
 * paths, and each key stays an upper bound: every term of a real path is at most the lattice
 * term standing for it, Pd bounds every real prefix into the column's inactive labels, and
 * nodes pruned against lb carry no path that scores lb or more (degen.h), while the k best all
 * do. k real paths score at least lb, so the floor starts just below it. Only nodes standing for
 * one real path record a lower bound, so the recorded paths stay distinct. Near-ties within the
 * slack of huge scores can make the number of bounds to refine explode: past a budget of pops
 * or nodes the search gives up (n_out = -1) and the caller expands columns instead.
 *
 * Agenda: a binary heap; every pushed node is recorded with a lower bound on its score (e - slack,
 * or s for roots), and a candidate whose key is <= the k-th largest record is dropped
 * (agenda.h), so the heap stays small although each pop scans O(T L) deviations. */
#include "decode/viterbi_astar.h"

#include <math.h>

#include "decode/agenda.h"
#include "decode/decoders.h"

enum { VA_VIT = 0, VA_IND = 1 };

typedef struct va_node {
  int64_t parent; /* -1 for a root */
  double sigma;   /* the path's score after column t (transitions, emissions, end), right to left */
  double tau;     /* its score from column t + 1 on (0 at the last column) */
  int32_t t, y;   /* VA_VIT: the Viterbi prefix into node y of column t; VA_IND: real label y */
  int32_t z;      /* the label at t + 1 (-1 at the last column) */
  int32_t kind;
} va_node;

typedef struct va_search {
  const vt_degen *s;
  vt_agenda q;
  double slack;
  int split;    /* 1: degenerate nodes are split into real labels (only real paths come out) */
  double *row;  /* ld: estimates of one column's deviations */
  int32_t *idx; /* ld: those that pass the floor */
  double *amax; /* T: the largest alpha among the active nodes of each column */
  int32_t *dc; /* T x ld (split): the last column < t where node y's Viterbi prefix is degenerate */
  int64_t scanned; /* candidates scored (rows joined), for the budget */
} va_search;

/* Back pointer of node y of column t >= 1. */
static inline int32_t back(const vt_degen *s, int32_t t, int32_t y) {
  return y < s->n[t] ? s->ptr[(size_t)t * s->ld + y] : s->ptrd[t];
}

/* Forward value alpha (prefix score with the emission) of node j of column t. */
static inline double alpha(const vt_degen *s, int32_t t, int32_t j) {
  return (j < s->n[t] ? s->P[(size_t)t * s->ld + j] : s->Pd[t]) + vt_degen_emit(s, t, j);
}

/* The largest transition into rank-space label y: max_i Ar[i][y]. */
static inline double col_max(const vt_bounds *b, int32_t y) {
  const double a0 = b->Ar[y];
  return b->K > 0 && b->from_max[y] > a0 ? b->from_max[y] : a0;
}

/* 1 when tree node x stands for one real path: a Viterbi prefix of active nodes only (always,
 * unless split), or a real label of column 0. */
static int node_real(const va_search *v, const va_node *nd) {
  if (nd->kind == VA_IND) return nd->t == 0;
  if (!v->split) return 1;
  return nd->y < v->s->n[nd->t] && v->dc[(size_t)nd->t * v->s->ld + nd->y] < 0;
}

/* Writes the labels (node indices) of tree node x into lab[0, T). */
static void node_path(const va_search *v, int64_t x, int32_t *lab) {
  const vt_degen *s = v->s;
  int32_t bottom = 0;
  while (x >= 0) {
    const va_node *nd = vt_agenda_at(&v->q, x);
    int32_t y = nd->y;
    lab[nd->t] = y;
    for (int32_t u = nd->t; u > bottom; u--) {
      y = back(s, u, y);
      lab[u - 1] = y;
    }
    bottom = nd->t + 1;
    x = nd->parent;
  }
}

/* Creates tree node `nd` with the estimate e (key e + slack), recording e - slack as a lower bound
 * when it stands for one real path. */
static vt_status node_push(va_search *v, const va_node *nd, double e) {
  vt_status st = vt_agenda_add(&v->q, nd, e + v->slack, 0);
  if (st == VT_OK && node_real(v, nd)) vt_agenda_record(&v->q, e - v->slack);
  return st;
}

/* Pushes the degenerate node of column i as a deviation of x, followed by node (or real label,
 * `real`) y of column i + 1 and the suffix worth tau. */
static vt_status degen_push(va_search *v, int64_t x, int32_t i, int32_t y, int real, double tau) {
  const vt_degen *s = v->s;
  const int32_t ni = s->n[i];
  const double tr =
      real ? s->bd->from_max[(size_t)vt_level_of(ni) * s->L + y] : vt_degen_trans(s, i, ni, y);
  const double sg = tr + tau, e = alpha(s, i, ni) + sg;
  if (!(e + v->slack > v->q.floor)) return VT_OK;
  const va_node nd = {x, sg, tau, i, ni, y, VA_VIT};
  return node_push(v, &nd, e);
}

/* Pushes the deviations of popped node x at the active nodes of column i: every live j other
 * than its back pointer `by`, followed by node y of column i + 1 (a real label when `real`) and
 * the suffix worth tau. */
static vt_status column_deviations(va_search *v, int64_t x, int32_t i, int32_t y, int real,
                                   int32_t by, double tau) {
  const vt_degen *s = v->s;
  const vt_bounds *b = s->bd;
  const int32_t nu = s->n[i + 1];
  /* Transitions into y from the active nodes of column i, contiguous over them. */
  const int active = real || y < nu;
  const double *into =
      active ? b->Art + (size_t)y * s->ld : b->to_max + (size_t)vt_level_of(nu) * s->L;
  /* Skip the column when even its best alpha and the best transition into y cannot pass the
   * floor (rounding is monotone, so this bound is above every estimate of the column). */
  const double into_max = active ? col_max(b, y) : b->a_max;
  if (!((v->amax[i] + (into_max + tau)) + v->slack > v->q.floor)) return VT_OK;
  const double *P = s->P + (size_t)i * s->ld, *E = s->Er + (size_t)i * s->le;
  double *row = v->row;
  v->scanned += s->hi[i];
  vt_degen_row_join(s, row, P, E, into, tau, s->hi[i]); /* the nodes after hi are dead */
  /* A vectorized prefilter a few slacks below the floor, then the exact test. */
  const int32_t nh = vt_degen_scan(s, row, s->hi[i], v->q.floor - 4 * v->slack, v->idx);
  for (int32_t c = 0; c < nh; c++) {
    const int32_t j = v->idx[c];
    if (j == by || !(row[j] + v->slack > v->q.floor)) continue;
    const va_node nd = {x, into[j] + tau, tau, i, j, y, VA_VIT};
    vt_status st = node_push(v, &nd, row[j]);
    if (st != VT_OK) return st;
  }
  return VT_OK;
}

/* Pushes the one-edge deviations of popped node x (Algorithm 3, lines 8-17), walking down the
 * Viterbi prefix of x and keeping the suffix value right to left. When splitting, a prefix that
 * reaches a degenerate node stops there: the deviations at its column are the active nodes and
 * the degenerate node itself, which stands for every path below x through an inactive label. */
static vt_status deviations_push(va_search *v, int64_t x) {
  const vt_degen *s = v->s;
  const va_node nd = *(const va_node *)vt_agenda_at(&v->q, x);
  int32_t y = nd.y;
  double sigma = nd.sigma;
  for (int32_t u = nd.t; u > 0; u--) {
    const int32_t i = u - 1, ni = s->n[i];
    const double tau = vt_degen_emit(s, u, y) + sigma; /* score from node y of column u on */
    const int32_t by = back(s, u, y);
    vt_status st = column_deviations(v, x, i, y, 0, by, tau);
    if (st == VT_OK && s->deg[i] && (ni != by || v->split)) st = degen_push(v, x, i, y, 0, tau);
    if (st != VT_OK || (v->split && by == ni)) return st;
    sigma = vt_degen_trans(s, i, by, y) + tau;
    y = by;
  }
  return VT_OK;
}

/* Splits popped degenerate node x of column t into the real inactive labels of the column, each
 * estimated with the degenerate node's prefix bound (the exact start score at column 0). */
static vt_status degen_split(va_search *v, int64_t x) {
  const vt_degen *s = v->s;
  const vt_bounds *b = s->bd;
  const va_node nd = *(const va_node *)vt_agenda_at(&v->q, x);
  const int32_t t = nd.t, n = s->n[t], m = s->L - n;
  const double *into = t + 1 < s->T ? b->Art + (size_t)nd.z * s->ld : b->Fr;
  const double *E = s->Er + (size_t)t * s->le;
  double *row = v->row;
  v->scanned += m;
  if (t > 0)
    vt_degen_row_join_c(s, row, s->Pd[t], E + n, into + n, nd.tau, m);
  else
    vt_degen_row_join(s, row, b->Sr + n, E + n, into + n, nd.tau, m);
  const int32_t nh = vt_degen_scan(s, row, m, v->q.floor - 4 * v->slack, v->idx);
  for (int32_t c = 0; c < nh; c++) {
    const int32_t j = v->idx[c];
    if (!(row[j] + v->slack > v->q.floor)) continue;
    /* Its parent is x's: the degenerate node's column is the label's. */
    const va_node ind = {nd.parent, into[n + j] + nd.tau, nd.tau, t, n + j, nd.z, VA_IND};
    vt_status st = node_push(v, &ind, row[j]);
    if (st != VT_OK) return st;
  }
  return VT_OK;
}

/* Expands popped real label x of column t >= 1: every live node of column t - 1 before it. */
static vt_status label_expand(va_search *v, int64_t x) {
  const vt_degen *s = v->s;
  const va_node nd = *(const va_node *)vt_agenda_at(&v->q, x);
  const int32_t i = nd.t - 1;
  const double tau = s->Er[(size_t)nd.t * s->le + nd.y] + nd.sigma;
  vt_status st = column_deviations(v, x, i, nd.y, 1, -1, tau);
  if (st == VT_OK && s->deg[i]) st = degen_push(v, x, i, nd.y, 1, tau);
  return st;
}

/* dc of the live active nodes (split): the last column below t whose degenerate node the
 * node's Viterbi prefix uses, -1 for none. */
static void degen_columns(va_search *v) {
  const vt_degen *s = v->s;
  const int32_t ld = s->ld;
  for (int32_t j = 0; j < s->hi[0]; j++) v->dc[j] = -1;
  for (int32_t t = 1; t < s->T; t++) {
    const int32_t *bp = s->ptr + (size_t)t * ld, *prev = v->dc + (size_t)(t - 1) * ld;
    int32_t *dc = v->dc + (size_t)t * ld;
    const int32_t np = s->n[t - 1];
    for (int32_t j = 0; j < s->hi[t]; j++) dc[j] = bp[j] >= np ? t - 1 : prev[bp[j]];
  }
}

vt_status vt_degen_kbest(const vt_degen *s, vt_arena *arena, int32_t k, int split, int32_t *nodes,
                         double *scores, int32_t *n_out, int64_t *pops, vt_budget *bud) {
  const int64_t budget = VT_SPLIT_POPS_PER_PATH * (int64_t)k * s->T;
  const int32_t T = s->T, last = T - 1;
  va_search v = {.s = s, .slack = s->slack, .split = split};
  *n_out = 0;
  v.row = VT_ARENA_NEW(arena, double, s->ld);
  v.idx = VT_ARENA_NEW(arena, int32_t, s->ld);
  v.amax = VT_ARENA_NEW(arena, double, T);
  v.dc = split ? VT_ARENA_NEW(arena, int32_t, (size_t)T * s->ld) : NULL;
  vt_status st = vt_agenda_init(&v.q, arena, k, sizeof(va_node));
  if (st != VT_OK || !v.row || !v.idx || !v.amax || (split && !v.dc)) return VT_ENOMEM;
  if (split) {
    degen_columns(&v);
    /* k real paths score at least lb: nothing whose bound is below it is needed. */
    if (s->lb > -INFINITY) v.q.floor = nextafter(s->lb, -INFINITY);
  }
  for (int32_t t = 0; t < T; t++) {
    const double *P = s->P + (size_t)t * s->ld, *E = s->Er + (size_t)t * s->le;
    double mn;
    v.amax[t] = -INFINITY;
    if (s->hi[t] == 0) continue;
    vt_degen_row_step(s, v.row, 0.0, P, E, s->hi[t]); /* alpha = P + E (0 + P is P) */
    s->kern->range(v.row, s->hi[t], &v.amax[t], &mn);
  }
  /* Roots: the Viterbi path into each final node, whose forward value is its exact score (a
   * bound when it is not a real path). */
  const int32_t nl = s->n[last] + s->deg[last];
  for (int32_t y = 0; y < nl; y++) {
    const double end = vt_degen_end(s, y), sc = alpha(s, last, y) + end;
    if (sc == -INFINITY || !(sc > v.q.floor)) continue;
    const va_node root = {-1, end, 0.0, last, y, -1, VA_VIT};
    const int real = node_real(&v, &root);
    st = vt_agenda_add(&v.q, &root, sc, real);
    if (st != VT_OK) return st;
    if (real) vt_agenda_record(&v.q, sc);
  }
  vt_agenda_item it;
  int32_t got = 0;
  const int64_t pops0 = *pops;
  int64_t charged_nodes = 0, charged_scans = 0;
  while (got < k && vt_agenda_pop(&v.q, &it)) {
    (*pops)++;
    /* The pop and what the previous one pushed and scored. */
    const double cost = vt_budget_pop_weight(v.q.n) +
                        VT_W_PUSH * (double)(v.q.n_nodes - charged_nodes) +
                        VT_W_SCAN * (double)(v.scanned - charged_scans);
    charged_nodes = v.q.n_nodes;
    charged_scans = v.scanned;
    if (vt_budget_charge(bud, cost)) {
      *n_out = -2;
      return VT_OK;
    }
    if (split && (*pops - pops0 > budget || v.q.n_nodes > 2 * budget)) {
      *n_out = -1; /* over budget: the caller expands instead */
      return VT_OK;
    }
    const int64_t x = vt_agenda_node(&it);
    if (it.key < v.q.floor) continue; /* k recorded paths score above everything below it */
    const va_node *nd = vt_agenda_at(&v.q, x);
    if (!node_real(&v, nd)) { /* split: a bound over several real paths, refine it */
      if (nd->kind == VA_IND)
        st = label_expand(&v, x);
      else if (nd->y == s->n[nd->t])
        st = degen_split(&v, x);
      else
        st = deviations_push(&v, x);
      if (st != VT_OK) return st;
      continue;
    }
    int32_t *lab = nodes + (size_t)got * T;
    node_path(&v, x, lab);
    if (!vt_agenda_exact(&it)) {
      double sc = split ? vt_degen_path_score(s, lab) : vt_degen_chain(s, lab);
      if (sc == -INFINITY || sc < v.q.floor) continue;
      st = vt_agenda_push(&v.q, sc, 1, x);
      if (st != VT_OK) return st;
      continue;
    }
    scores[got++] = it.key;
    if (got < k && nd->kind == VA_VIT) {
      st = deviations_push(&v, x);
      if (st != VT_OK) return st;
    }
  }
  *n_out = got;
  return VT_OK;
}

vt_status vt_viterbi_astar_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                                  const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                                  vt_budget *bud) {
  vt_degen s;
  vt_status st = vt_degen_init(&s, tr, arena, E, T, tr->L);
  if (st != VT_OK) return st;
  s.prune = 0;
  out->n = 0;
  stats->cells += (int64_t)T * tr->L;
  if (vt_degen_forward(&s) == -INFINITY) return VT_OK;
  vt_degen_slack_exact(&s); /* exact ties stay ties in the search */
  int32_t n = 0;
  /* The forward pass is not charged: it is the full decoder's own work (a SIMD Viterbi pass). */
  st = vt_degen_kbest(&s, arena, opts->k, 0, out->labels, out->scores, &n, &stats->pops, bud);
  if (st != VT_OK || n < 0) return st;
  for (size_t i = 0; i < (size_t)n * T; i++) out->labels[i] = tr->rank[out->labels[i]];
  out->n = n;
  return VT_OK;
}
