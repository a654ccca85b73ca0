/* tests/test_fix128.c: the 128-bit fixed point of exact sums (engine/core/fix128.h): vt_fix_of
 * against the plain definition (|x| * 2^64 truncated, saturated, negated), sums that do not
 * depend on the order or grouping of their terms (random doubles of both signs, from subnormal to
 * 2^40), the round trip of every double the format holds, saturation and NaN, and the carries
 * between the two words. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fix128.h"
#include "harness.h"
#include "test_util.h"

/* The definition, written the plain way (branches, unsigned conversions). */
static vt_fix128 ref_of(double x) {
  vt_fix128 r = {0, 0};
  double ax = fabs(x);
  if (!(ax > 0)) return r;
  if (ax >= 0x1p62) ax = 0x1p62;
  const uint64_t ip = (uint64_t)ax;
  r.hi = ip;
  r.lo = (uint64_t)((ax - (double)ip) * 0x1p64);
  return x < 0 ? vt_fix_neg(r) : r;
}

/* The rounding vt_fix_to_double documents: of the magnitude, integer part then fraction. */
static double ref_to_double(vt_fix128 a) {
  const int neg = (a.hi >> 63) != 0;
  if (neg) a = vt_fix_neg(a);
  const double m = (double)a.hi + (double)a.lo * 0x1p-64;
  return neg ? -m : m;
}

static int fix_eq(vt_fix128 a, vt_fix128 b) { return a.lo == b.lo && a.hi == b.hi; }

/* A double of random sign and magnitude 2^e, e uniform in [lo_e, hi_e], random mantissa. */
static double random_double(test_rng *r, int lo_e, int hi_e) {
  const double m = 1 + test_unit(r);
  const double x = ldexp(m, lo_e + test_int(r, hi_e - lo_e + 1));
  return test_next(r) & 1 ? -x : x;
}

TEST(of_matches_the_definition) {
  test_rng r = {101};
  int bad = 0;
  for (int i = 0; i < 2000000; i++) {
    double x = random_double(&r, -1080, 70);
    if (i % 7 == 0) x = (double)(int64_t)(test_next(&r) >> (test_int(&r, 63) + 1)) * 0.5;
    if (i % 11 == 0) x = -x;
    const vt_fix128 got = vt_fix_of(x), want = ref_of(x);
    if (!fix_eq(got, want) && bad++ < 5)
      EXPECT(0, "x=%a: %016llx %016llx != %016llx %016llx", x, (unsigned long long)got.hi,
             (unsigned long long)got.lo, (unsigned long long)want.hi, (unsigned long long)want.lo);
    const double back = vt_fix_to_double(got), want_back = ref_to_double(want);
    if (memcmp(&back, &want_back, sizeof back) && bad++ < 5)
      EXPECT(0, "x=%a: back %a != %a", x, back, want_back);
  }
  EXPECT(bad == 0, "%d values off", bad);
}

TEST(round_trip) {
  /* Every double with no bit below 2^-64 and |x| < 2^62 is held exactly. */
  const double xs[] = {0,
                       1,
                       -1,
                       0.5,
                       -0.25,
                       3.75,
                       -1e-3,
                       0x1p-11,
                       -0x1p-11,
                       0x1p-64,
                       -0x1p-64,
                       0x1.fffffffffffffp-12,
                       1e10 + 0.5,
                       -123456789.125,
                       0x1p61,
                       -0x1p61,
                       0x1.fffffffffffffp61,
                       4503599627370495.5,
                       -9007199254740991.0,
                       0.1,
                       -0.3,
                       1e15};
  for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
    const double back = vt_fix_to_double(vt_fix_of(xs[i]));
    EXPECT(back == xs[i], "%a comes back as %a", xs[i], back);
  }
  test_rng r = {102};
  for (int i = 0; i < 200000; i++) {
    const double x = random_double(&r, -11, 61);
    EXPECT(vt_fix_to_double(vt_fix_of(x)) == x, "%a", x);
  }
  /* Below 2^-11 the bits under 2^-64 go (toward zero): within 2^-64, never larger. */
  for (int i = 0; i < 200000; i++) {
    const double x = random_double(&r, -1074, -12);
    const double back = vt_fix_to_double(vt_fix_of(x));
    EXPECT(fabs(back) <= fabs(x) && fabs(x - back) < 0x1p-64 &&
               (back == 0 || (back < 0) == (x < 0)),
           "%a comes back as %a", x, back);
  }
  EXPECT(vt_fix_to_double(vt_fix_of(DBL_TRUE_MIN)) == 0, "the smallest subnormal is 0");
  const double mz = vt_fix_to_double(vt_fix_of(-0.0));
  EXPECT(mz == 0 && !signbit(mz), "-0 gives +0");
}

TEST(saturation_and_nan) {
  const vt_fix128 top = vt_fix_of(0x1p62), bottom = vt_fix_of(-0x1p62);
  EXPECT(top.hi == (uint64_t)1 << 62 && top.lo == 0, "2^62");
  EXPECT(fix_eq(bottom, vt_fix_neg(top)), "-2^62");
  EXPECT(fix_eq(vt_fix_of(1e300), top) && fix_eq(vt_fix_of(INFINITY), top), "saturates above");
  EXPECT(fix_eq(vt_fix_of(-1e300), bottom) && fix_eq(vt_fix_of(-INFINITY), bottom),
         "saturates below");
  EXPECT(fix_eq(vt_fix_of(0x1.fffffffffffffp61), ref_of(0x1.fffffffffffffp61)), "just below");
  const vt_fix128 zero = {0, 0};
  EXPECT(fix_eq(vt_fix_of(NAN), zero) && fix_eq(vt_fix_of(-NAN), zero), "NaN gives 0");
  EXPECT(vt_fix_to_double(top) == 0x1p62 && vt_fix_to_double(bottom) == -0x1p62, "back");
  vt_fix128 a = {0, 0};
  vt_fix_add_double(&a, NAN);
  vt_fix_add_double(&a, 0.0);
  EXPECT(fix_eq(a, zero), "adding NaN or 0 leaves 0");
}

TEST(carries) {
  vt_fix128 a = {UINT64_MAX, 0}; /* 1 - 2^-64 */
  vt_fix_add_double(&a, 0x1p-64);
  EXPECT(a.lo == 0 && a.hi == 1, "carry into the integer word");
  vt_fix_add_double(&a, -0x1p-64);
  EXPECT(a.lo == UINT64_MAX && a.hi == 0, "borrow from it");
  vt_fix_add_double(&a, -1);
  EXPECT(a.lo == UINT64_MAX && a.hi == UINT64_MAX, "-2^-64");
  EXPECT(vt_fix_to_double(a) == -0x1p-64, "-2^-64 as a double: %a", vt_fix_to_double(a));
  vt_fix_add_double(&a, 0x1p-64);
  EXPECT(a.lo == 0 && a.hi == 0, "back to 0");
  /* -0.5 - 0.25 = -0.75: a negative fraction borrows from the integer word. */
  vt_fix128 b = vt_fix_of(-0.5);
  EXPECT(b.hi == UINT64_MAX && b.lo == (uint64_t)1 << 63, "-0.5");
  vt_fix_add(&b, vt_fix_of(-0.25));
  EXPECT(vt_fix_to_double(b) == -0.75, "-0.75: %a", vt_fix_to_double(b));
}

static void shuffle(double *x, int n, test_rng *r) {
  for (int i = n - 1; i > 0; i--) {
    const int j = test_int(r, i + 1);
    const double t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}

/* The terms summed pairwise, as a tree of the given leaf size. */
static vt_fix128 tree_sum(const double *x, int n, int leaf) {
  vt_fix128 s = {0, 0};
  if (n <= leaf) {
    for (int i = 0; i < n; i++) vt_fix_add_double(&s, x[i]);
    return s;
  }
  vt_fix128 t = tree_sum(x + n / 2, n - n / 2, leaf);
  s = tree_sum(x, n / 2, leaf);
  vt_fix_add(&s, t);
  return s;
}

TEST(sums_do_not_depend_on_order) {
  test_rng r = {103};
  enum { N = 100000 };
  double *x = malloc(N * sizeof *x);
  REQUIRE(x != NULL, "memory");
  for (int rep = 0; rep < 4; rep++) {
    for (int i = 0; i < N; i++) {
      /* counts, tiny and subnormal terms, and large ones (2^40: a sum of 10^5 stays in range) */
      x[i] = i % 5 == 0   ? random_double(&r, -1074, -900)
             : i % 5 == 1 ? random_double(&r, -70, -20)
             : i % 5 == 2 ? random_double(&r, 20, 40)
                          : random_double(&r, -10, 10);
    }
    const vt_fix128 first = tree_sum(x, N, N);
    double dsum = 0, dsum2 = 0;
    for (int i = 0; i < N; i++) dsum += x[i];
    for (int k = 0; k < 6; k++) {
      shuffle(x, N, &r);
      const vt_fix128 seq = tree_sum(x, N, N), tree = tree_sum(x, N, 1 + test_int(&r, 64));
      EXPECT(fix_eq(seq, first) && fix_eq(tree, first), "rep %d order %d: another sum", rep, k);
    }
    for (int i = 0; i < N; i++) dsum2 += x[i];
    EXPECT(dsum != dsum2 || rep > 0, "the doubles' own sum should depend on the order (%a)", dsum);
    /* and the sum is right: within the doubles' own error of their sum in long double */
    long double ld = 0;
    for (int i = 0; i < N; i++) ld += x[i];
    EXPECT(fabsl((long double)vt_fix_to_double(first) - ld) <= 1e-9L * (1 + fabsl(ld)),
           "rep %d: %.17g vs %.17Lg", rep, vt_fix_to_double(first), ld);
    /* x and -x cancel exactly, whatever the order */
    vt_fix128 z = first;
    for (int i = 0; i < N; i++) vt_fix_add_double(&z, -x[i]);
    EXPECT(z.lo == 0 && z.hi == 0, "rep %d: the terms less themselves are not 0", rep);
  }
  free(x);
}

TEST_MAIN(CASE(of_matches_the_definition), CASE(round_trip), CASE(saturation_and_nan),
          CASE(carries), CASE(sums_do_not_depend_on_order))
