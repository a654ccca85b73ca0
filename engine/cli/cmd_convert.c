/* engine/cli/cmd_convert.c: `vitesse convert`, another toolkit's model (CRF++, Wapiti, CRFsuite)
 * written as a native vitesse model file, or a CRFsuite model written back as CRFsuite's own
 * crf1d file (vt_model_open_as, vt_model_save_as). To add an input format: its name in FORMATS
 * and in vt_model_open_as; an output format: in TARGETS and in vt_model_save_as. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/text_cli.h"

#define FORMATS "auto|crfpp|wapiti|crfsuite"
#define TARGETS "vitesse|crfsuite"

static void convert_usage(FILE *f) {
  fputs("usage: vitesse convert [--from " FORMATS "] [--to " TARGETS "] [--cost-factor C]\n"
        "                       IN -o OUT\n"
        "\n"
        "Writes the model IN (a CRF++ 0.58/0.59 binary or text model, a Wapiti 1.5 model, a\n"
        "CRFsuite 0.12 model as crfsuite learn, python-crfsuite or sklearn-crfsuite write it,\n"
        "or a vitesse model) as a vitesse model file OUT: checksummed and mapped at load, it\n"
        "tags exactly as IN does with vitesse tag -m IN (the same bytes out), and loads faster.\n"
        "Labels keep the peer's order (ties go to its lowest label, as in its own tagger);\n"
        "weights are kept as float32.\n"
        "options:\n"
        "  --from F         the format of IN: " FORMATS " (default auto: by content)\n"
        "  --to T           the format of OUT: " TARGETS " (default vitesse); crfsuite\n"
        "                   writes a CRFsuite model IN as the crf1d file CRFsuite 0.12 writes,\n"
        "                   which crfsuite tag reads and tags as IN\n"
        "  --cost-factor C  CRF++ only: multiply the weights by C > 0, as crf_test -c C\n"
        "                   (default: the factor stored in the model)\n"
        "  -o OUT           the model to write (atomically)\n" VT_CLI_MAX_MODEL_MEMORY_USAGE,
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

enum { OPT_FROM = 256, OPT_TO, OPT_COST, OPT_MAX_MEMORY };

int vt_cmd_convert(int argc, char **argv) {
  static const struct option longopts[] = {
      {"from", required_argument, 0, OPT_FROM},
      {"to", required_argument, 0, OPT_TO},
      {"cost-factor", required_argument, 0, OPT_COST},
      {"max-model-memory", required_argument, 0, OPT_MAX_MEMORY},
      {"output", required_argument, 0, 'o'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *from = "auto", *to = "vitesse", *out_path = NULL;
  double cf = 0.0;
  vt_model *m = NULL;
  int rc = VT_EXIT_USAGE;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    switch (c) {
    case OPT_FROM: from = optarg; break;
    case OPT_TO: to = optarg; break;
    case OPT_COST:
      if (vt_cli_parse_cost_factor(optarg, &cf)) goto done;
      break;
    case OPT_MAX_MEMORY:
      if (vt_cli_max_model_memory(optarg)) goto done;
      break;
    case 'o': out_path = optarg; break;
    case 'h':
      convert_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_bad_option("convert", "o:h", argv); goto done;
    }
  }
  if (optind != argc - 1 || !out_path) {
    vt_cli_error("convert: one model IN and -o OUT are required (see vitesse convert --help)");
    goto done;
  }
  if (strcmp(to, "vitesse") && strcmp(to, "crfsuite")) { /* before a model is read */
    vt_cli_error("--to: expected " TARGETS ", got '%s'", to);
    goto done;
  }
  vt_status st = vt_model_open_as(&m, argv[optind], from, cf);
  if (st == VT_OK && (st = vt_model_save_as(m, out_path, to)) != VT_OK) {
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
