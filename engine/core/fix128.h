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

/* The fixed-point value of x (NaN gives 0; see above for the range). */
static inline vt_fix128 vt_fix_of(double x) {
  vt_fix128 r = {0, 0};
  double ax = fabs(x);
  if (!(ax > 0)) return r; /* 0, -0 and NaN */
  if (ax >= 0x1p62) ax = 0x1p62;
  const uint64_t ip = (uint64_t)ax;
  const double frac = ax - (double)ip; /* exact: ip <= ax < ip + 1 */
  r.hi = ip;
  r.lo = (uint64_t)(frac * 0x1p64);
  return x < 0 ? vt_fix_neg(r) : r;
}

/* a += the fixed-point value of x. */
static inline void vt_fix_add_double(vt_fix128 *a, double x) {
  if (x != 0) vt_fix_add(a, vt_fix_of(x));
}

/* The double nearest a (rounded in two steps: integer part, then the fraction added). */
static inline double vt_fix_to_double(vt_fix128 a) {
  const int neg = (a.hi >> 63) != 0;
  if (neg) a = vt_fix_neg(a);
  const double m = (double)a.hi + (double)a.lo * 0x1p-64;
  return neg ? -m : m;
}

#endif
