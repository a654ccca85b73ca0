/* engine/cli/tag_setup.c: the options of `vitesse tag` (tag_setup.h): parsed once here for the
 * `vitesse tag` command and for `vitesse-mpi tag`, which runs the same tagging on a cluster. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/tag_setup.h"
#include "cli/text_cli.h"

void vt_cli_tag_usage(FILE *f) {
  fputs(
      "usage: vitesse tag -m MODEL [--algo A] [decoder options] [engine options]\n"
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
      "  --label-sep S   the byte before each label: tab (as crf_test and wapiti label;\n"
      "                  with a CRF++ model the columns are joined by tabs too, as crf_test\n"
      "                  prints them), space, or input (the line's own separator); default:\n"
      "                  tab with a CRF++ model (crf_test's bytes), else input\n"
      "  -n, --nbest K   as -k K (the name crf_test and wapiti label give it)\n"
      "  --algo A        any decoder of vitesse decode (see vitesse decode --help); default:\n"
      "                  the fastest exact one for the model's label count L and -k, as in\n"
      "                  vitesse decode; viterbi (kbest-viterbi with -k > 1) for models with\n"
      "                  observation-dependent bigram templates\n"
      "  -o OUT          write to OUT atomically (default: stdout)\n" VT_CLI_RESUME_USAGE
          VT_CLI_PROGRESS_USAGE
      "CRF++ models, without --algo or constraints: -k K and -v run crf_test's own search\n"
      "(crf_test -n K, its order among exact ties, \"# RANK PROB\" headers, its digits).\n"
      "confidence (CRF++'s -v1/-v2 layout; CRF++ models, and models without\n"
      "observation-dependent bigrams):\n"
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
      "A sentence left with no path prints \"_\" labels (-v: \"# 0.000000\" and \"_/0.000000\").\n",
      f);
  fputs(
      "CRFsuite models (crf1d files of crfsuite learn, or vitesse convert --from crfsuite)\n"
      "read CRFsuite item files (LABEL<TAB>ATTR[:VALUE]<TAB>...) and print what crfsuite tag\n"
      "prints: one label a line, a blank line after each sequence; with -k K each path after\n"
      "\"# RANK SCORE\"; and as crfsuite tag's options of the same names:\n"
      "  -r, --reference     the item's reference label and a tab before each label\n"
      "  -p, --probability   \"@score\\tSCORE\\tLOGZ\" and \"@probability\\tP\" before a sequence\n"
      "  -i, --marginal      LABEL:MARGINAL\n"
      "  -l, --marginal-all  then \\tLABEL:MARGINAL for every label\n"
      "  -t, --test          then score the labels against the reference labels: per label\n"
      "                      #match, #model, #ref, precision, recall, F1; macro averages;\n"
      "                      item and instance accuracy (crfsuite's layout)\n"
      "  -q                  no tagging output (-qt: the scores only; --quiet is the\n"
      "                      progress line's)\n",
      f);
  fputs(vt_cli_decoder_usage, f);
  fputs("The corpus options default to those the model was trained with. A joint POS + chunk\n"
        "model (vitesse train --joint-chunk) is tagged as vitesse chunk-tag does.\n",
        f);
  fputs(VT_CORPUS_HELP, f);
  fputs(vt_cli_engine_usage, f);
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

void vt_cli_tag_init(vt_cli_tag *t) {
  memset(t, 0, sizeof *t);
  t->partial_col = -1;
  vt_cli_decoder_init(&t->dec);
  vt_cli_engine_init(&t->run);
  vt_tag_opts_init(&t->to);
}

#define TAG_LONGOPTS                                                                               \
  {"model", required_argument, 0, 'm'}, VT_CLI_DECODER_LONGOPTS, VT_CLI_ENGINE_LONGOPTS,           \
      VT_CLI_RESUME_LONGOPT, VT_CLI_PROGRESS_LONGOPT, {"output", required_argument, 0, 'o'},       \
      {"help", no_argument, 0, 'h'}, {"verbose", required_argument, 0, 'v'},                       \
      {"tag-dict", required_argument, 0, OPT_DICT},                                                \
      {"dict-col", required_argument, 0, OPT_DICT_COL},                                            \
      {"partial-col", required_argument, 0, OPT_PARTIAL},                                          \
      {"forbid-transitions", required_argument, 0, OPT_FORBID}, {"bio", no_argument, 0, OPT_BIO},  \
      {"probability", no_argument, 0, 'p'}, {"reference", no_argument, 0, 'r'},                    \
      {"test", no_argument, 0, 't'}, {"nbest", required_argument, 0, 'n'},                         \
      {"marginal", no_argument, 0, 'i'}, {"marginal-all", no_argument, 0, 'l'},                    \
      {"cost-factor", required_argument, 0, OPT_COST},                                             \
      {"label-sep", required_argument, 0, OPT_LABEL_SEP}, VT_CORPUS_LONGOPTS

/* A tagger's options, and every option `vitesse tag` parses: a joint model's too. */
static const struct option tag_longopts[] = {TAG_LONGOPTS, {0, 0, 0, 0}};
static const struct option any_longopts[] = {TAG_LONGOPTS, VT_CLI_CHUNK_LONGOPTS, {0, 0, 0, 0}};
#define TAG_SHORTOPTS "m:k:n:o:hv:pilrtq"

/* Applies the options `args` to a tagger's (or CRFsuite) run: vt_cli_tag_setup's work for any
 * model without chunk output. */
static int apply(vt_cli_tag *t, const vt_cli_arg_list *args) {
  const char *dict_path = NULL, *forbid_path = NULL;
  int32_t verbose = 0, dict_col = 0;
  int bio = 0, crfsuite_out = 0;
  double cost_factor = 0.0;
  int label_sep = -1; /* not given: crf_test's tab for a CRF++ model, else the input's */
  int rc = VT_EXIT_USAGE;
  vt_cli_reader reader;
  vt_cli_reader_init(&reader);

  for (int i = 0; i < args->n; i++) {
    const vt_cli_arg *a = &args->v[i];
    const int c = a->code;
    const char *v = a->value;
    int eo = vt_cli_engine_opt(&t->run, c, v);
    if (eo == 0) /* -n / --nbest: crf_test's and wapiti label's name of -k */
      eo = vt_cli_decoder_opt(&t->dec, c == 'n' ? 'k' : c, v);
    if (eo < 0) goto done;
    if (eo > 0) continue;
    int h = vt_cli_reader_opt(&reader, c, v);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case 'm': t->model_path = v; break;
    case 'o': t->out_path = v; break;
    case 'v':
      if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
        vt_cli_error("tag: -v: expected 0, 1 or 2, got '%s'", v);
        goto done;
      }
      verbose = v[0] - '0';
      break;
    case OPT_DICT: dict_path = v; break;
    case OPT_DICT_COL:
      if (parse_col("--dict-col", v, &dict_col)) goto done;
      break;
    case OPT_PARTIAL:
      if (parse_col("--partial-col", v, &t->partial_col)) goto done;
      break;
    case OPT_FORBID: forbid_path = v; break;
    case OPT_BIO: bio = 1; break;
    case 'p': crfsuite_out |= VT_CRFSUITE_PROB; break;
    case 'r': crfsuite_out |= VT_CRFSUITE_REF; break;
    case 't': t->crfs_test = 1; break;
    case 'q': t->crfs_quiet = 1; break;
    case 'i': crfsuite_out |= VT_CRFSUITE_MARG; break;
    case 'l': crfsuite_out |= VT_CRFSUITE_MARG_ALL; break;
    case OPT_COST:
      if (vt_cli_parse_cost_factor(v, &cost_factor)) goto done;
      break;
    case OPT_LABEL_SEP:
      if (strcmp(v, "tab") && strcmp(v, "space") && strcmp(v, "input")) {
        vt_cli_error("tag: --label-sep: expected tab, space or input, got '%s'", v);
        goto done;
      }
      label_sep = v[0] == 't' ? '\t' : v[0] == 's' ? ' ' : 0;
      break;
    case 'h':
      vt_cli_tag_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_arg_refuse("tag", TAG_SHORTOPTS, tag_longopts, a); goto done;
    }
  }
  t->files = args->files;
  t->n_files = args->n_files;
  if (!t->model_path) {
    vt_cli_error("tag: -m MODEL is required (see vitesse tag --help)");
    goto done;
  }
  if (vt_cli_decoder_resolve(&t->dec, 0, &t->to.decode)) goto done;

  if (t->m && cost_factor > 0) {
    vt_cli_error("tag: --cost-factor needs a CRF++ model file, not a pipe");
    goto done;
  }
  vt_status st = t->m ? VT_OK : vt_model_open_as(&t->m, t->model_path, NULL, cost_factor);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  if (!t->dec.algo) { /* the model's default decoder; the other decoder options stay */
    vt_decode_opts def;
    vt_model_default_decoder(t->m, t->to.decode.k, &def);
    t->to.decode.algo = def.algo;
  }
  if (vt_model_check_decoder(t->m, &t->to.decode) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  t->to.reader = reader.given;
  t->to.reader_set = reader.set;
  t->to.verbose = verbose;
  if (label_sep < 0) {
    vt_model_info info;
    vt_model_describe(t->m, &info);
    label_sep = info.label_sep; /* crf_test's layout for a CRF++ model */
  }
  t->to.label_sep = label_sep;
  t->to.crfsuite_out = crfsuite_out;
  t->to.peer_search = !t->dec.algo; /* CRF++ models: crf_test's own n-best and digits */
  if ((forbid_path && vt_model_forbid_file(t->m, forbid_path) != VT_OK) ||
      (bio && vt_model_forbid_bio(t->m, NULL) != VT_OK)) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  if (dict_path || t->partial_col >= 0) {
    if (vt_constraints_create(&t->cons, t->m) != VT_OK ||
        vt_constraints_columns(t->cons, dict_col, t->partial_col) != VT_OK ||
        (dict_path && vt_constraints_load_dict(t->cons, dict_path) != VT_OK)) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
    t->to.constraints = t->cons;
  }
  vt_model_describe(t->m, &t->info);
  if ((t->crfs_test || t->crfs_quiet) && !(t->info.can & VT_CAN_ITEMS)) {
    vt_cli_error("tag: -%c: only with a CRFsuite model (item files; vitesse eval scores a "
                 "column corpus)",
                 t->crfs_test ? 't' : 'q');
    goto done;
  }
  if (t->crfs_test && t->to.decode.k > 1) {
    vt_cli_error("tag: -t scores the best path: not with -k %d", t->to.decode.k);
    goto done;
  }
  rc = -1;
done:
  return rc;
}

void vt_cli_tag_stats(const vt_cli_tag *t, const vt_run_report *tot, double secs, double cpu,
                      FILE *f) {
  double ns = (double)tot->sentences;
  fprintf(f,
          "{\"algo\": \"%s\", \"simd\": \"%s\", \"k\": %lld, \"beam\": %lld, "
          "\"labels\": %d, \"sentences\": %lld, \"tokens\": %lld, \"seconds\": %.6f, "
          "\"setup_seconds\": %.6f, \"cpu_seconds\": %.6f, "
          "\"sentences_per_second\": %.1f, \"feature_seconds\": %.6f, "
          "\"decode_seconds\": %.6f, \"decode_sentences_per_second\": %.1f, "
          "\"unknown_feature_fraction\": %.4f, \"row_cache_hit_fraction\": %.4f, "
          "\"budget_fallbacks\": %lld, \"sparse_sentences\": %lld, ",
          vt_algo_name(t->to.decode.algo), vt_simd_name(vt_simd_active()), t->dec.k, t->dec.beam,
          t->info.labels, (long long)tot->sentences, (long long)tot->tokens, secs,
          secs > tot->wall_seconds ? secs - tot->wall_seconds : 0.0, cpu,
          tot->wall_seconds > 0 ? ns / tot->wall_seconds : 0.0, tot->feature_seconds,
          tot->decode_seconds, tot->decode_seconds > 0 ? ns / tot->decode_seconds : 0.0,
          tot->lookups ? (double)tot->unknown_features / (double)tot->lookups : 0.0,
          tot->tokens ? (double)tot->cache_hits / (double)tot->tokens : 0.0,
          (long long)tot->decode.budget_fallbacks, (long long)tot->decode.sparse);
}

/* Learns what the model -m names can do before the options are applied: from its file's first
 * bytes, or (a model that can be read only once: a pipe, /dev/stdin) by opening it into t->m.
 * Returns 0, or -1 when that open fails (message printed). */
static int model_can(vt_cli_tag *t, const vt_cli_arg_list *args, uint32_t *can) {
  const char *path = NULL;
  *can = 0;
  for (int i = 0; i < args->n; i++)
    if (args->v[i].code == 'm') path = args->v[i].value;
  if (!path) return 0;
  struct stat st;
  if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    *can = vt_model_kind_can(vt_model_file_kind(path));
    return 0;
  }
  if (vt_model_open(&t->m, path) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    return -1;
  }
  vt_model_info info;
  vt_model_describe(t->m, &info);
  *can = info.can;
  return 0;
}

int vt_cli_tag_setup(vt_cli_tag *t, int argc, char **argv) {
  vt_cli_arg_list args;
  uint32_t can;
  int rc = VT_EXIT_USAGE;
  if (vt_cli_arg_list_parse(&args, argc, argv, TAG_SHORTOPTS, any_longopts)) return VT_EXIT_FAIL;
  if (model_can(t, &args, &can)) goto done;
  if (can & VT_CAN_CHUNKS) { /* a joint model: chunk-tag's options */
    t->joint = 1;
    t->chunk.m = t->m;
    t->m = NULL;
    rc = vt_cli_chunk_tag_apply(&t->chunk, &args);
  } else {
    rc = apply(t, &args);
  }
done:
  vt_cli_arg_list_free(&args);
  return rc;
}

void vt_cli_tag_free(vt_cli_tag *t) {
  vt_constraints_destroy(t->cons);
  vt_model_close(t->m);
  vt_model_close(t->chunk.m);
  t->cons = NULL;
  t->m = t->chunk.m = NULL;
}
