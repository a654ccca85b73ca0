/* engine/decode/degen_ops_avx2.c: the degenerate lattice's row operations for AVX2, built with
 * -mavx2 (cmake/VtIsa.cmake, x86-64 only). The scan uses intrinsics; the other loops are
 * degen_ops_scalar.c's, which the compiler vectorizes for AVX2: keep them the same as there
 * (tests/test_isa_degen_ops.c checks the bits). */
#include <immintrin.h>
#include <math.h>

#include "degen_ops.h"

/* x[j] > thr, j ascending, into idx: a 4-bit movemask per 4 values, read bit by bit. */
static int32_t scan_above_avx2(const double *x, int32_t n, double thr, int32_t *idx) {
  int32_t m = 0, j = 0;
  const __m256d tv = _mm256_set1_pd(thr);
  for (; j + 4 <= n; j += 4) {
    int k = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(x + j), tv, _CMP_GT_OQ));
    for (; k; k &= k - 1) idx[m++] = j + __builtin_ctz((unsigned)k);
  }
  for (; j < n; j++)
    if (x[j] > thr) idx[m++] = j;
  return m;
}

/* The keys, their scan (as scan_above_avx2) and the largest key below lo in one sweep. */
static int32_t row_keys_avx2(double *restrict key, const double *restrict g,
                             const double *restrict h, double tau, int32_t n, double thr, double lo,
                             int32_t *restrict idx, double *below) {
  int32_t m = 0, j = 0;
  const __m256d tv = _mm256_set1_pd(thr), lv = _mm256_set1_pd(lo), ta = _mm256_set1_pd(tau);
  const __m256d ninf = _mm256_set1_pd(-INFINITY);
  __m256d bv = ninf;
  for (; j + 4 <= n; j += 4) {
    const __m256d kv =
        _mm256_add_pd(_mm256_add_pd(_mm256_loadu_pd(g + j), _mm256_loadu_pd(h + j)), ta);
    _mm256_storeu_pd(key + j, kv);
    bv = _mm256_max_pd(bv, _mm256_blendv_pd(ninf, kv, _mm256_cmp_pd(kv, lv, _CMP_LT_OQ)));
    int k = _mm256_movemask_pd(_mm256_cmp_pd(kv, tv, _CMP_GT_OQ));
    for (; k; k &= k - 1) idx[m++] = j + __builtin_ctz((unsigned)k);
  }
  double lanes[4], b = -INFINITY;
  _mm256_storeu_pd(lanes, bv);
  for (int u = 0; u < 4; u++)
    if (lanes[u] > b) b = lanes[u];
  for (; j < n; j++) {
    key[j] = (g[j] + h[j]) + tau;
    if (key[j] < lo && key[j] > b) b = key[j];
    if (key[j] > thr) idx[m++] = j;
  }
  *below = b;
  return m;
}

static void row_step_avx2(double *row, double p, const double *A, const double *E, int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (p + A[j]) + E[j];
}

static void row_join_avx2(double *row, const double *P, const double *E, const double *into,
                          double tau, int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (P[j] + E[j]) + (into[j] + tau);
}

static void row_join_c_avx2(double *row, double p, const double *E, const double *into, double tau,
                            int32_t n) {
  for (int32_t j = 0; j < n; j++) row[j] = (p + E[j]) + (into[j] + tau);
}

static int row_integral_avx2(const double *x, int32_t n, double scale) {
  const double C = 6755399441055744.0; /* 1.5 * 2^52 */
  int ok = 1;
  for (int32_t j = 0; j < n; j++) {
    const double w = x[j] * scale;
    ok &= (w + C) - C == w;
  }
  return ok;
}

static void gather_avx2(double *restrict out, const double *restrict x, const int32_t *restrict idx,
                        int32_t n) {
  for (int32_t j = 0; j < n; j++) out[j] = x[idx[j]];
}

static void row_add_avx2(double *restrict out, const double *restrict a, const double *restrict b,
                         int32_t n) {
  for (int32_t j = 0; j < n; j++) out[j] = a[j] + b[j];
}

static void row_raise_avx2(double *restrict row, int32_t *restrict ptr, double a,
                           const double *restrict M, int32_t node, int32_t n) {
  for (int32_t j = 0; j < n; j++) {
    double v = a + M[j];
    if (v > row[j]) {
      row[j] = v;
      ptr[j] = node;
    }
  }
}

/* Branch-free so that it vectorizes: a node dies when its bound falls below the cut or is -inf
 * (P, E or Q -inf; none can be +inf). */
static int32_t row_prune_avx2(double *restrict P, const double *restrict E, double *restrict Q,
                              int32_t n, double cut, int64_t *pruned) {
  int64_t cnt = 0;
  int32_t hi = 0;
  for (int32_t j = 0; j < n; j++) {
    const double v = P[j] + E[j] + Q[j];
    const int below = v < cut, dead = v == -INFINITY;
    cnt += below & !dead;
    P[j] = below | dead ? -INFINITY : P[j];
    Q[j] = below | dead ? -INFINITY : Q[j];
    hi = below | dead ? hi : j + 1;
  }
  *pruned += cnt;
  return hi;
}

const vt_degen_ops vt_degen_ops_avx2 = {
    .level = VT_SIMD_AVX2,
    .scan_above = scan_above_avx2,
    .row_step = row_step_avx2,
    .row_join = row_join_avx2,
    .row_join_c = row_join_c_avx2,
    .row_keys = row_keys_avx2,
    .row_integral = row_integral_avx2,
    .gather = gather_avx2,
    .row_add = row_add_avx2,
    .row_raise = row_raise_avx2,
    .row_prune = row_prune_avx2,
};
