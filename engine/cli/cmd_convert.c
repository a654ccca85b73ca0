/* engine/cli/cmd_convert.c: `vitesse convert --from crfsuite IN -o OUT`: a peer toolkit's model
 * written as a native vitesse model file (vt_model_write_native) that tags identically and is
 * mapped at load instead of built. */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void convert_usage(FILE *f) {
  fputs("usage: vitesse convert --from crfsuite IN -o OUT\n"
        "\n"
        "Writes the peer model IN as a native vitesse model file OUT (atomically; checksummed,\n"
        "mapped at load): vitesse tag -m OUT tags as vitesse tag -m IN does, and loads faster.\n"
        "options:\n"
        "  --from FORMAT   the format of IN: crfsuite (a CRFsuite 0.12 crf1d model, as written\n"
        "                  by crfsuite learn, python-crfsuite or sklearn-crfsuite)\n"
        "  -o OUT          the native model to write\n",
        f);
}

int vt_cmd_convert(int argc, char **argv) {
  static const struct option longopts[] = {{"from", required_argument, 0, 'f'},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  const char *from = NULL, *out = NULL;
  vt_model *m = NULL;
  int rc = VT_EXIT_USAGE, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'f': from = optarg; break;
    case 'o': out = optarg; break;
    case 'h':
      convert_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: convert_usage(stderr); goto done;
    }
  }
  if (!from || strcmp(from, "crfsuite")) {
    vt_cli_error("convert: --from crfsuite is required (see vitesse convert --help)");
    goto done;
  }
  if (optind != argc - 1 || !out) {
    vt_cli_error("convert: one input model and -o OUT expected");
    goto done;
  }
  vt_status st = vt_model_open(&m, argv[optind]);
  if (st == VT_OK) {
    vt_model_info info;
    vt_model_describe(m, &info);
    if (info.kind != VT_MODEL_CRFSUITE)
      st = VT_EFORMAT, vt_cli_error("%s: not a CRFsuite model", argv[optind]);
  } else {
    vt_cli_error("%s", vt_last_error());
  }
  if (st == VT_OK && (st = vt_model_write_native(m, out)) != VT_OK)
    vt_cli_error("%s", vt_last_error());
  rc = st == VT_OK ? VT_EXIT_OK : st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
done:
  vt_model_close(m);
  return rc;
}
