/* perf/budget_trace.c: one decoder against its full decoder, sentence by sentence.
 *
 *   budget_trace DIR ALGO [-k K] [--budget X|none] [--reps R] [--heuristic N]
 *                [--refine split|expand] [--only S]
 *
 * DIR is a lattice set (E.npy, N.npy, A.npy, optional S/F/R.npy, as `vitesse lattice` writes).
 * For every sentence it times the full decoder (SIMD viterbi for k = 1, kbest-viterbi for k > 1)
 * and ALGO back to back, R times each (default 3), and prints the fastest of each:
 *
 *   sentence T full_seconds algo_seconds ratio fell_back pops cells
 *
 * ratio = algo / full (the sentence's cost in full decodes: above 1 on a sentence that fell
 * back is what its search wasted), fell_back = the budget handed it over. The last line (on
 * stderr) is the set's `x full`, the full decoder's total time over ALGO's. This is how the
 * hopeless sentences and their waste were found (perf/README.md, "Worst case and the work budget");
 * vt_bench gives the set-level ratios. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "io/lattice_file.h"
#include "vitesse.h"

static int usage(void) {
  fprintf(stderr, "usage: budget_trace DIR ALGO [-k K] [--budget X|none] [--reps R] "
                  "[--heuristic N] [--refine split|expand] [--only S]\n");
  return 64;
}

static vt_status decode(const vt_trans *tr, const vt_decode_opts *o, vt_arena *ar,
                        const vt_lattice_file *lf, int64_t s, int32_t *lab, double *sc,
                        vt_decode_stats *st) {
  const int64_t row = lf->offset[s];
  const int32_t T = (int32_t)(lf->offset[s + 1] - row);
  int32_t n;
  vt_status rc =
      lf->E.dtype == VT_NPY_F64
          ? vt_decode(tr, o, ar, (const double *)lf->E.data + row * lf->L, T, lab, sc, &n, st)
          : vt_decode_f32(tr, o, ar, (const float *)lf->E.data + row * lf->L, T, lab, sc, &n, st);
  vt_arena_reset(ar);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage();
  vt_decode_opts oa, of;
  vt_decode_opts_init(&oa);
  if (vt_algo_parse(argv[2], &oa.algo) != VT_OK) return usage();
  int reps = 3;
  long long only = -1;
  for (int i = 3; i < argc; i++) {
    if (i + 1 >= argc) return usage();
    const char *v = argv[++i];
    if (!strcmp(argv[i - 1], "-k"))
      oa.k = atoi(v);
    else if (!strcmp(argv[i - 1], "--budget"))
      oa.budget = strcmp(v, "none") ? atof(v) : -1;
    else if (!strcmp(argv[i - 1], "--reps"))
      reps = atoi(v);
    else if (!strcmp(argv[i - 1], "--heuristic"))
      oa.heuristic = atoi(v);
    else if (!strcmp(argv[i - 1], "--refine") && (!strcmp(v, "split") || !strcmp(v, "expand")))
      oa.refine = strcmp(v, "split") ? VT_REFINE_EXPAND : VT_REFINE_SPLIT;
    else if (!strcmp(argv[i - 1], "--only"))
      only = atoll(v);
    else
      return usage();
  }
  if (oa.k < 1 || reps < 1) return usage();
  vt_decode_opts_init(&of);
  of.k = oa.k;
  of.algo = oa.k > 1 ? VT_ALGO_KBEST_VITERBI : VT_ALGO_VITERBI;

  char p[6][1024], err[256];
  const char *names[6] = {"E", "N", "A", "S", "F", "R"}, *paths[6];
  for (int i = 0; i < 6; i++) {
    snprintf(p[i], sizeof p[i], "%s/%s.npy", argv[1], names[i]);
    FILE *f = fopen(p[i], "rb");
    paths[i] = f || i < 3 ? p[i] : NULL;
    if (f) fclose(f);
  }
  vt_lattice_file lf;
  if (vt_lattice_file_load(&lf, paths[0], paths[1], paths[2], paths[3], paths[4], paths[5], err,
                           sizeof err) != VT_OK) {
    fprintf(stderr, "budget_trace: %s\n", err);
    return 2;
  }
  int rc = 1;
  vt_trans *tr = NULL;
  vt_arena *ar = NULL;
  int32_t maxT = 0;
  for (int64_t s = 0; s < lf.n_sent; s++) {
    const int64_t T = lf.offset[s + 1] - lf.offset[s];
    if (T > maxT) maxT = (int32_t)T;
  }
  int32_t *lab = malloc(sizeof(int32_t) * ((size_t)maxT + 1) * (size_t)oa.k);
  double *sc = malloc(sizeof(double) * (size_t)oa.k);
  if (!lab || !sc || vt_trans_create(&tr, lf.L, lf.A, lf.S, lf.F, lf.R) != VT_OK ||
      vt_arena_create(&ar, 0) != VT_OK)
    goto done;
  double sum_full = 0, sum_algo = 0;
  for (int64_t s = 0; s < lf.n_sent; s++) {
    if (only >= 0 && s != only) continue;
    double tf = INFINITY, ta = INFINITY;
    vt_decode_stats st = {0};
    for (int r = 0; r < reps; r++) {
      double t0 = vt_clock_seconds();
      if (decode(tr, &of, ar, &lf, s, lab, sc, NULL) != VT_OK) goto done;
      double t1 = vt_clock_seconds();
      memset(&st, 0, sizeof st);
      if (decode(tr, &oa, ar, &lf, s, lab, sc, &st) != VT_OK) goto done;
      double t2 = vt_clock_seconds();
      if (t1 - t0 < tf) tf = t1 - t0;
      if (t2 - t1 < ta) ta = t2 - t1;
    }
    sum_full += tf;
    sum_algo += ta;
    printf("%lld %lld %.3e %.3e %.3f %lld %lld %lld\n", (long long)s,
           (long long)(lf.offset[s + 1] - lf.offset[s]), tf, ta, ta / tf,
           (long long)st.budget_fallbacks, (long long)st.pops, (long long)st.cells);
  }
  fprintf(stderr, "x full %.3f\n", sum_full / sum_algo);
  rc = 0;
done:
  if (rc) fprintf(stderr, "budget_trace: decoding failed\n");
  vt_arena_destroy(ar);
  vt_trans_destroy(tr);
  vt_lattice_file_free(&lf);
  free(lab);
  free(sc);
  return rc;
}
