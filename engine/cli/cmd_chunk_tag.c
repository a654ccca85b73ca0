/* engine/cli/cmd_chunk_tag.c: `vitesse chunk-tag` (= `vitesse tag -m JOINT_MODEL`): a column
 * corpus in, the same lines with the predicted POS tag and chunk label (B-X, I-X, O) appended:
 * the joint model's options, then the one tagging run of every kind (tag_drive.c). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/decoder_opts.h"
#include "cli/engine_opts.h"
#include "cli/tag_drive.h"
#include "cli/text_cli.h"

static void usage(FILE *f) {
  fputs(
      "usage: vitesse chunk-tag -m MODEL [--max-chunk L] [--word-col C] [--eval]\n"
      "         [--pos-col C] [--chunk-col C] [--stats] [corpus options] [FILE...] [-o OUT]\n"
      "   (or: vitesse tag -m MODEL ... with a joint model)\n"
      "\n"
      "Tags column corpora (files, .gz, or standard input) with a joint POS + chunk model\n"
      "(vitesse chunk-train): prints every input line, token lines followed by two columns,\n"
      "the predicted POS tag and chunk label (B-X, I-X or O), and a blank line after each\n"
      "sentence. The decoder is exact (Shimizu & Haas 2006, Algorithm 3.1).\n"
      "options:\n"
      "  -m MODEL        joint model\n"
      "  --max-chunk L   longest chunk considered (default: the model's training bound;\n"
      "                  0 = none). Time O(n L) instead of O(n^2) per sentence of n tokens\n"
      "  --word-col C    word column (default 0)\n"
      "  --eval          compare with the gold POS (--pos-col, default 1) and chunk (--chunk-col,\n"
      "                  default last) columns; POS accuracy, chunk-tag accuracy and chunk\n"
      "                  P/R/F1 on stderr\n"
      "  --algo A        only shimizu-haas, the joint model's one exact decoder (the default);\n"
      "                  -k, --beam, --heuristic, --refine and --kprime do not apply\n"
      "  --stats         a JSON object of run statistics on stderr at the end\n"
      "  -o OUT          write to OUT atomically (default: stdout)\n",
      f);
  fputs(VT_CORPUS_HELP, f);
  fputs(vt_cli_engine_usage, f);
}

enum { OPT_MAXCHUNK = 256, OPT_WORDCOL, OPT_POSCOL, OPT_CHUNKCOL, OPT_EVAL };

int vt_cmd_chunk_tag(int argc, char **argv) { return vt_cli_chunk_tag_with(argc, argv, NULL); }

int vt_cli_chunk_tag_setup(vt_cli_chunk_tag *ct, int argc, char **argv) {
  static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                           {"max-chunk", required_argument, 0, OPT_MAXCHUNK},
                                           {"word-col", required_argument, 0, OPT_WORDCOL},
                                           {"pos-col", required_argument, 0, OPT_POSCOL},
                                           {"chunk-col", required_argument, 0, OPT_CHUNKCOL},
                                           {"eval", no_argument, 0, OPT_EVAL},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CLI_ENGINE_LONGOPTS,
                                           VT_CORPUS_LONGOPTS,
                                           VT_CLI_DECODER_LONGOPTS,
                                           {0, 0, 0, 0}};
  long long W = -1;
  int rc = VT_EXIT_USAGE, c;
  vt_cli_engine_init(&ct->run);
  vt_tag_opts_init(&ct->to);
  ct->to.reader_from_model = 0;
  ct->model_path = ct->out_path = NULL;
  ct->files = NULL;
  ct->n_files = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "m:o:k:h", longopts, NULL)) != -1) {
    int h = vt_cli_engine_opt(&ct->run, c, optarg);
    if (h == 0) h = vt_cli_corpus_opt(c, optarg, &ct->to.reader);
    if (h < 0) goto done;
    if (h > 0) continue;
    if (c == VT_CLI_OPT_ALGO && !strcmp(optarg, "shimizu-haas")) continue;
    if (c == 'k' || (c >= VT_CLI_OPT_ALGO && c <= VT_CLI_OPT_REFINE)) {
      const char *name = "k";
      for (const struct option *o = longopts; o->name; o++)
        if (o->val == c) name = o->name;
      vt_cli_error("%s%s %s: a joint label-chunk model has one exact 1-best decoder, "
                   "--algo shimizu-haas (Shimizu & Haas 2006), and no decoder options",
                   c == 'k' ? "-" : "--", name, optarg);
      goto done;
    }
    int32_t *col = c == OPT_WORDCOL    ? &ct->to.word_col
                   : c == OPT_POSCOL   ? &ct->to.pos_col
                   : c == OPT_CHUNKCOL ? &ct->to.chunk_col
                                       : NULL;
    if (col) {
      if (vt_cli_parse_col(optarg, col) || (c != OPT_CHUNKCOL && *col < 0)) {
        vt_cli_error("%s: expected a 0-based column%s, got '%s'", argv[optind - 1],
                     c == OPT_CHUNKCOL ? ", last or a CoNLL-U name" : "", optarg);
        goto done;
      }
      continue;
    }
    switch (c) {
    case 'm': ct->model_path = optarg; break;
    case 'o': ct->out_path = optarg; break;
    case OPT_EVAL: ct->to.eval = 1; break;
    case OPT_MAXCHUNK:
      if (vt_cli_parse_int(optarg, 0, 1000000000, &W)) {
        vt_cli_error("--max-chunk: expected a non-negative integer, got '%s'", optarg);
        goto done;
      }
      break;
    case 'h':
      usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_bad_option("chunk-tag", "m:o:k:h", argv); goto done;
    }
  }
  if (!ct->model_path) {
    vt_cli_error("chunk-tag: -m MODEL is required (see vitesse chunk-tag --help)");
    goto done;
  }
  ct->files = (const char *const *)argv + optind;
  ct->n_files = argc - optind;
  vt_status st = ct->m ? VT_OK : vt_model_open(&ct->m, ct->model_path);
  if (st != VT_OK && vt_model_file_kind(ct->model_path) == 0) { /* readable, no joint model */
    FILE *probe = fopen(ct->model_path, "rb");
    if (probe) {
      fclose(probe);
      vt_cli_error("%s: not a joint label-chunk model (bad magic)", ct->model_path);
      goto done;
    }
  }
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  vt_model_describe(ct->m, &ct->info);
  if (!(ct->info.can & VT_CAN_CHUNKS)) {
    vt_cli_error("%s: not a joint label-chunk model (bad magic)", ct->model_path);
    goto done;
  }
  ct->to.max_chunk = W >= 0 ? (int32_t)W : ct->info.max_chunk;
  rc = -1;
done:
  return rc;
}

void vt_cli_chunk_tag_eval(const vt_run_report *rep, FILE *f) {
  double pos, tag, p, r, f1 = vt_run_report_chunk_f1(rep, &pos, &tag, &p, &r);
  fprintf(f,
          "tokens %lld, POS accuracy %.2f%%, chunk-tag accuracy %.2f%%, chunks: "
          "precision %.2f%% recall %.2f%% F1 %.2f\n",
          (long long)rep->eval_tokens, pos, tag, p, r, f1);
}

void vt_cli_chunk_tag_stats(const vt_cli_chunk_tag *ct, const vt_run_report *rep, double secs,
                            FILE *f) {
  const double ns = (double)rep->decode.sentences;
  fprintf(f,
          "{\"model\": \"joint-chunk\", \"algo\": \"shimizu-haas\", \"simd\": \"%s\", "
          "\"max_chunk\": %d, "
          "\"pos_tags\": %d, \"chunk_tags\": %d, \"sentences\": %lld, \"tokens\": %lld, "
          "\"seconds\": %.6f, \"decode_seconds\": %.6f, \"sentences_per_second\": %.1f, "
          "\"decode_sentences_per_second\": %.1f, ",
          vt_simd_name(vt_simd_active()), ct->to.max_chunk, ct->info.labels,
          (ct->info.chunk_labels + 1) / 2, (long long)rep->decode.sentences,
          (long long)rep->decode.tokens, secs, rep->decode_seconds, secs > 0 ? ns / secs : 0.0,
          rep->decode_seconds > 0 ? ns / rep->decode_seconds : 0.0);
}

/* The evaluation, and with --stats the opening of the JSON object (tag_drive.h). */
static void report(void *ctx, const vt_run_report *rep, double secs, double cpu, FILE *f) {
  const vt_cli_chunk_tag *ct = ctx;
  (void)cpu;
  if (ct->to.eval) vt_cli_chunk_tag_eval(rep, f);
  if (ct->run.stats) vt_cli_chunk_tag_stats(ct, rep, secs, f);
}

int vt_cli_chunk_tag_with(int argc, char **argv, vt_model *pre) {
  vt_cli_chunk_tag ct;
  memset(&ct, 0, sizeof ct);
  ct.m = pre;
  int rc = vt_cli_chunk_tag_setup(&ct, argc, argv);
  if (rc < 0) {
    vt_cli_tag_run r = {.run = &ct.run,
                        .m = ct.m,
                        .to = &ct.to,
                        .files = ct.files,
                        .n_files = ct.n_files,
                        .out_path = ct.out_path,
                        .report = report,
                        .ctx = &ct};
    rc = vt_cli_tag_drive(&r);
  }
  vt_model_close(ct.m);
  return rc;
}

int vt_chunk_cli_joint_model(int argc, char **argv, vt_model **pre) {
  *pre = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *path = NULL;
    if ((!strcmp(a, "-m") || !strcmp(a, "--model")) && i + 1 < argc)
      path = argv[i + 1];
    else if (!strncmp(a, "--model=", 8))
      path = a + 8;
    else if (!strncmp(a, "-m", 2) && a[2])
      path = a + 2;
    if (!path) continue;
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
      return vt_model_file_kind(path) == VT_MODEL_JOINT_CHUNK;
    if (vt_model_open(pre, path) != VT_OK) { /* a pipe: open it once, here */
      vt_cli_error("%s", vt_last_error());
      return -1;
    }
    vt_model_info info;
    vt_model_describe(*pre, &info);
    return info.kind == VT_MODEL_JOINT_CHUNK;
  }
  return 0;
}
