/* engine/decode/iter_astar.c: 1-best iterative A* (Huang et al. 2012, section 4.2): A* with the
 * naive heuristic on degenerate lattices, starting from one active label per column and doubling
 * the columns whose degenerate node the best path uses, until the best path is all active. There is
 * no pruning (as in the paper).
 *
 * Exactness: the A* returns the lattice path with the best left-to-right evaluation (astar.h). A
 * real path through inactive labels maps to the lattice path through those degenerate nodes,
 * which evaluates at least as high (each term is a maximum; rounding is monotone), so an
 * all-active best lattice path is optimal on the original lattice. */
#include <math.h>

#include "decode/astar.h"
#include "decode/decoders.h"

vt_status vt_iter_astar_decode(const vt_trans *tr, const vt_decode_opts *opts, vt_arena *arena,
                               const double *E, int32_t T, vt_paths *out, vt_decode_stats *stats,
                               vt_budget *bud) {
  vt_degen s;
  vt_status st = vt_degen_init(&s, tr, arena, E, T, 1);
  if (st != VT_OK) return st;
  vt_degen_q_naive(&s); /* Qd: the naive bound per column, the same on every lattice */
  const vt_heur h = {NULL, s.Qd};
  int32_t *path = s.path;
  int64_t iters = 0;
  out->n = 0;
  for (;;) {
    iters++;
    int32_t n = 0;
    double score;
    st = vt_degen_astar(&s, &h, arena, 1, 0, path, &score, &n, &stats->pops, &stats->cells, bud);
    if (st != VT_OK) return st;
    if (n < 0) break; /* the budget stopped it: vt_decode goes on */
    if (n == 0) break;
    if (vt_degen_hopeless(&s, vt_degen_through(&s, path), VT_PROBE_RULE_ITER, 0, bud))
      break; /* vt_decode goes on */
    int expanded = 0;
    for (int32_t t = 0; t < T; t++)
      if (path[t] == s.n[t]) {
        vt_degen_expand(&s, t); /* the path's degenerate node is alive: it expands */
        expanded = 1;
      }
    if (!expanded) {
      for (int32_t t = 0; t < T; t++) out->labels[t] = tr->rank[path[t]];
      out->scores[0] = score;
      out->n = 1;
      break;
    }
  }
  vt_degen_stats_add(&s, iters, stats); /* nothing is pruned */
  (void)opts;
  return VT_OK;
}
