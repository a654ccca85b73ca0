/* tests/test_budget.c: the progress tests of the work budget (engine/decode/budget.h, degen.c)
 * directly, on degenerate lattices built for the purpose: which passes vt_degen_hopeless lets a
 * search start, before and after the probe, for passes whose transition blocks fit the cache and
 * for big ones that do not; and that the agenda's pop weight grows with its heap. Whether the
 * searches stay exact when these rules stop them is test_staggered's and test_exact's job. */
#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/trans_layout.h"
#include "decode/degen.h"
#include "test_util.h"

enum { L = 600, T = 4 };

/* A budget as budget_start sets it for a search of 1000 full decodes: the probe not reached. */
static vt_budget budget_make(double full) {
  vt_budget b = {1000.0 * full, NULL, 0, 0, 0, full};
  b.probe_left = b.left - VT_PROBE_SPENT * full;
  return b;
}

/* vt_degen_hopeless on a lattice of n0 active labels per column (plus the degenerate node),
 * before a pass of `next` full decodes, the last path through `through` degenerate nodes. */
static int hopeless(vt_trans *tr, vt_arena *ar, const double *E, int32_t n0, int32_t through,
                    vt_probe_rule rule, double next, double full) {
  vt_degen s;
  if (vt_degen_init(&s, tr, ar, E, T, n0) != VT_OK) return -1; /* no verdict: the checks fail */
  vt_budget b = budget_make(full);
  const int r = vt_degen_hopeless(&s, through, rule, next * full, &b);
  EXPECT_EQ_INT(b.over, r, "over is set exactly when it stops");
  vt_arena_reset(ar);
  return r;
}

TEST(big_pass_out_of_cache) {
  double *A = malloc(sizeof(double) * L * L), *E = malloc(sizeof(double) * L * T);
  double S[L], F[L];
  vt_arena *ar;
  REQUIRE(A && E && vt_arena_create(&ar, 0) == VT_OK, "setup");
  test_rng rng = {4242};
  for (int i = 0; i < L * L; i++) A[i] = test_unit(&rng);
  for (int i = 0; i < L; i++) S[i] = F[i] = 0;
  for (int i = 0; i < L * T; i++) E[i] = test_unit(&rng);
  vt_trans *tr;
  REQUIRE(vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK, "trans");
  const double full = (double)T * L * L;
  /* 512 active labels: blocks of 513 x 513 entries, past VT_PASS_CACHED_CELLS; 256: they fit */
  REQUIRE(513.0 * 513.0 > VT_PASS_CACHED_CELLS && 257.0 * 257.0 < VT_PASS_CACHED_CELLS, "sizes");
  const int32_t most = T * 3 / 4, few = T / 4;
  /* A big pass out of the cache with 3/4 of the path degenerate: not started, before the probe;
   * with a quarter (below VT_PROBE_DEGEN_BIG, not below VT_PROBE_DEGEN): started. */
  EXPECT_EQ_INT(hopeless(tr, ar, E, 512, most, VT_PROBE_RULE_COL, 0.2, full), 1, "big, far");
  EXPECT_EQ_INT(hopeless(tr, ar, E, 512, few, VT_PROBE_RULE_COL, 0.2, full), 0, "big, near");
  /* Plain staggered's rule wants a third of a Viterbi; a small pass is started. */
  EXPECT_EQ_INT(hopeless(tr, ar, E, 512, most, VT_PROBE_RULE_ALL, 0.2, full), 0, "all, 0.2");
  EXPECT_EQ_INT(hopeless(tr, ar, E, 512, most, VT_PROBE_RULE_ALL, 0.4, full), 1, "all, 0.4");
  EXPECT_EQ_INT(hopeless(tr, ar, E, 512, most, VT_PROBE_RULE_COL, 0.01, full), 0, "small");
  /* The iterative A* searches have no big-pass rule. */
  EXPECT_EQ_INT(hopeless(tr, ar, E, 512, most, VT_PROBE_RULE_ITER, 0.2, full), 0, "iter");
  /* Blocks that fit the cache: only the rule of the pass crossing the probe applies, which
   * wants VT_PROBE_DEGEN_CROSS of the columns (3/4 is below it; all of them is not). */
  EXPECT_EQ_INT(hopeless(tr, ar, E, 256, most, VT_PROBE_RULE_COL, 0.2, full), 0, "fits");
  EXPECT_EQ_INT(hopeless(tr, ar, E, 256, T, VT_PROBE_RULE_COL, 0.2, full), 1, "fits, crossing");
  /* No budget (full = 0, left = +inf): no progress test at all. */
  {
    vt_degen s;
    REQUIRE(vt_degen_init(&s, tr, ar, E, T, 512) == VT_OK, "degen init");
    vt_budget none = {INFINITY, NULL, 0, 0, 0, 0};
    EXPECT_EQ_INT(vt_degen_hopeless(&s, T, VT_PROBE_RULE_COL, 1e30, &none), 0, "no budget");
    vt_arena_reset(ar);
  }
  vt_trans_destroy(tr);
  vt_arena_destroy(ar);
  free(A);
  free(E);
}

/* The last pass (budget.h): a forward pass of a k = 1 search over a lattice with no degenerate
 * node is charged what is left instead of stopping the search; any other pass the budget
 * cannot pay stops it. */
TEST(last_pass_runs_past_the_budget) {
  enum { LS = 40 };
  double A[LS * LS], E[LS * T], S[LS], F[LS];
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng rng = {77};
  for (int i = 0; i < LS * LS; i++) A[i] = test_unit(&rng);
  for (int i = 0; i < LS; i++) S[i] = F[i] = 0;
  for (int i = 0; i < LS * T; i++) E[i] = test_unit(&rng);
  vt_trans *tr;
  REQUIRE(vt_trans_create(&tr, LS, A, S, F, NULL) == VT_OK, "trans");
  const double full = (double)T * LS * LS;
  for (int whole = 0; whole < 2; whole++) { /* all LS labels active, or 16 and the degenerate */
    for (int forward = 0; forward < 2; forward++) {
      for (int ends = 0; ends < 2; ends++) {
        vt_degen s;
        REQUIRE(vt_degen_init(&s, tr, ar, E, T, whole ? LS : 16) == VT_OK, "degen init");
        int64_t cells = 0;
        const double cost = vt_degen_pass_cost(&s, &cells);
        vt_budget b = {0.5 * cost, NULL, 0, 0, 0, full}; /* half the pass; no probe */
        const int stop = vt_degen_pass_start(&s, -1, VT_PROBE_RULE_COL, cost, forward, ends, &b);
        const int runs = whole && forward && ends;
        EXPECT_EQ_INT(stop, !runs, "only the last forward pass of a k = 1 search runs");
        EXPECT_EQ_INT(b.over, !runs, "over exactly when stopped");
        if (runs) EXPECT_EQ_DBL(b.left, 0.0, "charged what was left");
        vt_arena_reset(ar);
      }
    }
  }
  /* The progress test still comes first: past the probe, a path through every degenerate node
   * stops even the last pass (there is none to go through here, so through = T is artificial). */
  {
    vt_degen s;
    REQUIRE(vt_degen_init(&s, tr, ar, E, T, LS) == VT_OK, "degen init");
    int64_t cells = 0;
    const double cost = vt_degen_pass_cost(&s, &cells);
    vt_budget b = {0.5 * cost, NULL, 0, 0, INFINITY, full}; /* past the probe */
    EXPECT_EQ_INT(vt_degen_pass_start(&s, T, VT_PROBE_RULE_COL, cost, 1, 1, &b), 1, "hopeless");
    vt_arena_reset(ar);
  }
  vt_trans_destroy(tr);
  vt_arena_destroy(ar);
}

TEST(pop_weight_grows_with_the_heap) {
  double last = vt_budget_pop_weight(0);
  EXPECT_EQ_DBL(last, (double)VT_W_POP, "empty heap");
  for (int64_t n = 1; n < ((int64_t)1 << 40); n *= 2) {
    const double w = vt_budget_pop_weight(n), w1 = vt_budget_pop_weight(2 * n - 1);
    const int deep = n >= ((int64_t)1 << VT_AGENDA_CACHED_LOG2);
    EXPECT_EQ_DBL(w, last + (deep ? VT_W_POP_DEEP : 0), "one more level per doubling, uncached");
    EXPECT_EQ_DBL(w1, w, "the same level up to the next power of two");
    last = w;
  }
}

TEST_MAIN(CASE(big_pass_out_of_cache), CASE(last_pass_runs_past_the_budget),
          CASE(pop_weight_grows_with_the_heap))
