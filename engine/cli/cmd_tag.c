/* engine/cli/cmd_tag.c: `vitesse tag`, a column corpus in, the same lines with the predicted
 * label appended out.
 *
 * The corpus runs through the engine (engine/cli/tag_engine.c): the reader cuts batches of
 * whole sentences, workers tag them with vt_text_tag_batch, the writer writes them in input
 * order: the output is the same bytes for any thread count and batch size. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chunk_cli.h"
#include "cli.h"
#include "decoder_cli.h"
#include "engine_cli.h"
#include "text_cli.h"

static void tag_usage(FILE *f) {
  fputs("usage: vitesse tag -m MODEL [--algo A] [decoder options] [engine options]\n"
        "                   [corpus options] [FILE...] [-o OUT]\n"
        "\n"
        "Tags column corpora (files, .gz, or standard input when no FILE or -): prints every\n"
        "input line, token lines followed by the predicted label as a last column, and a blank\n"
        "line after each sentence. With -k K, each sentence is printed once per path (K best),\n"
        "after a line \"# RANK SCORE\". Output order is input order, the same bytes for any\n"
        "--threads.\n"
        "options:\n"
        "  -m MODEL        model written by vitesse train, or a CRF++ 0.58/0.59 (binary or\n"
        "                  text) or Wapiti 1.5 model, recognised by content (labels as the\n"
        "                  peer's own tagger gives them; vitesse convert makes it load faster)\n"
        "  --cost-factor C CRF++ models: weights times C > 0, as crf_test -c C\n"
        "  --label-sep S   the byte before each label: tab (as crf_test and wapiti label),\n"
        "                  space, or input (default: the token line's own separator)\n"
        "  --algo A        any decoder of vitesse decode (see vitesse decode --help); default:\n"
        "                  the fastest exact one for the model's label count L and -k, as in\n"
        "                  vitesse decode; viterbi (kbest-viterbi with -k > 1) for models with\n"
        "                  observation-dependent bigram templates\n"
        "  -o OUT          write to OUT atomically (default: stdout)\n"
        "confidence (CRF++'s -v1/-v2 layout; models without observation-dependent bigrams):\n"
        "  -v 1            label column LABEL/MARGINAL (forward-backward) and a line \"# PROB\"\n"
        "                  before each sentence (with -k K: \"# RANK PROB\" before each path),\n"
        "                  PROB = the path's probability exp(score - log Z)\n"
        "  -v 2            as -v 1, then LABEL/MARGINAL of every label of the model\n"
        "allowed labels (every decoder and the marginals honour them exactly):\n"
        "  --tag-dict FILE  a tag dictionary: lines \"WORD LABEL...\"; a word of the dictionary\n"
        "                  gets only its labels, other words any label\n"
        "  --dict-col C    the column holding the word (0-based; default 0)\n"
        "  --partial-col C  partial labels: a token whose column C (0-based) holds a label is\n"
        "                  fixed to it (over the dictionary); \"_\" or empty leaves it free\n"
        "  --forbid-transitions FILE  lines \"PREV CUR\" of label names never to follow each\n"
        "                  other (\"<s> CUR\": never first, \"PREV </s>\": never last)\n"
        "  --bio           forbid the transitions invalid in IOB2 (IOBES when a label starts\n"
        "                  with E- or S-): I-X only after B-X or I-X, ...\n"
        "A sentence left with no path prints \"_\" labels (-v: \"# 0\" and \"_/0\").\n",
        f);
  fputs(
      "CRFsuite models (crf1d files of crfsuite learn, or vitesse convert --from crfsuite)\n"
      "read CRFsuite item files (LABEL<TAB>ATTR[:VALUE]<TAB>...) and print what crfsuite tag\n"
      "prints: one label a line, a blank line after each sequence; with -k K each path after\n"
      "\"# RANK SCORE\"; and as crfsuite tag's options of the same names:\n"
      "  -p, --probability   \"@score\\tSCORE\\tLOGZ\" and \"@probability\\tP\" before a sequence\n"
      "  -i, --marginal      LABEL:MARGINAL\n"
      "  -l, --marginal-all  then \\tLABEL:MARGINAL for every label\n",
      f);
  fputs(vt_cli_decoder_usage, f);
  fputs("The corpus options default to those the model was trained with. A joint POS + chunk\n"
        "model (vitesse train --joint-chunk) is tagged as vitesse chunk-tag does.\n",
        f);
  fputs(VT_CORPUS_HELP, f);
  fputs(vt_cli_engine_usage, f);
}

/* CPU time of the whole process (all threads), in seconds. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { OPT_DICT = 1500, OPT_DICT_COL, OPT_PARTIAL, OPT_FORBID, OPT_BIO, OPT_COST, OPT_LABEL_SEP };

/* Parses a 0-based column index into *out; -1 when it is not one (message printed). */
static int parse_col(const char *opt, const char *arg, int32_t *out) {
  long long v;
  if (vt_cli_parse_int(arg, 0, 1000000, &v)) {
    vt_cli_error("%s: expected a 0-based column index, got '%s'", opt, arg);
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

int vt_cmd_tag(int argc, char **argv) {
  vt_model *m = NULL; /* opened here only when -m can be read once (a pipe) */
  int joint = vt_chunk_cli_joint_model(argc, argv, &m);
  if (joint < 0) return VT_EXIT_USAGE;
  if (joint) return vt_cli_chunk_tag_with(argc, argv, m);
  static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                           VT_CLI_DECODER_LONGOPTS,
                                           VT_CLI_ENGINE_LONGOPTS,
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           {"verbose", required_argument, 0, 'v'},
                                           {"tag-dict", required_argument, 0, OPT_DICT},
                                           {"dict-col", required_argument, 0, OPT_DICT_COL},
                                           {"partial-col", required_argument, 0, OPT_PARTIAL},
                                           {"forbid-transitions", required_argument, 0, OPT_FORBID},
                                           {"bio", no_argument, 0, OPT_BIO},
                                           {"cost-factor", required_argument, 0, OPT_COST},
                                           {"label-sep", required_argument, 0, OPT_LABEL_SEP},
                                           {"probability", no_argument, 0, 'p'},
                                           {"marginal", no_argument, 0, 'i'},
                                           {"marginal-all", no_argument, 0, 'l'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *model_path = NULL, *out_path = NULL, *dict_path = NULL, *forbid_path = NULL;
  int32_t verbose = 0, dict_col = 0, partial_col = -1;
  int bio = 0, crfsuite_out = 0;
  double cost_factor = 0.0;
  int label_sep = 0;
  vt_constraints *cons = NULL;
  vt_cli_decoder dec;
  vt_cli_decoder_init(&dec);
  int rc = VT_EXIT_USAGE;
  vt_cli_engine run;
  vt_cli_engine_init(&run);
  vt_engine *eng = NULL;
  vt_cli_reader reader;
  vt_cli_reader_init(&reader);
  vt_output *of = NULL;

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "m:k:o:hv:pil", longopts, NULL)) != -1) {
    int eo = vt_cli_engine_opt(&run, c, optarg);
    if (eo == 0) eo = vt_cli_decoder_opt(&dec, c, optarg);
    if (eo < 0) goto done;
    if (eo > 0) continue;
    int h = vt_cli_reader_opt(&reader, c, optarg);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case 'm': model_path = optarg; break;
    case 'o': out_path = optarg; break;
    case 'v':
      if (strcmp(optarg, "0") && strcmp(optarg, "1") && strcmp(optarg, "2")) {
        vt_cli_error("tag: -v: expected 0, 1 or 2, got '%s'", optarg);
        goto done;
      }
      verbose = optarg[0] - '0';
      break;
    case OPT_DICT: dict_path = optarg; break;
    case OPT_DICT_COL:
      if (parse_col("--dict-col", optarg, &dict_col)) goto done;
      break;
    case OPT_PARTIAL:
      if (parse_col("--partial-col", optarg, &partial_col)) goto done;
      break;
    case OPT_FORBID: forbid_path = optarg; break;
    case OPT_BIO: bio = 1; break;
    case OPT_COST:
      if (vt_cli_parse_cost_factor(optarg, &cost_factor)) goto done;
      break;
    case OPT_LABEL_SEP:
      if (strcmp(optarg, "tab") && strcmp(optarg, "space") && strcmp(optarg, "input")) {
        vt_cli_error("tag: --label-sep: expected tab, space or input, got '%s'", optarg);
        goto done;
      }
      label_sep = optarg[0] == 't' ? '\t' : optarg[0] == 's' ? ' ' : 0;
      break;
    case 'p': crfsuite_out |= VT_CRFSUITE_PROB; break;
    case 'i': crfsuite_out |= VT_CRFSUITE_MARG; break;
    case 'l': crfsuite_out |= VT_CRFSUITE_MARG_ALL; break;
    case 'h':
      tag_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: tag_usage(stderr); goto done;
    }
  }
  if (!model_path) {
    vt_cli_error("tag: -m MODEL is required (see vitesse tag --help)");
    goto done;
  }
  vt_tag_opts to;
  vt_tag_opts_init(&to);
  if (vt_cli_decoder_resolve(&dec, 0, &to.decode)) goto done;

  if (m && cost_factor > 0) {
    vt_cli_error("tag: --cost-factor needs a CRF++ model file, not a pipe");
    goto done;
  }
  vt_status st = m ? VT_OK : vt_model_open_as(&m, model_path, NULL, cost_factor);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  if (!dec.algo) { /* the model's default decoder; the other decoder options stay */
    vt_decode_opts def;
    vt_model_default_decoder(m, to.decode.k, &def);
    to.decode.algo = def.algo;
  }
  if (vt_model_check_decoder(m, &to.decode) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  to.reader = reader.given;
  to.reader_set = reader.set;
  to.verbose = verbose;
  to.label_sep = label_sep;
  to.crfsuite_out = crfsuite_out;
  if ((forbid_path && vt_model_forbid_file(m, forbid_path) != VT_OK) ||
      (bio && vt_model_forbid_bio(m, NULL) != VT_OK)) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  if (dict_path || partial_col >= 0) {
    if (vt_constraints_create(&cons, m) != VT_OK ||
        vt_constraints_columns(cons, dict_col, partial_col) != VT_OK ||
        (dict_path && vt_constraints_load_dict(cons, dict_path) != VT_OK)) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
    to.constraints = cons;
  }
  vt_model_info info;
  vt_model_describe(m, &info);

  rc = VT_EXIT_FAIL;
  if (vt_cli_engine_start(&run, 0, &eng) != 0) {
    rc = VT_EXIT_USAGE;
    goto done;
  }
  if (vt_output_open(&of, out_path) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  vt_cli_signals_temp(vt_output_temp_path(of)); /* a second ^C removes it */
  double t0 = vt_cli_now(), c0 = cpu_now();
  vt_run_report tot;
  st = vt_engine_tag(eng, m, &to, (const char *const *)argv + optind, argc - optind, vt_sink_file,
                     vt_output_file(of), &tot);
  rc = vt_cli_tag_end(st, &tot, &of, out_path,
                      st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EIO ? VT_EXIT_USAGE
                                                                                : VT_EXIT_FAIL);
  if (rc >= 0) goto done;
  double secs = vt_cli_now() - t0, cpu = cpu_now() - c0;
  if (run.stats) {
    double ns = (double)tot.sentences;
    fprintf(stderr,
            "{\"algo\": \"%s\", \"simd\": \"%s\", \"k\": %lld, \"beam\": %lld, "
            "\"labels\": %d, \"sentences\": %lld, \"tokens\": %lld, \"seconds\": %.6f, "
            "\"setup_seconds\": %.6f, \"cpu_seconds\": %.6f, "
            "\"sentences_per_second\": %.1f, \"feature_seconds\": %.6f, "
            "\"decode_seconds\": %.6f, \"decode_sentences_per_second\": %.1f, "
            "\"unknown_feature_fraction\": %.4f, \"row_cache_hit_fraction\": %.4f, "
            "\"budget_fallbacks\": %lld, \"sparse_sentences\": %lld, ",
            vt_algo_name(to.decode.algo), vt_simd_name(vt_simd_active()), dec.k, dec.beam,
            info.labels, (long long)tot.sentences, (long long)tot.tokens, secs,
            secs > tot.wall_seconds ? secs - tot.wall_seconds : 0.0, cpu,
            tot.wall_seconds > 0 ? ns / tot.wall_seconds : 0.0, tot.feature_seconds,
            tot.decode_seconds, tot.decode_seconds > 0 ? ns / tot.decode_seconds : 0.0,
            tot.lookups ? (double)tot.unknown_features / (double)tot.lookups : 0.0,
            tot.tokens ? (double)tot.cache_hits / (double)tot.tokens : 0.0,
            (long long)tot.decode.budget_fallbacks, (long long)tot.decode.sparse);
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  vt_cli_signals_temp(NULL);
  vt_output_abort(of);
  vt_cli_engine_stop(eng);
  vt_constraints_destroy(cons);
  vt_model_close(m);
  return rc;
}
