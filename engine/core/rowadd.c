/* engine/core/rowadd.c: row additions for emissions, one variant per SIMD level.
 *
 * The loops are plain C that the compiler vectorizes; the wider variants are the same loops
 * compiled for AVX2 / AVX-512 through GCC's target attribute (kept in one file: they are two
 * lines each and need no intrinsics, unlike the kernels of kernel_*.c). Every variant does one
 * addition per element in double, so results are identical at every level. */
#include "rowadd.h"

#include <stdint.h>

#include "vitesse.h"

static void add_f64_scalar(double *restrict dst, const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

static void add_f32_scalar(double *restrict dst, const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}

#if defined(VT_HAVE_AVX2) && defined(__GNUC__)
__attribute__((target("avx2"))) static void add_f64_avx2(double *restrict dst,
                                                         const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

__attribute__((target("avx2"))) static void add_f32_avx2(double *restrict dst,
                                                         const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}
#endif

#if defined(VT_HAVE_AVX512) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void
add_f64_avx512(double *restrict dst, const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

__attribute__((target("avx512f"))) static void add_f32_avx512(double *restrict dst,
                                                              const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}
#endif

vt_rowadd_f64_fn vt_rowadd_f64(void) {
  switch (vt_simd_active()) {
#if defined(VT_HAVE_AVX512) && defined(__GNUC__)
  case VT_SIMD_AVX512: return add_f64_avx512;
#endif
#if defined(VT_HAVE_AVX2) && defined(__GNUC__)
  case VT_SIMD_AVX2: return add_f64_avx2;
#endif
  default: return add_f64_scalar;
  }
}

vt_rowadd_f32_fn vt_rowadd_f32(void) {
  switch (vt_simd_active()) {
#if defined(VT_HAVE_AVX512) && defined(__GNUC__)
  case VT_SIMD_AVX512: return add_f32_avx512;
#endif
#if defined(VT_HAVE_AVX2) && defined(__GNUC__)
  case VT_SIMD_AVX2: return add_f32_avx2;
#endif
  default: return add_f32_scalar;
  }
}
