/* tests/fuzz/fuzz_npy.c: fuzz target of the .npy reader (io/npy.c, vt_npy_open).
 *
 * The input is one .npy file. After a successful open every element is read as a double and as
 * an int64 and the shape is formatted; then the array is closed. */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>

#include "io/npy.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fz_file(0, data, size);
  if (!path) return 0;
  vt_npy a;
  char err[256];
  if (vt_npy_open(&a, path, err, sizeof err) != VT_OK) return 0;
  double sum = 0;
  int64_t isum = 0;
  for (int64_t i = 0; i < a.count; i++) {
    sum += vt_npy_get_f(&a, i);
    isum += vt_npy_get_i(&a, i) & 1;
  }
  char shape[64];
  vt_npy_shape_str(&a, shape, sizeof shape);
  vt_npy_release(&a, 0, a.count);
  volatile double sink = sum + (double)isum + (double)shape[0];
  (void)sink;
  vt_npy_close(&a);
  return 0;
}
