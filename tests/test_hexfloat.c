/* tests/test_hexfloat.c: io/hexfloat.h reads what printf's %a writes to the bits strtod gives, for
 * random normal numbers, subnormals, zeros of both signs and the extremes; and declines (returns
 * 0, leaving the text to strtod) anything else: decimals, infinities, NaNs, 14 fraction digits,
 * exponents out of range, a trailing byte. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/hexfloat.h"
#include "test_util.h"

/* %a of v, parsed: the bits strtod gives. */
static void same_as_strtod(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%a", v);
  double got = 12345.0, want = strtod(buf, NULL);
  const int ok = vt_hexfloat_parse(buf, buf + strlen(buf), &got);
  EXPECT(ok && !memcmp(&got, &want, sizeof got), "'%s': %s %a, strtod %a", buf,
         ok ? "read" : "declined", got, want);
}

/* Text that is not %a's form of a finite double is declined. */
static void declined(const char *s) {
  double v = 0.0;
  EXPECT(!vt_hexfloat_parse(s, s + strlen(s), &v), "'%s' read as %a", s, v);
}

TEST(random_doubles) {
  test_rng r = {31};
  for (int i = 0; i < 200000; i++) {
    uint64_t bits = test_next(&r);
    double v;
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v)) continue;
    same_as_strtod(v);
  }
  for (int i = 0; i < 20000; i++) { /* weights as a model has them */
    const double v = (test_unit(&r) - 0.5) * pow(2.0, test_int(&r, 40) - 20);
    same_as_strtod(v);
    same_as_strtod((float)v);
  }
}

TEST(edges) {
  const double v[] = {0.0,
                      -0.0,
                      1.0,
                      -1.0,
                      DBL_MIN,
                      -DBL_MIN,
                      DBL_MAX,
                      -DBL_MAX,
                      DBL_TRUE_MIN,
                      -DBL_TRUE_MIN,
                      DBL_MIN - DBL_TRUE_MIN,
                      0.5,
                      2.0,
                      0.1,
                      1.0 / 3.0};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) same_as_strtod(v[i]);
}

TEST(declines) {
  const char *const s[] = {
      "",          "1.5",       "-0.25",       "inf",
      "-inf",      "nan",       "0x",          "0x1",
      "0x1p",      "0x1.p+",    "0x2p+0",      "0x1.00000000000000p+0", /* 14 fraction digits */
      "0x1p+1024", "0x1p-1023", "0x0.8p-1021", "0x1p+100000",
      "0x1p+0 ",   "0x1p+0x",   "+0x1p+0",     "0x1.gp+0"};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) declined(s[i]);
}

TEST_MAIN(CASE(random_doubles), CASE(edges), CASE(declines))
