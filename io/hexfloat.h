/* io/hexfloat.h: reading a double written by printf's %a ("-0x1.8p+3", "0x0p+0", a subnormal's
 * "0x0.0000000000001p-1022"), as the Wapiti model writes its weights: the bits are put together
 * from the digits, with none of strtod's general machinery. Any other text is left to strtod. */
#ifndef VT_IO_HEXFLOAT_H
#define VT_IO_HEXFLOAT_H

#include <stdint.h>
#include <string.h>

/* The value of one hex digit, or -1. */
static inline int vt_hexdigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads [p, end) as %a writes a finite double: an optional '-', "0x", a leading 1 (a normal
 * number) or 0 (zero, or a subnormal with exponent -1022), up to 13 fraction digits, 'p' and a
 * decimal exponent. Returns 1 and sets *out (the value strtod gives) when all of [p, end) is
 * such a number in range; returns 0 otherwise (the caller falls back to strtod). */
static inline int vt_hexfloat_parse(const char *p, const char *end, double *out) {
  uint64_t sign = 0, frac = 0;
  if (p < end && *p == '-') sign = 1, p++;
  if (end - p < 5 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X')) return 0;
  p += 2;
  const int lead = *p == '1' ? 1 : *p == '0' ? 0 : -1;
  if (lead < 0) return 0;
  p++;
  int nd = 0;
  if (p < end && *p == '.')
    for (p++; p < end && vt_hexdigit(*p) >= 0; p++, nd++) {
      if (nd == 13) return 0;
      frac = frac << 4 | (uint64_t)vt_hexdigit(*p);
    }
  frac <<= 4 * (13 - nd);
  if (p >= end || (*p != 'p' && *p != 'P')) return 0;
  p++;
  int neg = 0;
  if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
  int32_t e = 0, ne = 0;
  for (; p < end && *p >= '0' && *p <= '9'; p++, ne++) {
    if (ne == 5) return 0;
    e = e * 10 + (*p - '0');
  }
  if (!ne || p != end) return 0;
  if (neg) e = -e;
  uint64_t bits;
  if (lead) {
    if (e < -1022 || e > 1023) return 0;
    bits = (uint64_t)(e + 1023) << 52 | frac;
  } else if (frac == 0) {
    bits = 0; /* a zero, whatever its exponent */
  } else {
    if (e != -1022) return 0;
    bits = frac; /* a subnormal */
  }
  bits |= sign << 63;
  memcpy(out, &bits, sizeof bits);
  return 1;
}

#endif
