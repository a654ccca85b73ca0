/* tests/test_carpediem.c: what the shared exactness tests (test_exact: brute force; test_staggered:
 * Viterbi on 100,000 sentences of every shape) do not reach in Carpediem: a chain of node openings
 * as deep as the sentence is long (200,000 positions: an explicit stack, not the C stack), no
 * finite transition at all, a single position, and that it does skip nodes where node scores
 * dominate (its --stats counters: nodes opened, predecessors visited). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "vitesse.h"

/* Decodes E (T x L) with `algo`; returns the number of paths, the score in *score. */
static int32_t decode1(const vt_trans *tr, vt_algo algo, const double *E, int32_t T, int32_t *y,
                       double *score, vt_decode_stats *st) {
  vt_arena *ar = NULL;
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  o.algo = algo;
  o.budget = -1; /* Carpediem's own search: these cases look at its counters */
  int32_t n = -1;
  if (vt_arena_create(&ar, 0) != VT_OK) return -1;
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, T, y, score, &n, st), VT_OK, vt_algo_name(algo));
  vt_arena_destroy(ar);
  return n;
}

/* Label 1 loses every node score by 1 but A[1][1] = W = 0.5, and the end score makes label 1 win
 * the last position: opening it opens label 1 at every earlier position, one inside the other. */
TEST(deep_opening_chain) {
  enum { T = 200000 };
  const double A[4] = {0, 0, 0, 0.5}, S[2] = {0, 0}, F[2] = {0, 10};
  double *E = malloc(sizeof(double) * 2 * T);
  int32_t *yc = malloc(sizeof(int32_t) * T), *yv = malloc(sizeof(int32_t) * T);
  REQUIRE(E && yc && yv, "memory");
  for (int32_t t = 0; t < T; t++) E[2 * t] = 0, E[2 * t + 1] = -1;
  vt_trans *tr = NULL;
  REQUIRE(vt_trans_create(&tr, 2, A, S, F, NULL) == VT_OK, "trans");
  vt_decode_stats st = {0};
  double sc = 0, sv = 0;
  EXPECT_EQ_INT(decode1(tr, VT_ALGO_CARPEDIEM, E, T, yc, &sc, &st), 1, "one path");
  EXPECT_EQ_INT(decode1(tr, VT_ALGO_VITERBI, E, T, yv, &sv, NULL), 1, "viterbi");
  EXPECT_EQ_DBL(sc, sv, "Viterbi's score");
  EXPECT_EQ_DBL(sc, 9.0, "label 1 only at the end");
  EXPECT(st.active_labels >= 2 * (int64_t)T - 2, "the chain was opened: %lld nodes of %lld",
         (long long)st.active_labels, 2LL * T);
  vt_trans_destroy(tr);
  free(E);
  free(yc);
  free(yv);
}

/* Every transition -inf: no path when T > 1; a single position needs none. */
TEST(no_finite_transition) {
  const double A[9] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                       -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  const double S[3] = {0, 1, 0}, F[3] = {0, 0, 2}, E[6] = {1, 0, 0, 0, 0, 0};
  vt_trans *tr = NULL;
  REQUIRE(vt_trans_create(&tr, 3, A, S, F, NULL) == VT_OK, "trans");
  int32_t y[2];
  double sc = 0;
  EXPECT_EQ_INT(decode1(tr, VT_ALGO_CARPEDIEM, E, 2, y, &sc, NULL), 0, "T = 2: no path");
  EXPECT_EQ_INT(decode1(tr, VT_ALGO_CARPEDIEM, E, 1, y, &sc, NULL), 1, "T = 1: a path");
  EXPECT_EQ_INT(y[0], 2, "argmax of S + E + F (0 + 0 + 2)");
  EXPECT_EQ_DBL(sc, 2.0, "its score");
  vt_trans_destroy(tr);
}

/* Peaked node scores (one label 8 above the rest per position), small transitions: most nodes
 * stay closed and far fewer than T L^2 predecessors are scanned, yet the score is Viterbi's. */
TEST(skips_nodes_when_node_scores_dominate) {
  enum { L = 64, T = 40 };
  static double A[L * L], S[L], F[L], E[T * L];
  unsigned s = 7;
  for (int i = 0; i < L * L; i++) A[i] = (double)((s = s * 1103515245u + 12345u) >> 16 & 255) / 256;
  for (int i = 0; i < L; i++) S[i] = F[i] = 0;
  for (int t = 0; t < T; t++)
    for (int y = 0; y < L; y++)
      E[t * L + y] =
          (double)((s = s * 1103515245u + 12345u) >> 16 & 255) / 256 + (y == (t * 7) % L ? 8 : 0);
  vt_trans *tr = NULL;
  REQUIRE(vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK, "trans");
  int32_t yc[T], yv[T];
  double sc = 0, sv = 0;
  vt_decode_stats st = {0};
  EXPECT_EQ_INT(decode1(tr, VT_ALGO_CARPEDIEM, E, T, yc, &sc, &st), 1, "a path");
  decode1(tr, VT_ALGO_VITERBI, E, T, yv, &sv, NULL);
  EXPECT_EQ_DBL(sc, sv, "Viterbi's score");
  EXPECT(memcmp(yc, yv, sizeof yc) == 0, "the unique best path");
  EXPECT(st.active_labels < (int64_t)T * L / 4, "opened %lld of %d nodes",
         (long long)st.active_labels, T * L);
  EXPECT(st.cells < (int64_t)T * L * L / 16, "scanned %lld predecessors (Viterbi: %d)",
         (long long)st.cells, T * L * L);
  EXPECT_EQ_INT(st.nodes, (int64_t)T * L, "nodes counted");
  EXPECT_EQ_INT(st.pruned, st.nodes - st.active_labels, "pruned = closed");
  vt_trans_destroy(tr);
}

TEST_MAIN(CASE(deep_opening_chain), CASE(no_finite_transition),
          CASE(skips_nodes_when_node_scores_dominate))
