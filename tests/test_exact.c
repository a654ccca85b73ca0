/* tests/test_exact.c: every decoder against brute-force enumeration of all L^T paths, on random
 * lattices with T <= 6 and L <= 5: real scores, small-integer scores (ties) and -inf patterns
 * (including sentences with no finite path). Exact decoders must return the k best scores of the
 * enumeration, as distinct paths whose recomputed scores are the printed ones; the SIMD Viterbi
 * must return the reference Viterbi's path; beam with B >= L must return the Viterbi path.
 * The exact search decoders run three times: with no work budget (the search itself),
 * with a tiny one (every sentence is finished by viterbi / kbest-viterbi) and with 100 Viterbis'
 * worth (at L = 4 and 5 that pays for a search's setup and stops it part of the way; at L <= 3 it
 * does not and the full decoder runs at once); the budgeted runs must fall back at least once. */
#include <string.h>

#include "test_util.h"
#include "vitesse.h"

#define MAXT 6
#define MAXL 5
#define MAXP 15625 /* 5^6 */

static vt_heuristic g_heuristic = VT_HEUR_NAIVE; /* for the A* decoder */
static vt_refine g_refine = VT_REFINE_SPLIT;     /* for iter-viterbi-astar */
static double g_budget = -1;                     /* vt_decode_opts.budget: none by default */
static int64_t g_fallbacks;                      /* budget fallbacks seen */

/* All finite path scores, best first; returns their count. */
static int enumerate(const double *A, const double *S, const double *F, const double *E, int L,
                     int T, double *out) {
  int32_t y[MAXT] = {0};
  int n = 0;
  for (;;) {
    double s = test_path_score(A, S, F, E, L, T, y);
    if (s != -INFINITY) out[n++] = s;
    int t = T - 1;
    while (t >= 0 && ++y[t] == L) y[t--] = 0;
    if (t < 0) break;
  }
  qsort(out, (size_t)n, sizeof *out, test_cmp_desc);
  return n;
}

static void check_decoder(const char *ctx, vt_trans *tr, vt_arena *ar, const double *A,
                          const double *S, const double *F, const double *E, int L, int T,
                          const double *bf, int nbf, vt_algo algo, int k, int beam,
                          int32_t *ref_path, int want_ref_path) {
  int32_t labels[100 * MAXT];
  double scores[100];
  int32_t n = -1;
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  o.algo = algo;
  o.k = k;
  o.beam = beam;
  o.heuristic = g_heuristic;
  o.refine = g_refine;
  o.budget = g_budget;
  vt_decode_stats ds = {0};
  vt_status st = vt_decode(tr, &o, ar, E, T, labels, scores, &n, &ds);
  vt_arena_reset(ar);
  g_fallbacks += ds.budget_fallbacks;
  char c[256];
  snprintf(c, sizeof c, "%s algo=%s k=%d beam=%d heur=%d refine=%d budget=%g L=%d T=%d", ctx,
           vt_algo_name(algo), k, beam, (int)g_heuristic, (int)g_refine, g_budget, L, T);
  EXPECT_EQ_INT(st, VT_OK, c);
  if (st != VT_OK) return;
  int exact = vt_algo_exact(algo) || beam >= L;
  int want = nbf < k ? nbf : k;
  if (exact && !(algo == VT_ALGO_BEAM && k > 1)) {
    EXPECT_EQ_INT(n, want, c);
  } else {
    EXPECT(n <= want, "%s: %d paths, at most %d expected", c, n, want);
  }
  for (int p = 0; p < n; p++) {
    const int32_t *y = labels + p * T;
    int ok = 1;
    for (int t = 0; t < T; t++) ok &= y[t] >= 0 && y[t] < L;
    EXPECT(ok, "%s: path %d has a label out of range", c, p);
    if (!ok) return;
    double s = test_path_score(A, S, F, E, L, T, y);
    EXPECT_EQ_DBL(scores[p], s, c);
    EXPECT(s != -INFINITY, "%s: path %d is not finite", c, p);
    if (p > 0) EXPECT(scores[p] <= scores[p - 1], "%s: scores increase at %d", c, p);
    for (int q = 0; q < p; q++)
      EXPECT(memcmp(y, labels + q * T, (size_t)T * sizeof *y) != 0, "%s: paths %d and %d equal", c,
             q, p);
    if (exact && !(algo == VT_ALGO_BEAM && k > 1))
      EXPECT_EQ_DBL(scores[p], bf[p], c);
    else
      EXPECT(scores[p] <= bf[p], "%s: path %d beats brute force", c, p);
  }
  if (want_ref_path && n > 0) {
    EXPECT(memcmp(labels, ref_path, (size_t)T * sizeof *labels) == 0,
           "%s: 1-best path differs from the reference Viterbi's", c);
  }
}

/* Replays the seeded stream of lattices (the same in every case) and checks algorithms
 * [a_lo, a_hi) on each; *infeasible counts the lattices with no finite path. */
static void run_stream(int a_lo, int a_hi, int *infeasible_out) {
  test_rng rng = {12345};
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  static double bf[MAXP];
  double A[MAXL * MAXL], S[MAXL], F[MAXL], E[MAXT * MAXL];
  const int reps = 40;
  int lattices = 0, infeasible = 0;
  for (int mode = SCORE_REAL; mode <= SCORE_NEGINF; mode++)
    for (int L = 1; L <= MAXL; L++)
      for (int T = 1; T <= MAXT; T++)
        for (int rep = 0; rep < reps; rep++) {
          for (int i = 0; i < L * L; i++) A[i] = test_score(&rng, (score_mode)mode);
          for (int i = 0; i < L; i++) {
            /* Start/end: absent (0) in a quarter of the lattices, as the CLI allows. */
            S[i] = rep % 4 == 0 ? 0 : test_score(&rng, (score_mode)mode);
            F[i] = rep % 4 == 1 ? 0 : test_score(&rng, (score_mode)mode);
          }
          for (int i = 0; i < T * L; i++) E[i] = test_score(&rng, (score_mode)mode);
          vt_trans *tr;
          const vt_status st = vt_trans_create(&tr, L, A, S, F, NULL);
          if (st != VT_OK) {
            EXPECT_EQ_INT(st, VT_OK, "trans");
            return;
          }
          int nbf = enumerate(A, S, F, E, L, T, bf);
          lattices++;
          infeasible += nbf == 0;
          char ctx[64];
          snprintf(ctx, sizeof ctx, "mode=%d rep=%d", mode, rep);
          /* The reference Viterbi first: its path is what the SIMD one must reproduce. */
          int32_t ref[MAXT];
          double rs;
          int32_t rn;
          vt_decode_opts o;
          vt_decode_opts_init(&o);
          o.algo = VT_ALGO_VITERBI_SCALAR;
          vt_decode(tr, &o, ar, E, T, ref, &rs, &rn, NULL);
          vt_arena_reset(ar);
          /* Every implemented algorithm, so each new decoder is checked here as it lands. */
          for (int a = a_lo; a < a_hi; a++) {
            vt_algo algo = (vt_algo)a;
            if (!vt_algo_available(algo)) continue;
            if (algo == VT_ALGO_BEAM) {
              check_decoder(ctx, tr, ar, A, S, F, E, L, T, bf, nbf, algo, 1, L, ref, 1);
              check_decoder(ctx, tr, ar, A, S, F, E, L, T, bf, nbf, algo, 1, 1, ref, 0);
              check_decoder(ctx, tr, ar, A, S, F, E, L, T, bf, nbf, algo, 3, 2, ref, 0);
              continue;
            }
            /* astar under every heuristic, iter-viterbi-astar in both refine modes. */
            int heur_n = algo == VT_ALGO_ASTAR ? 5 : algo == VT_ALGO_ITER_VITERBI_ASTAR ? 2 : 1;
            static const vt_heuristic heurs[] = {VT_HEUR_NAIVE, VT_HEUR_M0, VT_HEUR_M3, VT_HEUR_M6,
                                                 VT_HEUR_M9};
            for (int h = 0; h < heur_n; h++) {
              g_heuristic = algo == VT_ALGO_ASTAR ? heurs[h] : VT_HEUR_NAIVE;
              g_refine =
                  algo == VT_ALGO_ITER_VITERBI_ASTAR && h ? VT_REFINE_EXPAND : VT_REFINE_SPLIT;
              /* The SIMD Viterbi must reproduce the reference's path, ties included. */
              int same_path = algo == VT_ALGO_VITERBI;
              if (!vt_algo_kbest(algo)) {
                check_decoder(ctx, tr, ar, A, S, F, E, L, T, bf, nbf, algo, 1, 1, ref, same_path);
                continue;
              }
              static const int ks[] = {1, 2, 3, 5, 20, 50, 100};
              for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
                check_decoder(ctx, tr, ar, A, S, F, E, L, T, bf, nbf, algo, ks[i], 1, ref, 0);
            }
            g_heuristic = VT_HEUR_NAIVE;
            g_refine = VT_REFINE_SPLIT;
          }
          vt_trans_destroy(tr);
        }
  vt_arena_destroy(ar);
  if (infeasible_out) {
    printf("test_exact: %d lattices (%d with no finite path)\n", lattices, infeasible);
    *infeasible_out = infeasible;
  }
}

/* Runs algorithms [a_lo, a_hi) with no budget, a tiny one and 100 Viterbis' worth; the
 * budgeted runs must hand sentences to the full decoder when one of them is a search. */
static void run_budgets(int a_lo, int a_hi) {
  static const double budgets[] = {-1, 1e-9, 100};
  int search = 0; /* an exact search decoder among them: it has a budget */
  for (int a = a_lo; a < a_hi; a++)
    search |= vt_algo_available((vt_algo)a) && vt_algo_exact((vt_algo)a) && a != VT_ALGO_VITERBI &&
              a != VT_ALGO_VITERBI_SCALAR && a != VT_ALGO_KBEST_VITERBI;
  for (size_t b = 0; b < (search ? sizeof budgets / sizeof budgets[0] : 1); b++) {
    g_budget = budgets[b];
    g_fallbacks = 0;
    run_stream(a_lo, a_hi, NULL);
    if (search)
      printf("test_exact: budget %g: %lld sentences fell back\n", g_budget, (long long)g_fallbacks);
    if (g_budget < 0)
      EXPECT(g_fallbacks == 0, "no budget: %lld fallbacks", (long long)g_fallbacks);
    else
      EXPECT(g_fallbacks > 0, "budget %g: the fallback was never taken", g_budget);
  }
  g_budget = -1;
}

/* One case per algorithm (an algorithm not available in this build checks nothing). */
#define ALGO_CASE(name, algo)                                                                      \
  TEST(name) { run_budgets(algo, algo + 1); }
ALGO_CASE(viterbi_same_path_as_reference, VT_ALGO_VITERBI)
ALGO_CASE(viterbi_scalar, VT_ALGO_VITERBI_SCALAR)
ALGO_CASE(kbest_viterbi, VT_ALGO_KBEST_VITERBI)
ALGO_CASE(beam, VT_ALGO_BEAM)
ALGO_CASE(staggered, VT_ALGO_STAGGERED)
ALGO_CASE(staggered_col, VT_ALGO_STAGGERED_COL)
ALGO_CASE(astar_every_heuristic, VT_ALGO_ASTAR)
ALGO_CASE(iter_astar, VT_ALGO_ITER_ASTAR)
ALGO_CASE(viterbi_astar, VT_ALGO_VITERBI_ASTAR)
ALGO_CASE(iter_viterbi_astar_both_refines, VT_ALGO_ITER_VITERBI_ASTAR)

/* Algorithms added after these, so each new decoder is checked here as it lands. */
TEST(later_algorithms) { run_budgets(VT_ALGO_ITER_VITERBI_ASTAR + 1, VT_ALGO_COUNT_); }

/* The stream has lattices with no finite path. */
TEST(stream_has_infeasible_lattices) {
  int infeasible = 0;
  run_stream(0, 0, &infeasible);
  EXPECT(infeasible > 0, "no infeasible lattice was generated");
}

TEST_MAIN(CASE(viterbi_same_path_as_reference), CASE(viterbi_scalar), CASE(kbest_viterbi),
          CASE(beam), CASE(staggered), CASE(staggered_col), CASE(astar_every_heuristic),
          CASE(iter_astar), CASE(viterbi_astar), CASE(iter_viterbi_astar_both_refines),
          CASE(later_algorithms), CASE(stream_has_infeasible_lattices))
