/* tests/test_isa_chunk_simd.c: the label-table step of the label-chunk decoder (chunk_simd.h) at
 * every level the CPU runs against the scalar one, bit for bit: y over all p rows and cand, on
 * open-chunk counts m around the vector widths, p in {1, 2, 3, 5, 9}, with real, tied and -inf
 * scores; nothing past the m lanes of a row changes. */
#include "chunk/chunk_simd.h"
#include "test_isa.h"

static void step_case(test_rng *r, const vt_chunk_kernels *k, int m, int p, score_mode mode) {
  const int64_t ld = m + 1 + test_int(r, 9); /* rows of the table: m lanes and some slack */
  const size_t rows = (size_t)p * (size_t)ld, w = (size_t)m + ISA_PAD;
  double *x = malloc(sizeof(double) * rows), *y0 = malloc(sizeof(double) * rows);
  double *y1 = malloc(sizeof(double) * rows), *T = malloc(sizeof(double) * (size_t)(p * p));
  double *N = malloc(sizeof(double) * (size_t)p), *enter = malloc(sizeof(double) * w);
  double *span = malloc(sizeof(double) * w), *c0 = malloc(sizeof(double) * w);
  double *c1 = malloc(sizeof(double) * w);
  isa_fill(r, x, (int)rows, mode);
  isa_fill(r, T, p * p, mode);
  isa_fill(r, N, p, mode);
  isa_fill(r, enter, (int)w, mode);
  isa_fill(r, span, (int)w, mode);
  const double span_add = test_score(r, mode);
  for (size_t j = 0; j < rows; j++) y0[j] = y1[j] = 12345.0;
  for (size_t j = 0; j < w; j++) c0[j] = c1[j] = 12345.0;
  vt_chunk_kernels_scalar.step(x, y0, ld, m, p, T, N, enter, span, span_add, c0);
  k->step(x, y1, ld, m, p, T, N, enter, span, span_add, c1);
  char c[96];
  snprintf(c, sizeof c, "%s m=%d p=%d ld=%d mode=%d", vt_simd_name(k->level), m, p, (int)ld,
           (int)mode);
  EXPECT(isa_same(y0, y1, sizeof(double) * rows), "%s: y", c);
  EXPECT(isa_same(c0, c1, sizeof(double) * w), "%s: cand", c);
  EXPECT(y1[m] == 12345.0 && c1[m] == 12345.0, "%s: wrote past m", c);
  free(x);
  free(y0);
  free(y1);
  free(T);
  free(N);
  free(enter);
  free(span);
  free(c0);
  free(c1);
}

TEST(step_same_bits) {
  static const int ps[] = {1, 2, 3, 5, 9};
  test_rng r = {41};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_chunk_kernels *k = vt_chunk_kernels_get((vt_simd)lv);
    REQUIRE(k != NULL && k->level == (vt_simd)lv, "no chunk kernels for %s",
            vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++)
      for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
        for (int mode = SCORE_REAL; mode <= SCORE_NEGINF; mode++)
          step_case(&r, k, isa_lengths[li], ps[pi], (score_mode)mode);
  }
}

TEST(dispatcher_tables) {
  EXPECT(vt_chunk_kernels_get(VT_SIMD_SCALAR) == &vt_chunk_kernels_scalar, "scalar table");
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++)
    EXPECT((vt_chunk_kernels_get((vt_simd)lv) != NULL) == vt_simd_supported((vt_simd)lv),
           "%s: a table exactly when supported", vt_simd_name((vt_simd)lv));
}

TEST_MAIN(CASE(step_same_bits), CASE(dispatcher_tables))
