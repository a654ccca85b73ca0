/* engine/cli/cmd_lattice.c: `vitesse lattice`, the score lattices a model gives a corpus, as the
 * .npy files `vitesse decode` reads (E, N, A, S, F, R): vt_model_write_lattices. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/text_cli.h"

static void lattice_usage(FILE *f) {
  fputs("usage: vitesse lattice -m MODEL -o DIR [corpus options] FILE...\n"
        "\n"
        "Writes the score lattices of the sentences of FILE... (- for stdin) under MODEL into\n"
        "DIR (created if missing): E.npy float32 (tokens, L) emissions, N.npy int64 sentence\n"
        "lengths, A.npy float32 (L, L) transitions, S.npy / F.npy float32 (L,) start and end\n"
        "scores, R.npy int32 (L,) labels by decreasing training frequency, labels.txt the\n"
        "label names, one per line, label 0 first. Then:\n"
        "  vitesse decode --emissions DIR/E.npy --lengths DIR/N.npy --transitions DIR/A.npy \\\n"
        "     --start DIR/S.npy --end DIR/F.npy --rank DIR/R.npy --labels DIR/labels.txt\n"
        "decodes them as vitesse tag would (E is rounded to float32).\n",
        f);
  fputs(VT_CORPUS_HELP, f);
}

int vt_cmd_lattice(int argc, char **argv) {
  static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *model_path = NULL, *dir = NULL;
  int rc = VT_EXIT_USAGE;
  vt_cli_reader reader;
  vt_cli_reader_init(&reader);
  vt_model *m = NULL;

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "m:o:h", longopts, NULL)) != -1) {
    int h = vt_cli_reader_opt(&reader, c, optarg);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case 'm': model_path = optarg; break;
    case 'o': dir = optarg; break;
    case 'h':
      lattice_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_bad_option("lattice", "m:o:h", argv); goto done;
    }
  }
  if (!model_path || !dir || optind == argc) {
    vt_cli_error("lattice: -m MODEL, -o DIR and at least one FILE are required");
    goto done;
  }
  vt_status st = vt_model_open(&m, model_path);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  vt_tag_opts to;
  vt_tag_opts_init(&to);
  to.reader = reader.given;
  to.reader_set = reader.set;
  vt_run_report rep;
  st =
      vt_model_write_lattices(m, &to, (const char *const *)argv + optind, argc - optind, dir, &rep);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM || rep.write_errno ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  vt_model_info info;
  vt_model_describe(m, &info);
  fprintf(stderr, "vitesse lattice: %lld sentences, %lld tokens, %d labels -> %s/\n",
          (long long)rep.sentences, (long long)rep.tokens, info.labels, dir);
  rc = VT_EXIT_OK;
done:
  vt_model_close(m);
  return rc;
}
