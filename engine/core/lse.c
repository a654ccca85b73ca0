/* engine/core/lse.c: the dispatcher of the log-sum-exp kernels (lse_<level>.c). */
#include "core/lse.h"

#include <math.h>
#include <stddef.h>

const vt_lse_ops *vt_lse_get(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_lse_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_lse_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_lse_avx512;
#endif
  default: return NULL;
  }
}

const vt_lse_ops *vt_lse_active(void) { return vt_lse_get(vt_simd_active()); }

double vt_lse_vec(const double *x, int32_t n) {
  double m = -INFINITY;
  for (int32_t i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  if (m == -INFINITY) return -INFINITY;
  double s = 0.0;
  for (int32_t i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}
