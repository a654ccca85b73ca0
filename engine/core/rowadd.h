/* engine/core/rowadd.h: adding a weight row into an emission row, a kernel family
 * (cmake/VtIsa.cmake): one table per instruction set in rowadd_<level>.c, their dispatcher in
 * rowadd.c. The decoders use the widest level vt_simd_active() allows. */
#ifndef VT_CORE_ROWADD_H
#define VT_CORE_ROWADD_H

#include <stddef.h>

#include "vitesse.h"

/* dst[i] += src[i] for i < n, doubles. */
typedef void (*vt_rowadd_f64_fn)(double *dst, const double *src, size_t n);
/* dst[i] += (double)src[i] for i < n. */
typedef void (*vt_rowadd_f32_fn)(double *dst, const float *src, size_t n);

/* dst[i] = s + (double)rows[0][i] + (double)rows[1][i] + ... for i < n, summed in row order from
 * s = dst[i] (onto) or +0.0: the bits of adding each row with vt_rowadd_f32_fn in turn (onto
 * dst, or onto a zeroed dst), with the sums held in registers, not stored and loaded once a row.
 * n_rows may be 0. */
typedef void (*vt_rowsum_f32_fn)(double *dst, const float *const *rows, size_t n_rows, size_t n,
                                 int onto);

/* The row additions of one level. Every level gives the same bits: one addition per element, in
 * double (the loops are plain C that the compiler vectorizes for the level's instruction set;
 * the sums, intrinsics that keep a block of them in registers). */
typedef struct vt_rowadd_ops {
  vt_simd level;
  vt_rowadd_f64_fn f64;
  vt_rowadd_f32_fn f32;
  vt_rowsum_f32_fn sum_f32;
} vt_rowadd_ops;

/* Returns the row additions of `level`, or NULL when this build or CPU cannot run them. */
const vt_rowadd_ops *vt_rowadd_get(vt_simd level);

/* The functions of the active SIMD level (vt_simd_active). */
vt_rowadd_f64_fn vt_rowadd_f64(void);
vt_rowadd_f32_fn vt_rowadd_f32(void);
vt_rowsum_f32_fn vt_rowsum_f32(void);

/* Per-level tables, defined in rowadd_<level>.c. */
extern const vt_rowadd_ops vt_rowadd_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_rowadd_ops vt_rowadd_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_rowadd_ops vt_rowadd_avx512;
#endif

#endif
