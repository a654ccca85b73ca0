/* engine/decode/iter_viterbi_astar.c: k-best iterative Viterbi A* (Huang et al. 2012, Algorithm 4).
 *
 * Staggered decoding's iterations (degen.h: alternating forward/backward passes, pruning against
 * lb, column-wise expansion) until a forward pass's best path is all active; then Viterbi A*
 * (viterbi_astar.h) on the current lattice. Two ways to finish (vt_refine):
 * - split (default): the search splits every degenerate node it pops into the column's inactive
 *   labels, so its k best are the k best real paths, after one call and no further pass. At 319
 *   labels, k = 5, a sentence takes 3.6 passes (over 62 active labels per column) and 33 pops
 *   on average, against 6.0 passes (85 labels) and 65 pops when expanding (perf/README.md). If
 *   the search runs over its budget (huge scores with near-ties) the sentence goes on as expand.
 * - expand (Algorithm 4 as published): k'-best Viterbi A* over lattice paths. When its k best
 *   are all active they are the answer; otherwise every column whose degenerate node one of its
 *   k' paths uses is expanded and the next forward pass follows at once (the backward pass in
 *   between would only refresh bounds).
 * lb, a lower bound on the k-th best score, starts from k paths of the original lattice: the
 * greedy path and its k - 1 best-looking single-label substitutions (the paper's width-k beam
 * gives a bound as tight but costs k greedy passes: measured 1.4x against 1.8x the SIMD Viterbi
 * at 319 labels, k = 5); it rises with the k-th best all-active path traced back from the final
 * column by each forward pass and with the k-th best all-active path of each Viterbi A* call.
 *
 * Exactness. lb is always the k-th best score of k distinct real paths, evaluated left to right:
 * the substitutions differ from the greedy path and from each other, traced paths are distinct
 * by their final node, and the forward value of a traced all-active path is exactly its
 * left-to-right score. So every one of the k best paths survives pruning (degen.h). Split: the
 * search's own argument (viterbi_astar.c). Expand: a real path that uses an inactive label maps
 * to the lattice path through that column's degenerate node, which evaluates at least as high
 * (each term is a maximum; rounding is monotone); so when Viterbi A*'s k best lattice paths are
 * all active, no real path beats the k-th of them: they are the k best paths. For k = 1 the
 * Viterbi A* call is skipped: a forward pass's all-active best path is already optimal
 * (staggered). */
#include <math.h>

#include "decode/agenda.h"
#include "decode/decoders.h"
#include "decode/degen.h"
#include "decode/viterbi_astar.h"

/* Active labels per column of the first lattice: the power of two nearest below L / 32, from 1
 * (the paper's start) to 8. At 319 labels, 8 saves the passes over tiny lattices (3.6 passes
 * instead of 5.3, the same 62 active labels in the end): 5-best about 10% faster (median of 5
 * interleaved vt_bench runs), 1-best about 20%; at 945 labels about the same speed. Small label
 * sets keep the paper's single label. */
static int32_t initial_active(int32_t L) {
  int32_t n = 1;
  while (n < 8 && 64 * n <= L) n *= 2;
  return n;
}

typedef struct iva_scratch {
  double *row;   /* ld: one column's values */
  int32_t *idx;  /* ld: indices from vt_degen_scan */
  double *sv;    /* k: substitution estimates, best first */
  int32_t *spos; /* k: their position */
  int32_t *slab; /* k: their label */
  int32_t *ybuf; /* T: a substituted path */
} iva_scratch;

/* Raises lb with k distinct real paths: the real (rank-space) path y, scoring `score`, and the
 * k - 1 single-label substitutions of y that look best (their change of the three terms around
 * the label, estimated), scored exactly. */
static void lb_subst(vt_degen *s, int32_t k, const int32_t *y, double score, iva_scratch *w) {
  const vt_bounds *b = s->bd;
  const int32_t T = s->T, L = s->L, ld = s->ld, want = k - 1;
  if (score == -INFINITY) return;
  int32_t m = 0;
  for (int32_t t = 0; t < T; t++) {
    const int32_t yt = y[t];
    const double *in = t > 0 ? b->Ar + (size_t)y[t - 1] * ld : b->Sr;
    const double *out = t + 1 < T ? b->Art + (size_t)y[t + 1] * ld : b->Fr;
    const double *E = s->Er + (size_t)t * s->le;
    const double here = (in[yt] + E[yt]) + out[yt];
    vt_degen_row_join(s, w->row, in, E, out, -here, L);
    const double thr = m < want ? -INFINITY : w->sv[want - 1];
    const int32_t nh = vt_degen_scan(s, w->row, L, thr, w->idx);
    for (int32_t c = 0; c < nh; c++) {
      const int32_t j = w->idx[c];
      const double v = w->row[j];
      if (j == yt || (m == want && !(v > w->sv[want - 1]))) continue;
      int32_t pos = m < want ? m++ : want - 1;
      for (; pos > 0 && w->sv[pos - 1] < v; pos--) {
        w->sv[pos] = w->sv[pos - 1];
        w->spos[pos] = w->spos[pos - 1];
        w->slab[pos] = w->slab[pos - 1];
      }
      w->sv[pos] = v;
      w->spos[pos] = t;
      w->slab[pos] = j;
    }
  }
  if (m < want) return; /* fewer than k finite paths among them */
  double kth = score;
  for (int32_t c = 0; c < m; c++) {
    for (int32_t u = 0; u < T; u++) w->ybuf[u] = y[u];
    w->ybuf[w->spos[c]] = w->slab[c];
    const double v = vt_degen_path_score(s, w->ybuf);
    kth = v < kth ? v : kth;
  }
  if (kth > s->lb) s->lb = kth;
}

/* Returns 1 when the path traced back from node j of the last column (after a forward pass)
 * uses no degenerate node. */
static int traced_active(const vt_degen *s, int32_t j) {
  for (int32_t t = s->T - 1; t > 0; t--) {
    if (j >= s->n[t]) return 0;
    j = s->ptr[(size_t)t * s->ld + j];
  }
  return j < s->n[0];
}

/* After a forward pass: raises lb to the k-th best score among final nodes whose traced path is
 * all active (their forward values are exact scores), looking only at final nodes above lb, best
 * first, and giving up after 4k traces. */
static void lb_traced(vt_degen *s, int32_t k, iva_scratch *w) {
  const int32_t T = s->T, nl = s->n[T - 1];
  const double *P = s->P + (size_t)(T - 1) * s->ld, *E = s->Er + (size_t)(T - 1) * s->le;
  double *v = w->row;
  vt_degen_row_join(s, v, P, E, s->bd->Fr, 0.0, nl);
  int32_t m = vt_degen_scan(s, v, nl, s->lb, w->idx), found = 0;
  for (int32_t tries = 0; tries < 4 * k && m > 0; tries++) {
    int32_t best = 0; /* the best remaining candidate (lowest index on ties) */
    for (int32_t c = 1; c < m; c++)
      if (v[w->idx[c]] > v[w->idx[best]]) best = c;
    const int32_t j = w->idx[best];
    w->idx[best] = w->idx[--m];
    if (traced_active(s, j) && ++found == k) {
      s->lb = v[j];
      return;
    }
  }
}

/* Returns 1 when the path of node indices y uses no degenerate node. */
static int path_active(const vt_degen *s, const int32_t *y) {
  for (int32_t t = 0; t < s->T; t++)
    if (y[t] >= s->n[t]) return 0;
  return 1;
}

/* Writes the first n paths of cand (rank-space labels) to out, in label space. */
static void paths_out(const vt_degen *s, const vt_trans *tr, const int32_t *cand,
                      const double *cscore, int32_t n, vt_paths *out) {
  for (size_t i = 0; i < (size_t)n * s->T; i++) out->labels[i] = tr->rank[cand[i]];
  for (int32_t p = 0; p < n; p++) out->scores[p] = cscore[p];
  out->n = n;
}

/* Runs Viterbi A* after a forward pass. Splitting (*split), its k best are the answer: written
 * to `out`, returns -1. When the budget `bud` stops a search, returns -1 with nothing written. If
 * the split search gives up, *split is cleared and the sentence goes on as Algorithm 4: k'-best
 * Viterbi A* over lattice paths; returns -1 when its k best are all active (written to `out`) or on
 * error (*st); else raises lb with the k-th best all-active path found, expands the columns whose
 * degenerate node any of the k' paths uses, and returns the first column it expanded. */
static int32_t kbest_try(vt_degen *s, const vt_trans *tr, vt_arena *arena, int32_t k, int32_t kp,
                         int *split, int32_t *cand, double *cscore, vt_paths *out,
                         vt_decode_stats *stats, vt_budget *bud, vt_status *st) {
  const int32_t T = s->T;
  int32_t m = 0;
  vt_degen_slack_exact(s); /* exact ties stay ties in the search (the first call only) */
  if (*split) {
    *st = vt_degen_kbest(s, arena, k, 1, cand, cscore, &m, &stats->pops, bud);
    if (*st != VT_OK || m == -2) return -1; /* -2: the budget stopped it */
    if (m >= 0) {
      paths_out(s, tr, cand, cscore, m, out);
      return -1;
    }
    *split = 0; /* over budget: certify by expansion from here on */
    stats->fallbacks++;
  }
  *st = vt_degen_kbest(s, arena, kp, 0, cand, cscore, &m, &stats->pops, bud);
  if (*st != VT_OK || m < 0) return -1;
  const int32_t want = m < k ? m : k;
  int32_t first_inactive = m, n_active = 0;
  for (int32_t p = 0; p < m; p++) {
    if (!path_active(s, cand + (size_t)p * T)) {
      if (first_inactive == m) first_inactive = p;
    } else if (++n_active == k && cscore[p] > s->lb) {
      s->lb = cscore[p];
    }
  }
  if (first_inactive >= want) {
    paths_out(s, tr, cand, cscore, want, out);
    return -1;
  }
  /* Mark first: expanding a column changes its n, which identifies the degenerate node. */
  uint8_t *mark = (uint8_t *)s->alt;
  for (int32_t t = 0; t < T; t++) mark[t] = 0;
  for (int32_t p = first_inactive; p < m; p++)
    for (int32_t t = 0; t < T; t++) mark[t] |= cand[(size_t)p * T + t] == s->n[t];
  int32_t first = T;
  for (int32_t t = 0; t < T; t++)
    if (mark[t] && s->deg[t]) {
      vt_degen_expand(s, t);
      first = t < first ? t : first;
    }
  return first; /* < T: the first inactive path used an alive degenerate node */
}

vt_status vt_iter_viterbi_astar_decode(const vt_trans *tr, const vt_decode_opts *opts,
                                       vt_arena *arena, const double *E, int32_t T, vt_paths *out,
                                       vt_decode_stats *stats, vt_budget *bud) {
  const int32_t k = opts->k, kp = opts->kprime > k ? opts->kprime : opts->kprime ? k : 2 * k;
  const int32_t ld = tr->ld;
  vt_degen s;
  vt_status st = vt_degen_init(&s, tr, arena, E, T, initial_active(tr->L));
  if (st != VT_OK) return st;
  iva_scratch w;
  w.row = VT_ARENA_NEW(arena, double, ld);
  w.idx = VT_ARENA_NEW(arena, int32_t, ld);
  w.sv = VT_ARENA_NEW(arena, double, k);
  w.spos = VT_ARENA_NEW(arena, int32_t, k);
  w.slab = VT_ARENA_NEW(arena, int32_t, k);
  w.ybuf = VT_ARENA_NEW(arena, int32_t, T);
  int32_t *cand = VT_ARENA_NEW(arena, int32_t, (size_t)kp * T);
  double *cscore = VT_ARENA_NEW(arena, double, kp);
  if (!w.row || !w.idx || !w.sv || !w.spos || !w.slab || !w.ybuf || !cand || !cscore)
    return VT_ENOMEM;
  vt_degen_q_naive(&s);
  vt_degen_lb_greedy(&s); /* lb = the greedy path's score, the path in s.alt */
  if (k > 1) {
    const double greedy = s.lb;
    s.lb = -INFINITY;
    lb_subst(&s, k, s.alt, greedy, &w);
  }

  int64_t iters = 0;
  int32_t through = -1; /* degenerate nodes on the last pass's best path (the progress test) */
  int forward = 1, split = opts->refine == VT_REFINE_SPLIT;
  int32_t from = 1; /* the next forward pass recomputes columns [from, T) */
  out->n = 0;
  for (;;) {
    iters++;
    const double cost = vt_degen_pass_cost(&s, &stats->cells);
    if (vt_degen_pass_start(&s, through, VT_PROBE_RULE_ITER, cost, forward, k == 1, bud))
      break; /* vt_decode goes on */
    const double best = forward ? vt_degen_forward_from(&s, from) : vt_degen_backward(&s);
    from = 1;
    if (best == -INFINITY) break; /* the lattice bounds every path: none is finite */
    const int all_active = k == 1 ? vt_degen_lb_raise(&s) : path_active(&s, s.path);
    if (forward) lb_traced(&s, k, &w);
    if (all_active && forward && k == 1) {
      for (int32_t t = 0; t < T; t++) out->labels[t] = tr->rank[s.path[t]];
      out->scores[0] = best;
      out->n = 1;
      break;
    }
    through = vt_degen_through(&s, s.path);
    if (all_active && forward) {
      from = kbest_try(&s, tr, arena, k, kp, &split, cand, cscore, out, stats, bud, &st);
      if (from < 0) break;
      /* Expanded: straight to the next forward pass, from the first column that changed (the
       * prefix before it is the same lattice, so its P and back pointers still hold). */
      from = from > 1 ? from : 1;
      continue;
    }
    if (!all_active) {
      /* Column-wise: the best path used these degenerate nodes, which are alive. */
      for (int32_t t = 0; t < T; t++)
        if (s.deg[t] && s.path[t] == s.n[t]) vt_degen_expand_far(&s, t, VT_DEGEN_COL_EXTRA);
    } /* a backward all-active path: confirm it forward first */
    forward = !forward;
  }
  vt_degen_stats_add(&s, iters, stats);
  return st;
}
