/* tests/test_blas_load.c: OpenBLAS is loaded when a trainer starts, not with the library
 * (train/blas.h): a process that links libvitesse has no OpenBLAS mapped until vt_blas_load,
 * which maps it, and the products it then runs are right. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "train/blas.h"

/* Whether a file whose path contains `name` is mapped into this process. */
static int mapped(const char *name) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, name) != NULL;
  fclose(f);
  return found;
}

TEST(loaded_on_first_use) {
  REQUIRE(mapped("libc.so") == 1, "/proc/self/maps lists this process's libraries");
  EXPECT_EQ_INT(mapped("libopenblas"), 0, "OpenBLAS mapped before any trainer started");
  EXPECT_EQ_INT(mapped("libgfortran"), 0, "its Fortran runtime mapped before any trainer");
  char err[512] = "";
  REQUIRE(vt_blas_load(err, sizeof err) == VT_OK, "%s", err);
  EXPECT_EQ_INT(mapped("libopenblas"), 1, "OpenBLAS mapped once loaded");
  EXPECT(vt_blas_load(err, sizeof err) == VT_OK, "a second load: %s", err);
}

TEST(products_right) {
  /* C = 2 A B + C/2 (A 3 x 4, B 4 x 2, row-major) and A^T A, against plain sums: every value a
   * multiple of 1/4 or 1/8, small, so any order of the sums gives the same bits. */
  double A[12], B[8], C[6], want[6];
  for (int i = 0; i < 12; i++) A[i] = (i * 7 % 5) - 1.5;
  for (int i = 0; i < 8; i++) B[i] = (i * 3 % 7) * 0.25 - 0.5;
  for (int i = 0; i < 6; i++) C[i] = 1.0 + i;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 2; c++) {
      double s = 0;
      for (int k = 0; k < 4; k++) s += A[r * 4 + k] * B[k * 2 + c];
      want[r * 2 + c] = 2.0 * s + 0.5 * (1.0 + r * 2 + c);
    }
  vt_blas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 2, 4, 2.0, A, 4, B, 2, 0.5, C, 2);
  for (int i = 0; i < 6; i++) EXPECT(C[i] == want[i], "C[%d] = %g, want %g", i, C[i], want[i]);
  /* A^T A's diagonal: the squares of A's columns */
  double G[16];
  vt_blas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 4, 4, 3, 1.0, A, 4, A, 4, 0.0, G, 4);
  for (int c = 0; c < 4; c++) {
    double s = 0;
    for (int r = 0; r < 3; r++) s += A[r * 4 + c] * A[r * 4 + c];
    EXPECT(G[c * 4 + c] == s, "(A^T A)[%d][%d] = %g, want %g", c, c, G[c * 4 + c], s);
  }
}

TEST_MAIN(CASE(loaded_on_first_use), CASE(products_right))
