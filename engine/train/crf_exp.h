/* engine/train/crf_exp.h: exp of the shifted state scores, in plain arithmetic the compiler can
 * vectorise (a libm call it cannot), for the forward-backward's rows (crf_kern_body.h).
 *
 * exp(x) for x <= 0 (a score minus its row's maximum): x = k ln2 + r with k = round(x / ln2) and
 * |r| <= ln2 / 2 (ln2 split in two parts, so k ln2 is exact), e^r by its Taylor series to the
 * 13th power (truncation below 1e-17), times 2^k built in the exponent bits. Within 2 ulp of the
 * exact value (tests/test_crf_train.c checks it against libm); below -708.39, where the result
 * would leave the normal range, it is 0. Only +, *, comparisons and integer bit moves: the same
 * bits at every instruction-set level. */
#ifndef VT_TRAIN_CRF_EXP_H
#define VT_TRAIN_CRF_EXP_H

#include <stdint.h>
#include <string.h>

static inline double vt_crf_exp_nonpos(double x) {
  const double lo = -708.39641853226408; /* ln(DBL_MIN) */
  const double xc = x < lo ? lo : x;
  const double shifter = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds to an integer */
  const double kd = xc * 1.4426950408889634 + shifter;
  const double k = kd - shifter;
  const double r = (xc - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double p = 1.0 / 6227020800.0; /* 1/13! */
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  uint64_t kb;
  memcpy(&kb, &kd, sizeof kb); /* the low bits of kd hold k + 0x8000000000000 */
  const uint64_t eb = (kb - 0x4338000000000000ull + 1023u) << 52;
  double scale;
  memcpy(&scale, &eb, sizeof scale);
  const double e = p * scale;
  return x < lo ? 0.0 : e;
}

#endif
