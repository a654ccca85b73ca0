/* engine/text/crfpp_search.c: crf_test's own search over one sentence (see crfpp_search.h).
 * Every expression keeps crf_test's operand order: the point is its bits, not only its values. */
#include "text/crfpp_search.h"

#include <math.h>
#include <string.h>

#include "alloc/arena.h"

/* crf_test's lattice of one sentence: node costs, edge costs, Viterbi and forward-backward. */
typedef struct lattice {
  int32_t T, L;
  double *cost;    /* T * L: a token's cost for a label */
  const double *A; /* L * L [prev][cur]: edge costs of a model without observation bigrams */
  double *edge;    /* (T - 1) * L * L: edge costs into tokens 1.., observation bigrams */
  double *best;    /* T * L: Viterbi's bestCost */
  int32_t *prev;   /* T * L: Viterbi's back pointer (-1: none) */
  double *alpha, *beta;
  double Z;
} lattice;

/* The cost of the edge from label j at token t - 1 to label i at token t (t >= 1). */
static inline double edge_cost(const lattice *g, int32_t t, int32_t j, int32_t i) {
  const size_t LL = (size_t)g->L * (size_t)g->L;
  if (g->edge) return g->edge[(size_t)(t - 1) * LL + (size_t)j * (size_t)g->L + (size_t)i];
  return g->A[(size_t)j * (size_t)g->L + (size_t)i];
}

/* CRF++'s logsumexp(x, y, flg) (node.h). */
static inline double crfpp_lse(double x, double y, int first) {
  if (first) return y;
  const double vmin = y < x ? y : x; /* std::min(x, y) */
  const double vmax = x < y ? y : x; /* std::max(x, y) */
  if (vmax > vmin + 50.0) return vmax;
  return vmax + log(exp(vmin - vmax) + 1.0);
}

/* Adds the weights of record `rec` to the float sums c: a unigram record's keys are labels, a
 * bigram record's label pairs. */
static void add_records(const vt_textmodel *m, const uint8_t *rec, float *c) {
  vt_feat f;
  vt_feat_read(rec, m->key_bytes, &f);
  if (f.dense) {
    for (uint32_t e = 0; e < f.nnz; e++) c[e] += f.vals[e];
  } else if (!f.bigram && m->key_bytes == 2) {
    const uint16_t *k = f.keys;
    for (uint32_t e = 0; e < f.nnz; e++) c[k[e]] += f.vals[e];
  } else {
    const uint32_t *k = f.keys;
    for (uint32_t e = 0; e < f.nnz; e++) c[k[e]] += f.vals[e];
  }
}

/* Node and edge costs as crf_test's FeatureIndex::calcCost sums them: in float, from 0, the
 * templates in the template file's order (features the model lacks skipped). */
static vt_status build_costs(const vt_textmodel *m, const vt_tokens *tk, vt_arena *arena,
                             lattice *g) {
  const vt_tmplset *ts = &m->tmpl;
  const int32_t T = tk->T, L = m->L;
  const size_t LL = (size_t)L * (size_t)L;
  size_t maxf = 0, need = 1;
  for (size_t f = 0; f < (size_t)T * (size_t)tk->ncols; f++)
    if (tk->fields[2 * f + 1] > maxf) maxf = tk->fields[2 * f + 1];
  for (int32_t i = 0; i < ts->n; i++) {
    size_t b = vt_tmpl_bound(ts, i, maxf);
    if (b > need) need = b;
  }
  char *buf = VT_ARENA_NEW(arena, char, need + 8);
  float *c = VT_ARENA_NEW(arena, float, ts->n_b ? LL : (size_t)L);
  g->cost = VT_ARENA_NEW(arena, double, (size_t)T *(size_t)L);
  if (!buf || !c || !g->cost) return VT_ENOMEM;
  for (int32_t t = 0; t < T; t++) {
    memset(c, 0, (size_t)L * sizeof *c);
    for (int32_t u = 0; u < ts->n_u; u++) {
      size_t n = vt_tmpl_expand(ts, ts->u_idx[u], tk, t, buf);
      const uint8_t *rec = vt_textmodel_find(m, buf, n);
      if (rec) add_records(m, rec, c);
    }
    for (int32_t y = 0; y < L; y++) g->cost[(size_t)t * (size_t)L + (size_t)y] = (double)c[y];
  }
  g->A = m->A;
  g->edge = NULL;
  if (ts->n_b == 0 || T < 2) return VT_OK;
  g->edge = VT_ARENA_NEW(arena, double, (size_t)(T - 1) * LL);
  if (!g->edge) return VT_ENOMEM;
  for (int32_t t = 1; t < T; t++) {
    memset(c, 0, LL * sizeof *c);
    for (int32_t b = 0; b <= ts->n_b; b++) {
      if (b == ts->plain_bigram_at) /* the macro-free B line: its weights, in its place */
        for (size_t e = 0; e < LL; e++) c[e] += (float)m->A[e];
      if (b == ts->n_b) break;
      size_t n = vt_tmpl_expand(ts, ts->b_idx[b], tk, t, buf);
      const uint8_t *rec = vt_textmodel_find(m, buf, n);
      if (rec) add_records(m, rec, c);
    }
    double *e = g->edge + (size_t)(t - 1) * LL;
    for (size_t x = 0; x < LL; x++) e[x] = (double)c[x];
  }
  return VT_OK;
}

/* TaggerImpl::viterbi: each node's bestCost and back pointer; returns the last token's best
 * label (the first of the highest bestCost). */
static int32_t viterbi(lattice *g) {
  const int32_t T = g->T, L = g->L;
  for (int32_t t = 0; t < T; t++)
    for (int32_t i = 0; i < L; i++) {
      const size_t at = (size_t)t * (size_t)L + (size_t)i;
      double bestc = -1e37;
      int32_t bp = -1;
      for (int32_t j = 0; t > 0 && j < L; j++) {
        double c =
            g->best[at - (size_t)L - (size_t)i + (size_t)j] + edge_cost(g, t, j, i) + g->cost[at];
        if (c > bestc) {
          bestc = c;
          bp = j;
        }
      }
      g->prev[at] = bp;
      g->best[at] = bp >= 0 ? bestc : g->cost[at];
    }
  double bestc = -1e37;
  int32_t y = 0;
  for (int32_t j = 0; j < L; j++) {
    double b = g->best[(size_t)(T - 1) * (size_t)L + (size_t)j];
    if (bestc < b) {
      bestc = b;
      y = j;
    }
  }
  return y;
}

/* TaggerImpl::forwardbackward: alpha, beta and Z. */
static void forward_backward(lattice *g) {
  const int32_t T = g->T, L = g->L;
  for (int32_t t = 0; t < T; t++)
    for (int32_t i = 0; i < L; i++) {
      double a = 0.0;
      for (int32_t j = 0; t > 0 && j < L; j++)
        a = crfpp_lse(a, edge_cost(g, t, j, i) + g->alpha[(size_t)(t - 1) * (size_t)L + (size_t)j],
                      j == 0);
      g->alpha[(size_t)t * (size_t)L + (size_t)i] = a + g->cost[(size_t)t * (size_t)L + (size_t)i];
    }
  for (int32_t t = T - 1; t >= 0; t--)
    for (int32_t j = 0; j < L; j++) {
      double b = 0.0;
      for (int32_t i = 0; t + 1 < T && i < L; i++)
        b = crfpp_lse(b,
                      edge_cost(g, t + 1, j, i) + g->beta[(size_t)(t + 1) * (size_t)L + (size_t)i],
                      i == 0);
      g->beta[(size_t)t * (size_t)L + (size_t)j] = b + g->cost[(size_t)t * (size_t)L + (size_t)j];
    }
  double z = 0.0;
  for (int32_t j = 0; j < L; j++) z = crfpp_lse(z, g->beta[j], j == 0);
  g->Z = z;
}

/* ---- -n: the A* agenda as std::priority_queue<QueueElement*, vector, fx greater> keeps it ---- */

typedef struct qelem {
  double fx, gx;
  int32_t t, y, next; /* next: the element this one extends (toward the last token), -1: none */
} qelem;

typedef struct agenda {
  qelem *el; /* every element made (the freelist) */
  int32_t *heap;
  size_t n_el, n_heap, cap;
  vt_arena *arena;
} agenda;

/* QueueElementComp: a above b when a->fx > b->fx (the top is the least fx). */
static inline int comp(const agenda *q, int32_t a, int32_t b) { return q->el[a].fx > q->el[b].fx; }

/* A new element; -1 when memory is exhausted (the arrays double, copied within the arena). */
static int32_t elem_new(agenda *q) {
  if (q->n_el == q->cap) {
    size_t cap = q->cap * 2;
    qelem *el = VT_ARENA_NEW(q->arena, qelem, cap);
    int32_t *heap = VT_ARENA_NEW(q->arena, int32_t, cap);
    if (!el || !heap || cap > INT32_MAX) return -1;
    memcpy(el, q->el, q->n_el * sizeof *el);
    memcpy(heap, q->heap, q->n_heap * sizeof *heap);
    q->el = el;
    q->heap = heap;
    q->cap = cap;
  }
  return (int32_t)q->n_el++;
}

/* std::__push_heap: the hole at `hole` climbs while its parent is below `v`. */
static void sift_up(agenda *q, size_t hole, size_t top, int32_t v) {
  size_t parent = (hole - 1) / 2;
  while (hole > top && comp(q, q->heap[parent], v)) {
    q->heap[hole] = q->heap[parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  q->heap[hole] = v;
}

/* priority_queue::push: push_back, then push_heap. */
static void push(agenda *q, int32_t v) {
  q->heap[q->n_heap++] = v;
  sift_up(q, q->n_heap - 1, 0, v);
}

/* priority_queue::pop (pop_heap, then pop_back): returns the old top. */
static int32_t pop(agenda *q) {
  const int32_t top = q->heap[0];
  const size_t len = q->n_heap - 1; /* pop_heap over [first, last - 1) */
  if (len > 0) {
    const int32_t v = q->heap[len];
    q->heap[len] = top;
    /* std::__adjust_heap(first, 0, len, v) */
    size_t hole = 0, second = 0;
    while (len > 0 && second < (len - 1) / 2) {
      second = 2 * (second + 1);
      if (comp(q, q->heap[second], q->heap[second - 1])) second--;
      q->heap[hole] = q->heap[second];
      hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
      second = 2 * (second + 1);
      q->heap[hole] = q->heap[second - 1];
      hole = second - 1;
    }
    sift_up(q, hole, 0, v);
  }
  q->n_heap--;
  return top;
}

/* TaggerImpl::next: the next complete path into y (T labels) and its gx (minus its score);
 * returns 1, 0 when the agenda is empty, -1 when memory is exhausted. */
static int next_path(const lattice *g, agenda *q, int32_t *y, double *gx) {
  const int32_t L = g->L;
  while (q->n_heap > 0) {
    const int32_t top = pop(q);
    const qelem r = q->el[top];
    if (r.t == 0) {
      for (int32_t n = top; n >= 0; n = q->el[n].next) y[q->el[n].t] = q->el[n].y;
      *gx = r.gx;
      return 1;
    }
    for (int32_t j = 0; j < L; j++) {
      const int32_t n = elem_new(q);
      if (n < 0) return -1;
      const size_t at = (size_t)(r.t - 1) * (size_t)L + (size_t)j;
      const double pc = edge_cost(g, r.t, j, r.y);
      qelem *e = &q->el[n];
      e->t = r.t - 1;
      e->y = j;
      e->gx = -g->cost[at] - pc + r.gx;
      e->fx = -g->best[at] - pc + r.gx;
      e->next = top;
      push(q, n);
    }
  }
  return 0;
}

vt_status vt_crfpp_search(const vt_textmodel *m, const vt_tokens *tk, int32_t k, vt_arena *arena,
                          int32_t *labels, int32_t *n_paths, double *prob, double *marg) {
  const int32_t T = tk->T, L = m->L;
  const size_t TL = (size_t)T * (size_t)L;
  lattice g = {.T = T, .L = L};
  *n_paths = 0;
  vt_status st = build_costs(m, tk, arena, &g);
  if (st != VT_OK) return st;
  g.best = VT_ARENA_NEW(arena, double, TL);
  g.prev = VT_ARENA_NEW(arena, int32_t, TL);
  if (!g.best || !g.prev) return VT_ENOMEM;
  const int32_t last = viterbi(&g);
  if (prob || marg) {
    g.alpha = VT_ARENA_NEW(arena, double, TL);
    g.beta = VT_ARENA_NEW(arena, double, TL);
    if (!g.alpha || !g.beta) return VT_ENOMEM;
    forward_backward(&g);
  }
  if (k <= 1) {
    int32_t y = last;
    for (int32_t t = T - 1; t >= 0; t--) {
      labels[t] = y;
      y = g.prev[(size_t)t * (size_t)L + (size_t)y];
    }
    *n_paths = 1;
    /* cost_ = -bestCost of the last node; prob() = exp(-cost_ - Z) */
    const double cost = -g.best[(size_t)(T - 1) * (size_t)L + (size_t)last];
    if (prob) prob[0] = exp(-cost - g.Z);
  } else {
    agenda q = {.arena = arena, .cap = (size_t)L * ((size_t)T + (size_t)k) + 16};
    q.el = VT_ARENA_NEW(arena, qelem, q.cap);
    q.heap = VT_ARENA_NEW(arena, int32_t, q.cap);
    if (!q.el || !q.heap) return VT_ENOMEM;
    for (int32_t i = 0; i < L; i++) { /* TaggerImpl::initNbest */
      const int32_t n = elem_new(&q);
      const size_t at = (size_t)(T - 1) * (size_t)L + (size_t)i;
      q.el[n] = (qelem){.fx = -g.best[at], .gx = -g.cost[at], .t = T - 1, .y = i, .next = -1};
      push(&q, n);
    }
    for (int32_t p = 0; p < k; p++) {
      double gx = 0.0;
      int got = next_path(&g, &q, labels + (size_t)p * (size_t)T, &gx);
      if (got < 0) return VT_ENOMEM;
      if (got == 0) break;
      if (prob) prob[p] = exp(-gx - g.Z);
      ++*n_paths;
    }
  }
  if (marg)
    for (size_t x = 0; x < TL; x++) /* toprob: exp(alpha + beta - cost - Z) */
      marg[x] = exp(g.alpha[x] + g.beta[x] - g.cost[x] - g.Z);
  return VT_OK;
}
