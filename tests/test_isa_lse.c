/* tests/test_isa_lse.c: the log-sum-exp kernels (lse.h) of every level the CPU runs against the
 * scalar ones, within a relative 1e-13 (their exp and summation order differ: lse.h), on lengths
 * around the vector widths, with real, tied, -inf and large (thousands) values, all rows or a
 * subset of them; -inf results exactly where the scalar's are. */
#include "core/lse.h"
#include "test_isa.h"

static int near(double a, double b) {
  if (a == -INFINITY || b == -INFINITY) return a == b;
  double s = fabs(b) > 1 ? fabs(b) : 1;
  return fabs(a - b) <= 1e-13 * s;
}

static void lse_case(test_rng *r, const vt_lse_ops *k, int n, int nrows, score_mode m,
                     double scale) {
  const int ld = (n + 7) / 8 * 8;
  double *M = malloc(sizeof(double) * (size_t)nrows * ld), *a = malloc(sizeof(double) * nrows);
  double *v = malloc(sizeof(double) * ld), *o0 = malloc(sizeof(double) * ld);
  double *o1 = malloc(sizeof(double) * ld), *tmp = malloc(sizeof(double) * ld);
  double *b0 = malloc(sizeof(double) * nrows), *b1 = malloc(sizeof(double) * nrows);
  int32_t *rows = malloc(sizeof(int32_t) * nrows);
  for (int i = 0; i < nrows; i++)
    for (int j = 0; j < ld; j++) M[i * ld + j] = j < n ? scale * test_score(r, m) : -INFINITY;
  for (int i = 0; i < nrows; i++) a[i] = scale * test_score(r, m);
  for (int j = 0; j < ld; j++) v[j] = j < n ? scale * test_score(r, m) : -INFINITY;
  int nr = 0;
  for (int i = 0; i < nrows; i++)
    if (test_int(r, 3)) rows[nr++] = i;
  char c[96];
  snprintf(c, sizeof c, "%s n=%d rows=%d/%d mode=%d scale=%g", vt_simd_name(k->level), n, nr, nrows,
           (int)m, scale);
  vt_lse_scalar.fwd(a, rows, nr, M, ld, n, o0, tmp);
  k->fwd(a, rows, nr, M, ld, n, o1, tmp);
  int ok = 1;
  for (int j = 0; j < n; j++) ok &= near(o1[j], o0[j]);
  EXPECT(ok, "%s: fwd differs", c);
  for (int i = 0; i < nrows; i++) b0[i] = b1[i] = 42;
  vt_lse_scalar.bwd(M, ld, rows, nr, v, n, b0);
  k->bwd(M, ld, rows, nr, v, n, b1);
  ok = 1;
  for (int i = 0; i < nrows; i++) ok &= near(b1[i], b0[i]);
  EXPECT(ok, "%s: bwd differs (or wrote an unlisted row)", c);
  free(M), free(a), free(v), free(o0), free(o1), free(tmp), free(b0), free(b1), free(rows);
}

TEST(lse_levels_agree) {
  test_rng r = {99};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_lse_ops *k = vt_lse_get((vt_simd)lv);
    REQUIRE(k != NULL && k->level == (vt_simd)lv, "no lse for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++)
      for (int m = SCORE_REAL; m <= SCORE_NEGINF; m++)
        for (int sc = 0; sc < 2; sc++) {
          int nrows = isa_lengths[li] > 64 ? 40 : isa_lengths[li];
          lse_case(&r, k, isa_lengths[li], nrows, (score_mode)m, sc ? 1000.0 : 1.0);
        }
  }
}

/* matvec: the same bits as scalar (one multiply and add per term, ascending rows); expv: within
 * 1e-15 relative, exactly 0 for -inf. */
TEST(matvec_and_exp_levels) {
  test_rng r = {123};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_lse_ops *k = vt_lse_get((vt_simd)lv);
    for (int li = 0; li < ISA_N_LENGTHS; li++) {
      const int n = (isa_lengths[li] + 7) / 8 * 8, nrows = 1 + test_int(&r, 50);
      double *M = malloc(sizeof(double) * (size_t)nrows * n), *c = malloc(sizeof(double) * nrows);
      double *o0 = malloc(sizeof(double) * n), *o1 = malloc(sizeof(double) * n);
      double *x = malloc(sizeof(double) * n);
      int32_t *rows = malloc(sizeof(int32_t) * nrows);
      for (int i = 0; i < nrows * n; i++) M[i] = test_unit(&r);
      int nr = 0;
      for (int i = 0; i < nrows; i++) {
        c[nr] = test_unit(&r);
        if (test_int(&r, 4)) rows[nr++] = i;
      }
      vt_lse_scalar.matvec(c, rows, nr, M, n, n, o0);
      k->matvec(c, rows, nr, M, n, n, o1);
      EXPECT(isa_same(o0, o1, sizeof(double) * n), "%s n=%d: matvec bits differ",
             vt_simd_name(k->level), n);
      for (int i = 0; i < n; i++)
        x[i] = test_int(&r, 8) == 0 ? -INFINITY : -750.0 * test_unit(&r) * test_unit(&r);
      vt_lse_scalar.expv(x, isa_lengths[li], o0);
      k->expv(x, isa_lengths[li], o1);
      int ok = 1;
      for (int i = 0; i < isa_lengths[li]; i++)
        ok &= x[i] == -INFINITY ? o1[i] == 0.0
                                : fabs(o1[i] - o0[i]) <= 1e-15 * o0[i] || (x[i] < -708 && !o1[i]);
      EXPECT(ok, "%s n=%d: expv differs", vt_simd_name(k->level), isa_lengths[li]);
      free(M), free(c), free(o0), free(o1), free(x), free(rows);
    }
  }
}

/* The scalar kernels on a case worked by hand. */
TEST(lse_scalar_by_hand) {
  const double M[16] = {0,         log(3),    -INFINITY, 0,         0, 0, 0, 0,
                        -INFINITY, -INFINITY, -INFINITY, -INFINITY, 0, 0, 0, 0};
  const double a[2] = {0, log(2)};
  const int32_t rows[2] = {0, 1};
  double out[8], tmp[8], b[2];
  vt_lse_scalar.fwd(a, rows, 2, M, 8, 3, out, tmp);
  EXPECT(fabs(out[1] - log(3.0)) < 1e-15, "out[1] %.17g", out[1]);
  EXPECT(out[2] == -INFINITY, "out[2] %g: every term -inf", out[2]);
  EXPECT(fabs(out[0] - log(1.0)) < 1e-15, "out[0] %.17g", out[0]);
  const double v[8] = {0, 0, 0, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  vt_lse_scalar.bwd(M, 8, rows, 1, v, 3, b);
  EXPECT(fabs(b[0] - log(4.0)) < 1e-15, "b[0] %.17g", b[0]);
  EXPECT_EQ_DBL(vt_lse_vec(v + 3, 2), -INFINITY, "all -inf");
}

TEST_MAIN(CASE(lse_levels_agree), CASE(matvec_and_exp_levels), CASE(lse_scalar_by_hand))
