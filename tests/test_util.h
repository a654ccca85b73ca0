/* tests/test_util.h: test helpers over the harness (harness.h): a seeded RNG and random lattice
 * scores. */
#ifndef VT_TESTS_TEST_UTIL_H
#define VT_TESTS_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

typedef struct test_rng {
  uint64_t s;
} test_rng;

/* Visits every labelling of T positions over L labels, the first position counting fastest:
 * y (all 0 at first) gets the next one; returns 0 past the last. */
static inline int test_next_labelling(int32_t *y, int64_t T, int32_t L) {
  for (int64_t t = 0; t < T; t++) {
    if (++y[t] < L) return 1;
    y[t] = 0;
  }
  return 0;
}

/* Reads the whole file `path` into a heap buffer (*n bytes); NULL when it cannot be opened. */
static inline unsigned char *test_slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  *n = 0;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc((size_t)len + 1);
  *n = fread(p, 1, (size_t)len, f);
  fclose(f);
  return p;
}

static inline uint64_t test_next(test_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline double test_unit(test_rng *r) {
  return (double)(test_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline int test_int(test_rng *r, int n) { return (int)(test_next(r) % (uint64_t)n); }

/* Score flavours of random lattices. */
typedef enum {
  SCORE_REAL,  /* uniform reals in [-5, 5) */
  SCORE_INT,   /* small integers in [-2, 2]: many ties */
  SCORE_NEGINF /* small integers, and about 35% of entries -inf */
} score_mode;

static inline double test_score(test_rng *r, score_mode m) {
  switch (m) {
  case SCORE_REAL: return 10.0 * test_unit(r) - 5.0;
  case SCORE_INT: return (double)(test_int(r, 5) - 2);
  case SCORE_NEGINF: return test_unit(r) < 0.35 ? -INFINITY : (double)(test_int(r, 5) - 2);
  }
  return 0;
}

/* The score of path y (T labels), left to right as the library evaluates it, written
 * independently of the library: the brute-force reference of the exactness tests. */
static inline double test_path_score(const double *A, const double *S, const double *F,
                                     const double *E, int L, int T, const int32_t *y) {
  double s = S[y[0]] + E[y[0]];
  for (int t = 1; t < T; t++) s = (s + A[y[t - 1] * L + y[t]]) + E[t * L + y[t]];
  return s + F[y[T - 1]];
}

/* qsort comparator: doubles in decreasing order. */
static inline int test_cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

#endif
