/* tests/test_isa.h: helpers of the "same bits as scalar" tests of the kernel families
 * (tests/test_isa_<family>.c, cmake/VtIsa.cmake): the lengths, the value flavours, and a
 * bit-for-bit comparison. */
#ifndef VT_TESTS_TEST_ISA_H
#define VT_TESTS_TEST_ISA_H

#include <string.h>

#include "test_util.h"
#include "vitesse.h"

/* Lengths around every vector width (2, 4, 8 doubles; 4 or 8 lanes of a mask) and long rows. */
static const int isa_lengths[] = {1,  2,  3,  4,  5,  7,  8,  9,   15,  16,
                                  17, 31, 32, 33, 63, 64, 65, 300, 1000};
enum { ISA_N_LENGTHS = (int)(sizeof isa_lengths / sizeof isa_lengths[0]), ISA_PAD = 16 };

/* The levels above scalar that this build and CPU run (the others are reported once and
 * skipped); `lv` runs over VT_SIMD_AVX2 and VT_SIMD_AVX512. */
static inline int isa_level_runs(vt_simd lv) {
  static int said[VT_SIMD_AVX512 + 1];
  if (vt_simd_supported(lv)) return 1;
  if (!said[lv]) printf("level %s not supported here, skipped\n", vt_simd_name(lv));
  said[lv] = 1;
  return 0;
}

/* n values of flavour m (SCORE_REAL, SCORE_INT: ties, SCORE_NEGINF: ties and -inf). */
static inline void isa_fill(test_rng *r, double *v, int n, score_mode m) {
  for (int i = 0; i < n; i++) v[i] = test_score(r, m);
}

/* 1 when the `bytes` bytes at a and b are equal: the same bits. */
static inline int isa_same(const void *a, const void *b, size_t bytes) {
  return memcmp(a, b, bytes) == 0;
}

#endif
