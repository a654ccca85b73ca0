/* tests/test_crf_online.c: the parts of CRFsuite's online trainers (train/crf_online.h) that
 * must equal CRFsuite's own: glibc's rand() sequence behind its shuffle, and its Viterbi (the
 * best path, against brute-force enumeration, and its tie rule). The trainers themselves are
 * checked against crfsuite learn's output by crf_train_cli.online. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"
#include "train/crf_kern.h"
#include "train/crf_online.h"

TEST(glibc_rand_sequence) {
  vt_glibc_rand g;
  vt_glibc_rand_init(&g);
  /* glibc's first draws from its default seed, as documented in many places */
  const int32_t first[5] = {1804289383, 846930886, 1681692777, 1714636915, 1957747793};
  for (int i = 0; i < 5; i++) {
    const int32_t v = vt_glibc_rand_next(&g);
    EXPECT(v == first[i], "draw %d: %d, want %d", i, v, first[i]);
  }
#if defined(__GLIBC__)
  srand(1); /* and the C library's own, much further */
  vt_glibc_rand_init(&g);
  int bad = 0;
  for (int i = 0; i < 1000000 && !bad; i++) bad = vt_glibc_rand_next(&g) != rand() ? i + 1 : 0;
  EXPECT(!bad, "draw %d differs from this C library's rand()", bad - 1);
#endif
}

/* The score of path y, summed as CRFsuite sums it. */
static double path_score(const double *S, const double *A, int32_t T, int32_t L, const int32_t *y) {
  double sc = S[y[0]];
  for (int32_t t = 1; t < T; t++) {
    sc += A[(size_t)y[t - 1] * (size_t)L + (size_t)y[t]];
    sc += S[(size_t)t * (size_t)L + (size_t)y[t]];
  }
  return sc;
}

TEST(viterbi_first_brute_force) {
  test_rng r = {41};
  for (int rep = 0; rep < 400; rep++) {
    const int32_t L = 1 + test_int(&r, 5), T = 1 + test_int(&r, 5);
    const int ties = rep % 3; /* 0: real scores; 1: small integers (many ties); 2: all zero */
    const size_t cells = (size_t)T * (size_t)L;
    double *S = malloc(cells * sizeof *S), *A = malloc((size_t)L * (size_t)L * sizeof *A);
    double *V = malloc(cells * sizeof *V);
    int32_t *back = malloc(cells * sizeof *back), *path = malloc((size_t)T * sizeof *path);
    int32_t *y = calloc((size_t)T, sizeof *y);
    for (size_t i = 0; i < cells; i++)
      S[i] = ties == 0 ? 4 * test_unit(&r) - 2 : ties == 1 ? test_int(&r, 3) : 0;
    for (int32_t i = 0; i < L * L; i++)
      A[i] = ties == 0 ? 4 * test_unit(&r) - 2 : ties == 1 ? test_int(&r, 3) : 0;
    const double got = vt_crf_viterbi_first(S, A, T, L, V, back, path);
    double best = -DBL_MAX;
    int64_t n = 1;
    for (int32_t t = 0; t < T; t++) n *= L;
    for (int64_t p = 0; p < n; p++) {
      int64_t q = p;
      for (int32_t t = 0; t < T; t++, q /= L) y[t] = (int32_t)(q % L);
      const double sc = path_score(S, A, T, L, y);
      if (sc > best) best = sc;
    }
    EXPECT(got == best, "rep %d (L=%d T=%d): %.17g, brute force %.17g", rep, L, T, got, best);
    EXPECT(path_score(S, A, T, L, path) == got, "rep %d: the path does not score its score", rep);
    if (ties == 2)
      for (int32_t t = 0; t < T; t++)
        EXPECT(path[t] == 0, "rep %d: all ties: label %d at %d, want the first", rep, path[t], t);
    free(S), free(A), free(V), free(back), free(path), free(y);
  }
  /* The tie rule beyond all-equal: the last label is the first best; each predecessor the
   * first best, even where a later one leads to the same total. */
  double S[6] = {0, 1, 1, /* t = 1 */ 0, 0, 0}, A[9] = {0};
  double V[6];
  int32_t back[6], path[2];
  EXPECT(vt_crf_viterbi_first(S, A, 2, 3, V, back, path) == 1 && path[0] == 1 && path[1] == 0,
         "ties: path %d %d, want 1 0", path[0], path[1]);
}

TEST_MAIN(CASE(glibc_rand_sequence), CASE(viterbi_first_brute_force))
