/* tests/test_defaults.c: the default decoder rule (vt_decode_opts_default): exact for every label
 * count and k, k-best when k > 1, the documented choice on both sides of its break point, and the
 * same scores as the reference decoders on synthetic lattices there. */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "vitesse.h"

static const int32_t labels[] = {1, 2, 5, 10, 22, 44, 45, 100, 127, 128, 319, 512, 945, 2602};
static const int32_t ks[] = {-1, 0, 1, 2, 5, 10, 100};

TEST(exact_and_kbest_for_every_l_and_k) {
  char ctx[64];
  for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
      vt_decode_opts o, init;
      vt_decode_opts_default(&o, labels[i], ks[j]);
      vt_decode_opts_init(&init);
      snprintf(ctx, sizeof ctx, "L=%d k=%d (%s)", labels[i], ks[j], vt_algo_name(o.algo));
      EXPECT_EQ_INT(o.k, ks[j] > 1 ? ks[j] : 1, ctx);
      EXPECT(vt_algo_available(o.algo), "%s: not available", ctx);
      EXPECT(vt_algo_exact(o.algo), "%s: not exact", ctx);
      EXPECT(o.k == 1 || vt_algo_kbest(o.algo), "%s: not k-best", ctx);
      EXPECT_EQ_INT(o.beam, init.beam, ctx);
      EXPECT_EQ_INT(o.heuristic, init.heuristic, ctx);
      EXPECT_EQ_INT(o.kprime, init.kprime, ctx);
      EXPECT_EQ_INT(o.refine, init.refine, ctx);
    }
}

TEST(documented_choice_at_the_break_point) {
  static const struct {
    int32_t L, k;
    vt_algo algo;
  } want[] = {
      {5, 1, VT_ALGO_VITERBI},
      {22, 1, VT_ALGO_VITERBI},
      {VT_DEFAULT_L_ITER - 1, 1, VT_ALGO_VITERBI},
      {VT_DEFAULT_L_ITER, 1, VT_ALGO_ITER_VITERBI_ASTAR},
      {319, 1, VT_ALGO_ITER_VITERBI_ASTAR},
      {945, 1, VT_ALGO_ITER_VITERBI_ASTAR},
      {5, 2, VT_ALGO_VITERBI_ASTAR},
      {22, 5, VT_ALGO_VITERBI_ASTAR},
      {VT_DEFAULT_L_ITER - 1, 10, VT_ALGO_VITERBI_ASTAR},
      {VT_DEFAULT_L_ITER, 2, VT_ALGO_ITER_VITERBI_ASTAR},
      {319, 5, VT_ALGO_ITER_VITERBI_ASTAR},
      {945, 100, VT_ALGO_ITER_VITERBI_ASTAR},
  };
  EXPECT_EQ_INT(VT_DEFAULT_L_ITER, 128, "the break point perf/README.md documents");
  char ctx[64];
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    vt_decode_opts o;
    vt_decode_opts_default(&o, want[i].L, want[i].k);
    snprintf(ctx, sizeof ctx, "L=%d k=%d: %s", want[i].L, want[i].k, vt_algo_name(o.algo));
    EXPECT_EQ_INT(o.algo, want[i].algo, ctx);
  }
}

TEST(astar_default_heuristic_is_m9) {
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  EXPECT_EQ_INT(o.heuristic, VT_HEUR_M9, "vt_decode_opts_init");
}

/* The default decoder returns the reference decoder's scores (viterbi for k = 1, kbest-viterbi
 * for k > 1) on synthetic lattices on both sides of the break point. */
TEST(default_scores_match_the_reference) {
  static const int32_t Ls[] = {VT_DEFAULT_L_ITER - 1, VT_DEFAULT_L_ITER};
  static const int32_t Ks[] = {1, 5};
  char ctx[96];
  for (size_t i = 0; i < 2; i++) {
    vt_lattices *lat = NULL;
    vt_trans *tr = NULL;
    vt_arena *ar = NULL;
    REQUIRE(vt_lattices_synth(&lat, Ls[i], 20, 12, 7) == VT_OK, "synth");
    REQUIRE(vt_lattices_synth_trans(lat, &tr) == VT_OK, "trans");
    REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
    for (size_t j = 0; j < 2; j++) {
      vt_decode_opts def, ref;
      vt_decode_opts_default(&def, Ls[i], Ks[j]);
      vt_decode_opts_init(&ref);
      ref.algo = Ks[j] > 1 ? VT_ALGO_KBEST_VITERBI : VT_ALGO_VITERBI;
      ref.k = Ks[j];
      for (int64_t s = 0; s < vt_lattices_sentences(lat); s++) {
        int32_t T;
        const float *E = vt_lattices_rows(lat, s, &T);
        int32_t lab[2][5 * 64];
        double sc[2][5];
        int32_t n[2];
        REQUIRE(T <= 64, "sentence too long for the test buffers");
        vt_arena_reset(ar);
        EXPECT_EQ_INT(vt_decode_f32(tr, &def, ar, E, T, lab[0], sc[0], &n[0], NULL), VT_OK, "def");
        vt_arena_reset(ar);
        EXPECT_EQ_INT(vt_decode_f32(tr, &ref, ar, E, T, lab[1], sc[1], &n[1], NULL), VT_OK, "ref");
        snprintf(ctx, sizeof ctx, "L=%d k=%d sentence %lld (%s)", Ls[i], Ks[j], (long long)s,
                 vt_algo_name(def.algo));
        EXPECT_EQ_INT(n[0], n[1], ctx);
        for (int32_t p = 0; p < n[0] && p < n[1]; p++) EXPECT_EQ_DBL(sc[0][p], sc[1][p], ctx);
      }
    }
    vt_arena_destroy(ar);
    vt_trans_destroy(tr);
    vt_lattices_close(lat);
  }
}

TEST_MAIN(CASE(exact_and_kbest_for_every_l_and_k), CASE(documented_choice_at_the_break_point),
          CASE(astar_default_heuristic_is_m9), CASE(default_scores_match_the_reference))
