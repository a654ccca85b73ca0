/* engine/core/rowadd.h: adding a weight row into an emission row, at the widest SIMD level the
 * decoders use (vt_simd_active: AVX-512, AVX2 or scalar). */
#ifndef VT_ENGINE_ROWADD_H
#define VT_ENGINE_ROWADD_H

#include <stddef.h>

/* dst[i] += src[i] for i < n, doubles. */
typedef void (*vt_rowadd_f64_fn)(double *dst, const double *src, size_t n);
/* dst[i] += (double)src[i] for i < n. */
typedef void (*vt_rowadd_f32_fn)(double *dst, const float *src, size_t n);

/* The functions for the active SIMD level (each result is the same at every level: one
 * addition per element, in double). */
vt_rowadd_f64_fn vt_rowadd_f64(void);
vt_rowadd_f32_fn vt_rowadd_f32(void);

#endif
