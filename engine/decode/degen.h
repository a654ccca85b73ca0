/* engine/decode/degen.h: the degenerate lattice shared by staggered decoding and the iterative A*
 * decoders (Kaji et al. 2010; Huang et al. 2012, sections 3.2 and 4).
 *
 * Rank space: column t holds the active labels [0, n[t]) of the rank order, n a power of two or
 * L, plus, while n[t] < L and it is not pruned, one degenerate node (index n[t]) standing for
 * [n[t], L) whose scores are the suffix maxima of vt_bounds. Per node we keep P (the best prefix
 * score into the node, without its emission) from the last forward pass and Q (the best suffix
 * score after the node, without its emission) from the last backward pass; both are upper bounds
 * on the original lattice, and a node whose P or Q is -inf is dead for good (bounds only fall as
 * the lattice is refined). Newly active labels inherit the degenerate node's P and Q.
 *
 * Exactness in floating point:
 * - A node is pruned only when P + E + Q < lb - slack, where slack bounds the rounding error of
 *   any summation order of a path's terms ((4T + 16) eps times the sum of magnitudes), so a path
 *   whose computed left-to-right score is >= lb is never pruned.
 * - The P of a node is the left-to-right evaluation of the path its back pointers trace (every
 *   max-plus candidate is one rounded left-to-right step), and rounding is monotone, so after a
 *   forward pass P + E + end of the best final node is >= the computed score of every original
 *   path: a forward pass whose best path is all active is exact (Lemma 1 holds exactly).
 *
 * Speed: the passes run their O(active labels) loops through the row operations of the kernels'
 * level (degen_ops.h, one call per column), so those are vectorized like the kernels; they
 * touch only the live prefix [0, hi) of each column, as pruned nodes never come back.
 */
#ifndef VT_DECODE_DEGEN_H
#define VT_DECODE_DEGEN_H

#include <math.h>

#include "alloc/arena.h"
#include "core/kernel.h"
#include "core/trans_layout.h"
#include "decode/budget.h"
#include "decode/degen_ops.h"

typedef struct vt_degen vt_degen;

struct vt_degen {
  int32_t T, L, ld, K;
  const vt_bounds *bd;
  const vt_kernels *kern;
  const vt_degen_ops *ops; /* the row operations of kern->level */
  const double *Er; /* T rows of le: rank-space emissions (E itself when the rank is identity) */
  int32_t le;       /* row stride of Er */
  double *Esuf;     /* T x K: Esuf[t*K + k] = max_{r >= 2^k} Er[t][r] */
  double *P, *Q;    /* T x ld */
  double *Pd, *Qd;  /* T: the degenerate node's */
  int32_t *n;       /* T: active labels */
  int32_t *hi;      /* T: 1 + the last active node not dead (those after it are all dead) */
  uint8_t *deg;     /* T: degenerate node alive */
  int32_t *ptr;     /* T x ld: back (forward pass) or next (backward pass) pointers */
  int32_t *ptrd;    /* T: the degenerate node's */
  double *vec;      /* ld scratch: alpha or beta of one column */
  int32_t *path;    /* T: best path of the last pass, index n[t] = degenerate */
  int32_t *alt;     /* T: a real path derived from it, for the lower bound */
  double lb, slack;
  double mag;      /* the largest magnitude of a sum of a path's terms (the slack's base) */
  int exact_tried; /* vt_degen_slack_exact ran */
  int prune;       /* 1: passes prune against lb (and kill dead nodes); 0: pure Viterbi passes */
  int64_t pruned;
};

/* Allocates the lattice of a sentence (T >= 1 rows of E, label space) from `arena`, prepares the
 * rank-space emissions, their suffix maxima and the slack, and starts every column with `n0`
 * active labels (a power of two, capped at L) plus its degenerate node. Pruning is on with
 * lb = -inf; P and Q are not initialized. Returns VT_OK or VT_ENOMEM. */
vt_status vt_degen_init(vt_degen *s, const vt_trans *tr, vt_arena *arena, const double *E,
                        int32_t T, int32_t n0);

/* Sets the slack to 0 when no sum of a path's terms can round: every finite score (transitions,
 * start and end: vt_bounds' q_a and q_sf; the sentence's emissions: row_integral) is a multiple
 * of 2^q with four times `mag` below 2^(q + 51) (two bits kept for sums of a prefix and a suffix
 * bound). Then every P, Q, key and path score is exact, and a tie is a tie: with the slack, every
 * path tied with the one found looks a slack better, and a k-best search must open them all
 * (integer or coarsely quantized scores: an integer-weighted perceptron, the `ties` lattices
 * of perf/lattice_shape.c). Lowering the slack keeps everything pruned so far correctly pruned.
 * One pass over the emissions the first time (1-2% of a search on the real lattices, which
 * never need it: called by the k-best searches only), nothing after. */
void vt_degen_slack_exact(vt_degen *s);

/* Forward pass: recomputes P (and back pointers) column by column, prunes, and writes the best
 * path into s->path. Returns its score (-inf when the lattice has no finite path). Q must hold
 * values (vt_degen_q_naive or a backward pass) when pruning is on. */
double vt_degen_forward(vt_degen *s);

/* As vt_degen_forward, keeping columns [0, t0) from the last forward pass: valid when the
 * lattice has not changed there since (nodes it would prune there stay; they only cost time). */
double vt_degen_forward_from(vt_degen *s, int32_t t0);

/* Backward pass: the mirror image, recomputing Q (and next pointers) from the last column. P must
 * hold values when pruning is on. */
double vt_degen_backward(vt_degen *s);

/* Row operations for the searches, vectorized for the kernels' level (identical results):
 * vt_degen_scan writes to idx the indices j of x[0, n) with x[j] > thr, ascending, and returns
 * their count; vt_degen_row_step sets row[j] = (p + A[j]) + E[j] (one left-to-right step);
 * vt_degen_row_join sets row[j] = (P[j] + E[j]) + (into[j] + tau) (prefix, then a suffix
 * summed right to left); vt_degen_row_join_c is row_join with P[j] = p for every j. */
static inline int32_t vt_degen_scan(const vt_degen *s, const double *x, int32_t n, double thr,
                                    int32_t *idx) {
  return s->ops->scan_above(x, n, thr, idx);
}
static inline void vt_degen_row_step(const vt_degen *s, double *row, double p, const double *A,
                                     const double *E, int32_t n) {
  s->ops->row_step(row, p, A, E, n);
}
static inline void vt_degen_row_join(const vt_degen *s, double *row, const double *P,
                                     const double *E, const double *into, double tau, int32_t n) {
  s->ops->row_join(row, P, E, into, tau, n);
}
static inline void vt_degen_row_join_c(const vt_degen *s, double *row, double p, const double *E,
                                       const double *into, double tau, int32_t n) {
  s->ops->row_join_c(row, p, E, into, tau, n);
}

/* Naive suffix bound (Huang et al. eq. 9, plus the end score): fills Q and Qd. */
void vt_degen_q_naive(vt_degen *s);

/* Greedy (beam 1) path on the original lattice into s->alt; sets lb to its score. */
void vt_degen_lb_greedy(vt_degen *s);

/* Raises lb with a real path made from s->path: each degenerate node is replaced by the inactive
 * label with the best emission there. Returns 1 if s->path was all active. */
int vt_degen_lb_raise(vt_degen *s);

/* Doubles the active labels of column t (capped at L); new labels inherit the degenerate node's
 * bounds. */
void vt_degen_expand(vt_degen *s, int32_t t);

/* Doubles the active labels of column t once, then again (at most `extra` more times) while the
 * degenerate node would survive pruning by its own bound: its P and Q (valid bounds for any
 * suffix of the inactive labels) plus the emission maximum of the smaller suffix are still
 * above lb - slack. Saves the passes that would otherwise expand such a column one doubling at
 * a time. */
void vt_degen_expand_far(vt_degen *s, int32_t t, int32_t extra);

/* Extra doublings for column-wise expansion. With one, staggered-col on the 2,012 CoNLL-2000
 * joint test sentences (319 labels) runs 5.3 passes instead of 8.7 over 63 active labels per
 * column instead of 42: 10% faster (median of 9 back-to-back A/B runs, every one faster), 2%
 * on Greek (945 labels; mixed), 1.4x on synthetic 45 labels. Two is slower everywhere (too many
 * labels); plain staggered (every column) is slower with one at 319 and 945 labels, faster at
 * 45 and 443, and keeps single doublings (perf/README.md). */
#define VT_DEGEN_COL_EXTRA 1

/* The cost of the next pass over the current lattice in cells (budget.h): its columns and the
 * transition evaluations between their live nodes. Adds the nodes it will score to *cells. */
double vt_degen_pass_cost(const vt_degen *s, int64_t *cells);

/* The number of columns whose degenerate node the lattice path `path` (index n[t]: column t's
 * degenerate node) goes through; call it before the lattice expands. */
int32_t vt_degen_through(const vt_degen *s, const int32_t *path);

/* The thresholds of the progress test (budget.h) for one kind of search: the share of degenerate
 * nodes that stops it past the probe, and the size (of the full decoder's cost) and share of a
 * big pass out of the cache that is not started. */
typedef struct vt_probe_rule {
  double past, big, big_past;
} vt_probe_rule;

/* staggered-col; plain staggered; iter-astar and iter-viterbi-astar (no big-pass rule: their
 * passes prune against a lower bound, and on Greek it stopped two short sentences that
 * iter-viterbi-astar finishes at a tenth of a Viterbi) */
#define VT_PROBE_RULE_COL ((vt_probe_rule){VT_PROBE_DEGEN, VT_PROBE_BIG_PASS, VT_PROBE_DEGEN_BIG})
#define VT_PROBE_RULE_ALL                                                                          \
  ((vt_probe_rule){VT_PROBE_DEGEN_ALL, VT_PROBE_BIG_PASS_ALL, VT_PROBE_DEGEN_BIG_ALL})
#define VT_PROBE_RULE_ITER ((vt_probe_rule){VT_PROBE_DEGEN, INFINITY, INFINITY})

/* The budget's progress test (budget.h), before a pass or an A* call that costs `next` cells,
 * after one whose best lattice path went through `through` degenerate nodes (vt_degen_through;
 * < 0 before the first). Once the search has spent its probe, a share rule.past or more of the
 * columns stop it; the pass that would take it past the probe is not started at
 * VT_PROBE_DEGEN_CROSS or more, nor a pass of rule.big of the full decoder or more out of the
 * cache at rule.big_past or more. Stopping sets bud->over (vt_decode finishes the sentence with
 * the full decoder) and returns 1; else 0. */
int vt_degen_hopeless(const vt_degen *s, int32_t through, vt_probe_rule rule, double next,
                      vt_budget *bud);

/* Starts a pass that costs `cost` cells (vt_degen_pass_cost): returns 1, the search stopped,
 * when vt_degen_hopeless stops it, when it is a backward pass (`forward` 0) and the budget
 * cannot pay twice its cost (vt_budget_short: only a forward pass ends a search, and the one
 * after it costs about as much), or when charging it runs out of budget or meets the cancel
 * flag; else charges it and returns 0. `ends` (k = 1 searches): a forward pass over a lattice
 * with no degenerate node left ends the search, so past vt_degen_hopeless it is never stopped
 * for the budget, only charged what is left (budget.h, "The last pass"). */
int vt_degen_pass_start(const vt_degen *s, int32_t through, vt_probe_rule rule, double cost,
                        int forward, int ends, vt_budget *bud);

/* Adds a finished search's figures to `stats`: `iters` passes, the active labels and nodes of
 * the final lattice, the nodes pruned. */
void vt_degen_stats_add(const vt_degen *s, int64_t iters, vt_decode_stats *stats);

/* Score of a rank-space path of real labels, left to right, exactly as vt_path_score. */
double vt_degen_path_score(const vt_degen *s, const int32_t *y);

/* Emission of node j of column t (j == n[t]: the degenerate node). */
static inline double vt_degen_emit(const vt_degen *s, int32_t t, int32_t j) {
  return j < s->n[t] ? s->Er[(size_t)t * s->le + j]
                     : s->Esuf[(size_t)t * s->K + vt_level_of(s->n[t])];
}

/* Transition score from node i of column t to node j of column t + 1. */
static inline double vt_degen_trans(const vt_degen *s, int32_t t, int32_t i, int32_t j) {
  const vt_bounds *b = s->bd;
  const int32_t np = s->n[t], nc = s->n[t + 1];
  if (i < np && j < nc) return b->Ar[(size_t)i * s->ld + j];
  if (i < np) return b->to_max[(size_t)vt_level_of(nc) * s->L + i];
  if (j < nc) return b->from_max[(size_t)vt_level_of(np) * s->L + j];
  return b->both_max[vt_level_of(np) * s->K + vt_level_of(nc)];
}

/* Start score of node j of column 0. */
static inline double vt_degen_start(const vt_degen *s, int32_t j) {
  return j < s->n[0] ? s->bd->Sr[j] : s->bd->s_suf[vt_level_of(s->n[0])];
}

/* End score of node j of column T - 1. */
static inline double vt_degen_end(const vt_degen *s, int32_t j) {
  const int32_t t = s->T - 1;
  return j < s->n[t] ? s->bd->Fr[j] : s->bd->f_suf[vt_level_of(s->n[t])];
}

/* Left-to-right score of a path of node indices over the current lattice (degenerate nodes use
 * their bounds), in the order of vt_path_score: equal to it on an all-active path. */
double vt_degen_chain(const vt_degen *s, const int32_t *y);

#endif
