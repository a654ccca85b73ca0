/* tests/test_isa_rowadd.c: the row additions (rowadd.h) of every level the CPU runs against the
 * scalar ones, bit for bit, f64 and f32 sources, on lengths around the vector widths, at every
 * alignment offset of the rows, with real, tied, -inf and +-0 values; nothing past n changes. */
#include "core/rowadd.h"
#include "test_isa.h"

/* Random doubles of flavour m, some of them signed zeros. */
static void fill_row(test_rng *r, double *v, int n, score_mode m) {
  isa_fill(r, v, n, m);
  for (int i = 0; i < n; i++)
    if (test_int(r, 16) == 0) v[i] = test_int(r, 2) ? 0.0 : -0.0;
}

/* dst += src at level k and at scalar from the same start, rows at offset `off` (in elements)
 * from an allocation, with ISA_PAD sentinels past n. */
static void add_case(test_rng *r, const vt_rowadd_ops *k, int n, int off, score_mode m) {
  const int w = off + n + ISA_PAD;
  double *d0 = malloc(sizeof(double) * w), *d1 = malloc(sizeof(double) * w);
  double *s = malloc(sizeof(double) * w);
  float *sf = malloc(sizeof(float) * w);
  fill_row(r, d0, w, m);
  fill_row(r, s, w, m);
  for (int i = 0; i < w; i++) sf[i] = (float)s[i] * 0.3f; /* floats not exact in double sums */
  char c[96];
  snprintf(c, sizeof c, "%s n=%d off=%d mode=%d", vt_simd_name(k->level), n, off, (int)m);
  memcpy(d1, d0, sizeof(double) * w);
  vt_rowadd_scalar.f64(d0 + off, s + off, (size_t)n);
  k->f64(d1 + off, s + off, (size_t)n);
  EXPECT(isa_same(d0, d1, sizeof(double) * w), "%s: f64", c);
  memcpy(d1, d0, sizeof(double) * w);
  vt_rowadd_scalar.f32(d0 + off, sf + off, (size_t)n);
  k->f32(d1 + off, sf + off, (size_t)n);
  EXPECT(isa_same(d0, d1, sizeof(double) * w), "%s: f32", c);
  free(d0);
  free(d1);
  free(s);
  free(sf);
}

TEST(rowadd_same_bits) {
  test_rng r = {21};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_rowadd_ops *k = vt_rowadd_get((vt_simd)lv);
    REQUIRE(k != NULL && k->level == (vt_simd)lv, "no row adds for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++)
      for (int m = SCORE_REAL; m <= SCORE_NEGINF; m++)
        for (int off = 0; off < 8; off += 3) add_case(&r, k, isa_lengths[li], off, (score_mode)m);
  }
}

/* The sum of n_rows float rows at level k against scalar, from zero and onto the row's values,
 * and the scalar sum against adding each row in turn (f32) to a zeroed row or to the row itself:
 * the same bits; nothing past n changes. */
static void sum_case(test_rng *r, const vt_rowadd_ops *k, int n, int n_rows, int onto,
                     score_mode m) {
  const int w = n + ISA_PAD;
  double *d0 = malloc(sizeof(double) * w), *d1 = malloc(sizeof(double) * w);
  double *d2 = malloc(sizeof(double) * w), *s = malloc(sizeof(double) * w);
  float *pool = malloc(sizeof(float) * (size_t)(n_rows ? n_rows : 1) * (size_t)w);
  const float *rows[12];
  for (int q = 0; q < n_rows; q++) {
    fill_row(r, s, w, m);
    for (int i = 0; i < w; i++) pool[(size_t)q * (size_t)w + (size_t)i] = (float)s[i] * 0.3f;
    rows[q] = pool + (size_t)q * (size_t)w;
  }
  fill_row(r, d0, w, m);
  memcpy(d1, d0, sizeof(double) * w);
  memcpy(d2, d0, sizeof(double) * w);
  char c[96];
  snprintf(c, sizeof c, "%s n=%d rows=%d onto=%d mode=%d", vt_simd_name(k->level), n, n_rows, onto,
           (int)m);
  vt_rowadd_scalar.sum_f32(d0, rows, (size_t)n_rows, (size_t)n, onto);
  k->sum_f32(d1, rows, (size_t)n_rows, (size_t)n, onto);
  EXPECT(isa_same(d0, d1, sizeof(double) * w), "%s: sum", c);
  if (!onto)
    for (int i = 0; i < n; i++) d2[i] = 0.0;
  for (int q = 0; q < n_rows; q++) vt_rowadd_scalar.f32(d2, rows[q], (size_t)n);
  EXPECT(isa_same(d0, d2, sizeof(double) * w), "%s: sum against adds", c);
  free(d0);
  free(d1);
  free(d2);
  free(s);
  free(pool);
}

TEST(rowsum_same_bits) {
  test_rng r = {22};
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_rowadd_ops *k = vt_rowadd_get((vt_simd)lv);
    REQUIRE(k != NULL && k->level == (vt_simd)lv, "no row sums for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++)
      for (int m = SCORE_REAL; m <= SCORE_NEGINF; m++)
        for (int n_rows = 0; n_rows <= 12; n_rows += 1 + n_rows / 3)
          for (int onto = 0; onto < 2; onto++)
            sum_case(&r, k, isa_lengths[li], n_rows, onto, (score_mode)m);
  }
}

/* The scalar reference itself: one addition per element, in double. */
TEST(rowadd_scalar_is_elementwise) {
  double d[5] = {1.0, -INFINITY, 0.5, -0.0, 3.0};
  const double s[5] = {2.0, 1.0, 0.25, -0.0, -INFINITY};
  const float sf[5] = {0.1f, 0.0f, 0.0f, 0.0f, 0.0f};
  vt_rowadd_scalar.f64(d, s, 4); /* d[4] stays */
  EXPECT_EQ_DBL(d[0], 3.0, "1 + 2");
  EXPECT_EQ_DBL(d[1], -INFINITY, "-inf + 1");
  EXPECT_EQ_DBL(d[2], 0.75, "0.5 + 0.25");
  EXPECT(d[3] == 0 && signbit(d[3]), "-0 + -0 is -0");
  EXPECT_EQ_DBL(d[4], 3.0, "past n");
  vt_rowadd_scalar.f32(d, sf, 1);
  EXPECT_EQ_DBL(d[0], 3.0 + (double)0.1f, "float widened before the addition");
}

TEST(rowadd_active_level) {
  const vt_rowadd_ops *k = vt_rowadd_get(vt_simd_active());
  REQUIRE(k != NULL, "no row adds for the active level");
  EXPECT(vt_rowadd_f64() == k->f64 && vt_rowadd_f32() == k->f32 && vt_rowsum_f32() == k->sum_f32,
         "active functions");
  EXPECT(vt_rowadd_get(VT_SIMD_SCALAR) == &vt_rowadd_scalar, "scalar table");
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++)
    EXPECT((vt_rowadd_get((vt_simd)lv) != NULL) == vt_simd_supported((vt_simd)lv),
           "%s: a table exactly when supported", vt_simd_name((vt_simd)lv));
}

TEST_MAIN(CASE(rowadd_same_bits), CASE(rowsum_same_bits), CASE(rowadd_scalar_is_elementwise),
          CASE(rowadd_active_level))
