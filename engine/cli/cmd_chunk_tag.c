/* engine/cli/cmd_chunk_tag.c: `vitesse chunk-tag` (= `vitesse tag -m JOINT_MODEL`): a column
 * corpus in, the same lines with the predicted POS tag and chunk label (B-X, I-X, O) appended:
 * the joint model's options, then the one tagging run of every kind (tag_drive.c). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/arg_list.h"
#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/decoder_opts.h"
#include "cli/engine_opts.h"
#include "cli/tag_drive.h"
#include "cli/tag_resume.h"
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
      "  -o OUT          write to OUT atomically (default: stdout)\n" VT_CLI_RESUME_USAGE
          VT_CLI_PROGRESS_USAGE,
      f);
  fputs(VT_CORPUS_HELP, f);
  fputs(vt_cli_engine_usage, f);
}

static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                         VT_CLI_CHUNK_LONGOPTS,
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         VT_CLI_ENGINE_LONGOPTS,
                                         VT_CLI_RESUME_LONGOPT,
                                         VT_CLI_PROGRESS_LONGOPT,
                                         VT_CORPUS_LONGOPTS,
                                         VT_CLI_DECODER_LONGOPTS,
                                         {0, 0, 0, 0}};

int vt_cmd_chunk_tag(int argc, char **argv) {
  vt_cli_chunk_tag ct;
  memset(&ct, 0, sizeof ct);
  int rc = vt_cli_chunk_tag_setup(&ct, argc, argv);
  if (rc < 0) rc = vt_cli_chunk_tag_run(&ct, argv);
  vt_model_close(ct.m);
  return rc;
}

int vt_cli_chunk_tag_setup(vt_cli_chunk_tag *ct, int argc, char **argv) {
  vt_cli_arg_list args;
  if (vt_cli_arg_list_parse(&args, argc, argv, "m:o:k:h", longopts)) return VT_EXIT_FAIL;
  int rc = vt_cli_chunk_tag_apply(ct, &args);
  vt_cli_arg_list_free(&args);
  return rc;
}

int vt_cli_chunk_tag_apply(vt_cli_chunk_tag *ct, const vt_cli_arg_list *args) {
  long long W = -1;
  int rc = VT_EXIT_USAGE;
  vt_cli_engine_init(&ct->run);
  vt_tag_opts_init(&ct->to);
  ct->to.reader_from_model = 0;
  ct->model_path = ct->out_path = NULL;
  ct->files = NULL;
  ct->n_files = 0;
  for (int i = 0; i < args->n; i++) {
    const vt_cli_arg *a = &args->v[i];
    const int c = a->code;
    const char *v = a->value;
    int h = vt_cli_engine_opt(&ct->run, c, v);
    if (h == 0) h = vt_cli_corpus_opt(c, v, &ct->to.reader);
    if (h < 0) goto done;
    if (h > 0) continue;
    if (c == VT_CLI_OPT_ALGO && !strcmp(v, "shimizu-haas")) continue;
    if (c == 'k' || (c >= VT_CLI_OPT_ALGO && c <= VT_CLI_OPT_REFINE)) {
      const char *name = "k";
      for (const struct option *o = longopts; o->name; o++)
        if (o->val == c) name = o->name;
      vt_cli_error("%s%s %s: a joint label-chunk model has one exact 1-best decoder, "
                   "--algo shimizu-haas (Shimizu & Haas 2006), and no decoder options",
                   c == 'k' ? "-" : "--", name, v);
      goto done;
    }
    int32_t *col = c == VT_CLI_OPT_WORD_COL    ? &ct->to.word_col
                   : c == VT_CLI_OPT_POS_COL   ? &ct->to.pos_col
                   : c == VT_CLI_OPT_CHUNK_COL ? &ct->to.chunk_col
                                               : NULL;
    if (col) {
      if (vt_cli_parse_col(v, col) || (c != VT_CLI_OPT_CHUNK_COL && *col < 0)) {
        vt_cli_error("%s: expected a 0-based column%s, got '%s'", a->word,
                     c == VT_CLI_OPT_CHUNK_COL ? ", last or a CoNLL-U name" : "", v);
        goto done;
      }
      continue;
    }
    switch (c) {
    case 'm': ct->model_path = v; break;
    case 'o': ct->out_path = v; break;
    case VT_CLI_OPT_EVAL: ct->to.eval = 1; break;
    case VT_CLI_OPT_MAX_CHUNK:
      if (vt_cli_parse_int(v, 0, 1000000000, &W)) {
        vt_cli_error("--max-chunk: expected a non-negative integer, got '%s'", v);
        goto done;
      }
      break;
    case 'h':
      usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: vt_cli_arg_refuse("chunk-tag", "m:o:k:h", longopts, a); goto done;
    }
  }
  if (!ct->model_path) {
    vt_cli_error("chunk-tag: -m MODEL is required (see vitesse chunk-tag --help)");
    goto done;
  }
  ct->files = args->files;
  ct->n_files = args->n_files;
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

int vt_cli_chunk_tag_run(vt_cli_chunk_tag *ct, char **argv) {
  vt_cli_tag_run r = {.run = &ct->run,
                      .m = ct->m,
                      .to = &ct->to,
                      .files = ct->files,
                      .n_files = ct->n_files,
                      .out_path = ct->out_path,
                      .model_path = ct->model_path,
                      .opts = argv + 1,
                      .n_opts = (int)(ct->files - (const char *const *)argv) - 1,
                      .report = report,
                      .ctx = ct};
  return ct->run.resume ? vt_cli_tag_resume_drive(&r) : vt_cli_tag_drive(&r);
}
