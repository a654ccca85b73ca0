/* tests/test_simd.c: every SIMD kernel against the scalar one, bit for bit (values and argmax),
 * on L in {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 319, 1000}, full and prefix shapes, real,
 * tie-heavy and -inf scores; then whole Viterbi decodes at every level against the reference
 * Viterbi: identical paths and scores. The degenerate lattice's row operations (scan above a
 * threshold, row_step, row_join, row_join_c; hand-written per level) the same way, on lengths
 * 1 to 1000 and thresholds at -inf, +inf and tied values, with sentinels past n. Levels this CPU
 * cannot run are reported and skipped. */
#include <string.h>

#include "core/kernel.h"
#include "core/trans_layout.h"
#include "decode/degen.h"
#include "test_util.h"

/* What the running case checks; every case replays the same seeded stream (cheap). */
enum { PART_MAXPLUS = 1, PART_REDUCE = 2, PART_ROWOPS = 4, PART_DECODE = 8 };
static int g_part;

static void fill(test_rng *r, double *v, int n, score_mode m) {
  for (int i = 0; i < n; i++) v[i] = test_score(r, m);
}

static void kernel_case(test_rng *rng, const vt_trans *tr, score_mode m, int n_prev, int n_cur,
                        int with_add) {
  const int L = tr->L;
  double *prev = malloc(sizeof(double) * L), *add = malloc(sizeof(double) * L);
  double *o_ref = malloc(sizeof(double) * L), *o = malloc(sizeof(double) * L);
  int32_t *a_ref = malloc(sizeof(int32_t) * L), *a = malloc(sizeof(int32_t) * L);
  fill(rng, prev, L, m);
  fill(rng, add, L, m);
  if (g_part & PART_MAXPLUS)
    vt_kernels_scalar.maxplus(prev, n_prev, tr->A, tr->ld, with_add ? add : NULL, n_cur, o_ref,
                              a_ref);
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512 && (g_part & PART_MAXPLUS); lv++) {
    const vt_kernels *k = vt_kernels_get((vt_simd)lv);
    if (!k) continue;
    /* Sentinels just past n_cur catch stray writes. */
    for (int j = 0; j < L; j++) {
      o[j] = 12345.0;
      a[j] = -7;
    }
    k->maxplus(prev, n_prev, tr->A, tr->ld, with_add ? add : NULL, n_cur, o, a);
    char c[128];
    snprintf(c, sizeof c, "%s L=%d n_prev=%d n_cur=%d mode=%d", vt_simd_name((vt_simd)lv), L,
             n_prev, n_cur, (int)m);
    /* The first differing value or argmax, then (when none) the first sentinel overwritten. */
    int bad = -1, past = -1;
    for (int j = 0; j < n_cur && bad < 0; j++)
      if (!(o[j] == o_ref[j]) || a[j] != a_ref[j]) bad = j;
    for (int j = n_cur; j < L && bad < 0 && past < 0; j++)
      if (o[j] != 12345.0 || a[j] != -7) past = j;
    EXPECT(bad < 0, "%s: j=%d got (%.17g, %d) want (%.17g, %d)", c, bad, o[bad], a[bad], o_ref[bad],
           a_ref[bad]);
    EXPECT(past < 0, "%s: wrote past n_cur at %d", c, past);
  }
  free(prev);
  free(add);
  free(o_ref);
  free(o);
  free(a_ref);
  free(a);
}

/* range and argmax of every level against the scalar ones, on x[0, n). */
static void reduce_case(test_rng *rng, int n, score_mode m) {
  double *x = malloc(sizeof(double) * (size_t)n);
  fill(rng, x, n, m);
  if (test_int(rng, 4) == 0)
    for (int i = 0; i < n; i++) x[i] = -INFINITY; /* all forbidden */
  if (!(g_part & PART_REDUCE)) {
    free(x);
    return;
  }
  double mx0, mn0;
  vt_kernels_scalar.range(x, n, &mx0, &mn0);
  int32_t a0 = vt_kernels_scalar.argmax(x, n);
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    const vt_kernels *k = vt_kernels_get((vt_simd)lv);
    if (!k) continue;
    double mx, mn;
    k->range(x, n, &mx, &mn);
    char c[96];
    snprintf(c, sizeof c, "%s range/argmax n=%d mode=%d", vt_simd_name((vt_simd)lv), n, (int)m);
    EXPECT_EQ_DBL(mx, mx0, c);
    EXPECT_EQ_DBL(mn, mn0, c);
    EXPECT_EQ_INT(k->argmax(x, n), a0, c);
  }
  free(x);
}

/* The row operations of every level against the scalar copy, on n values. */
static void rowops_case(test_rng *rng, int n, score_mode m) {
  double *x = malloc(sizeof(double) * (size_t)n * 4), *row0 = malloc(sizeof(double) * (size_t)n);
  double *row = malloc(sizeof(double) * (size_t)n);
  int32_t *i0 = malloc(sizeof(int32_t) * ((size_t)n + 8)),
          *i1 = malloc(sizeof(int32_t) * ((size_t)n + 8));
  fill(rng, x, 4 * n, m);
  const double *P = x + n, *E = x + 2 * n, *into = x + 3 * n;
  const double p = test_score(rng, m), tau = test_score(rng, m);
  const double thrs[] = {-INFINITY, INFINITY, x[test_int(rng, n)], x[test_int(rng, n)], 0.0};
  const vt_degen_ops *ref = vt_degen_ops_for(VT_SIMD_SCALAR);
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512 && (g_part & PART_ROWOPS); lv++) {
    const vt_degen_ops *o = vt_degen_ops_for((vt_simd)lv);
    if (!o || !vt_simd_supported((vt_simd)lv)) continue;
    char c[96];
    snprintf(c, sizeof c, "%s row ops n=%d mode=%d", vt_simd_name((vt_simd)lv), n, (int)m);
    for (size_t h = 0; h < sizeof thrs / sizeof thrs[0]; h++) {
      for (int j = 0; j < n + 8; j++) i1[j] = -7;
      const int32_t c0 = ref->scan_above(x, n, thrs[h], i0), c1 = o->scan_above(x, n, thrs[h], i1);
      EXPECT_EQ_INT(c1, c0, c);
      EXPECT(c1 != c0 || memcmp(i0, i1, sizeof(int32_t) * (size_t)c0) == 0, "%s: scan indices", c);
      for (int j = n; j < n + 8; j++) EXPECT_EQ_INT(i1[j], -7, c);
    }
    ref->row_step(row0, p, P, E, n);
    o->row_step(row, p, P, E, n);
    EXPECT(memcmp(row0, row, sizeof(double) * (size_t)n) == 0, "%s: row_step", c);
    ref->row_join(row0, P, E, into, tau, n);
    o->row_join(row, P, E, into, tau, n);
    EXPECT(memcmp(row0, row, sizeof(double) * (size_t)n) == 0, "%s: row_join", c);
    ref->row_join_c(row0, p, E, into, tau, n);
    o->row_join_c(row, p, E, into, tau, n);
    EXPECT(memcmp(row0, row, sizeof(double) * (size_t)n) == 0, "%s: row_join_c", c);
  }
  free(x);
  free(row0);
  free(row);
  free(i0);
  free(i1);
}

static void decode_case(test_rng *rng, const vt_trans *tr, vt_arena *ar, score_mode m, int T) {
  const int L = tr->L;
  double *E = malloc(sizeof(double) * (size_t)T * L);
  int32_t *ref = malloc(sizeof(int32_t) * T), *got = malloc(sizeof(int32_t) * T);
  fill(rng, E, T * L, m);
  if (!(g_part & PART_DECODE)) {
    free(E);
    free(ref);
    free(got);
    return;
  }
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  o.algo = VT_ALGO_VITERBI_SCALAR;
  double sr, sg;
  int32_t nr, ng;
  vt_decode(tr, &o, ar, E, T, ref, &sr, &nr, NULL);
  vt_arena_reset(ar);
  o.algo = VT_ALGO_VITERBI;
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
    if (vt_simd_force((vt_simd)lv) != VT_OK) continue;
    vt_decode(tr, &o, ar, E, T, got, &sg, &ng, NULL);
    vt_arena_reset(ar);
    char c[96];
    snprintf(c, sizeof c, "decode %s L=%d T=%d mode=%d", vt_simd_name((vt_simd)lv), L, T, m);
    EXPECT_EQ_INT(ng, nr, c);
    if (ng == nr && nr) {
      EXPECT_EQ_DBL(sg, sr, c);
      EXPECT(memcmp(got, ref, sizeof(int32_t) * T) == 0, "%s: paths differ", c);
    }
  }
  free(E);
  free(ref);
  free(got);
}

/* Replays the seeded stream, checking `part`. */
static void run_stream(int part) {
  static const int Ls[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 319, 1000};
  static int reported;
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512 && !reported; lv++)
    if (!vt_simd_supported((vt_simd)lv))
      printf("test_simd: %s not supported here, skipped\n", vt_simd_name((vt_simd)lv));
  reported = 1;
  g_part = part;
  test_rng rng = {777};
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  for (size_t li = 0; li < sizeof Ls / sizeof Ls[0]; li++) {
    const int L = Ls[li];
    for (int m = SCORE_REAL; m <= SCORE_NEGINF; m++) {
      double *A = malloc(sizeof(double) * (size_t)L * L);
      fill(&rng, A, L * L, (score_mode)m);
      vt_trans *tr;
      const vt_status st = vt_trans_create(&tr, L, A, NULL, NULL, NULL);
      if (st != VT_OK) {
        EXPECT_EQ_INT(st, VT_OK, "trans");
        return;
      }
      int reps = L >= 319 ? 3 : 12;
      for (int rep = 0; rep < reps; rep++) {
        kernel_case(&rng, tr, (score_mode)m, L, L, rep & 1);
        /* Prefix shapes, as the staggered decoders use them. */
        kernel_case(&rng, tr, (score_mode)m, 1 + test_int(&rng, L), test_int(&rng, L + 1), 1);
        decode_case(&rng, tr, ar, (score_mode)m, 1 + test_int(&rng, L >= 319 ? 8 : 30));
        reduce_case(&rng, L, (score_mode)m);
        reduce_case(&rng, 1 + test_int(&rng, L), (score_mode)m);
        rowops_case(&rng, L, (score_mode)m);
        rowops_case(&rng, 1 + test_int(&rng, L), (score_mode)m);
      }
      vt_trans_destroy(tr);
      free(A);
    }
  }
  vt_arena_destroy(ar);
}

/* The max-plus kernel, full and prefix shapes, with sentinels past n_cur. */
TEST(maxplus_kernels) { run_stream(PART_MAXPLUS); }
/* range and argmax. */
TEST(range_argmax) { run_stream(PART_REDUCE); }
/* The degenerate lattice's row operations. */
TEST(degen_row_ops) { run_stream(PART_ROWOPS); }
/* Whole Viterbi decodes at every level against the reference Viterbi. */
TEST(viterbi_every_level) { run_stream(PART_DECODE); }

TEST_MAIN(CASE(maxplus_kernels), CASE(range_argmax), CASE(degen_row_ops), CASE(viterbi_every_level))
