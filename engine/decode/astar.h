/* engine/decode/astar.h: k-best A* over a degenerate lattice (Huang et al. 2012, sections 4.1-4.3),
 * the left-to-right search shared by astar and iter-astar. */
#ifndef VT_DECODE_ASTAR_H
#define VT_DECODE_ASTAR_H

#include "decode/budget.h"
#include "decode/degen.h"

/* The heuristic: an upper bound on the score after node j of column t (transitions, emissions
 * and end score to the right of it), consistent in exact arithmetic. H[t*ld + j] when H is not
 * NULL (j < L), else hcol[t] for every node of column t. */
typedef struct vt_heur {
  const double *H;
  const double *hcol;
} vt_heur;

/* The k best paths of lattice `s` (its n, deg and emissions; P and Q are not used) by A* with
 * heuristic `h`. Output as vt_degen_kbest: up to k distinct paths of node indices, best first,
 * scores their left-to-right evaluation (vt_degen_chain). Adds its agenda pops to *pops and the
 * lattice nodes it scored to *cells. Every pop is charged to `bud` with the candidates it scored
 * and the nodes it pushed (budget.h: so the agenda holds at most the budget / VT_W_PUSH nodes);
 * when the budget stops the search, *n_out = -1 and nothing else is meaningful. `whole` says the
 * search is the sentence's only one, over the full lattice (astar): its agenda gets room for what
 * the budget can push at once (budget.h, VT_AGENDA_RESERVE_MAX), and a prefix pushes its
 * extensions in rounds, those that can come out next first (partial expansion, astar.c); not for
 * iter-astar's many searches over narrow lattices, which would each reserve the room anew.
 * Returns VT_OK or VT_ENOMEM. */
vt_status vt_degen_astar(const vt_degen *s, const vt_heur *h, vt_arena *arena, int32_t k, int whole,
                         int32_t *nodes, double *scores, int32_t *n_out, int64_t *pops,
                         int64_t *cells, vt_budget *bud);

#endif
