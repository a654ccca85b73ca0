/* engine/core/kernel_avx2.c: the max-plus kernel for AVX2, 4 doubles per vector, register-blocked
 * like the AVX-512 one (16 ymm registers: blocks of up to 4 vectors). */
#include <immintrin.h>
#include <math.h>

#include "core/kernel.h"

#define W 4

static inline __attribute__((always_inline)) void
block256(const double *prev, int32_t n_prev, const double *M, int64_t ldm, const double *add,
         int32_t j0, int32_t n_cur, double *out, int32_t *arg, const int nv) {
  __m256d best[4], idx[4];
  const __m256d p0 = _mm256_set1_pd(prev[0]);
  for (int v = 0; v < nv; v++) {
    best[v] = _mm256_add_pd(p0, _mm256_loadu_pd(M + j0 + v * W));
    idx[v] = _mm256_setzero_pd();
  }
  for (int32_t i = 1; i < n_prev; i++) {
    if (prev[i] == -INFINITY) continue;
    const __m256d p = _mm256_set1_pd(prev[i]);
    const __m256d iv = _mm256_set1_pd((double)i);
    const double *row = M + (int64_t)i * ldm + j0;
    for (int v = 0; v < nv; v++) {
      __m256d x = _mm256_add_pd(p, _mm256_loadu_pd(row + v * W));
      __m256d gt = _mm256_cmp_pd(x, best[v], _CMP_GT_OQ);
      best[v] = _mm256_blendv_pd(best[v], x, gt);
      idx[v] = _mm256_blendv_pd(idx[v], iv, gt);
    }
  }
  for (int v = 0; v < nv; v++) {
    int32_t j = j0 + v * W;
    int32_t left = n_cur - j;
    __m256d b = best[v];
    __m128i a = _mm256_cvtpd_epi32(idx[v]);
    if (left >= W) {
      if (add) b = _mm256_add_pd(b, _mm256_loadu_pd(add + j));
      _mm256_storeu_pd(out + j, b);
      _mm_storeu_si128((__m128i *)(arg + j), a);
    } else {
      const __m128i lanes = _mm_setr_epi32(0, 1, 2, 3);
      __m128i m32 = _mm_cmplt_epi32(lanes, _mm_set1_epi32(left));
      __m256i m64 = _mm256_cvtepi32_epi64(m32);
      if (add) b = _mm256_add_pd(b, _mm256_maskload_pd(add + j, m64));
      _mm256_maskstore_pd(out + j, m64, b);
      _mm_maskstore_epi32(arg + j, m32, a);
    }
  }
}

static void maxplus_avx2(const double *prev, int32_t n_prev, const double *M, int64_t ldm,
                         const double *add, int32_t n_cur, double *out, int32_t *arg) {
  int32_t j0 = 0;
  for (; j0 + 4 * W <= n_cur; j0 += 4 * W)
    block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 4);
  /* The rest in one block, as the AVX-512 kernel does (its chains side by side). */
  switch ((n_cur - j0 + W - 1) / W) { /* 0..4 vectors, the last maybe partial */
  case 1: block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 1); break;
  case 2: block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 2); break;
  case 3: block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 3); break;
  case 4: block256(prev, n_prev, M, ldm, add, j0, n_cur, out, arg, 4); break;
  default: break;
  }
}

static void range_avx2(const double *x, int32_t n, double *mx, double *mn) {
  const __m256d ninf = _mm256_set1_pd(-INFINITY), pinf = _mm256_set1_pd(INFINITY);
  __m256d hi = ninf, lo = pinf;
  int32_t i = 0;
  for (; i + W <= n; i += W) {
    __m256d v = _mm256_loadu_pd(x + i);
    hi = _mm256_max_pd(hi, v);
    __m256d f = _mm256_blendv_pd(pinf, v, _mm256_cmp_pd(v, ninf, _CMP_GT_OQ));
    lo = _mm256_min_pd(lo, f);
  }
  double h[4], l[4];
  _mm256_storeu_pd(h, hi);
  _mm256_storeu_pd(l, lo);
  double rh = h[0], rl = l[0];
  for (int k = 1; k < 4; k++) {
    rh = h[k] > rh ? h[k] : rh;
    rl = l[k] < rl ? l[k] : rl;
  }
  for (; i < n; i++) {
    double v = x[i];
    rh = v > rh ? v : rh;
    if (v > -INFINITY && v < rl) rl = v;
  }
  *mx = rh;
  *mn = rl;
}

static int32_t argmax_avx2(const double *x, int32_t n) {
  double mx, mn;
  range_avx2(x, n, &mx, &mn);
  const __m256d target = _mm256_set1_pd(mx);
  int32_t i = 0;
  for (; i + W <= n; i += W) {
    int eq = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(x + i), target, _CMP_EQ_OQ));
    if (eq) return i + __builtin_ctz((unsigned)eq);
  }
  for (; i < n; i++)
    if (x[i] == mx) return i;
  return 0; /* every entry is -inf */
}

const vt_kernels vt_kernels_avx2 = {VT_SIMD_AVX2, maxplus_avx2, range_avx2, argmax_avx2};
