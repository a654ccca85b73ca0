/* engine/decode/degen_ops_avx512.c: the degenerate lattice's row operations for AVX-512, built
 * with the AVX-512 flags (cmake/VtIsa.cmake, x86-64 only). The scan and the keys use
 * intrinsics; the plain loops are degen_ops_loops.h's, which the compiler vectorizes for AVX-512
 * here (tests/test_isa_degen_ops.c checks the bits against the scalar level). */
#include <immintrin.h>
#include <math.h>

#include "decode/degen_ops.h"
#include "decode/degen_ops_loops.h"

/* x[j] > thr, j ascending, into idx: one compare mask per 8 values, its set lanes compressed into
 * idx (in a register: the memory form is slow on some cores); the 8-lane store may write past
 * the count but not past n. */
static int32_t scan_above_avx512(const double *x, int32_t n, double thr, int32_t *idx) {
  int32_t m = 0, j = 0;
  const __m512d tv = _mm512_set1_pd(thr);
  const __m256i eight = _mm256_set1_epi32(8);
  __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (; j + 8 <= n; j += 8) {
    const __mmask8 k = _mm512_cmp_pd_mask(_mm512_loadu_pd(x + j), tv, _CMP_GT_OQ);
    if (k) {
      _mm256_storeu_si256((__m256i *)(idx + m), _mm256_maskz_compress_epi32(k, lane));
      m += __builtin_popcount(k);
    }
    lane = _mm256_add_epi32(lane, eight);
  }
  for (; j < n; j++)
    if (x[j] > thr) idx[m++] = j;
  return m;
}

/* The keys, their scan (as scan_above_avx512) and the largest key below lo in one sweep. */
static int32_t row_keys_avx512(double *restrict key, const double *restrict g,
                               const double *restrict h, double tau, int32_t n, double thr,
                               double lo, int32_t *restrict idx, double *below) {
  int32_t m = 0, j = 0;
  const __m512d tv = _mm512_set1_pd(thr), lv = _mm512_set1_pd(lo), ta = _mm512_set1_pd(tau);
  __m512d bv = _mm512_set1_pd(-INFINITY);
  const __m256i eight = _mm256_set1_epi32(8);
  __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (; j + 8 <= n; j += 8) {
    const __m512d kv =
        _mm512_add_pd(_mm512_add_pd(_mm512_loadu_pd(g + j), _mm512_loadu_pd(h + j)), ta);
    _mm512_storeu_pd(key + j, kv);
    bv = _mm512_mask_max_pd(bv, _mm512_cmp_pd_mask(kv, lv, _CMP_LT_OQ), bv, kv);
    const __mmask8 k = _mm512_cmp_pd_mask(kv, tv, _CMP_GT_OQ);
    if (k) {
      _mm256_storeu_si256((__m256i *)(idx + m), _mm256_maskz_compress_epi32(k, lane));
      m += __builtin_popcount(k);
    }
    lane = _mm256_add_epi32(lane, eight);
  }
  double b = _mm512_reduce_max_pd(bv);
  for (; j < n; j++) {
    key[j] = (g[j] + h[j]) + tau;
    if (key[j] < lo && key[j] > b) b = key[j];
    if (key[j] > thr) idx[m++] = j;
  }
  *below = b;
  return m;
}

const vt_degen_ops vt_degen_ops_avx512 = {
    .level = VT_SIMD_AVX512,
    .scan_above = scan_above_avx512,
    .row_step = row_step,
    .row_join = row_join,
    .row_join_c = row_join_c,
    .row_keys = row_keys_avx512,
    .row_integral = row_integral,
    .gather = gather,
    .row_add = row_add,
    .row_raise = row_raise,
    .row_prune = row_prune,
};
