/* engine/decode/degen_ops.c: the dispatcher of the degenerate lattice's row operations
 * (degen_ops_<level>.c). */
#include "decode/degen_ops.h"

#include <stddef.h>

const vt_degen_ops *vt_degen_ops_for(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_degen_ops_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_degen_ops_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_degen_ops_avx512;
#endif
  default: return NULL;
  }
}
