/* tests/test_isa_kernel.c: the max-plus kernels (kernel.h) of every level the CPU runs against
 * the scalar ones, bit for bit: maxplus (values and argmax, with and without `add`, full and
 * prefix shapes, nothing written past n_cur), range and argmax, on lengths around the vector
 * widths, with real, tied and -inf scores. */
#include "core/kernel.h"
#include "core/trans_layout.h"
#include "test_isa.h"

/* One maxplus call of level k against scalar on random rows. */
static void maxplus_case(test_rng *r, const vt_kernels *k, int n_prev, int n_cur, int with_add,
                         score_mode m) {
  const int64_t ldm = vt_pad_up(n_cur > 0 ? n_cur : 1);
  const int w = n_cur + ISA_PAD;
  double *M = malloc(sizeof(double) * (size_t)(n_prev * ldm));
  double *prev = malloc(sizeof(double) * (size_t)n_prev), *add = malloc(sizeof(double) * (size_t)w);
  double *o0 = malloc(sizeof(double) * (size_t)w), *o1 = malloc(sizeof(double) * (size_t)w);
  int32_t *a0 = malloc(sizeof(int32_t) * (size_t)w), *a1 = malloc(sizeof(int32_t) * (size_t)w);
  isa_fill(r, M, (int)(n_prev * ldm), m);
  isa_fill(r, prev, n_prev, m);
  isa_fill(r, add, w, m);
  for (int j = 0; j < w; j++) {
    o0[j] = o1[j] = 12345.0;
    a0[j] = a1[j] = -7;
  }
  const double *ad = with_add ? add : NULL;
  vt_kernels_scalar.maxplus(prev, n_prev, M, ldm, ad, n_cur, o0, a0);
  k->maxplus(prev, n_prev, M, ldm, ad, n_cur, o1, a1);
  char c[128];
  snprintf(c, sizeof c, "%s maxplus n_prev=%d n_cur=%d add=%d mode=%d", vt_simd_name(k->level),
           n_prev, n_cur, with_add, (int)m);
  /* The whole buffers: equal values and arguments, and both untouched past n_cur. */
  EXPECT(isa_same(o0, o1, sizeof(double) * (size_t)w), "%s: values", c);
  EXPECT(isa_same(a0, a1, sizeof(int32_t) * (size_t)w), "%s: arguments", c);
  EXPECT(o1[n_cur] == 12345.0 && a1[n_cur] == -7, "%s: wrote past n_cur", c);
  free(M);
  free(prev);
  free(add);
  free(o0);
  free(o1);
  free(a0);
  free(a1);
}

TEST(maxplus_same_bits) {
  test_rng r = {11};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_kernels *k = vt_kernels_get((vt_simd)lv);
    REQUIRE(k != NULL && k->level == (vt_simd)lv, "no kernels for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++) {
      const int L = isa_lengths[li];
      for (int m = SCORE_REAL; m <= SCORE_NEGINF; m++) {
        maxplus_case(&r, k, L, L, 0, (score_mode)m);
        maxplus_case(&r, k, L, L, 1, (score_mode)m);
        for (int rep = 0; rep < 4; rep++) /* prefix shapes, as the staggered decoders use them */
          maxplus_case(&r, k, 1 + test_int(&r, L), test_int(&r, L + 1), rep & 1, (score_mode)m);
      }
    }
  }
}

TEST(maxplus_all_neginf) {
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_kernels *k = vt_kernels_get((vt_simd)lv);
    REQUIRE(k != NULL, "no kernels for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++) {
      const int L = isa_lengths[li], ld = vt_pad_up(L);
      double *M = malloc(sizeof(double) * (size_t)L * ld), *prev = malloc(sizeof(double) * L);
      double *o = malloc(sizeof(double) * L);
      int32_t *a = malloc(sizeof(int32_t) * L);
      for (int i = 0; i < L * ld; i++) M[i] = -INFINITY;
      for (int i = 0; i < L; i++) prev[i] = i % 3 ? -INFINITY : 1.0;
      k->maxplus(prev, L, M, ld, NULL, L, o, a);
      int ok = 1;
      for (int j = 0; j < L; j++) ok &= o[j] == -INFINITY && a[j] == 0;
      EXPECT(ok, "%s L=%d: every term -inf gives -inf with argument 0", vt_simd_name(k->level), L);
      free(M);
      free(prev);
      free(o);
      free(a);
    }
  }
}

TEST(range_and_argmax_same_bits) {
  test_rng r = {12};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_kernels *k = vt_kernels_get((vt_simd)lv);
    REQUIRE(k != NULL, "no kernels for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++) {
      const int n = isa_lengths[li];
      double *x = malloc(sizeof(double) * n);
      for (int m = SCORE_REAL; m <= SCORE_NEGINF + 1; m++) {
        if (m > SCORE_NEGINF) /* every entry -inf */
          for (int i = 0; i < n; i++) x[i] = -INFINITY;
        else
          isa_fill(&r, x, n, (score_mode)m);
        char c[96];
        snprintf(c, sizeof c, "%s n=%d mode=%d", vt_simd_name(k->level), n, m);
        double mx0, mn0, mx1, mn1;
        vt_kernels_scalar.range(x, n, &mx0, &mn0);
        k->range(x, n, &mx1, &mn1);
        EXPECT(isa_same(&mx0, &mx1, sizeof mx0) && isa_same(&mn0, &mn1, sizeof mn0),
               "%s: range (%g, %g) != (%g, %g)", c, mx1, mn1, mx0, mn0);
        EXPECT_EQ_INT(k->argmax(x, n), vt_kernels_scalar.argmax(x, n), c);
      }
      free(x);
    }
  }
}

TEST(dispatcher_tables) {
  EXPECT(vt_kernels_get(VT_SIMD_SCALAR) == &vt_kernels_scalar, "scalar table");
  EXPECT(vt_kernels_active() != NULL && vt_kernels_active()->level == vt_simd_active(),
         "active table");
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++)
    EXPECT((vt_kernels_get((vt_simd)lv) != NULL) == vt_simd_supported((vt_simd)lv),
           "%s: a table exactly when supported", vt_simd_name((vt_simd)lv));
}

TEST_MAIN(CASE(maxplus_same_bits), CASE(maxplus_all_neginf), CASE(range_and_argmax_same_bits),
          CASE(dispatcher_tables))
