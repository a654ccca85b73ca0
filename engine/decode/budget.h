/* engine/decode/budget.h: the per-sentence work budget of the exact search decoders (issue 21).
 *
 * A search decoder charges its work as it goes, in cell equivalents: one cell is one transition
 * evaluation of the SIMD Viterbi (T*L^2 of them per sentence for 1-best), and every other kind
 * of step is weighted by what it costs next to one (the VT_W_* weights, measured on AVX2 at 45,
 * 319 and 945 labels: perf/README.md, "Worst case"). The budget is a fraction (opts->budget,
 * default VT_BUDGET_DEFAULT) of the cost of the full decoder that would take over: viterbi
 * (T*L^2) for k = 1, kbest-viterbi (VT_W_KBEST_PER_PATH * k * T*L^2) for k > 1. Charges are made
 * before the work they stand for where that is cheap to know (a staggered pass) and right after
 * it otherwise (one agenda pop and its pushes); once the total passes the limit, the search stops
 * and vt_decode finishes the sentence with the full decoder. The limit and every charge depend on
 * the lattice only, so whether a sentence falls back is the same on any thread and SIMD level.
 * Every agenda push is charged, so an agenda holds at most limit / VT_W_PUSH nodes: its memory is
 * bounded by the same budget.
 *
 * Each charge also polls the cancel flag of the engine run (NULL outside one): a canceled search
 * stops at its next charge (a few microseconds of work apart) and vt_decode returns
 * VT_ECANCELED. */
#ifndef VT_ENGINE_BUDGET_H
#define VT_ENGINE_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

/* The default budget: a fifth of the full decoder's cost, so that a sentence that falls back
 * costs at most 1.2 full decodes (>= 0.83x its speed) up to the weights' error. */
#define VT_BUDGET_DEFAULT 0.2

/* Weights, in cells (one SIMD Viterbi transition evaluation). */
#define VT_W_PASS_COLUMN 24 /* per column of a staggered pass: rows, pruning, bookkeeping */
#define VT_W_PASS_CELL 2    /* per transition evaluation of a pass (small blocks, SIMD) */
#define VT_W_POP 24         /* per agenda pop (a heap pop, mostly cache misses) */
#define VT_W_PUSH 12        /* per agenda push (a node copied into the pool, a heap push) */
#define VT_W_SCAN 2         /* per candidate scored by a search (vectorized rows, scans) */
#define VT_W_CD_SCAN 6      /* per predecessor Carpediem scans (scalar, in rank order) */
#define VT_W_CD_OPEN 24     /* per node Carpediem opens (heap pops of the layer, a frame) */
/* kbest-viterbi's cost per path, in cells per T*L^2 (scalar top-k merges, measured at k = 5). */
#define VT_W_KBEST_PER_PATH 4

typedef struct vt_budget {
  double left;              /* cells left; the search stops when it falls below 0 */
  const atomic_int *cancel; /* the engine run's cancel flag, or NULL */
  int over;                 /* 1: the search stopped over its budget */
  int canceled;             /* 1: the search stopped on the cancel flag */
} vt_budget;

/* Charges `cells` of work. Returns 1 when the search must stop now (over budget: b->over, or
 * canceled: b->canceled), else 0. A budget with left = +inf never runs out. */
static inline int vt_budget_charge(vt_budget *b, double cells) {
  b->left -= cells;
  if (b->left < 0) {
    b->over = 1;
    return 1;
  }
  if (b->cancel && atomic_load_explicit(b->cancel, memory_order_relaxed)) {
    b->canceled = 1;
    return 1;
  }
  return 0;
}

/* Returns 1 when a search stopped on `b` (over budget or canceled). */
static inline int vt_budget_stopped(const vt_budget *b) { return b->over || b->canceled; }

#endif
