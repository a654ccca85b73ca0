/* engine/chunk/chunk_simd.h: the label-table kernels of the label-chunk decoder, a kernel family
 * (cmake/VtIsa.cmake): one table per instruction set in chunk_simd_<level>.c, their dispatcher
 * in chunk_simd.c.
 *
 * The decoder keeps one label-table row per open chunk, so the vectors run over chunk starts q
 * (lanes), not over POS tags: with the paper's 5 POS tags a vector over tags would be mostly
 * padding, while a sentence of n tokens has up to min(n, W) chunks open at every position. */
#ifndef VT_CHUNK_CHUNK_SIMD_H
#define VT_CHUNK_CHUNK_SIMD_H

#include <stdint.h>

#include "vitesse.h"

/* One step of the label table for one chunk tag over m >= 1 open chunks (lane j = the chunk
 * starting j positions after the oldest one; the newest, lane m-1, starts at this token).
 * x and y hold one row per POS tag, rows `ld` doubles apart; T is the p x p transition block
 * [P'*p + P] and N the p node scores of this token:
 *   y[P*ld + j] = max_{P'} (x[P'*ld + j] + T[P'*p + P]) + N[P]    for j < m-1
 *   y[P*ld + m-1] = N[P]
 *   cand[j] = (enter[j] + max_P y[P*ld + j]) + (span[j] + span_add)   for j < m
 * Reads and writes exactly those entries. Every level gives bit-identical results (each lane
 * does the same roundings, and max keeps the earlier operand on ties, as `if (v > a) a = v`). */
typedef void (*vt_chunk_step_fn)(const double *x, double *y, int64_t ld, int32_t m, int32_t p,
                                 const double *T, const double *N, const double *enter,
                                 const double *span, double span_add, double *cand);

typedef struct vt_chunk_kernels {
  vt_simd level;
  vt_chunk_step_fn step;
} vt_chunk_kernels;

/* Returns the kernels of `level`, or NULL when this build or CPU cannot run them. */
const vt_chunk_kernels *vt_chunk_kernels_get(vt_simd level);

extern const vt_chunk_kernels vt_chunk_kernels_scalar;
#if defined(VT_HAVE_AVX2)
extern const vt_chunk_kernels vt_chunk_kernels_avx2;
#endif
#if defined(VT_HAVE_AVX512)
extern const vt_chunk_kernels vt_chunk_kernels_avx512;
#endif

#endif
