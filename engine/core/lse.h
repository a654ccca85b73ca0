/* engine/core/lse.h: the log-sum-exp kernels of forward-backward, a kernel family
 * (cmake/VtIsa.cmake): one table per instruction set in lse_<level>.c, their dispatcher in lse.c.
 *
 * Each step is computed in two passes, the max-plus maximum m and then sum exp(x - m), so that
 * scores in the thousands neither overflow nor lose the largest term. The scalar level uses the
 * C library's exp and log; the SIMD levels use their own exp (polynomial, about 1 ulp) and sum in
 * another order, so levels agree within about 1e-13 of each result (relative to its magnitude,
 * at least 1), not bit for bit. */
#ifndef VT_CORE_LSE_H
#define VT_CORE_LSE_H

#include <stdint.h>

#include "vitesse.h"

/* Forward step in broadcast-previous order, over the rows listed in rows[0, n_rows):
 *   out[j] = log sum_{r} exp(a[i] + M[i*ldm + j]),  i = rows[r],  for 0 <= j < n
 * (-inf when every term is -inf; n_rows may be 0). Rows of M must have vt_pad_up(n) readable
 * entries, and `out` and `tmp` (scratch) vt_pad_up(n) writable ones. */
typedef void (*vt_lse_fwd_fn)(const double *a, const int32_t *rows, int32_t n_rows, const double *M,
                              int64_t ldm, int32_t n, double *out, double *tmp);

/* Backward step, one reduction per listed row:
 *   out[i] = log sum_{0 <= j < n} exp(M[i*ldm + j] + v[j]),  i = rows[r], r < n_rows
 * (-inf when every term is -inf). Rows of M and v must have vt_pad_up(n) readable entries and
 * v's padding must be -inf. Only the listed entries of `out` are written. */
typedef void (*vt_lse_bwd_fn)(const double *M, int64_t ldm, const int32_t *rows, int32_t n_rows,
                              const double *v, int32_t n, double *out);

/* out[j] = sum_{r < n_rows} coef[r] * M[rows[r]*ldm + j] for j < n (n a multiple of 8, rows of M
 * with n readable entries), summed in ascending r, one multiplication and one addition per term,
 * so every level gives the same bits. */
typedef void (*vt_lse_matvec_fn)(const double *coef, const int32_t *rows, int32_t n_rows,
                                 const double *M, int64_t ldm, int32_t n, double *out);

/* out[k] = exp(x[k]) for k < n, every x[k] <= 0 or -inf (0). Scalar: the C library's exp; the
 * SIMD levels: their polynomial exp (about 1 ulp; below -708, 0). */
typedef void (*vt_lse_exp_fn)(const double *x, int32_t n, double *out);

typedef struct vt_lse_ops {
  vt_simd level;
  vt_lse_fwd_fn fwd;
  vt_lse_bwd_fn bwd;
  vt_lse_matvec_fn matvec;
  vt_lse_exp_fn expv;
} vt_lse_ops;

/* Returns the kernels of `level`, or NULL when this build or CPU cannot run them. */
const vt_lse_ops *vt_lse_get(vt_simd level);

/* Returns the kernels of vt_simd_active(). Never NULL. */
const vt_lse_ops *vt_lse_active(void);

/* log sum exp(x[i]) over i < n, scalar, two passes (-inf for n = 0 or all -inf). */
double vt_lse_vec(const double *x, int32_t n);

/* Per-level tables, defined in lse_<level>.c. */
extern const vt_lse_ops vt_lse_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_lse_ops vt_lse_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_lse_ops vt_lse_avx512;
#endif

#endif
