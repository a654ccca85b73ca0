/* engine/cli/cmd_synth.c: `vitesse synth`, writes a seeded synthetic lattice set as .npy files. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

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
  vt_lattices *syn = NULL;
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
      vt_cli_bad_option("synth", "o:h", argv);
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
  rc = VT_EXIT_FAIL;
  if (vt_lattices_synth(&syn, (int32_t)L, n, (double)mean, (uint64_t)seed) != VT_OK) {
    vt_cli_error("synth: out of memory");
    goto done;
  }
  if (vt_lattices_save(syn, dir) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  rc = VT_EXIT_OK;
done:
  vt_lattices_close(syn);
  return rc;
}
