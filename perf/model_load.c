/* perf/model_load.c MODEL...: the time vt_model_open takes to open each model file, best of 20
 * (open and close, in process: no engine set-up, the file in the page cache). For the load times
 * of perf/README.md ("CRFsuite models"): a crf1d file against its native conversion. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "vitesse.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    double best = 1e30;
    for (int i = 0; i < 20; i++) {
      vt_model *m = NULL;
      double t0 = now();
      if (vt_model_open(&m, argv[a]) != VT_OK) {
        fprintf(stderr, "model_load: %s\n", vt_last_error());
        return 2;
      }
      double t = now() - t0;
      vt_model_close(m);
      if (t < best) best = t;
    }
    printf("%s: vt_model_open %.3f ms (best of 20)\n", argv[a], best * 1e3);
  }
  return 0;
}
