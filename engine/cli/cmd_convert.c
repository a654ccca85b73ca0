/* engine/cli/cmd_convert.c: `vitesse convert`, another toolkit's model (CRF++, Wapiti, CRFsuite)
 * written as a native vitesse model file (vt_model_open_as, vt_model_save). To add a format: its
 * name in FORMATS and in vt_model_open_as. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/text_cli.h"

#define FORMATS "auto|crfpp|wapiti|crfsuite"

static void convert_usage(FILE *f) {
  fputs("usage: vitesse convert [--from " FORMATS "] [--cost-factor C] IN -o OUT\n"
        "\n"
        "Writes the model IN (a CRF++ 0.58/0.59 binary or text model, a Wapiti 1.5 model, a\n"
        "CRFsuite 0.12 model as crfsuite learn, python-crfsuite or sklearn-crfsuite write it,\n"
        "or a vitesse model) as a vitesse model file OUT: checksummed and mapped at load, it\n"
        "tags exactly as IN does with vitesse tag -m IN (the same bytes out), and loads faster.\n"
        "Labels keep the peer's order (ties go to its lowest label, as in its own tagger);\n"
        "weights are kept as float32.\n"
        "options:\n"
        "  --from F         the format of IN: " FORMATS " (default auto: by content)\n"
        "  --cost-factor C  CRF++ only: multiply the weights by C > 0, as crf_test -c C\n"
        "                   (default: the factor stored in the model)\n"
        "  -o OUT           the vitesse model to write (atomically)\n",
        f);
}

/* Parses a positive finite number into *out; -1 when it is not one (message printed). */
int vt_cli_parse_cost_factor(const char *arg, double *out) {
  char *end;
  double v = strtod(arg, &end);
  if (end == arg || *end || !isfinite(v) || !(v > 0)) {
    vt_cli_error("--cost-factor: expected a positive number, got '%s'", arg);
    return -1;
  }
  *out = v;
  return 0;
}

enum { OPT_FROM = 256, OPT_COST };

int vt_cmd_convert(int argc, char **argv) {
  static const struct option longopts[] = {{"from", required_argument, 0, OPT_FROM},
                                           {"cost-factor", required_argument, 0, OPT_COST},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  const char *from = "auto", *out_path = NULL;
  double cf = 0.0;
  vt_model *m = NULL;
  int rc = VT_EXIT_USAGE;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    switch (c) {
    case OPT_FROM: from = optarg; break;
    case OPT_COST:
      if (vt_cli_parse_cost_factor(optarg, &cf)) goto done;
      break;
    case 'o': out_path = optarg; break;
    case 'h':
      convert_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: convert_usage(stderr); goto done;
    }
  }
  if (optind != argc - 1 || !out_path) {
    vt_cli_error("convert: one model IN and -o OUT are required (see vitesse convert --help)");
    goto done;
  }
  vt_status st = vt_model_open_as(&m, argv[optind], from, cf);
  if (st == VT_OK && (st = vt_model_save(m, out_path)) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_EINVAL ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    goto done;
  }
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  rc = VT_EXIT_OK;
done:
  vt_model_close(m);
  return rc;
}
