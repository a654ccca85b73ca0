/* engine/core/kernel.c: the dispatcher of the max-plus kernels (kernel_<level>.c). */
#include "core/kernel.h"

#include <stddef.h>

const vt_kernels *vt_kernels_get(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_kernels_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_kernels_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_kernels_avx512;
#endif
  default: return NULL;
  }
}

const vt_kernels *vt_kernels_active(void) { return vt_kernels_get(vt_simd_active()); }
