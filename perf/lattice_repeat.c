/* perf/lattice_repeat.c: writes a lattice set N times longer (its sentences repeated N times),
 * for engine benchmarks on real lattices (perf/engine_bench.sh). Not a test.
 *
 *   lattice_repeat SRC_DIR N DST_DIR
 *
 * SRC_DIR holds E.npy N.npy A.npy and optionally S.npy F.npy R.npy; DST_DIR gets the same files
 * with E and N repeated N times (A, S, F, R copied). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"

static int copy_npy(const char *src, const char *dst, int64_t reps) {
  vt_npy a;
  char err[512];
  if (vt_npy_open(&a, src, err, sizeof err) != VT_OK) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  size_t bytes = (size_t)a.count * vt_npy_itemsize(a.dtype);
  int64_t shape[2] = {a.shape[0] * reps, a.shape[1]};
  char *buf = malloc(bytes * (size_t)reps + 1);
  int rc = -1;
  if (buf) {
    for (int64_t r = 0; r < reps; r++) memcpy(buf + (size_t)r * bytes, a.data, bytes);
    rc = vt_npy_write(dst, a.dtype, a.ndim, shape, buf, err, sizeof err) == VT_OK ? 0 : -1;
    if (rc) fprintf(stderr, "%s\n", err);
  }
  free(buf);
  vt_npy_close(&a);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 4 || atoll(argv[2]) < 1) {
    fprintf(stderr, "usage: lattice_repeat SRC_DIR N DST_DIR\n");
    return 2;
  }
  int64_t n = atoll(argv[2]);
  const char *names[] = {"E", "N", "A", "S", "F", "R"};
  for (int i = 0; i < 6; i++) {
    char src[4096], dst[4096];
    snprintf(src, sizeof src, "%s/%s.npy", argv[1], names[i]);
    snprintf(dst, sizeof dst, "%s/%s.npy", argv[3], names[i]);
    FILE *f = fopen(src, "rb");
    if (!f) {
      if (i < 3) {
        fprintf(stderr, "%s: missing\n", src);
        return 1;
      }
      continue;
    }
    fclose(f);
    if (copy_npy(src, dst, i < 2 ? n : 1) != 0) return 1;
  }
  return 0;
}
