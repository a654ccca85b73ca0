/* engine/core/rowadd.c: the dispatcher of the row additions (rowadd_<level>.c). */
#include "core/rowadd.h"

const vt_rowadd_ops *vt_rowadd_get(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_rowadd_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_rowadd_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_rowadd_avx512;
#endif
  default: return NULL;
  }
}

vt_rowadd_f64_fn vt_rowadd_f64(void) { return vt_rowadd_get(vt_simd_active())->f64; }

vt_rowadd_f32_fn vt_rowadd_f32(void) { return vt_rowadd_get(vt_simd_active())->f32; }

vt_rowsum_f32_fn vt_rowsum_f32(void) { return vt_rowadd_get(vt_simd_active())->sum_f32; }
