/* engine/cli/decoder_opts.c: the shared decoder options (decoder_opts.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/decoder_opts.h"

/* The rule below and `vitesse train --help` (cmd_train.c) spell out the break point. */
_Static_assert(VT_DEFAULT_L_ITER == 128, "update the --help texts of the default decoder");

const char vt_cli_decoder_usage[] =
    "  -k K            paths per sentence (default 1; kbest-viterbi, astar, viterbi-astar,\n"
    "                  iter-viterbi-astar, beam)\n"
    "  --beam B        beam width of --algo beam (default 1)\n"
    "  --heuristic H   A* heuristic: naive, m0, m3, m6, m9 (default); each keeps A* exact,\n"
    "                  m9 is the fastest (the true completion score up to 512 labels)\n"
    "  --refine R      iter-viterbi-astar: split (default; degenerate nodes are split inside\n"
    "                  one Viterbi A* search) or expand (Algorithm 4 as published: expand\n"
    "                  their columns and iterate)\n"
    "  --kprime K      k' of iter-viterbi-astar --refine expand (default 2k)\n"
    "  --budget X      work budget of the exact search decoders per sentence, as a fraction\n"
    "                  of one viterbi (-k 1) or kbest-viterbi (-k K) on it (default 1 for\n"
    "                  -k 1, 0.3 for carpediem, 0.5 for -k K; 'none' or a negative number: no\n"
    "                  budget); a sentence past it, or whose search a progress test finds far\n"
    "                  from done, is finished by that decoder, same exact result (--stats:\n"
    "                  budget_fallbacks)\n"
    "Without --algo the decoder is the fastest exact one for L labels and K paths, by\n"
    "measurement (perf/README.md, \"Default decoders\"):\n"
    "  L < 128     viterbi (-k 1), viterbi-astar (-k K > 1)\n"
    "  L >= 128    iter-viterbi-astar\n";

/* Parses "naive", "m0", "m3", "m6" or "m9"; 0 on success. */
static int parse_heuristic(const char *s, vt_heuristic *out) {
  static const struct {
    const char *name;
    vt_heuristic h;
  } names[] = {{"naive", VT_HEUR_NAIVE},
               {"m0", VT_HEUR_M0},
               {"m3", VT_HEUR_M3},
               {"m6", VT_HEUR_M6},
               {"m9", VT_HEUR_M9}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(s, names[i].name)) {
      *out = names[i].h;
      return 0;
    }
  return -1;
}

void vt_cli_decoder_init(vt_cli_decoder *d) {
  memset(d, 0, sizeof *d);
  d->k = 1;
  d->beam = 1;
  d->heuristic = VT_HEUR_M9;
  d->refine = VT_REFINE_SPLIT;
}

int vt_cli_decoder_opt(vt_cli_decoder *d, int code, const char *arg) {
  switch (code) {
  case VT_CLI_OPT_ALGO: d->algo = arg; return 1;
  case 'k':
    if (vt_cli_parse_int(arg, 1, 1000000, &d->k)) {
      vt_cli_error("-k: expected an integer in 1..1000000, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CLI_OPT_BEAM:
    if (vt_cli_parse_int(arg, 1, 1 << 30, &d->beam)) {
      vt_cli_error("--beam: expected a positive integer, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CLI_OPT_HEURISTIC:
    if (parse_heuristic(arg, &d->heuristic)) {
      vt_cli_error("--heuristic: expected naive|m0|m3|m6|m9, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CLI_OPT_REFINE:
    if (!strcmp(arg, "split") || !strcmp(arg, "expand")) {
      d->refine = arg[0] == 's' ? VT_REFINE_SPLIT : VT_REFINE_EXPAND;
      return 1;
    }
    vt_cli_error("--refine: expected split|expand, got '%s'", arg);
    return -1;
  case VT_CLI_OPT_KPRIME:
    if (vt_cli_parse_int(arg, 1, 10000000, &d->kprime)) {
      vt_cli_error("--kprime: expected a positive integer, got '%s'", arg);
      return -1;
    }
    return 1;
  case VT_CLI_OPT_BUDGET: {
    char *end = NULL;
    if (!strcmp(arg, "none")) {
      d->budget = -1;
      return 1;
    }
    d->budget = strtod(arg, &end);
    if (end == arg || *end || !isfinite(d->budget) || d->budget == 0) {
      vt_cli_error("--budget: expected a nonzero number or 'none', got '%s'", arg);
      return -1;
    }
    return 1;
  }
  default: return 0;
  }
}

int vt_cli_decoder_resolve(const vt_cli_decoder *d, int32_t L, vt_decode_opts *opts) {
  vt_decode_opts_default(opts, L, (int32_t)d->k);
  if (d->algo) {
    vt_status st = vt_algo_parse(d->algo, &opts->algo);
    if (st == VT_EUNSUPPORTED) {
      vt_cli_error("--algo: '%s' is not implemented in this version", d->algo);
      return -1;
    }
    if (st != VT_OK) {
      vt_cli_error("--algo: unknown algorithm '%s' (see vitesse decode --help)", d->algo);
      return -1;
    }
  }
  if (d->k > 1 && !vt_algo_kbest(opts->algo)) {
    vt_cli_error("-k %lld: algorithm '%s' returns one path; use a k-best one (kbest-viterbi, "
                 "iter-viterbi-astar, ...) or beam",
                 d->k, vt_algo_name(opts->algo));
    return -1;
  }
  opts->k = (int32_t)d->k;
  opts->beam = (int32_t)d->beam;
  opts->heuristic = d->heuristic;
  opts->kprime = (int32_t)d->kprime;
  opts->refine = d->refine;
  opts->budget = d->budget;
  return 0;
}
