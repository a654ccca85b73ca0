/* engine/chunk/chunk_simd.c: the dispatcher of the label-table kernels (chunk_simd_<level>.c). */
#include "chunk/chunk_simd.h"

#include <stddef.h>

const vt_chunk_kernels *vt_chunk_kernels_get(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_chunk_kernels_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_chunk_kernels_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_chunk_kernels_avx512;
#endif
  default: return NULL;
  }
}
