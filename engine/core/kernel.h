/* engine/core/kernel.h: the max-plus kernels, a kernel family (cmake/VtIsa.cmake): one table per
 * instruction set in kernel_<level>.c, and their dispatcher in kernel.c. */
#ifndef VT_CORE_KERNEL_H
#define VT_CORE_KERNEL_H

#include "vitesse.h"

/* One Viterbi step in broadcast-previous order:
 *   out[j] = (max_{0 <= i < n_prev} (prev[i] + M[i*ldm + j])) + add[j]      for 0 <= j < n_cur
 *   arg[j] = the lowest i attaining that max (0 when every term is -inf).
 * `add` may be NULL (nothing is added). n_prev >= 1, n_cur >= 0. Rows of M must have
 * vt_pad_up(n_cur) readable entries (the padded layouts of vt_trans do); prev, add, out and arg
 * are read and written exactly at [0, n_prev) and [0, n_cur). Every level returns bit-identical
 * out and arg: comparisons are strict `>` over ascending i, and additions happen in this order. */
typedef void (*vt_maxplus_fn)(const double *prev, int32_t n_prev, const double *M, int64_t ldm,
                              const double *add, int32_t n_cur, double *out, int32_t *arg);

/* Range of x[0, n), n >= 1: *mx = the maximum (-inf when every entry is -inf), *mn = the
 * minimum over entries > -inf (+inf when there is none). Exact at every level. */
typedef void (*vt_range_fn)(const double *x, int32_t n, double *mx, double *mn);

/* Returns the lowest index of the maximum of x[0, n), n >= 1 (0 when every entry is -inf). */
typedef int32_t (*vt_argmax_fn)(const double *x, int32_t n);

typedef struct vt_kernels {
  vt_simd level;
  vt_maxplus_fn maxplus;
  vt_range_fn range;
  vt_argmax_fn argmax;
} vt_kernels;

/* Returns the kernels of `level`, or NULL when this build or CPU cannot run them. */
const vt_kernels *vt_kernels_get(vt_simd level);

/* Returns the kernels of vt_simd_active(). Never NULL. */
const vt_kernels *vt_kernels_active(void);

/* Per-level tables, defined in kernel_<level>.c. */
extern const vt_kernels vt_kernels_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_kernels vt_kernels_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_kernels vt_kernels_avx512;
#endif

#endif
