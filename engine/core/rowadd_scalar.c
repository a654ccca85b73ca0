/* engine/core/rowadd_scalar.c: the portable row additions (baseline ISA; the reference for the
 * other levels). */
#include "core/rowadd.h"

static void add_f64_scalar(double *restrict dst, const double *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += src[i];
}

static void add_f32_scalar(double *restrict dst, const float *restrict src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}

static void sum_f32_scalar(double *restrict dst, const float *const *rows, size_t n_rows, size_t n,
                           int onto) {
  for (size_t i = 0; i < n; i++) {
    double s = onto ? dst[i] : 0.0;
    for (size_t r = 0; r < n_rows; r++) s += (double)rows[r][i];
    dst[i] = s;
  }
}

const vt_rowadd_ops vt_rowadd_scalar = {VT_SIMD_SCALAR, add_f64_scalar, add_f32_scalar,
                                        sum_f32_scalar};
