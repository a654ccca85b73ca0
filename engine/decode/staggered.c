/* engine/decode/staggered.c: exact 1-best staggered decoding (Kaji et al. 2010; Huang et al. 2012,
 * Algorithms 1-2), with alternating forward/backward passes, alpha/beta node pruning against a
 * lower bound, and plain (every column) or column-wise expansion.
 *
 * The lattice, its passes, pruning and expansion live in degen.c (see degen.h for the rank-space
 * layout and the bounds).
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
#include <math.h>

#include "decode/decoders.h"
#include "decode/degen.h"

vt_status vt_staggered_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                              const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                              vt_budget *bud) {
  vt_degen s;
  const int colwise = opts->algo == VT_ALGO_STAGGERED_COL;
  vt_status st = vt_degen_init(&s, tr, arena, E, T, 1);
  if (st != VT_OK) return st;
  vt_degen_q_naive(&s);
  vt_degen_lb_greedy(&s);

  const vt_probe_rule rule = colwise ? VT_PROBE_RULE_COL : VT_PROBE_RULE_ALL;
  int64_t iters = 0;
  int32_t through = -1; /* degenerate nodes on the last pass's best path (the progress test) */
  int forward = 1, skip_expand = 0;
  double best;
  out->n = 0;
  for (;;) {
    iters++;
    const double cost = vt_degen_pass_cost(&s, &stats->cells);
    if (vt_degen_pass_start(&s, through, rule, cost, forward, 1, bud))
      break; /* vt_decode goes on */
    best = forward ? vt_degen_forward(&s) : vt_degen_backward(&s);
    if (best == -INFINITY) break; /* the degenerate lattice bounds every path: none is finite */
    int all_active = vt_degen_lb_raise(&s);
    if (all_active && forward) {
      for (int32_t t = 0; t < T; t++) out->labels[t] = tr->rank[s.path[t]];
      out->scores[0] = best;
      out->n = 1;
      break;
    }
    through = vt_degen_through(&s, s.path);
    skip_expand = all_active; /* a backward all-active path: confirm it forward first */
    if (!skip_expand) {
      /* The best path used a degenerate node, which is alive, so something always expands. */
      for (int32_t t = 0; t < T; t++) {
        if (!s.deg[t]) continue;
        if (colwise && s.path[t] != s.n[t]) continue;
        vt_degen_expand_far(&s, t, colwise ? VT_DEGEN_COL_EXTRA : 0);
      }
    }
    forward = !forward;
  }
  vt_degen_stats_add(&s, iters, stats);
  return VT_OK;
}
