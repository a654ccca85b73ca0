/* tests/test_obsbigram.c: the decoders of position-dependent transitions (models with
 * observation-dependent bigram templates) against brute force on small lattices: viterbi finds
 * an optimal path, kbest-viterbi the k best scores, beam with B >= L the optimum; without
 * deltas, viterbi agrees with vt_decode. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "text/obsbigram.h"

/* What one case checks on every lattice of the stream. */
typedef enum {
  CHECK_VITERBI, /* an optimal path; without deltas, the path of vt_decode */
  CHECK_KBEST,   /* the k best scores, distinct paths */
  CHECK_BEAM,    /* beam with B = L finds the optimum */
  CHECK_REFUSED  /* staggered-col is refused */
} check;

static int cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void run(check which, int32_t L, int32_t T, score_mode mode, int with_deltas, test_rng *r) {
  double A[16], S[4], F[4], E[6 * 4], dval[64];
  int32_t dkey[64];
  int64_t doff[7];
  for (int32_t i = 0; i < L * L; i++) A[i] = test_score(r, mode == SCORE_NEGINF ? SCORE_INT : mode);
  for (int32_t y = 0; y < L; y++) {
    S[y] = test_score(r, SCORE_INT);
    F[y] = test_score(r, SCORE_INT);
  }
  for (int32_t i = 0; i < T * L; i++) E[i] = test_score(r, mode);
  int64_t n = 0;
  doff[0] = doff[1] = 0;
  for (int32_t t = 1; t < T; t++) {
    int32_t k = with_deltas ? test_int(r, 6) : 0;
    for (int32_t j = 0; j < k; j++, n++) {
      dkey[n] = test_int(r, L * L);
      dval[n] = test_score(r, mode == SCORE_NEGINF ? SCORE_INT : mode);
    }
    doff[t + 1] = n;
  }
  vt_obs_lattice lat = {L, T, A, S, F, E, doff, dkey, dval, NULL};

  /* Brute force: every path's score, sorted. */
  int32_t np = 1;
  for (int32_t t = 0; t < T; t++) np *= L;
  double *all = malloc(sizeof(double) * (size_t)np);
  int32_t y[6];
  for (int32_t p = 0; p < np; p++) {
    for (int32_t t = 0, q = p; t < T; t++, q /= L) y[t] = q % L;
    all[p] = vt_obs_path_score(&lat, y);
  }
  qsort(all, (size_t)np, sizeof *all, cmp_desc);
  int32_t finite = 0;
  while (finite < np && all[finite] > -INFINITY) finite++;

  vt_arena *arena;
  vt_arena_create(&arena, 0);
  int32_t labels[8 * 6], n_paths;
  double scores[8];
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  char ctx[64];
  snprintf(ctx, sizeof ctx, "L=%d T=%d mode %d deltas %d", L, T, (int)mode, with_deltas);

  switch (which) {
  case CHECK_VITERBI:
    o.algo = VT_ALGO_VITERBI;
    vt_obs_decode(&lat, &o, arena, labels, scores, &n_paths, NULL);
    EXPECT(n_paths == (finite ? 1 : 0) && (!finite || scores[0] == all[0]),
           "%s: viterbi %d paths, score %g, best %g", ctx, n_paths, scores[0], all[0]);
    if (n_paths) { /* the decoder's own score is the path's, summed as vt_obs_path_score sums it */
      const double ps = vt_obs_path_score(&lat, labels);
      EXPECT(!memcmp(&ps, &scores[0], sizeof ps), "%s: viterbi score %a, its path sums to %a", ctx,
             scores[0], ps);
    }
    if (!with_deltas && mode == SCORE_REAL) {
      vt_trans *tr;
      vt_trans_create(&tr, L, A, S, F, NULL);
      int32_t ref[6], nr;
      double sr;
      vt_decode(tr, &o, arena, E, T, ref, &sr, &nr, NULL);
      EXPECT(nr == n_paths && !memcmp(ref, labels, sizeof(int32_t) * (size_t)T),
             "%s: viterbi path differs from vt_decode", ctx);
      vt_trans_destroy(tr);
    }
    break;

  case CHECK_KBEST:
    o.algo = VT_ALGO_KBEST_VITERBI;
    o.k = 5;
    vt_obs_decode(&lat, &o, arena, labels, scores, &n_paths, NULL);
    int32_t want = finite < 5 ? finite : 5;
    EXPECT(n_paths == want, "%s: kbest gave %d paths, want %d", ctx, n_paths, want);
    for (int32_t p = 0; p < n_paths && p < want; p++) {
      EXPECT(scores[p] == all[p], "%s: kbest path %d scores %g, want %g", ctx, p, scores[p],
             all[p]);
      for (int32_t q = 0; q < p; q++)
        EXPECT(memcmp(labels + p * T, labels + q * T, sizeof(int32_t) * (size_t)T) != 0,
               "%s: kbest paths %d and %d are equal", ctx, p, q);
    }
    break;

  case CHECK_BEAM:
    o.algo = VT_ALGO_BEAM;
    o.k = 1;
    o.beam = L;
    vt_obs_decode(&lat, &o, arena, labels, scores, &n_paths, NULL);
    EXPECT(n_paths == (finite ? 1 : 0) && (!finite || scores[0] == all[0]),
           "%s: beam B=L: %d paths, score %g, best %g", ctx, n_paths, scores[0], all[0]);
    break;

  case CHECK_REFUSED:
    o.algo = VT_ALGO_STAGGERED_COL;
    EXPECT(vt_obs_decode(&lat, &o, arena, labels, scores, &n_paths, NULL) == VT_EUNSUPPORTED,
           "%s: staggered-col must be refused", ctx);
    break;
  }
  vt_arena_destroy(arena);
  free(all);
}

/* Every case runs `which` on the same stream of lattices (seed 7). */
static void run_all(check which) {
  test_rng r = {7};
  for (int rep = 0; rep < 40; rep++)
    for (int32_t L = 1; L <= 4; L++)
      for (int32_t T = 1; T <= 5; T++) {
        run(which, L, T, SCORE_REAL, rep % 2, &r);
        run(which, L, T, SCORE_INT, 1, &r);
        run(which, L, T, SCORE_NEGINF, 1, &r);
      }
}

TEST(viterbi_optimal) { run_all(CHECK_VITERBI); }
TEST(kbest_scores) { run_all(CHECK_KBEST); }
TEST(beam_full_width_optimal) { run_all(CHECK_BEAM); }
TEST(staggered_col_refused) { run_all(CHECK_REFUSED); }

/* The textbook loop over position-dependent edges: for each label j, the previous labels i in
 * ascending order with a strict >, so the lowest i wins a tie (what vt_obs_decode's Viterbi must
 * return, on its max-plus kernels, at every width). */
static void viterbi_plain(const vt_obs_lattice *lat, int32_t *y) {
  const int32_t L = lat->L, T = lat->T;
  double *M = malloc(sizeof(double) * (size_t)L * (size_t)L), *prev = malloc(sizeof(double) * L);
  double *cur = malloc(sizeof(double) * L);
  int32_t *bp = malloc(sizeof(int32_t) * (size_t)T * (size_t)L);
  for (int32_t j = 0; j < L; j++) prev[j] = lat->S[j] + lat->E[j];
  for (int32_t t = 1; t < T; t++) {
    memcpy(M, lat->A, sizeof(double) * (size_t)L * (size_t)L);
    for (int64_t d = lat->doff[t]; d < lat->doff[t + 1]; d++) M[lat->dkey[d]] += lat->dval[d];
    for (int32_t j = 0; j < L; j++) {
      double best = -INFINITY;
      int32_t arg = 0;
      for (int32_t i = 0; i < L; i++)
        if (prev[i] + M[i * L + j] > best) {
          best = prev[i] + M[i * L + j];
          arg = i;
        }
      cur[j] = best + lat->E[(size_t)t * L + j];
      bp[(size_t)t * L + j] = arg;
    }
    double *tmp = prev;
    prev = cur;
    cur = tmp;
  }
  double best = -INFINITY;
  y[T - 1] = 0;
  for (int32_t j = 0; j < L; j++)
    if (prev[j] + lat->F[j] > best) {
      best = prev[j] + lat->F[j];
      y[T - 1] = j;
    }
  for (int32_t t = T - 1; t > 0; t--) y[t - 1] = bp[(size_t)t * L + y[t]];
  free(M);
  free(prev);
  free(cur);
  free(bp);
}

/* A random lattice of L labels and T positions into A, S, F, E and deltas of up to dmax a
 * position: small integer scores (ties everywhere), -inf edges, a key repeated now and then. */
static void lattice_random(test_rng *r, int32_t L, int32_t T, int dmax, double *A, double *S,
                           double *F, double *E, int64_t *doff, int32_t *dkey, double *dval) {
  for (int32_t i = 0; i < L * L; i++) A[i] = test_int(r, 9) ? (double)test_int(r, 3) : -INFINITY;
  for (int32_t j = 0; j < L; j++) {
    S[j] = test_int(r, 3);
    F[j] = test_int(r, 3);
  }
  for (int32_t i = 0; i < T * L; i++) E[i] = test_int(r, 3);
  int64_t n = 0;
  doff[0] = doff[1] = 0;
  for (int32_t t = 1; t < T; t++) {
    for (int32_t k = test_int(r, dmax); k > 0; k--, n++) {
      dkey[n] = test_int(r, 4) ? test_int(r, L * L) : dkey[n > 0 ? n - 1 : 0] % (L * L);
      dval[n] = test_int(r, 5) - 2;
    }
    doff[t + 1] = n;
  }
}

/* Viterbi (and viterbi-scalar) return the textbook loop's path, ties and all, for 1 to 40 labels
 * (the kernels' full vectors and their padding), integer scores (ties everywhere), -inf edges and
 * repeated delta keys. */
TEST(viterbi_path_as_the_plain_loop) {
  enum { LMAX = 40, TMAX = 12, DMAX = 16 };
  static double A[LMAX * LMAX], E[TMAX * LMAX], dval[TMAX * DMAX];
  static int32_t dkey[TMAX * DMAX], want[TMAX], got[TMAX];
  double S[LMAX], F[LMAX], score;
  int64_t doff[TMAX + 1];
  test_rng r = {11};
  int differ = 0, cases = 0;
  for (int rep = 0; rep < 400; rep++) {
    const int32_t L = 1 + test_int(&r, LMAX), T = 1 + test_int(&r, TMAX);
    lattice_random(&r, L, T, DMAX, A, S, F, E, doff, dkey, dval);
    vt_obs_lattice lat = {L, T, A, S, F, E, doff, dkey, dval, NULL};
    viterbi_plain(&lat, want);
    const vt_algo algos[2] = {VT_ALGO_VITERBI, VT_ALGO_VITERBI_SCALAR};
    for (int a = 0; a < 2; a++) {
      vt_arena *arena;
      vt_arena_create(&arena, 0);
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = algos[a];
      int32_t n_paths = 0;
      vt_obs_decode(&lat, &o, arena, got, &score, &n_paths, NULL);
      cases++;
      if (n_paths == 1 && memcmp(got, want, sizeof(int32_t) * (size_t)T)) differ++;
      vt_arena_destroy(arena);
    }
  }
  EXPECT_EQ_INT(differ, 0, "paths that differ from the plain loop's");
  EXPECT(cases == 800, "%d cases", cases);
}

/* A lattice given as one edge matrix per position (A plus that position's deltas, in their
 * order) decodes as the same lattice given as deltas, with every algorithm: the same paths and
 * the same score bits, ties, -inf and repeated keys included. */
TEST(matrices_as_deltas) {
  enum { LM = 9, TM = 7, DM = 12 };
  static double A[LM * LM], S[LM], F[LM], E[TM * LM], dval[TM * DM];
  static double mats[TM][LM * LM + 16];
  static int32_t dkey[TM * DM], y1[4 * TM], y2[4 * TM];
  const double *Mt[TM];
  int64_t doff[TM + 1];
  double s1[4], s2[4];
  test_rng r = {12};
  int differ = 0, cases = 0;
  const vt_algo algos[4] = {VT_ALGO_VITERBI, VT_ALGO_VITERBI_SCALAR, VT_ALGO_KBEST_VITERBI,
                            VT_ALGO_BEAM};
  for (int rep = 0; rep < 300; rep++) {
    const int32_t L = 1 + test_int(&r, LM), T = 1 + test_int(&r, TM);
    lattice_random(&r, L, T, DM, A, S, F, E, doff, dkey, dval);
    for (int32_t t = 1; t < T; t++) {
      memset(mats[t], 0, sizeof mats[t]);
      memcpy(mats[t], A, (size_t)L * L * sizeof *A);
      for (int64_t d = doff[t]; d < doff[t + 1]; d++) mats[t][dkey[d]] += dval[d];
      Mt[t] = mats[t];
    }
    Mt[0] = NULL;
    const vt_obs_lattice ld = {L, T, A, S, F, E, doff, dkey, dval, NULL};
    const vt_obs_lattice lm = {L, T, A, S, F, E, NULL, NULL, NULL, Mt};
    for (int a = 0; a < 4; a++) {
      vt_arena *arena;
      vt_arena_create(&arena, 0);
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = algos[a];
      o.k = algos[a] == VT_ALGO_KBEST_VITERBI || algos[a] == VT_ALGO_BEAM ? 4 : 1;
      o.beam = 2;
      int32_t n1 = 0, n2 = 0;
      const vt_status st1 = vt_obs_decode(&ld, &o, arena, y1, s1, &n1, NULL);
      vt_arena_reset(arena);
      const vt_status st2 = vt_obs_decode(&lm, &o, arena, y2, s2, &n2, NULL);
      differ += st1 != VT_OK || st2 != VT_OK || n1 != n2 ||
                memcmp(y1, y2, sizeof(int32_t) * (size_t)(T * n1)) != 0 ||
                memcmp(s1, s2, sizeof(double) * (size_t)n1) != 0;
      cases += n1 > 0;
      vt_arena_destroy(arena);
    }
  }
  EXPECT_EQ_INT(differ, 0, "lattices decoded otherwise as matrices than as deltas");
  EXPECT(cases > 900, "%d cases with a path", cases);
}

TEST_MAIN(CASE(viterbi_path_as_the_plain_loop), CASE(viterbi_optimal), CASE(kbest_scores),
          CASE(beam_full_width_optimal), CASE(staggered_col_refused), CASE(matrices_as_deltas))
