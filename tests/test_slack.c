/* tests/test_slack.c: vt_degen_slack_exact sets the rounding slack of the degenerate lattice
 * (degen.c) to 0 exactly when no sum of a path's terms can round: every finite score a multiple
 * of one power of two and the path sums far below 2^53 of it (vt_quantum_log2, the q_a / q_sf of
 * the bound model, row_integral); and the k-best searches that then see exact ties return
 * kbest-viterbi's score lists. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/trans_layout.h"
#include "decode/degen.h"
#include "test_util.h"

enum { L = 20, T = 6 };

TEST(quantum_of_a_double) {
  EXPECT_EQ_INT(vt_quantum_log2(1.0), 0, "1");
  EXPECT_EQ_INT(vt_quantum_log2(-3.0), 0, "-3");
  EXPECT_EQ_INT(vt_quantum_log2(6.0), 1, "6");
  EXPECT_EQ_INT(vt_quantum_log2(0.5), -1, "0.5");
  EXPECT_EQ_INT(vt_quantum_log2(-2.75), -2, "-2.75");
  EXPECT_EQ_INT(vt_quantum_log2(0x1p-1074), -1074, "the least subnormal");
  EXPECT_EQ_INT(vt_quantum_log2(0x1.8p-1022), -1023, "a normal near the bottom");
  EXPECT(vt_quantum_log2(0.1) < -50, "0.1 is no short binary fraction");
  EXPECT_EQ_INT(vt_quantum_log2(0.0), INT32_MAX, "0");
  EXPECT_EQ_INT(vt_quantum_log2(-INFINITY), INT32_MAX, "-inf");
  EXPECT_EQ_INT(vt_quantum_log2(INFINITY), INT32_MAX, "+inf");
}

/* The slack of one sentence: A, S, F and E filled with small integers times `unit`, then the
 * one entry `which` (0: none, 1: an emission, 2: a transition, 3: a start score) set to `odd`. */
static double slack_of(double unit, int which, double odd) {
  double A[L * L], S[L], F[L], E[T * L];
  test_rng r = {99};
  for (int i = 0; i < L * L; i++) A[i] = unit * (test_int(&r, 5) - 2);
  for (int i = 0; i < L; i++) {
    S[i] = unit * (test_int(&r, 3) - 1);
    F[i] = unit * test_int(&r, 2);
  }
  for (int i = 0; i < T * L; i++) E[i] = test_int(&r, 10) == 0 ? -INFINITY : unit * test_int(&r, 3);
  if (which == 1) E[T * L / 2] = odd;
  if (which == 2) A[L + 3] = odd;
  if (which == 3) S[5] = odd;
  vt_trans *tr = NULL;
  vt_arena *ar = NULL;
  double slack = NAN;
  vt_degen s;
  if (vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK && vt_arena_create(&ar, 0) == VT_OK &&
      vt_degen_init(&s, tr, ar, E, T, 4) == VT_OK) {
    const double before = s.slack;
    vt_degen_slack_exact(&s);
    slack = s.slack;
    EXPECT(before > 0 && (slack == 0 || slack == before), "the slack is kept or set to 0");
    vt_degen_slack_exact(&s); /* a second call changes nothing */
    EXPECT(s.slack == slack, "second call");
  }
  vt_arena_destroy(ar);
  vt_trans_destroy(tr);
  return slack;
}

TEST(slack_zero_only_when_sums_are_exact) {
  EXPECT_EQ_DBL(slack_of(1.0, 0, 0), 0.0, "integers, -inf among them");
  EXPECT_EQ_DBL(slack_of(0.25, 0, 0), 0.0, "quarters");
  EXPECT_EQ_DBL(slack_of(1.0, 1, 0.5), 0.0, "integers and one half");
  EXPECT_EQ_DBL(slack_of(0x1p40, 0, 0), 0.0, "big powers of two, still far below 2^53 units");
  EXPECT(slack_of(1.0, 1, 0.1) > 0, "an emission of 0.1");
  EXPECT(slack_of(1.0, 2, 0.1) > 0, "a transition of 0.1");
  EXPECT(slack_of(1.0, 3, 0.1) > 0, "a start score of 0.1");
  /* quarters summed up to about 2^50: exact in the last bits but within 2^51 units of 4 x mag */
  EXPECT(slack_of(0.25, 1, 0x1p50) > 0, "quarters next to a huge emission");
  EXPECT(slack_of(0x1p-60, 0, 0) == 0.0, "tiny powers of two, sums of few units");
}

/* Exact ties: every search at k = 5 returns kbest-viterbi's score list on integer lattices with
 * very few distinct scores (there the slack is 0 and the keys of tied paths are equal). */
TEST(exact_ties_keep_the_kbest_scores) {
  double A[L * L], S[L], F[L], E[T * L];
  test_rng r = {7};
  vt_arena *ar = NULL;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  static const vt_algo algos[] = {VT_ALGO_ASTAR, VT_ALGO_VITERBI_ASTAR, VT_ALGO_ITER_VITERBI_ASTAR};
  for (int rep = 0; rep < 40; rep++) {
    for (int i = 0; i < L * L; i++) A[i] = test_int(&r, 2);
    for (int i = 0; i < L; i++) S[i] = F[i] = test_int(&r, 2);
    for (int i = 0; i < T * L; i++) E[i] = test_int(&r, 3);
    vt_trans *tr = NULL;
    REQUIRE(vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK, "trans");
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = VT_ALGO_KBEST_VITERBI;
    o.k = 5;
    int32_t lab[5 * T], n0 = 0, n1 = 0;
    double ref[5], sc[5];
    REQUIRE(vt_decode(tr, &o, ar, E, T, lab, ref, &n0, NULL) == VT_OK, "kbest-viterbi");
    vt_arena_reset(ar);
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
      for (int b = 0; b < 2; b++) {
        o.algo = algos[a];
        o.budget = b ? 1e-9 : -1; /* no budget, then a tiny one: the fallback */
        REQUIRE(vt_decode(tr, &o, ar, E, T, lab, sc, &n1, NULL) == VT_OK, "decode");
        vt_arena_reset(ar);
        EXPECT(n1 == n0 && !memcmp(sc, ref, sizeof(double) * (size_t)n0),
               "rep %d %s budget %d: the score list differs", rep, vt_algo_name(algos[a]), b);
      }
    vt_trans_destroy(tr);
  }
  vt_arena_destroy(ar);
}

TEST_MAIN(CASE(quantum_of_a_double), CASE(slack_zero_only_when_sums_are_exact),
          CASE(exact_ties_keep_the_kbest_scores))
