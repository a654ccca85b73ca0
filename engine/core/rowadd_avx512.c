/* engine/core/rowadd_avx512.c: the row additions for AVX-512: rowadd_scalar.c's loops, which
 * the compiler vectorizes with this file's AVX-512 flags (cmake/VtIsa.cmake). Keep them
 * the same as rowadd_scalar.c's (tests/test_isa_rowadd.c checks the bits). */
#include "core/rowadd.h"

static void add_f64_avx512(double *restrict dst, const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

static void add_f32_avx512(double *restrict dst, const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}

const vt_rowadd_ops vt_rowadd_avx512 = {VT_SIMD_AVX512, add_f64_avx512, add_f32_avx512};
