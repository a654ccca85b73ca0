/* tests/test_trans_update.c: vt_trans_update leaves a bound model identical, table by table and
 * bit by bit, to a fresh vt_trans_create of the same scores (the incremental refresh of the
 * bound tables included), and decoders give the same paths on both. */
#include <string.h>

#include "core/trans_layout.h"
#include "test_util.h"

static int same(const void *a, const void *b, size_t n) { return n == 0 || !memcmp(a, b, n); }

/* Compares every table of `u` (updated) with `f` (fresh). */
static void compare(const vt_trans *u, const vt_trans *f, const char *ctx) {
  const int32_t L = u->L, ld = u->ld, K = u->bd.K;
  const size_t mat = (size_t)L * ld * sizeof(double), kl = (size_t)K * L * sizeof(double);
  EXPECT(same(u->A, f->A, mat), "%s: A", ctx);
  EXPECT(same(u->S, f->S, L * sizeof(double)) && same(u->F, f->F, L * sizeof(double)), "%s: S F",
         ctx);
  EXPECT(same(u->bd.Ar, f->bd.Ar, mat), "%s: Ar", ctx);
  EXPECT(same(u->bd.Art, f->bd.Art, mat), "%s: Art", ctx);
  EXPECT(same(u->bd.Sr, f->bd.Sr, L * sizeof(double)), "%s: Sr", ctx);
  EXPECT(same(u->bd.Fr, f->bd.Fr, L * sizeof(double)), "%s: Fr", ctx);
  EXPECT(same(u->bd.to_max, f->bd.to_max, kl), "%s: to_max", ctx);
  EXPECT(same(u->bd.from_max, f->bd.from_max, kl), "%s: from_max", ctx);
  EXPECT(same(u->bd.both_max, f->bd.both_max, (size_t)K * K * sizeof(double)), "%s: both_max", ctx);
  EXPECT(same(u->bd.s_suf, f->bd.s_suf, K * sizeof(double)) &&
             same(u->bd.f_suf, f->bd.f_suf, K * sizeof(double)),
         "%s: s_suf f_suf", ctx);
  EXPECT(u->bd.a_max == f->bd.a_max && u->bd.mag_a == f->bd.mag_a, "%s: a_max %g/%g mag_a %g/%g",
         ctx, u->bd.a_max, f->bd.a_max, u->bd.mag_a, f->bd.mag_a);
  EXPECT(u->bd.mag_sf == f->bd.mag_sf, "%s: mag_sf", ctx);
  EXPECT(u->bd.q_a == f->bd.q_a && u->bd.q_sf == f->bd.q_sf, "%s: q_a %d/%d q_sf %d/%d", ctx,
         (int)u->bd.q_a, (int)f->bd.q_a, (int)u->bd.q_sf, (int)f->bd.q_sf);
  /* the rows' extremes and the counts of cells attaining them, kept cell by cell */
  for (int32_t i = 0; i < L; i++) {
    const int32_t *nu = u->bd.row_n + 3 * i, *nf = f->bd.row_n + 3 * i;
    EXPECT(u->bd.row_max[i] == f->bd.row_max[i] && u->bd.row_mag[i] == f->bd.row_mag[i] &&
               u->bd.row_q[i] == f->bd.row_q[i],
           "%s: row %d extremes", ctx, (int)i);
    EXPECT(nu[0] == nf[0] && nu[1] == nf[1] && nu[2] == nf[2],
           "%s: row %d counts %d %d %d / %d %d %d", ctx, (int)i, (int)nu[0], (int)nu[1], (int)nu[2],
           (int)nf[0], (int)nf[1], (int)nf[2]);
  }
}

static void run(int32_t L, int identity_rank, uint64_t seed) {
  test_rng r = {seed};
  double *A = malloc(sizeof(double) * L * L), *S = malloc(sizeof(double) * L),
         *F = malloc(sizeof(double) * L), *E = malloc(sizeof(double) * 12 * L);
  int32_t *rank = malloc(sizeof(int32_t) * L), *prev = malloc(sizeof(int32_t) * 600),
          *cur = malloc(sizeof(int32_t) * 600), lu[12], lf[12];
  double *val = malloc(sizeof(double) * 600);
  for (int32_t i = 0; i < L * L; i++) A[i] = (double)(test_int(&r, 9) - 4);
  for (int32_t y = 0; y < L; y++) {
    S[y] = (double)(test_int(&r, 5) - 2);
    F[y] = (double)(test_int(&r, 5) - 2);
    rank[y] = y;
  }
  for (int32_t y = L - 1; y > 0 && !identity_rank; y--) {
    int32_t j = test_int(&r, y + 1), t = rank[y];
    rank[y] = rank[j];
    rank[j] = t;
  }
  vt_trans *u = NULL;
  vt_status st = vt_trans_create(&u, L, A, S, F, rank);
  EXPECT(st == VT_OK, "create: %d", st);
  vt_arena *arena = NULL;
  vt_arena_create(&arena, 0);
  int32_t qcell = 0;
  for (int step = 0; step < 60 && u; step++) {
    /* Mostly perceptron-sized updates (+-1 on a few cells), sometimes many cells, sometimes
     * lowering the current maximum, sometimes -inf. */
    int32_t n = step % 17 == 16 ? 300 + test_int(&r, 200) : 1 + test_int(&r, 40);
    for (int32_t c = 0; c < n; c++) {
      prev[c] = test_int(&r, L);
      cur[c] = test_int(&r, L);
      if (step % 13 == 8 && c == 0) { /* back to an integer: the quantum rises again */
        prev[c] = qcell / L;
        cur[c] = qcell % L;
      }
      double old = A[(size_t)prev[c] * L + cur[c]];
      double v = step % 7 == 3 ? old - 3 : old + (test_int(&r, 2) ? 1 : -1);
      if (step % 19 == 4) v = old; /* unchanged: every count stays */
      if (step % 11 == 5 && c == 0) v = -INFINITY;
      if (step % 13 == 7 && c == 0) { /* a quarter: the quantum falls to 2^-2 */
        v = old + 0.25;
        qcell = prev[c] * L + cur[c];
      }
      if (step % 13 == 8 && c == 0) v = 7;
      val[c] = v;
      A[(size_t)prev[c] * L + cur[c]] = v;
    }
    int se = step % 3 == 0;
    if (se)
      for (int32_t y = 0; y < L; y++) {
        S[y] += test_int(&r, 3) - 1;
        F[y] += test_int(&r, 3) - 1;
      }
    st = vt_trans_update(u, n, prev, cur, val, se ? S : NULL, se ? F : NULL);
    EXPECT(st == VT_OK, "update: %d", st);
    vt_trans *f = NULL;
    vt_trans_create(&f, L, A, S, F, rank);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "L=%d rank %s step %d (%d cells)", L,
             identity_rank ? "identity" : "shuffled", step, n);
    compare(u, f, ctx);
    for (int32_t i = 0; i < 12 * L; i++) E[i] = (double)(test_int(&r, 7) - 3);
    vt_algo algos[] = {VT_ALGO_VITERBI, VT_ALGO_STAGGERED_COL, VT_ALGO_STAGGERED};
    for (size_t a = 0; a < 3; a++) {
      if (!vt_algo_available(algos[a])) continue;
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = algos[a];
      double su, sf;
      int32_t nu, nf;
      vt_decode(u, &o, arena, E, 12, lu, &su, &nu, NULL);
      vt_decode(f, &o, arena, E, 12, lf, &sf, &nf, NULL);
      vt_arena_reset(arena);
      EXPECT(nu == nf && su == sf && !memcmp(lu, lf, sizeof lu), "%s: %s differs", ctx,
             vt_algo_name(algos[a]));
    }
    vt_trans_destroy(f);
  }
  /* Bad arguments change nothing. */
  int32_t bad = L;
  double nan_v = NAN;
  EXPECT(vt_trans_update(u, 1, &bad, &bad, val, NULL, NULL) == VT_EINVAL, "label out of range");
  EXPECT(vt_trans_update(u, 1, prev, cur, &nan_v, NULL, NULL) == VT_EFORMAT, "NaN");
  EXPECT(vt_trans_update(u, -1, prev, cur, val, NULL, NULL) == VT_EINVAL, "n < 0");
  vt_arena_destroy(arena);
  vt_trans_destroy(u);
  free(A);
  free(S);
  free(F);
  free(E);
  free(rank);
  free(prev);
  free(cur);
  free(val);
}

static const int32_t Ls[] = {1, 2, 3, 7, 8, 9, 33, 64, 100};

/* Labels ranked in their own order. */
TEST(identity_rank) {
  for (size_t i = 0; i < sizeof Ls / sizeof Ls[0]; i++) run(Ls[i], 1, 100 + i);
}

/* Labels ranked in a random order (the bound tables are permuted). */
TEST(shuffled_rank) {
  for (size_t i = 0; i < sizeof Ls / sizeof Ls[0]; i++) run(Ls[i], 0, 200 + i);
}

TEST_MAIN(CASE(identity_rank), CASE(shuffled_rank))
