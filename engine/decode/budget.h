/* engine/decode/budget.h: the per-sentence work budget of the exact search decoders.
 *
 * A search decoder charges its work as it goes, in cell equivalents: one cell is one transition
 * evaluation of the SIMD Viterbi (T*L^2 of them per sentence for 1-best), and every other kind
 * of step is weighted by what it costs next to one (the VT_W_* weights, measured with AVX-512 at
 * 319 and 945 labels: perf/README.md, "Worst case and the work budget"). The budget is a fraction
 * (opts->budget, default VT_BUDGET_DEFAULT, or as below) of the cost of the full decoder that would
 * take over: viterbi (T*L^2) for k = 1, kbest-viterbi ((VT_W_KBEST_BASE + k) * T*L^2) for k > 1.
 * Charges are made before the work they stand for where that is cheap to know (a staggered pass)
 * and right after it otherwise (one agenda pop and its pushes); once the total passes the limit,
 * the search stops and vt_decode finishes the sentence with the full decoder. The limit and every
 * charge depend on the lattice only, so whether a sentence falls back is the same on any thread and
 * SIMD level. Every agenda push is charged, so an agenda holds at most limit / VT_W_PUSH nodes: its
 * memory is bounded by the same budget.
 *
 * Each charge also polls the cancel flag of the engine run (NULL outside one): a canceled search
 * stops at its next charge (a few microseconds of work apart) and vt_decode returns
 * VT_ECANCELED. */
#ifndef VT_DECODE_BUDGET_H
#define VT_DECODE_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

/* The default budget: one full decoder's cost. A hopeless sentence is stopped long before by the
 * progress test (below), so the budget only bounds what a lattice that passes that test can cost
 * (twice the full decoder); at 1.0 the real sentences whose search legitimately needs half to a
 * whole Viterbi keep it (at 0.5 plain staggered, whose tail is heaviest, lost 40% of its speed on
 * the CoNLL-2000 and Greek lattices; perf/README.md, "Worst case and the work budget"). */
#define VT_BUDGET_DEFAULT 1.0
/* For k > 1: the k-best searches' progress tests see less (an A* reaches the last column with its
 * first path, long before its k-th), and kbest-viterbi's estimated cost, (VT_W_KBEST_BASE + k)
 * Viterbis, is far from its real one on lattices full of ties; half of it keeps their worst case
 * at about 1.5 kbest-viterbis. */
#define VT_BUDGET_DEFAULT_KBEST 0.5
/* Below VT_KBEST_NARROW_LABELS labels the SIMD Viterbi gains little from its width (AVX2 runs at
 * 0.84-0.88 of AVX-512 on the 17-, 22- and 49-label lattices `vitesse lattice` writes for UD EWT
 * and CoNLL-2000, 0.68 on the synthetic 45-label sets, against 0.4-0.5 from 319 labels up), so
 * the estimate's allowance for AVX2 (VT_W_KBEST_BASE) does not apply, and kbest-viterbi costs
 * 16-46 Viterbis at k = 5 with AVX-512 (11-24 with AVX2) against an estimate of 11: there the
 * budget is the whole estimate. At half of it, `astar -k 5` on UD EWT UPOS (17 labels) fell back
 * on 96% of the sentences (0.90x against 3.8-4.4x with no budget), iter-viterbi-astar -k 5 ran
 * at 2.2x against 3.3-3.7x; with the whole estimate 3.8x and 3.3x, and no 45-label synthetic
 * set slower (perf/README.md, "Worst case and the work budget"). */
#define VT_KBEST_NARROW_LABELS 64
#define VT_BUDGET_DEFAULT_KBEST_NARROW 1.0
/* Carpediem (k = 1 only) is never far faster than the SIMD Viterbi on our lattices (0.85-1.1x on
 * CoNLL-2000 and Greek with no budget): the sentences it finishes cost a large share of a
 * Viterbi anyway, and those it does not waste less with a smaller budget. Side by side (vt_bench,
 * budget 1.0 / 0.3): peaked 945 labels 0.66x / 0.79-0.83x, peaked 319 0.86x / 0.96x, CoNLL-2000
 * 0.85x / 0.95-0.97x, Greek 1.00x / 1.04-1.10x, the hopeless 945-label sets 0.87-0.93x /
 * 0.91-0.96x; 0.2 gained nothing more. */
#define VT_BUDGET_DEFAULT_CARPEDIEM 0.3

/* Weights, in cells (one SIMD Viterbi transition evaluation: 0.33 ns with AVX-512 at 319
 * labels). Measured with --budget none on the adversarial lattices of perf/lattice_shape.c (319
 * labels): a Carpediem predecessor scan took 16 ns (it pops the layer's heap in rank order and
 * reads transitions out of order), an iter-astar pop with its pushes 290 ns on a 1.4 GB agenda
 * (a bounded agenda stays in cache: about a third of that). On AVX2 a cell costs about twice as
 * much and every weight is conservative. */
/* per label and position of a search's setup (its lattice's arrays, rank-space emissions, the
 * first bounds), charged by vt_decode before the search starts */
#define VT_W_SETUP 8
/* per column of a staggered pass: about ten row operations and the degenerate node's loops */
#define VT_W_PASS_COLUMN 200
/* per column, the least a search costs after its setup: two passes at about 290 ns a column
 * (measured at 45 labels, where the passes cost 5x a SIMD Viterbi); a sentence whose budget
 * cannot pay for it goes to the full decoder before the search starts */
#define VT_W_SEARCH_LEAST 1200
/* A search runs only where its least cost is below this share of the full decoder's (and astar
 * skips a heuristic pass over this share of what is left): from about
 * 58 labels up (at 45 labels every search is slower than a SIMD Viterbi) */
#define VT_SEARCH_LEAST_SHARE 0.5
/* per transition evaluation of a pass (small blocks, degenerate nodes) */
#define VT_W_PASS_CELL 1.0
/* per agenda pop (a heap pop, mostly cache misses) */
#define VT_W_POP 150
/* per level of the agenda's heap past its first VT_AGENDA_CACHED_LOG2 (1,024 items, 16 KB): a
 * pop sifts down through every level, and those past the first cache miss on each (a branch
 * the predictor cannot guess besides). Measured on the peaked 945-label lattices (vitesse
 * synth), where iter-astar's hopeless sentences build agendas of 10^4 to 10^5 items: 121 to 186
 * ns a pop with its pushes against a SIMD Viterbi cell of 0.10 ns, four times the flat weight. */
#define VT_W_POP_DEEP 200
#define VT_AGENDA_CACHED_LOG2 10
/* per agenda push (a node copied into the pool, a heap push) */
#define VT_W_PUSH 100
/* astar reserves its agenda for what its budget can push, up to this many nodes (40 MB): at 945
 * labels about 250,000 for a sentence of 40 tokens. Against growing it by doubling: Greek
 * `astar` 1.82-1.83x -> 2.01-2.05x, peaked 945 0.49x -> 0.57-0.61x (budget_trace, two runs). */
#define VT_AGENDA_RESERVE_MAX ((double)(1 << 20))
/* per candidate scored by a search (vectorized rows, scans) */
#define VT_W_SCAN 3
/* per predecessor Carpediem scans (the layer's heap, scattered reads) */
#define VT_W_CD_SCAN 60
/* per node Carpediem opens (a frame, the node's row) */
#define VT_W_CD_OPEN 100
/* kbest-viterbi (scalar top-k merges) costs about VT_W_KBEST_BASE + k SIMD Viterbis: 14 at k = 1
 * and 17.5 at k = 5 with AVX-512 at 945 labels, about half as many with AVX2; the lower figure
 * is used so that the budget stays a fraction of the full decoder's time on both. */
#define VT_W_KBEST_BASE 6
/* Past VT_KBEST_CACHED_LABELS labels (a transition matrix of 32 MB or more in doubles) the SIMD
 * Viterbi streams it from memory at every column (0.48 ns a cell at 2,602 labels against 0.10 at
 * 945) and so does every search, while kbest-viterbi's merges hide part of it: it costs 6-8.4
 * Viterbis at k = 5 there (12.7-23 at 945 labels), and its estimate is VT_KBEST_UNCACHED_SHARE
 * of the cached one. */
#define VT_KBEST_CACHED_LABELS 2048
#define VT_KBEST_UNCACHED_SHARE 0.5

/* The progress test. Stopping at the budget costs a hopeless sentence the budget plus
 * the full decoder (1.5x at 0.5), while a budget small enough for 0.8x (0.25) makes the real
 * sentences that legitimately need a quarter to a whole Viterbi fall back. The searches on the
 * degenerate lattice (degen.h) tell the two apart cheaply, by the share of columns whose
 * degenerate node the last best path went through. Once a search has spent VT_PROBE_SPENT of the
 * full decoder's cost, VT_PROBE_DEGEN or more stops it: on the adversarial, uniform, flat and
 * forbidden shapes (319 labels, staggered-col) 0.36-1.0 of the columns, on the real CoNLL-2000
 * and Greek lattices 0.04 or fewer for 90% of the sentences past the probe and 0.43 at most. The
 * pass that would take a search past the probe is not started at VT_PROBE_DEGEN_CROSS or more
 * (the real sentences show up to 0.83 there, the flat and uniform shapes 0.9-1.0, whose next pass
 * can cost a third of a Viterbi). A hopeless sentence then costs about 1.02-1.15 full decodes
 * instead of up to 1.5 (perf/README.md, "Worst case and the work budget"). */
#define VT_PROBE_SPENT 0.05
/* iter-viterbi-astar for k > 1 probes later, up to VT_KBEST_CACHED_LABELS labels. Its passes
 * run until a forward pass's best path is all active, then one split search certifies the k
 * best; on the uniform, flat, forbidden and adversarial sets of 45 to 945 labels its best paths
 * still went through 30% or more of the degenerate nodes at the twentieth of the estimate where
 * the probe came, and the test handed over sentences that would have finished at a tenth of a
 * kbest-viterbi: with no budget it is 2.4x kbest-viterbi or faster on every set of the
 * worst-case table, with the probe at 0.05 0.82-4.3x on those. At 0.2 (vt_bench, two
 * alternations): forbidden 319 1.0x -> 19-21x, flat 945 0.92-0.98x -> 13-17x, uniform 319
 * 1.8-3.0x -> 7-8x, adversarial 945 1.1-1.2x -> 3.1-3.5x, the real lattices within noise. Past
 * 2,048 labels, where kbest-viterbi's estimate is halved and the budget leaves 2.75 Viterbis at
 * k = 5, the adversarial 2,602-label sentences, which all fall back, went from 0.97x to 0.88x
 * (budget_trace): there the probe stays at VT_PROBE_SPENT. astar keeps it too (at 0.2, `astar
 * -k 5` on ties 945, where every sentence falls back: 1.17x -> 0.71x). */
#define VT_PROBE_SPENT_ITER_KBEST 0.2
#define VT_PROBE_DEGEN 0.3
/* Plain staggered expands every degenerate column each pass, and its best paths keep more of them
 * on real lattices (0.3 would stop 85 of the 1,000 CoNLL-2000 sentences; 0.5 stops 13) */
#define VT_PROBE_DEGEN_ALL 0.5
#define VT_PROBE_DEGEN_CROSS 0.9
/* A big pass, VT_PROBE_BIG_PASS of the full decoder's cost or more, that reads a transition
 * block past the L2 cache (VT_PASS_CACHED_CELLS entries, 1 MB: about 360 x 360 labels) is not
 * started, probe or not, when the last best path went through VT_PROBE_DEGEN_BIG of the
 * degenerate nodes. staggered-col's passes grow columns unevenly, and such a pass costs two to
 * three times its charge (a backward pass over 945 labels: 0.25 ns a cell against the SIMD
 * Viterbi's 0.10 on its matrix); on the adversarial
 * 945-label lattices it is the one that overran, their paths through 0.5-0.7 of the degenerate
 * nodes before it. Plain staggered expands every column alike: its blocks are square and cost
 * about their charge (0.6-0.7 of it at 945 labels), and only its passes of a third of a Viterbi
 * (peaked and adversarial lattices of 2,602 labels) are worth stopping, from 0.3 of the columns.
 * On the real lattices the rule stops no sentence (Greek, 945 labels) or cannot apply
 * (CoNLL-2000, 319 labels: the blocks fit); 0.3 of the columns for staggered-col stopped 1 of
 * the 10 peaked 2,602-label sentences, which would have finished at 0.05 of a Viterbi. The
 * iterative A* searches have no such rule (degen.h, VT_PROBE_RULE_ITER). */
#define VT_PROBE_BIG_PASS 0.1
#define VT_PROBE_DEGEN_BIG 0.5
#define VT_PROBE_BIG_PASS_ALL 0.3
#define VT_PROBE_DEGEN_BIG_ALL 0.3
#define VT_PASS_CACHED_CELLS 131072
/* astar's heuristic pass (mN: a backward Viterbi over 2^N labels per column) is paid before the
 * search can show any progress: at 945 labels m9's costs 0.29 of a Viterbi charged and 0.37 run,
 * and on the lattices where the search then fails the sentence cost 1.6-2.4 Viterbis. A pass over
 * part of the labels (2^N < L; over all of them the heuristic is exact and the search short) of
 * VT_ASTAR_PROBE_PASS of a Viterbi or more is preceded by a forward pass over
 * VT_ASTAR_PROBE_LABELS labels per column (0.02 of a Viterbi at 945 labels), whose best path
 * stops the search at VT_PROBE_DEGEN_HEUR of the degenerate nodes or more. Measured with a
 * backward pass of 128 labels: the adversarial 945-label lattices 0.50-0.70, the real Greek
 * ones 0.57 at most (10 of 500 sentences at 0.5 or more); with 32 labels the uniform ones
 * 0.9-1.0, flat and forbidden 1.0. With the forward probe every sentence of those four
 * synthetic sets falls back (0.97-1.00x), and 10 Greek ones. */
#define VT_ASTAR_PROBE_PASS 0.1
#define VT_ASTAR_PROBE_LABELS 128
#define VT_PROBE_DEGEN_HEUR 0.5
/* For k > 1 the full decoder costs 14-20 Viterbis, and a search the probe stops at 0.5 can still
 * finish far below that: 0.5 cost `astar -k 5` 12% on Greek. At 0.75 (above Greek's 0.57) the
 * flat, forbidden and uniform 945-label sets still fall back: 0.95-1.03x at k = 5. */
#define VT_PROBE_DEGEN_HEUR_KBEST 0.75

/* The last pass. A forward pass of a k = 1 search (staggered, staggered-col, iter-viterbi-astar)
 * over a lattice with no degenerate node left is a Viterbi over the labels that pruning left
 * alive, and its best path, all active, ends the search: past the progress test it runs even
 * when its charge (every live block in full) is more than the budget has left, charged what is
 * left. Falling back there would cost the full decoder anyway, and the pass costs at most about
 * as much (its blocks are the live prefixes of the rank-space matrix: plain staggered's cost
 * 0.6-0.7 of their charge at 945 labels, VT_PROBE_BIG_PASS above; far less where pruning killed
 * most labels), so the bound stays one full decode past the budget. On the Greek lattices of
 * vitesse's own model, sentences that finish at 0.2-0.5 of a Viterbi with no budget fell back
 * at 1.1-1.45 (their last pass charged 0.70-0.96 with 0.6 left): 12.6-12.8x -> 15.4-16.2x;
 * peaked 945 plain `staggered` 0.92x -> 1.93x, 65% -> 2.5% falling back (vt_bench, two
 * alternations; none of the 13 sets compared slower). */
typedef struct vt_budget {
  double left;              /* cells left; the search stops when it falls below 0 */
  const atomic_int *cancel; /* the engine run's cancel flag, or NULL */
  int over;                 /* 1: the search stopped over its budget */
  int canceled;             /* 1: the search stopped on the cancel flag */
  double probe_left;        /* the progress test applies once left < probe_left (0: never) */
  double full;              /* the full decoder's cost (0 without a budget) */
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

/* Returns 1, setting b->over, when fewer than `cells` are left. For work that pays only if more
 * can follow it: a backward pass of the degenerate lattice ends no search (only a forward pass
 * does, degen.h), and the forward pass after it costs about as much, so a backward pass is started
 * only when the budget can pay twice its cost. On the peaked 2,602-label lattices `staggered`
 * otherwise ran its 2,048-label backward pass (0.6 of a Viterbi charged, 0.34-0.42 run) with 0.2
 * left, and fell back after it whatever it found. */
static inline int vt_budget_short(vt_budget *b, double cells) {
  if (b->left >= cells) return 0;
  b->over = 1;
  return 1;
}

/* The progress test of a search that advances column by column (Carpediem's layers, an A*'s
 * deepest pop) and had `from` cells left when that phase began: once past the probe, a phase
 * whose work so far, extrapolated from the `done` of `T` columns it has reached, would overrun
 * what it had left stops now (b->over) instead of when it has spent it all. Returns 1 when it
 * stopped the search, else 0. */
static inline int vt_budget_extrapolate(vt_budget *b, double from, int32_t done, int32_t T) {
  if (!(b->left < b->probe_left) || done <= 0) return 0;
  if ((from - b->left) * (double)T <= from * (double)done) return 0;
  b->over = 1;
  return 1;
}

/* The weight of one pop from an agenda of `n` items: VT_W_POP, plus VT_W_POP_DEEP per heap level
 * past the cached ones. */
static inline double vt_budget_pop_weight(int64_t n) {
  double w = VT_W_POP;
  for (int64_t m = n >> VT_AGENDA_CACHED_LOG2; m > 0; m >>= 1) w += VT_W_POP_DEEP;
  return w;
}

/* Returns 1 when a search stopped on `b` (over budget or canceled). */
static inline int vt_budget_stopped(const vt_budget *b) { return b->over || b->canceled; }

#endif
