/* engine/decode/degen_ops_avx2.c: the degenerate lattice's row operations for AVX2, built with
 * -mavx2 (cmake/VtIsa.cmake, x86-64 only). The scan and the keys use intrinsics; the
 * plain loops are degen_ops_loops.h's, which the compiler vectorizes for AVX2 here
 * (tests/test_isa_degen_ops.c checks the bits against the scalar level). */
#include <immintrin.h>
#include <math.h>

#include "decode/degen_ops.h"
#include "decode/degen_ops_loops.h"

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

const vt_degen_ops vt_degen_ops_avx2 = {
    .level = VT_SIMD_AVX2,
    .scan_above = scan_above_avx2,
    .row_step = row_step,
    .row_join = row_join,
    .row_join_c = row_join_c,
    .row_keys = row_keys_avx2,
    .row_integral = row_integral,
    .gather = gather,
    .row_add = row_add,
    .row_raise = row_raise,
    .row_prune = row_prune,
};
