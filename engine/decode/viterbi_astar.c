/* engine/decode/viterbi_astar.c: k-best Viterbi A* (Huang et al. 2012, Algorithm 3): one Viterbi
 * forward pass on the SIMD kernels, then a backward A* whose heuristic is the exact forward score.
 *
 * Paths form a tree. A root is the Viterbi path into one final node. A node of the tree, (t, y,
 * parent), is the path made of the Viterbi prefix into node y of column t followed by the
 * parent's labels after t; it is created when its parent is popped, for every position t below
 * the parent's own deviation point and every y other than the back pointer there (one-edge
 * deviations). Each path has exactly one place in the tree (its deviation point is the last
 * position up to which it follows back pointers), so no path is ever produced twice, whatever the
 * rounding.
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
 * Agenda: a binary heap; every pushed node is recorded with a lower bound on its score (e - slack,
 * or s for roots), and a candidate whose key is <= the k-th largest record is dropped
 * (agenda.h), so the heap stays small although each pop scans O(T L) deviations. */
#include "viterbi_astar.h"

#include <math.h>

#include "agenda.h"
#include "decoders.h"

typedef struct va_node {
  int64_t parent; /* -1 for a root */
  double sigma;   /* the path's score after column t (transitions, emissions, end), right to left */
  int32_t t, y;   /* deviation point: the Viterbi prefix into node y of column t */
} va_node;

typedef struct va_search {
  const vt_degen *s;
  vt_agenda q;
  double slack;
  double *row;  /* ld: estimates of one column's deviations */
  int32_t *idx; /* ld: those that pass the floor */
  double *amax; /* T: the largest alpha among the active nodes of each column */
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

/* Writes the node indices of tree node x into lab[0, T). */
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

/* Creates tree node (t, y, parent) with an estimated key and records its lower bound. */
static vt_status node_push(va_search *v, int64_t parent, int32_t t, int32_t y, double sigma,
                           double e) {
  const va_node nd = {parent, sigma, t, y};
  vt_status st = vt_agenda_add(&v->q, &nd, e + v->slack, 0);
  if (st == VT_OK) vt_agenda_record(&v->q, e - v->slack);
  return st;
}

/* Pushes the deviations of popped node x at the active nodes of column i: every live j other
 * than its back pointer `by`, followed by node y of column i + 1 and the suffix worth tau. */
static vt_status column_deviations(va_search *v, int64_t x, int32_t i, int32_t y, int32_t by,
                                   double tau) {
  const vt_degen *s = v->s;
  const vt_bounds *b = s->bd;
  const int32_t nu = s->n[i + 1];
  /* Transitions into y from the active nodes of column i, contiguous over them. */
  const double *into = y < nu ? b->Art + (size_t)y * s->ld
                              : b->to_max + (size_t)vt_level_of(nu) * s->L;
  /* Skip the column when even its best alpha and the best transition into y cannot pass the
   * floor (rounding is monotone, so this bound is above every estimate of the column). */
  const double into_max = y < nu ? col_max(b, y) : b->a_max;
  if (!((v->amax[i] + (into_max + tau)) + v->slack > v->q.floor)) return VT_OK;
  const double *P = s->P + (size_t)i * s->ld, *E = s->Er + (size_t)i * s->le;
  double *row = v->row;
  vt_degen_row_join(s, row, P, E, into, tau, s->hi[i]); /* the nodes after hi are dead */
  /* A vectorized prefilter a few slacks below the floor, then the exact test. */
  const int32_t nh = vt_degen_scan(s, row, s->hi[i], v->q.floor - 4 * v->slack, v->idx);
  for (int32_t c = 0; c < nh; c++) {
    const int32_t j = v->idx[c];
    if (j == by || !(row[j] + v->slack > v->q.floor)) continue;
    vt_status st = node_push(v, x, i, j, into[j] + tau, row[j]);
    if (st != VT_OK) return st;
  }
  return VT_OK;
}

/* Pushes the one-edge deviations of popped node x (Algorithm 3, lines 8-17), walking down the
 * Viterbi prefix of x and keeping the suffix value right to left. */
static vt_status deviations_push(va_search *v, int64_t x) {
  const vt_degen *s = v->s;
  const va_node nd = *(const va_node *)vt_agenda_at(&v->q, x);
  int32_t y = nd.y;
  double sigma = nd.sigma;
  for (int32_t u = nd.t; u > 0; u--) {
    const int32_t i = u - 1, ni = s->n[i];
    const double tau = vt_degen_emit(s, u, y) + sigma; /* score from node y of column u on */
    const int32_t by = back(s, u, y);
    vt_status st = column_deviations(v, x, i, y, by, tau);
    if (st != VT_OK) return st;
    if (s->deg[i] && ni != by) {
      const double sg = vt_degen_trans(s, i, ni, y) + tau, e = alpha(s, i, ni) + sg;
      if (e + v->slack > v->q.floor) {
        st = node_push(v, x, i, ni, sg, e);
        if (st != VT_OK) return st;
      }
    }
    sigma = vt_degen_trans(s, i, by, y) + tau;
    y = by;
  }
  return VT_OK;
}

vt_status vt_degen_kbest(const vt_degen *s, vt_arena *arena, int32_t k, int32_t *nodes,
                         double *scores, int32_t *n_out, int64_t *pops) {
  const int32_t T = s->T, last = T - 1;
  va_search v = {.s = s, .slack = s->slack};
  *n_out = 0;
  v.row = VT_ARENA_NEW(arena, double, s->ld);
  v.idx = VT_ARENA_NEW(arena, int32_t, s->ld);
  v.amax = VT_ARENA_NEW(arena, double, T);
  vt_status st = vt_agenda_init(&v.q, arena, k, sizeof(va_node));
  if (st != VT_OK || !v.row || !v.idx || !v.amax) return VT_ENOMEM;
  for (int32_t t = 0; t < T; t++) {
    const double *P = s->P + (size_t)t * s->ld, *E = s->Er + (size_t)t * s->le;
    double mn;
    v.amax[t] = -INFINITY;
    if (s->hi[t] == 0) continue;
    vt_degen_row_step(s, v.row, 0.0, P, E, s->hi[t]); /* alpha = P + E (0 + P is P) */
    s->kern->range(v.row, s->hi[t], &v.amax[t], &mn);
  }
  /* Roots: the Viterbi path into each final node, whose forward value is its exact score. */
  const int32_t nl = s->n[last] + s->deg[last];
  for (int32_t y = 0; y < nl; y++) {
    const double end = vt_degen_end(s, y), sc = alpha(s, last, y) + end;
    if (sc == -INFINITY || !(sc > v.q.floor)) continue;
    const va_node root = {-1, end, last, y};
    st = vt_agenda_add(&v.q, &root, sc, 1);
    if (st != VT_OK) return st;
    vt_agenda_record(&v.q, sc);
  }
  vt_agenda_item it;
  int32_t got = 0;
  while (got < k && vt_agenda_pop(&v.q, &it)) {
    (*pops)++;
    const int64_t x = vt_agenda_node(&it);
    if (it.key < v.q.floor) continue; /* k recorded paths score above everything below it */
    int32_t *lab = nodes + (size_t)got * T;
    node_path(&v, x, lab);
    if (!vt_agenda_exact(&it)) {
      double sc = vt_degen_chain(s, lab);
      if (sc == -INFINITY || sc < v.q.floor) continue;
      st = vt_agenda_push(&v.q, sc, 1, x);
      if (st != VT_OK) return st;
      continue;
    }
    scores[got++] = it.key;
    if (got < k) {
      st = deviations_push(&v, x);
      if (st != VT_OK) return st;
    }
  }
  *n_out = got;
  return VT_OK;
}

vt_status vt_viterbi_astar_decode(const vt_trans *tr, const vt_decode_opts *opts,
                                  vt_arena *arena, const double *E, int32_t T, vt_paths *out,
                                  vt_decode_stats *stats) {
  vt_degen s;
  vt_status st = vt_degen_init(&s, tr, arena, E, T, tr->L);
  if (st != VT_OK) return st;
  s.prune = 0;
  out->n = 0;
  stats->cells += (int64_t)T * tr->L;
  if (vt_degen_forward(&s) == -INFINITY) return VT_OK;
  int32_t n = 0;
  st = vt_degen_kbest(&s, arena, opts->k, out->labels, out->scores, &n, &stats->pops);
  if (st != VT_OK) return st;
  for (size_t i = 0; i < (size_t)n * T; i++) out->labels[i] = tr->rank[out->labels[i]];
  out->n = n;
  return VT_OK;
}
