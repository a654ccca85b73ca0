/* engine/decode/astar.c: k-best A* (Huang et al. 2012, sections 4.1 and 4.3) and the `astar`
 * decoder.
 *
 * A search node is a prefix: a node of column t reached by a parent prefix, with g its
 * left-to-right score (emission of the node included). Its key is g + h + slack, where h bounds
 * the score to the right of the node (the naive eq. (9), or the Viterbi backward score on the
 * degenerate lattice of staggered iteration N, 2^N active labels per column); a prefix reaching
 * the last column becomes a complete path keyed by its exact score g + end. Pops come in key
 * order, so a popped complete path beats everything still unexplored: the k first are the k best.
 *
 * Exactness in floating point. slack bounds the rounding error of any summation order of a
 * path's terms (degen.h), and h is the computed maximum of right-to-left sums, so key >= the
 * left-to-right score of every completion: keys are admissible whatever the rounding.
 * k best labels per node (section 4.3): a prefix popped at a node where k expanded prefixes
 * score at least as much is dropped: for any completion, those k prefixes give k distinct paths
 * scoring at least as much (rounding is monotone), and by induction over later drops k distinct
 * kept paths do. In exact arithmetic with a consistent h, prefixes reach a node best first and
 * this is exactly "expand a node at most k times"; when rounding disorders the keys (huge
 * magnitudes), a node expands a prefix again only if it beats the k-th best expanded there, so
 * out-of-order arrivals cost a logarithmic number of extra expansions, not an exponential one.
 * Complete paths and the floor of agenda.h prune the rest.
 * Paths are distinct: each is one chain of prefixes. */
#include "decode/astar.h"

#include <math.h>

#include "decode/agenda.h"
#include "decode/decoders.h"

typedef struct as_node {
  int64_t parent; /* -1 at column 0 */
  double g;       /* left-to-right prefix score, emission of (t, y) included */
  int32_t t, y;
  int32_t rounds; /* times the prefix was expanded (partial expansion, below) */
} as_node;

typedef struct as_search {
  const vt_degen *s;
  const vt_heur *h;
  vt_agenda q;
  int32_t *cnt;    /* T x ld: prefixes expanded per lattice node, at most k counted */
  double **topg;   /* T x ld: min-heap of the k best g expanded there (allocated on first use) */
  double *g, *key; /* ld scratch: the prefix scores and keys of one expansion's candidates */
  double *hrow;    /* ld scratch: a column's heuristic row when it is one value (hcol) */
  int32_t *idx;    /* ld scratch: the candidates of one round */
  int partial;     /* 1: partial expansion (below) */
  int64_t cells;
} as_search;

/* Partial expansion (astar's search, `whole`; after Yoshizumi et al.'s partial-expansion A*):
 * a prefix pushes only the extensions whose key reaches the first key left in the agenda (the
 * complete paths of the last column, which raise the floor, all at once); the others wait behind
 * one item, the prefix pushed again with the best of their keys, and are pushed in the same way
 * when that item is popped. Every extension not in the agenda so has an item there keyed at least
 * as high, so the agenda still bounds everything unexplored, the first k complete paths popped
 * are still the k best, and an extension is pushed only once it could come out before what the
 * agenda already held. On the peaked 945-label lattices (vitesse synth) a prefix pushed about 900
 * of its 945 extensions at 17-38 ns each, most of them never popped; now a round scores them with
 * row_keys (vectorized) and pushes a few. Each round scores them again, so after
 * VT_ASTAR_PARTIAL_ROUNDS rounds the rest are pushed at once. iter-astar expands fully: its
 * degenerate lattices are narrow, and on the peaked 945-label set partial expansion cost it 8%
 * (0.83x -> 0.76x of the SIMD Viterbi, the sentences falling back all the same). */
#define VT_ASTAR_PARTIAL_ROUNDS 8

/* Pushes node j of column t reached by prefix `parent` with prefix score g and key `key` (the
 * path's exact score in the last column). */
static vt_status prefix_push(as_search *a, int64_t parent, int32_t t, int32_t j, double g,
                             double key) {
  const vt_degen *s = a->s;
  const as_node nd = {parent, g, t, j, 0};
  if (!(key > a->q.floor)) return VT_OK; /* -inf never passes */
  if (t == s->T - 1) {
    vt_status st = vt_agenda_add(&a->q, &nd, key, 1);
    if (st == VT_OK) vt_agenda_record(&a->q, key);
    return st;
  }
  const size_t c = (size_t)t * s->ld + j;
  if (a->cnt[c] == a->q.k && g <= a->topg[c][0]) return VT_OK; /* dominated already */
  return vt_agenda_add(&a->q, &nd, key, 0);
}

/* Expands prefix x (pool node), popped with key `popped`: scores its extensions into column
 * t + 1 and pushes those of this round (partial expansion, above). */
static vt_status prefix_expand(as_search *a, int64_t x, double popped) {
  const vt_degen *s = a->s;
  as_node *nd = vt_agenda_at(&a->q, x);
  const int32_t t = nd->t, i = nd->y, u = t + 1, nu = s->n[u], m = nu + s->deg[u];
  const double g0 = nd->g;
  const double *from = i < s->n[t] ? s->bd->Ar + (size_t)i * s->ld
                                   : s->bd->from_max + (size_t)vt_level_of(s->n[t]) * s->L;
  double *g = a->g;
  vt_degen_row_step(s, g, g0, from, s->Er + (size_t)u * s->le, nu);
  if (s->deg[u]) g[nu] = (g0 + vt_degen_trans(s, t, i, nu)) + vt_degen_emit(s, u, nu);
  a->cells += m;
  if (u == s->T - 1) { /* complete paths, exact keys, all pushed: they raise the floor */
    nd->rounds++;
    for (int32_t j = 0; j < m; j++) {
      if (g[j] == -INFINITY) continue;
      vt_status st = prefix_push(a, x, u, j, g[j], g[j] + vt_degen_end(s, j));
      if (st != VT_OK) return st;
    }
    return VT_OK;
  }
  /* This round pushes the keys in [lo, hi] above the floor: those above hi went in an earlier
   * round, and those below lo wait behind x, pushed again with the best of them. */
  const double hi = nd->rounds == 0 ? INFINITY : popped;
  const double lo =
      nd->rounds >= VT_ASTAR_PARTIAL_ROUNDS || !a->partial ? -INFINITY : vt_agenda_top(&a->q);
  const double thr = lo == -INFINITY ? a->q.floor : fmax(a->q.floor, nextafter(lo, -INFINITY));
  nd->rounds++;
  const double *h = a->h->H ? a->h->H + (size_t)u * s->ld : a->hrow;
  if (!a->h->H)
    for (int32_t j = 0; j < m; j++) a->hrow[j] = a->h->hcol[u];
  double rest;
  const int32_t c = s->ops->row_keys(a->key, g, h, s->slack, m, thr, lo, a->idx, &rest);
  for (int32_t r = 0; r < c; r++) {
    const int32_t j = a->idx[r];
    if (a->key[j] > hi) continue;
    vt_status st = prefix_push(a, x, u, j, g[j], a->key[j]);
    if (st != VT_OK) return st;
  }
  return rest > a->q.floor ? vt_agenda_push(&a->q, rest, 0, x) : VT_OK;
}

/* Heuristic of node j of column 0. */
static double heur0(const as_search *a, int32_t j) { return a->h->H ? a->h->H[j] : a->h->hcol[0]; }

vt_status vt_degen_astar(const vt_degen *s, const vt_heur *h, vt_arena *arena, int32_t k, int whole,
                         int32_t *nodes, double *scores, int32_t *n_out, int64_t *pops,
                         int64_t *cells, vt_budget *bud) {
  const int32_t T = s->T, ld = s->ld;
  as_search a = {.s = s, .h = h, .partial = whole};
  *n_out = 0;
  /* Its T x ld counters and heap pointers, cleared (12 bytes each). */
  if (vt_budget_charge(bud, 8.0 * (double)T * ld)) {
    *n_out = -1;
    return VT_OK;
  }
  a.cnt = VT_ARENA_NEW(arena, int32_t, (size_t)T * ld);
  a.topg = VT_ARENA_NEW(arena, double *, (size_t)T *ld);
  a.g = VT_ARENA_NEW(arena, double, (size_t)ld);
  a.key = VT_ARENA_NEW(arena, double, (size_t)ld);
  a.hrow = VT_ARENA_NEW(arena, double, (size_t)ld);
  a.idx = VT_ARENA_NEW(arena, int32_t, (size_t)ld);
  vt_status st = vt_agenda_init(&a.q, arena, k, sizeof(as_node));
  /* Every push is charged VT_W_PUSH, so the agenda never holds more nodes than the budget left
   * pays for: room for them at once (up to VT_AGENDA_RESERVE_MAX) saves the copies of every
   * doubling on the way and, the arena keeping its memory across sentences, the page faults of
   * fresh memory. Without room the agenda grows as usual. */
  if (st == VT_OK && whole && bud->left < INFINITY)
    (void)vt_agenda_reserve(&a.q, (int64_t)fmin(bud->left / VT_W_PUSH, VT_AGENDA_RESERVE_MAX));
  if (st != VT_OK || !a.cnt || !a.topg || !a.g || !a.key || !a.hrow || !a.idx) return VT_ENOMEM;
  for (size_t c = 0; c < (size_t)T * ld; c++) a.cnt[c] = 0;
  for (int32_t j = 0; j < s->n[0] + s->deg[0]; j++) {
    const double g = vt_degen_start(s, j) + vt_degen_emit(s, 0, j);
    if (g == -INFINITY) continue;
    a.cells++;
    st = T == 1 ? prefix_push(&a, -1, 0, j, g, g + vt_degen_end(s, j))
                : prefix_push(&a, -1, 0, j, g, (g + heur0(&a, j)) + s->slack);
    if (st != VT_OK) return st;
  }
  vt_agenda_item it;
  int32_t got = 0;
  int64_t charged_nodes = 0, charged_cells = 0;
  int32_t deep = 0;              /* columns reached by the deepest pop (the progress test) */
  const double from = bud->left; /* what this search had left (a heuristic pass came before) */
  while (got < k && vt_agenda_pop(&a.q, &it)) {
    (*pops)++;
    /* The pop and what the previous one scored and pushed. */
    const double cost = vt_budget_pop_weight(a.q.n) +
                        VT_W_PUSH * (double)(a.q.n_nodes - charged_nodes) +
                        VT_W_SCAN * (double)(a.cells - charged_cells);
    charged_nodes = a.q.n_nodes;
    charged_cells = a.cells;
    if (vt_budget_charge(bud, cost)) {
      *n_out = -1;
      *cells += a.cells;
      return VT_OK;
    }
    if (it.key < a.q.floor) continue; /* k recorded paths score above everything below it */
    const int64_t x = vt_agenda_node(&it);
    const as_node nd = *(const as_node *)vt_agenda_at(&a.q, x);
    if (nd.t >= deep) deep = nd.t + 1;
    if (vt_budget_extrapolate(bud, from, deep, T)) {
      *n_out = -1;
      *cells += a.cells;
      return VT_OK;
    }
    if (nd.t == T - 1) { /* a complete path, exact key */
      int32_t *lab = nodes + (size_t)got * T;
      for (int64_t c = x; c >= 0;) {
        const as_node *p = vt_agenda_at(&a.q, c);
        lab[p->t] = p->y;
        c = p->parent;
      }
      scores[got++] = it.key;
      continue;
    }
    if (nd.rounds == 0) { /* its first round */
      const size_t c = (size_t)nd.t * ld + nd.y;
      if (a.cnt[c] == 0 && !(a.topg[c] = VT_ARENA_NEW(arena, double, k))) return VT_ENOMEM;
      if (a.cnt[c] == k && nd.g <= a.topg[c][0]) continue; /* dominated by k expanded prefixes */
      vt_topk_push(a.topg[c], &a.cnt[c], k, nd.g);
    }
    st = prefix_expand(&a, x, it.key);
    if (st != VT_OK) return st;
  }
  *n_out = got;
  *cells += a.cells;
  return VT_OK;
}

/* The probe before a big heuristic pass (budget.h, VT_ASTAR_PROBE_*): one forward pass of the
 * degenerate lattice with VT_ASTAR_PROBE_LABELS active labels per column (every column has the
 * same n0 active labels before it; they are restored after). Its best path ends the sentence when
 * it is all active and k = 1 (the staggered decoder's stopping rule: exact, see staggered.c) or
 * when the lattice has no finite path, and the budget's progress test stops the search when it
 * goes through VT_PROBE_DEGEN_HEUR (k > 1: VT_PROBE_DEGEN_HEUR_KBEST) of the degenerate nodes.
 * Otherwise, for k = 1, it primes the heuristic pass to prune (s->prune = 1): lb is the score of
 * a real path made from its best path (vt_degen_lb_raise), and P holds its forward bounds, the
 * labels it left in the degenerate node inheriting that node's. Every node the pass then prunes
 * carries no path scoring lb or more (degen.h), so none of an optimal path: it gets the heuristic
 * -inf and the search never pushes it, while every node of an optimal path keeps an admissible
 * one, which is all A* needs to pop an optimal path first. Returns 1 when the sentence is done
 * (out->n written) or stopped (bud->over), else 0. */
static int heuristic_probe(vt_degen *s, const vt_trans *tr, int32_t k, vt_paths *out,
                           vt_decode_stats *stats, vt_budget *bud) {
  const int32_t T = s->T, L = s->L, n0 = s->n[0];
  for (int32_t t = 0; t < T; t++) {
    s->n[t] = s->hi[t] = VT_ASTAR_PROBE_LABELS;
    s->deg[t] = 1;
  }
  int done = vt_budget_charge(bud, vt_degen_pass_cost(s, &stats->cells));
  if (!done) {
    const double best = vt_degen_forward(s);
    const int32_t through = best == -INFINITY ? 0 : vt_degen_through(s, s->path);
    if (best == -INFINITY) {
      done = 1; /* the degenerate lattice bounds every path: none is finite */
    } else if (through == 0 && k == 1) {
      for (int32_t t = 0; t < T; t++) out->labels[t] = tr->rank[s->path[t]];
      out->scores[0] = best;
      out->n = 1;
      done = 1;
    } else if (bud->full > 0 &&
               (double)through >=
                   (k == 1 ? VT_PROBE_DEGEN_HEUR : VT_PROBE_DEGEN_HEUR_KBEST) * (double)T) {
      bud->over = 1;
      done = 1;
    } else if (k == 1) {
      vt_degen_lb_raise(s);
      s->prune = 1;
    }
  }
  for (int32_t t = 0; t < T; t++) {
    s->n[t] = s->hi[t] = n0;
    s->deg[t] = n0 < L;
    if (!s->prune) continue;
    double *P = s->P + (size_t)t * s->ld;
    for (int32_t j = VT_ASTAR_PROBE_LABELS; j < n0; j++) P[j] = s->Pd[t];
  }
  return done;
}

vt_status vt_astar_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                          const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                          vt_budget *bud) {
  const int32_t L = tr->L;
  const int naive = opts->heuristic < 0; /* VT_HEUR_NAIVE (and any other negative value) */
  const int32_t n0 = naive || opts->heuristic >= 30 ? L : (int32_t)1 << (int)opts->heuristic;
  vt_degen s;
  vt_status st = vt_degen_init(&s, tr, arena, E, T, n0);
  if (st != VT_OK) return st;
  vt_heur h = {NULL, s.Qd};
  out->n = 0;
  if (naive) {
    vt_degen_q_naive(&s);
  } else {
    /* mN: a Viterbi backward pass on the degenerate lattice with 2^N active labels per column;
     * an inactive label gets its degenerate node's bound. Then the search lattice is the full
     * one, and Q is the heuristic table. */
    s.prune = 0;
    /* A heuristic pass that would take more than VT_SEARCH_LEAST_SHARE of what is left (mN
     * with 2^N >= L is a whole backward Viterbi) leaves the search too little: the full
     * decoder is cheaper at once. */
    const double pass = vt_degen_pass_cost(&s, &stats->cells);
    if (pass > VT_SEARCH_LEAST_SHARE * bud->left) {
      bud->over = 1;
      return VT_OK;
    }
    if (s.n[0] > VT_ASTAR_PROBE_LABELS && s.n[0] < L &&
        pass >= VT_ASTAR_PROBE_PASS * (double)T * L * L &&
        heuristic_probe(&s, tr, opts->k, out, stats, bud))
      return VT_OK;
    if (vt_budget_charge(bud, pass)) return VT_OK;
    vt_degen_backward(&s);
    for (int32_t t = 0; t < T; t++) {
      double *Q = s.Q + (size_t)t * s.ld;
      for (int32_t j = s.n[t]; j < L; j++) Q[j] = s.deg[t] ? s.Qd[t] : -INFINITY;
      s.n[t] = s.hi[t] = L;
      s.deg[t] = 0;
    }
    h.H = s.Q;
  }
  int32_t n = 0;
  st = vt_degen_astar(&s, &h, arena, opts->k, 1, out->labels, out->scores, &n, &stats->pops,
                      &stats->cells, bud);
  if (st != VT_OK || n < 0) return st;
  for (size_t i = 0; i < (size_t)n * T; i++) out->labels[i] = tr->rank[out->labels[i]];
  out->n = n;
  return VT_OK;
}
