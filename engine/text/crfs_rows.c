/* engine/text/crfs_rows.c: the dispatcher of the CRFsuite item rows (crfs_rows_<level>.c). */
#include "text/crfs_rows.h"

const vt_crfs_rows_ops *vt_crfs_rows_get(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_crfs_rows_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_crfs_rows_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_crfs_rows_avx512;
#endif
  default: return NULL;
  }
}

int vt_crfs_rows(const vt_crfs_index *x, int32_t L, vt_arena *arena, const char *const *lines,
                 const size_t *lens, int32_t T, double *E, int32_t *bad, char *err, size_t errlen) {
  return vt_crfs_rows_get(vt_simd_active())->rows(x, L, arena, lines, lens, T, E, bad, err, errlen);
}
