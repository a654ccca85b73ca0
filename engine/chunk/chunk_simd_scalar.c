/* engine/chunk/chunk_simd_scalar.c: the portable label-table step (baseline ISA; the reference for
 * the SIMD levels). */
#include "chunk/chunk_simd.h"

static void step_scalar(const double *x, double *y, int64_t ld, int32_t m, int32_t p,
                        const double *T, const double *N, const double *enter, const double *span,
                        double span_add, double *cand) {
  const int32_t ext = m - 1; /* lanes extended by one token; the last one starts here */
  for (int32_t P = 0; P < p; P++) {
    double *yr = y + (int64_t)P * ld;
    const double t0 = T[P];
    for (int32_t j = 0; j < ext; j++) yr[j] = x[j] + t0;
    for (int32_t Q = 1; Q < p; Q++) {
      const double *xr = x + (int64_t)Q * ld;
      const double t = T[Q * p + P];
      for (int32_t j = 0; j < ext; j++) {
        double v = xr[j] + t;
        if (v > yr[j]) yr[j] = v;
      }
    }
    for (int32_t j = 0; j < ext; j++) yr[j] += N[P];
    yr[ext] = N[P];
  }
  for (int32_t j = 0; j < m; j++) {
    double best = y[j];
    for (int32_t P = 1; P < p; P++) {
      double v = y[(int64_t)P * ld + j];
      if (v > best) best = v;
    }
    cand[j] = (enter[j] + best) + (span[j] + span_add);
  }
}

const vt_chunk_kernels vt_chunk_kernels_scalar = {VT_SIMD_SCALAR, step_scalar};
