/* tests/test_astar.c: the A* family against kbest-viterbi on >= 20,000 random sentences of the
 * shapes of test_shapes.h (peaked, flat, noise, ties, BIO -inf constraints, adversarial
 * magnitudes; rankings right, random or worst-first), T from 1 to 200, L up to 945, k in
 * {1, 5, 20}: viterbi-astar and iter-viterbi-astar (split, and expand with k' = 2k, k and 3k)
 * must return exactly the score list of kbest-viterbi (as many paths, the same scores in the
 * same order), as distinct paths; astar (every heuristic) and iter-astar too where their search
 * stays small. The split search's fallback to expansion must have been taken at least once
 * (huge near-tied scores). Every check runs twice: with no work budget (the search
 * itself) and with a tiny one, the default or a twentieth of a kbest-viterbi in turn (finished
 * by kbest-viterbi past it), and the budgeted runs must have fallen back on every shape. Then
 * every algorithm must give byte-identical output at every SIMD level this CPU runs (with the
 * default budget: whether a sentence falls back must not depend on the level).
 * VT_TEST_SCALE (default 1) scales the sentence counts, for the slower sanitizer build. */
#include <string.h>

#include "test_shapes.h"
#include "test_util.h"
#include "vitesse.h"

#define KMAX 20

static vt_decode_stats g_stats;  /* summed over every unbudgeted decode of check_list */
static vt_decode_stats g_bstats; /* summed over every budgeted one */
static double g_budget;          /* the budgeted runs' budget */

/* Decodes with `o` and budget b and checks the result against the reference score list
 * ref[0, nref). */
static void check_one(vt_trans *tr, vt_arena *ar, const vt_decode_opts *o_in, double b,
                      const double *E, int T, const double *ref, int nref, const char *ctx) {
  static int32_t lab[KMAX * 200];
  double sc[KMAX];
  int32_t n = -1;
  vt_decode_opts o_copy = *o_in;
  const vt_decode_opts *o = &o_copy;
  o_copy.budget = b;
  vt_status st = vt_decode(tr, o, ar, E, T, lab, sc, &n, b < 0 ? &g_stats : &g_bstats);
  vt_arena_reset(ar);
  char c[256];
  snprintf(c, sizeof c, "%s algo=%s k=%d refine=%d k'=%d heur=%d budget=%g", ctx,
           vt_algo_name(o->algo), o->k, (int)o->refine, o->kprime, (int)o->heuristic, b);
  EXPECT_EQ_INT(st, VT_OK, c);
  const int want = nref < o->k ? nref : o->k;
  EXPECT_EQ_INT(n, want, c);
  for (int p = 0; p < n && p < want; p++) {
    EXPECT_EQ_DBL(sc[p], ref[p], c);
    for (int q = 0; q < p; q++)
      EXPECT(memcmp(lab + (size_t)p * T, lab + (size_t)q * T, sizeof(int32_t) * T) != 0,
             "%s: paths %d and %d are equal", c, q, p);
  }
}

/* check_one with no budget, then with g_budget. */
static void check_list(vt_trans *tr, vt_arena *ar, const vt_decode_opts *o, const double *E, int T,
                       const double *ref, int nref, const char *ctx) {
  check_one(tr, ar, o, -1, E, T, ref, nref, ctx);
  check_one(tr, ar, o, g_budget, E, T, ref, nref, ctx);
}

/* Output of every A* decoder at k = 5 into buf (labels then scores); returns the bytes used.
 * astar only for L <= 65 (its search is large on flat lattices). */
static size_t run_all(vt_trans *tr, vt_arena *ar, const double *E, int T, unsigned char *buf) {
  static const vt_algo algos[] = {VT_ALGO_ASTAR, VT_ALGO_ITER_ASTAR, VT_ALGO_VITERBI_ASTAR,
                                  VT_ALGO_ITER_VITERBI_ASTAR, VT_ALGO_ITER_VITERBI_ASTAR};
  size_t used = 0;
  for (size_t a = vt_trans_labels(tr) <= 65 ? 0 : 1; a < sizeof algos / sizeof algos[0]; a++) {
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = algos[a];
    o.refine = a == 4 ? VT_REFINE_EXPAND : VT_REFINE_SPLIT;
    o.k = algos[a] == VT_ALGO_ITER_ASTAR ? 1 : 5;
    o.heuristic = VT_HEUR_M3;
    int32_t lab[5 * 40], n = 0;
    double sc[5];
    EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, T, lab, sc, &n, NULL), VT_OK, "determinism");
    vt_arena_reset(ar);
    memcpy(buf + used, &n, sizeof n);
    used += sizeof n;
    memcpy(buf + used, lab, sizeof(int32_t) * (size_t)n * T);
    used += sizeof(int32_t) * (size_t)n * T;
    memcpy(buf + used, sc, sizeof(double) * (size_t)n);
    used += sizeof(double) * (size_t)n;
  }
  return used;
}

/* Same output at every SIMD level the CPU supports. */
static void check_simd_levels(vt_trans *tr, vt_arena *ar, const double *E, int T, const char *ctx) {
  static unsigned char first[8192], other[8192];
  const vt_simd active = vt_simd_active();
  size_t n0 = 0;
  int have = 0;
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
    if (!vt_simd_supported((vt_simd)lv) || vt_simd_force((vt_simd)lv) != VT_OK) continue;
    if (!have) {
      n0 = run_all(tr, ar, E, T, first);
      have = 1;
      continue;
    }
    size_t n1 = run_all(tr, ar, E, T, other);
    EXPECT(n1 == n0 && memcmp(first, other, n0) == 0, "%s: output differs at SIMD level %s", ctx,
           vt_simd_name((vt_simd)lv));
  }
  vt_simd_force(active);
}

/* Replays the seeded sentence stream (the same in both cases): with `lists`, checks every score
 * list against kbest-viterbi; with `levels`, every 25th short sentence at every SIMD level. */
static void run_stream(int lists, int levels) {
  const double scale = test_scale();
  /* Sentences per label count and the longest sentence: kbest-viterbi (k T L^2) bounds the
   * sizes. astar runs where k T L^2 <= 5e4 (its search grows so on flat lattices with the weak
   * heuristics), iter-astar where L <= 65. */
  static const struct {
    int L, n, maxT;
  } plan[] = {{1, 1600, 200}, {2, 3000, 200}, {3, 3000, 150}, {5, 3000, 100}, {17, 3000, 60},
              {45, 2500, 30}, {64, 1800, 24}, {65, 1800, 24}, {319, 260, 12}, {945, 40, 6}};
  static const vt_heuristic heurs[] = {VT_HEUR_NAIVE, VT_HEUR_M0, VT_HEUR_M3, VT_HEUR_M6,
                                       VT_HEUR_M9};
  static const int ks[] = {1, 5, KMAX};
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng rng = {424242};
  long long sentences = 0, infeasible = 0, short_lists = 0, per_shape[SH_COUNT] = {0};
  long long fell_back[SH_COUNT] = {0};
  for (size_t p = 0; p < sizeof plan / sizeof plan[0]; p++) {
    const int L = plan[p].L, maxT = plan[p].maxT;
    const int n = (int)(plan[p].n * scale) + 1;
    int32_t *ref_lab = malloc(sizeof(int32_t) * KMAX * maxT);
    test_stream ts; /* a new model every 40 sentences */
    REQUIRE(ref_lab && test_stream_init(&ts, L, maxT, 20, 40, (int)p) == 0, "setup L=%d", L);
    for (int i = 0; i < n; i++) {
      const int T = test_stream_next(&ts, &rng);
      EXPECT(T > 0, "vt_trans_create failed");
      if (T < 0) return;
      vt_trans *tr = ts.tr;
      const double *E = ts.E;
      const shape sh = ts.sh;
      char ctx[160];
      snprintf(ctx, sizeof ctx, "L=%d T=%d shape=%s model=%d sentence=%d", L, T, shape_name[sh],
               i / 40, i);
      sentences++;
      per_shape[sh]++;
      if (levels && i % 25 == 0 && T <= 40 && L <= 319) check_simd_levels(tr, ar, E, T, ctx);
      if (!lists) continue;
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = VT_ALGO_KBEST_VITERBI;
      o.k = KMAX;
      double ref[KMAX];
      int32_t nref = 0;
      EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, T, ref_lab, ref, &nref, NULL), VT_OK, ctx);
      vt_arena_reset(ar);
      infeasible += nref == 0;
      short_lists += nref < KMAX;
      static const double budgets[] = {1e-9, 0, 0.05}; /* tiny, the default, a twentieth */
      g_budget = budgets[i % 3];
      const int64_t fb0 = g_bstats.budget_fallbacks;
      for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        o.k = ks[ki];
        o.kprime = 0;
        o.heuristic = VT_HEUR_NAIVE;
        o.algo = VT_ALGO_VITERBI_ASTAR;
        check_list(tr, ar, &o, E, T, ref, nref, ctx);
        o.algo = VT_ALGO_ITER_VITERBI_ASTAR;
        check_list(tr, ar, &o, E, T, ref, nref, ctx);
        o.refine = VT_REFINE_EXPAND;
        o.kprime = i % 3 == 0 ? 0 : i % 3 == 1 ? o.k : 3 * o.k;
        check_list(tr, ar, &o, E, T, ref, nref, ctx);
        o.refine = VT_REFINE_SPLIT;
        o.kprime = 0;
        if ((double)o.k * T * L * L <= 5e4) {
          o.algo = VT_ALGO_ASTAR;
          o.heuristic = heurs[(i + (int)ki) % 5];
          check_list(tr, ar, &o, E, T, ref, nref, ctx);
          o.heuristic = VT_HEUR_NAIVE;
        }
        if (o.k == 1 && L <= 65) {
          o.algo = VT_ALGO_ITER_ASTAR;
          check_list(tr, ar, &o, E, T, ref, nref, ctx);
        }
      }
      fell_back[sh] += g_bstats.budget_fallbacks - fb0;
      if (test_case_failures > 20) return;
    }
    test_stream_free(&ts);
    free(ref_lab);
  }
  vt_arena_destroy(ar);
  if (!lists) return;
  printf("test_astar: %lld sentences (", sentences);
  for (int s = 0; s < SH_COUNT; s++)
    printf("%s%s %lld", s ? ", " : "", shape_name[s], per_shape[s]);
  printf("), %lld with no finite path, %lld with fewer than %d paths, %lld split fallbacks\n",
         infeasible, short_lists, KMAX, (long long)g_stats.fallbacks);
  EXPECT(g_stats.fallbacks > 0, "the split search never fell back: that path is untested");
  EXPECT(g_stats.budget_fallbacks == 0, "%lld budget fallbacks with no budget",
         (long long)g_stats.budget_fallbacks);
  printf("test_astar: budget fallbacks per shape (");
  for (int s = 0; s < SH_COUNT; s++) {
    printf("%s%s %lld", s ? ", " : "", shape_name[s], fell_back[s]);
    EXPECT(per_shape[s] < 3 || fell_back[s] > 0, "shape %s never fell back", shape_name[s]);
  }
  printf(")\n");
  EXPECT(scale < 1.0 || sentences >= 20000, "only %lld sentences", sentences);
}

/* viterbi-astar, iter-viterbi-astar (both refines), astar and iter-astar give kbest-viterbi's
 * score list, as distinct paths; the split search fell back at least once. */
TEST(score_lists_match_kbest_viterbi) { run_stream(1, 0); }

/* Every A* decoder gives byte-identical output at every SIMD level this CPU runs. */
TEST(same_output_every_simd_level) { run_stream(0, 1); }

/* astar's probe before a big heuristic pass (budget.h, VT_ASTAR_PROBE_*), at 400 labels with m8
 * (a pass over 257 of them: 0.41 of a Viterbi): with no budget, the default one and a tiny one,
 * k = 1 and 5, every score list is kbest-viterbi's; the probe ended some sentences itself (k = 1:
 * no pop, no fallback), let others search, and stopped some before the search that would have
 * run with no budget (no pop, a fallback). */
TEST(astar_probe_before_heuristic_pass) {
  enum { PL = 400, PT = 12 };
  const int n = (int)(60 * test_scale()) + 6;
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng rng = {777};
  test_stream ts;
  REQUIRE(test_stream_init(&ts, PL, PT, 4, 3, 0) == 0, "setup");
  static int32_t ref_lab[KMAX * PT], lab[KMAX * PT];
  long long ended = 0, searched = 0, stopped = 0;
  for (int i = 0; i < n; i++) {
    const int T = test_stream_next(&ts, &rng);
    REQUIRE(T > 0, "vt_trans_create failed");
    char ctx[128];
    snprintf(ctx, sizeof ctx, "probe: L=%d T=%d shape=%s sentence=%d", PL, T, shape_name[ts.sh], i);
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = VT_ALGO_KBEST_VITERBI;
    o.k = 5;
    double ref[5];
    int32_t nref = 0;
    EXPECT_EQ_INT(vt_decode(ts.tr, &o, ar, ts.E, T, ref_lab, ref, &nref, NULL), VT_OK, ctx);
    vt_arena_reset(ar);
    o.algo = VT_ALGO_ASTAR;
    o.heuristic = (vt_heuristic)8; /* m8: any N works */
    for (int k = 1; k <= 5; k += 4) {
      o.k = k;
      int64_t pops_none = 0;
      static const double budgets[] = {-1, 0, 1e-9};
      for (int b = 0; b < 3; b++) {
        vt_decode_stats st = {0};
        double sc[5];
        int32_t got = -1;
        o.budget = budgets[b];
        EXPECT_EQ_INT(vt_decode(ts.tr, &o, ar, ts.E, T, lab, sc, &got, &st), VT_OK, ctx);
        vt_arena_reset(ar);
        const int want = nref < k ? nref : k;
        EXPECT_EQ_INT(got, want, ctx);
        for (int p = 0; p < got && p < want; p++) EXPECT_EQ_DBL(sc[p], ref[p], ctx);
        if (b == 0) {
          pops_none = st.pops;
          ended += k == 1 && st.pops == 0 && nref > 0;
          searched += st.pops > 0;
        } else if (b == 1) {
          stopped += st.pops == 0 && st.budget_fallbacks == 1 && pops_none > 0;
        }
      }
    }
  }
  test_stream_free(&ts);
  vt_arena_destroy(ar);
  printf("test_astar: probe: %lld ended by it, %lld searched, %lld stopped before the search\n",
         ended, searched, stopped);
  EXPECT(ended > 0 && searched > 0 && stopped > 0, "a probe outcome never happened");
}

TEST_MAIN(CASE(score_lists_match_kbest_viterbi), CASE(same_output_every_simd_level),
          CASE(astar_probe_before_heuristic_pass))
