/* engine/core/fix128.h: exact sums of doubles in 128-bit fixed point, so that a sum does not
 * depend on the order of its terms (threads, MPI ranks).
 *
 * A value is a two's complement integer of 128 bits counting units of 2^-64: 63 bits of integer
 * part and 64 of fraction. Turning a double into one keeps every bit of |x| >= 2^-11 and drops
 * (truncates toward zero) the bits below 2^-64 of smaller ones; |x| >= 2^62 saturates. Adding two
 * is exact integer addition: any grouping and any order give the same bits. Turning one back into
 * a double rounds it (the same bits give the same double). */
#ifndef VT_CORE_FIX128_H
#define VT_CORE_FIX128_H

#include <math.h>
#include <stdint.h>

#include "vitesse.h" /* vt_fix128: lo the fraction (units of 2^-64), hi the integer part */

/* a += b. */
static inline void vt_fix_add(vt_fix128 *a, vt_fix128 b) {
  const uint64_t lo = a->lo + b.lo;
  a->hi += b.hi + (lo < b.lo);
  a->lo = lo;
}

/* -a. */
static inline vt_fix128 vt_fix_neg(vt_fix128 a) {
  vt_fix128 r;
  r.lo = ~a.lo + 1;
  r.hi = ~a.hi + (r.lo == 0);
  return r;
}

/* The fixed-point value of x (NaN gives 0; see above for the range): x * 2^64 truncated toward
 * zero, in three truncated pieces of the same sign (the integer part, then two 32-bit halves of
 * the fraction), without a branch on the data: the signs of the terms of a gradient are coin
 * tosses to a branch predictor. */
static inline vt_fix128 vt_fix_of(double x) {
  if (!(fabs(x) < 0x1p62)) x = x != x ? 0 : x < 0 ? -0x1p62 : 0x1p62;
  const int64_t ip = (int64_t)x;
  const double f32 = (x - (double)ip) * 0x1p32; /* exact: the fraction, times 2^32 */
  const int64_t fa = (int64_t)f32;
  const int64_t fb = (int64_t)((f32 - (double)fa) * 0x1p32);
  /* The fraction fa 2^32 + fb lies in (-2^64, 2^64): its low word, and a borrow from the
   * integer part when it is negative. */
  vt_fix128 r;
  r.lo = ((uint64_t)fa << 32) + (uint64_t)fb;
  r.hi = (uint64_t)ip - ((uint64_t)(fa | fb) >> 63);
  return r;
}

/* a += the fixed-point value of x. */
static inline void vt_fix_add_double(vt_fix128 *a, double x) {
  if (x != 0) vt_fix_add(a, vt_fix_of(x));
}

/* The double nearest a (rounded in two steps: integer part, then the fraction added), without a
 * branch on the data (the sign, the fraction's top bit). */
static inline double vt_fix_to_double(vt_fix128 a) {
  const uint64_t m = (uint64_t)0 - (a.hi >> 63); /* all ones when negative */
  const uint64_t lo = (a.lo ^ m) - m;            /* |a| */
  const uint64_t hi = (a.hi ^ m) + (m & (uint64_t)(lo == 0));
  /* (double)lo * 2^-64, rounded once: the two halves are exact, their sum rounds */
  const double frac =
      (double)(int64_t)(lo >> 32) * 0x1p-32 + (double)(int64_t)(lo & 0xffffffffu) * 0x1p-64;
  const double mag = (double)hi + frac;
  return m ? -mag : mag;
}

#endif
