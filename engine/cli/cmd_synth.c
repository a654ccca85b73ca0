/* engine/cli/cmd_synth.c: `vitesse synth`, writes a seeded synthetic lattice set as .npy files. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npy.h"
#include "synth.h"

int vt_cmd_synth(int argc, char **argv) {
  static const struct option longopts[] = {{"labels", required_argument, 0, 'L'},
                                           {"sentences", required_argument, 0, 'n'},
                                           {"mean-length", required_argument, 0, 'T'},
                                           {"seed", required_argument, 0, 's'},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  long long L = 300, n = 1000, mean = 23, seed = 1;
  const char *dir = NULL;
  int rc = VT_EXIT_USAGE, c;
  vt_synth syn;
  memset(&syn, 0, sizeof syn);
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    long long *dst = c == 'L' ? &L : c == 'n' ? &n : c == 'T' ? &mean : c == 's' ? &seed : NULL;
    if (dst) {
      if (vt_cli_parse_int(optarg, c == 's' ? 0 : 1, 100000000, dst)) {
        vt_cli_error("synth: bad number '%s'", optarg);
        goto done;
      }
    } else if (c == 'o') {
      dir = optarg;
    } else if (c == 'h') {
      puts("usage: vitesse synth -o DIR [--labels L] [--sentences N] [--mean-length T] "
           "[--seed S]\n"
           "Writes DIR/{E,N,A,S,F,R}.npy: a seeded synthetic lattice set shaped like a tagger's\n"
           "(peaked emissions, small transitions with a few strong pairs, Zipf label priors).");
      rc = VT_EXIT_OK;
      goto done;
    } else {
      goto done;
    }
  }
  if (!dir) {
    vt_cli_error("synth: -o DIR is required");
    goto done;
  }
  if (L > 20000) {
    vt_cli_error("synth: --labels %lld is too large (at most 20000)", L);
    goto done;
  }
  vt_synth_opts so = {(int32_t)L, n, (double)mean, (uint64_t)seed};
  rc = VT_EXIT_FAIL;
  if (vt_synth_make(&syn, &so) != VT_OK) {
    vt_cli_error("synth: out of memory");
    goto done;
  }
  char path[4096], err[512];
  int64_t shE[2] = {syn.n_rows, syn.L}, shN[1] = {syn.n_sent}, shA[2] = {syn.L, syn.L},
          shL[1] = {syn.L};
  struct {
    const char *name;
    vt_npy_dtype dt;
    int nd;
    const int64_t *sh;
    const void *data;
  } files[] = {{"E", VT_NPY_F32, 2, shE, syn.E}, {"N", VT_NPY_I32, 1, shN, syn.lengths},
               {"A", VT_NPY_F32, 2, shA, syn.A}, {"S", VT_NPY_F32, 1, shL, syn.S},
               {"F", VT_NPY_F32, 1, shL, syn.F}, {"R", VT_NPY_I32, 1, shL, syn.R}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s.npy", dir, files[i].name);
    if (vt_npy_write(path, files[i].dt, files[i].nd, files[i].sh, files[i].data, err,
                     sizeof err) != VT_OK) {
      vt_cli_error("%s", err);
      goto done;
    }
  }
  rc = VT_EXIT_OK;
done:
  vt_synth_free(&syn);
  return rc;
}
