/* engine/decode/carpediem.c: Carpediem (Esposito & Radicioni 2009), exact 1-best, the baseline of
 * Kaji et al. 2010 and Huang et al. 2012 (the paper's algorithm; docs/decoders.md, "Carpediem").
 *
 * Layers are finished left to right ("seize the day"). In layer t labels are opened in
 * decreasing node score N[t][y] (the emission, with the start score folded into layer 0 and the
 * end score into the last); opening a node computes its exact Viterbi value G from the
 * predecessors of layer t-1 in their own rank order, opening those on demand (recursively, on an
 * explicit stack: no recursion depth limit). With W the largest transition score and B[t] the
 * best value of layer t-1, V(t, y) <= B[t] + W + N[t][y], so:
 * - layer t stops at the first label whose bound cannot beat the best opened value;
 * - a predecessor scan stops at the first closed label p with B[t-1] + 2W + N[t-1][p] below the
 *   best candidate (it bounds every lower-ranked label), skips a closed p whose bound with its
 *   actual transition B[t-1] + W + N[t-1][p] + A[p][y] is below it (without opening p), and
 *   skips an open p whose G + W is below it.
 *
 * Exactness in floating point. Every bound comparison keeps `slack` in hand (the rounding error
 * of any summation order of a path's terms, as staggered decoding's), so only labels that
 * cannot win are skipped; values are computed as the reference Viterbi computes them, left to
 * right ((G + A) + E, the end score added last), so the best value is the best left-to-right
 * score. -inf: W is the largest finite transition (no finite one and T > 1: no path); -inf node
 * scores sort last and never pass a bound; no NaN can arise (inputs are finite or -inf).
 *
 * Ties: candidates are compared with strict >, in rank order (node score descending, label
 * ascending): deterministic, but on exact ties the path may differ from the reference Viterbi's
 * (same score). Layers are ordered lazily: a binary heap per layer (O(L) to build) yields labels
 * in rank order as far as the search asks, instead of sorting every layer (O(L log L)). The
 * transitions into a node are read from one row of the transposed matrix (tr->bd.Art, in the
 * model's rank space), not down a column of A. */
#include <float.h>
#include <math.h>

#include "alloc/arena.h"
#include "decode/decoders.h"

typedef struct cd_pair {
  double key; /* the folded node score */
  int32_t y;
} cd_pair;

typedef struct cd_frame { /* one node being opened */
  int32_t t, y, r, arg;   /* layer, label, next predecessor rank, best predecessor */
  double best;            /* best predecessor value G + A so far */
  const double *into;     /* the transitions into y, by the predecessor's vt_trans rank */
} cd_frame;

typedef struct cd {
  const vt_trans *tr;
  const double *E;
  int32_t T, L;
  double W, slack;
  cd_pair *pairs;    /* T x L: layer t's heap in [0, heap_n[t]), its rank order after that */
  int32_t *heap_n;   /* T */
  double *G;         /* T x L exact Viterbi values of open nodes (end score not included) */
  int32_t *bp;       /* T x L */
  unsigned char *op; /* T x L open flags */
  double *B;         /* T + 1: B[t] = the best value of layer t-1 once it is finished */
  cd_frame *stk;     /* T */
  int64_t opened, scanned;
  vt_budget *bud;          /* charged per node opened, with the predecessors visited for it */
  int64_t charged_scanned; /* scanned when last charged */
  double from;             /* the budget left when the search began (the progress test) */
  int32_t layer;           /* the layer being finished */
} cd;

/* a ranks before b: higher node score, then lower label. */
static inline int before(const cd_pair *a, const cd_pair *b) {
  return a->key > b->key || (a->key == b->key && a->y < b->y);
}

static void sift_down(cd_pair *h, int32_t n, int32_t i) {
  const cd_pair x = h[i];
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(&h[c + 1], &h[c])) c++;
    if (!before(&h[c], &x)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = x;
}

/* Builds layer t's heap of node scores (start folded into layer 0, end into the last). */
static void layer_build(cd *c, int32_t t) {
  const int32_t L = c->L;
  const vt_trans *tr = c->tr;
  const double *e = c->E + (size_t)t * L;
  cd_pair *h = c->pairs + (size_t)t * L;
  for (int32_t y = 0; y < L; y++) {
    double k = e[y];
    if (t == 0) k = tr->S[y] + k;
    if (t == c->T - 1) k = k + tr->F[y];
    h[y].key = k;
    h[y].y = y;
  }
  for (int32_t i = L / 2 - 1; i >= 0; i--) sift_down(h, L, i);
  c->heap_n[t] = L;
}

/* The label of rank r in layer t (and its node score in *key): pops the heap as far as r. */
static inline int32_t layer_rank(cd *c, int32_t t, int32_t r, double *key) {
  const int32_t L = c->L;
  cd_pair *h = c->pairs + (size_t)t * L;
  while (c->heap_n[t] > L - 1 - r) { /* the popped pairs fill the array from its end */
    int32_t n = --c->heap_n[t];
    cd_pair top = h[0];
    h[0] = h[n];
    h[n] = top;
    if (n > 1) sift_down(h, n, 0);
  }
  *key = h[L - 1 - r].key;
  return h[L - 1 - r].y;
}

static void frame_init(cd *c, cd_frame *f, int32_t t, int32_t y) {
  double key;
  const int32_t p = layer_rank(c, t - 1, 0, &key); /* open: every layer opens its rank 0 */
  const vt_trans *tr = c->tr;
  f->t = t;
  f->y = y;
  f->r = 1;
  f->arg = p;
  f->into = tr->bd.Art + (size_t)tr->rank_of[y] * tr->ld;
  f->best = c->G[(size_t)(t - 1) * c->L + p] + f->into[tr->rank_of[p]];
  c->scanned++;
}

/* Charges the opening of one node and the predecessors visited since the last charge. Returns 1
 * when the budget stops the search: over it, or past the probe with the work so far, as if the
 * layer being finished were done now, extrapolating over the budget (a hopeless layer opens every
 * label and scans every predecessor of each: one layer can cost several Viterbis, so a test at
 * the layers' ends alone comes too late). */
static int open_charge(cd *c) {
  const double cost = VT_W_CD_OPEN + VT_W_CD_SCAN * (double)(c->scanned - c->charged_scanned);
  c->charged_scanned = c->scanned;
  return vt_budget_charge(c->bud, cost) ||
         vt_budget_extrapolate(c->bud, c->from, c->layer + 1, c->T);
}

/* Opens node (t0, y0), t0 >= 1: its exact value and backpointer, opening predecessors as needed.
 * Returns 1 when the budget stopped it (the node is then left closed), else 0. */
static int node_open(cd *c, int32_t t0, int32_t y0) {
  const int32_t L = c->L;
  const int32_t *rank_of = c->tr->rank_of;
  const double W = c->W, slack = c->slack;
  if (c->op[(size_t)t0 * L + y0]) return 0;
  int32_t sp = 0;
  frame_init(c, &c->stk[0], t0, y0);
  for (;;) {
    cd_frame *f = &c->stk[sp];
    const int32_t t = f->t;
    const double *into = f->into;
    const double *Gp = c->G + (size_t)(t - 1) * L;
    const unsigned char *op = c->op + (size_t)(t - 1) * L;
    const double Bp = c->B[t - 1];
    int pushed = 0;
    for (; f->r < L; f->r++) {
      double key;
      const int32_t p = layer_rank(c, t - 1, f->r, &key);
      c->scanned++; /* every rank visited costs its heap pop, even when the bound skips it */
      const double cut = f->best - slack;
      if (!op[p]) {                          /* t - 1 >= 1 here: layer 0 is all open */
        if ((Bp + W) + key + W < cut) break; /* p and every label ranked after it */
        if ((Bp + W) + key + into[rank_of[p]] < cut) continue;
        frame_init(c, &c->stk[++sp], t - 1, p); /* open p, then come back to rank r */
        pushed = 1;
        break;
      }
      if (Gp[p] + W < cut) continue;
      const double v = Gp[p] + into[rank_of[p]];
      if (v > f->best) {
        f->best = v;
        f->arg = p;
      }
    }
    if (pushed) continue;
    const size_t i = (size_t)t * L + f->y;
    c->G[i] = f->best + c->E[i];
    c->bp[i] = f->arg;
    c->op[i] = 1;
    c->opened++;
    if (open_charge(c)) return 1;
    if (sp == 0) return 0;
    sp--;
  }
}

/* The value a label is chosen by in layer t: G, plus the end score in the last layer. */
static inline double pick_value(const cd *c, int32_t t, int32_t y) {
  const double g = c->G[(size_t)t * c->L + y];
  return t == c->T - 1 ? g + c->tr->F[y] : g;
}

vt_status vt_carpediem_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                              const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                              vt_budget *bud) {
  const int32_t L = tr->L;
  const size_t TL = (size_t)T * L;
  /* c.from: the progress test extrapolates the search's whole work */
  cd c = {.tr = tr, .E = E, .T = T, .L = L, .W = tr->bd.a_max, .bud = bud, .from = bud->left};
  (void)opts;
  out->n = 0;
  if (vt_budget_charge(bud, 16.0 * (double)TL)) return VT_OK; /* clearing, the slack: O(T L) */
  c.pairs = VT_ARENA_NEW(arena, cd_pair, TL);
  c.heap_n = VT_ARENA_NEW(arena, int32_t, (size_t)T);
  c.G = VT_ARENA_NEW(arena, double, TL);
  c.bp = VT_ARENA_NEW(arena, int32_t, TL);
  c.op = VT_ARENA_NEW(arena, unsigned char, TL);
  c.B = VT_ARENA_NEW(arena, double, (size_t)T + 1);
  c.stk = VT_ARENA_NEW(arena, cd_frame, (size_t)T);
  if (!c.pairs || !c.heap_n || !c.G || !c.bp || !c.op || !c.B || !c.stk) return VT_ENOMEM;
  for (size_t i = 0; i < TL; i++) c.op[i] = 0;

  /* Rounding slack: from the largest finite magnitudes of every term of a path. */
  double mag = tr->bd.mag_sf + (double)(T - 1) * tr->bd.mag_a;
  for (int32_t t = 0; t < T; t++) {
    double m = 0;
    for (int32_t y = 0; y < L; y++) {
      const double e = fabs(E[(size_t)t * L + y]);
      if (e != INFINITY && e > m) m = e;
    }
    mag += m;
  }
  c.slack = mag * (4.0 * T + 16.0) * DBL_EPSILON;

  int32_t cur = 0;
  double best = -INFINITY;
  for (int32_t y = 0; y < L; y++) { /* layer 0: all open */
    c.G[y] = tr->S[y] + E[y];
    c.op[y] = 1;
    const double v = pick_value(&c, 0, y);
    if (v > best) {
      best = v;
      cur = y;
    }
  }
  c.opened += L;
  if (T > 1 && c.W == -INFINITY) best = -INFINITY; /* no finite transition: no path */
  if (T > 1 && best != -INFINITY) layer_build(&c, 0);
  c.B[1] = c.G[cur];
  for (int32_t t = 1; t < T && best != -INFINITY; t++) {
    /* The layer's heap (L pairs) and its first node. */
    if (vt_budget_charge(bud, 8.0 * (double)L) || vt_budget_extrapolate(bud, c.from, t, T))
      return VT_OK;
    layer_build(&c, t);
    c.layer = t;
    double key;
    cur = layer_rank(&c, t, 0, &key);
    if (node_open(&c, t, cur)) return VT_OK; /* the budget stopped it: vt_decode goes on */
    best = pick_value(&c, t, cur);
    const double Bw = c.B[t] + c.W;
    for (int32_t r = 1; r < L; r++) {
      const int32_t y = layer_rank(&c, t, r, &key);
      if (best >= (Bw + key) + c.slack) break; /* no label ranked from r on can win */
      if (node_open(&c, t, y)) return VT_OK;
      const double v = pick_value(&c, t, y);
      if (v > best) {
        best = v;
        cur = y;
      }
    }
    c.B[t + 1] = c.G[(size_t)t * L + cur];
  }
  stats->cells += c.scanned;
  stats->active_labels += c.opened;
  stats->nodes += (int64_t)TL;
  stats->pruned += (int64_t)TL - c.opened;
  if (best == -INFINITY) return VT_OK;
  for (int32_t t = T - 1; t >= 0; t--) {
    out->labels[t] = cur;
    if (t > 0) cur = c.bp[(size_t)t * L + cur];
  }
  out->scores[0] = best;
  out->n = 1;
  return VT_OK;
}
