/* engine/decode/viterbi_astar.h: k-best Viterbi A* (Huang et al. 2012, Algorithm 3) on a degenerate
 * lattice, the backward search shared by viterbi-astar and iter-viterbi-astar. */
#ifndef VT_DECODE_VITERBI_ASTAR_H
#define VT_DECODE_VITERBI_ASTAR_H

#include "decode/budget.h"
#include "decode/degen.h"

/* The k best paths of lattice `s`, whose P and back pointers come from a forward pass run just
 * before (with nothing pruned since). Without `split` a path is a list of T node indices (n[t] =
 * the degenerate node) and its score its left-to-right evaluation (vt_degen_chain), so an
 * all-active path scores exactly as vt_path_score. With `split` the paths are the k best real
 * paths of the original lattice (rank-space labels, inactive ones included; lb must be a lower
 * bound on the k-th best score), unless the search runs past VT_SPLIT_POPS_PER_PATH * k * T
 * pops or twice as many nodes: then *n_out = -1 and nothing else is meaningful. Every pop is
 * charged to `bud` with the nodes it pushed and the candidates it scored (budget.h); when the
 * budget stops the search, *n_out = -2 and nothing else is meaningful. Writes up to k
 * distinct paths, best first, scores non-increasing, to nodes[p*T ..] and scores[p]; *n_out =
 * how many (fewer than k only when the lattice holds fewer finite paths). Adds its agenda pops
 * to *pops. Returns VT_OK or VT_ENOMEM. */
vt_status vt_degen_kbest(const vt_degen *s, vt_arena *arena, int32_t k, int split, int32_t *nodes,
                         double *scores, int32_t *n_out, int64_t *pops, vt_budget *bud);

/* The split search's budget: pops per path and column. No sentence of the real lattices (319
 * and 945 labels, k = 5, 20, 100) reached it; at 8, 8 of 1,500 did at k = 5. A sentence beyond
 * it costs a fallback to expansion, not a wrong answer. */
#define VT_SPLIT_POPS_PER_PATH 32

#endif
