/* perf/lattice_shape.c: seeded synthetic lattice sets of the shapes where the exact search
 * decoders' bounds are loose, for the worst-case table of perf/README.md. Not a test.
 *
 *   lattice_shape SHAPE L N_SENT MEAN_T SEED DIR
 *
 * writes DIR/{E,N,A,S,F,R}.npy (E float32, N int32, A/S/F float64, R int32 = identity). SHAPE:
 *   adversarial  the issue's: emissions peaked (+3) over Zipf-distributed winners on U(0,1)
 *                noise, transitions U(0,0.5) with 5% strong entries (+U(2,4)): transitions
 *                carry as much as the emissions, so no label stands out by its emission
 *   uniform      emissions and transitions U(0,1)
 *   flat         emissions U(0,0.001) (no label stands out), transitions U(0,1)
 *   ties         emissions and transitions small integers (0..2, 0..1): many equal scores
 *   forbidden    emissions U(0,1), half of the transitions -inf (BIO-like constraints)
 * Sentence lengths are uniform in [MEAN_T/2, 3 MEAN_T/2]. Label 0 is the most frequent winner
 * (Zipf), so R, the identity, is the right prior order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"

static uint64_t rng_state;

static double unif(void) { /* splitmix64, uniform in [0, 1) */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static int write_npy(const char *dir, const char *name, vt_npy_dtype dt, int ndim,
                     const int64_t *shape, const void *data) {
  char path[4096], err[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (vt_npy_write(path, dt, ndim, shape, data, err, sizeof err) != VT_OK) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: lattice_shape adversarial|uniform|flat|ties|forbidden L N_SENT MEAN_T "
                    "SEED DIR\n");
    return 2;
  }
  const char *shape = argv[1], *dir = argv[6];
  const int L = atoi(argv[2]), n = atoi(argv[3]), mt = atoi(argv[4]);
  rng_state = strtoull(argv[5], NULL, 10);
  const int adv = !strcmp(shape, "adversarial"), uni = !strcmp(shape, "uniform");
  const int flat = !strcmp(shape, "flat"), ties = !strcmp(shape, "ties");
  const int forb = !strcmp(shape, "forbidden");
  if (!(adv || uni || flat || ties || forb) || L < 1 || n < 1 || mt < 2) {
    fprintf(stderr, "lattice_shape: bad arguments\n");
    return 2;
  }
  int32_t *N = malloc(sizeof(int32_t) * (size_t)n), *R = malloc(sizeof(int32_t) * (size_t)L);
  double *A = malloc(sizeof(double) * (size_t)L * L), *S = calloc((size_t)L, sizeof(double));
  double *F = calloc((size_t)L, sizeof(double)), *zipf = malloc(sizeof(double) * (size_t)L);
  int64_t total = 0;
  if (!N || !R || !A || !S || !F || !zipf) return 1;
  for (int i = 0; i < n; i++) {
    N[i] = mt / 2 + (int32_t)(unif() * (mt + 1));
    total += N[i];
  }
  float *E = malloc(sizeof(float) * (size_t)total * L);
  if (!E) return 1;
  double zs = 0;
  for (int y = 0; y < L; y++) zipf[y] = zs += 1.0 / (y + 1.0); /* cumulative Zipf weights */
  for (int y = 0; y < L; y++) R[y] = y;
  for (int64_t i = 0; i < (int64_t)L * L; i++) {
    double a = unif();
    if (adv) a = 0.5 * a + (unif() < 0.05 ? 2 + 2 * unif() : 0);
    if (ties) a = (double)(int)(2 * a);
    if (forb && unif() < 0.5) a = -INFINITY;
    A[i] = a;
  }
  if (forb)
    for (int y = 0; y < L; y++) A[(int64_t)y * L + y] = 0; /* some path always exists */
  for (int64_t t = 0; t < total; t++) {
    float *row = E + t * L;
    for (int y = 0; y < L; y++) {
      double e = unif();
      if (flat) e *= 0.001;
      if (ties) e = (double)(int)(3 * e);
      row[y] = (float)e;
    }
    if (adv) { /* a Zipf winner, peaked */
      const double u = unif() * zs;
      int lo = 0, hi = L - 1;
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (zipf[mid] < u)
          lo = mid + 1;
        else
          hi = mid;
      }
      row[lo] += 3.0f;
    }
  }
  const int64_t sE[2] = {total, L}, sN[1] = {n}, sA[2] = {L, L}, sL[1] = {L};
  int rc = write_npy(dir, "E.npy", VT_NPY_F32, 2, sE, E) ||
           write_npy(dir, "N.npy", VT_NPY_I32, 1, sN, N) ||
           write_npy(dir, "A.npy", VT_NPY_F64, 2, sA, A) ||
           write_npy(dir, "S.npy", VT_NPY_F64, 1, sL, S) ||
           write_npy(dir, "F.npy", VT_NPY_F64, 1, sL, F) ||
           write_npy(dir, "R.npy", VT_NPY_I32, 1, sL, R);
  free(N);
  free(R);
  free(A);
  free(S);
  free(F);
  free(zipf);
  free(E);
  return rc ? 1 : 0;
}
