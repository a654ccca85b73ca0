/* engine/cli/cmd_chunk_tag.c: `vitesse chunk-tag` (= `vitesse tag -m JOINT_MODEL`): a column
 * corpus in, the same lines with the predicted POS tag and chunk label (B-X, I-X, O) appended. */
#include <stdlib.h>
#include <string.h>

#include "chunk_cli.h"
#include "chunk_corpus.h"
#include "chunk_model_file.h"
#include "chunk_tag.h"
#include "cli.h"
#include "outfile.h"
#include "text_cli.h"

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
      "  --stats         a JSON object of run statistics on stderr at the end\n"
      "  -o OUT          write to OUT atomically (default: stdout)\n",
      f);
  fputs(VT_CORPUS_HELP, f);
}

enum { OPT_MAXCHUNK = 256, OPT_WORDCOL, OPT_POSCOL, OPT_CHUNKCOL, OPT_EVAL, OPT_STATS };

typedef struct tag_ctx {
  vt_chunk_model *m; /* only read: dictionaries are not grown (ro.grow == 0) */
  int32_t W;
  vt_chunk_read_opts ro; /* columns for --eval */
  int eval;
  vt_arena *arena;
  int32_t *word, *pos, *ctag;
  uint8_t *type, *begin;
  int32_t cap;
  vt_chunk_corpus gold; /* the current batch's gold columns (--eval) */
  vt_chunk_eval ev;
  vt_chunk_stats stats;
  double decode_seconds;
} tag_ctx;

static int grow(tag_ctx *t, int32_t n) {
  if (n <= t->cap) return 0;
  int32_t cap = t->cap ? t->cap : 256;
  while (cap < n) cap *= 2;
  int32_t *w = realloc(t->word, (size_t)cap * sizeof *w);
  if (w) t->word = w;
  int32_t *p = realloc(t->pos, (size_t)cap * sizeof *p);
  if (p) t->pos = p;
  int32_t *c = realloc(t->ctag, (size_t)cap * sizeof *c);
  if (c) t->ctag = c;
  uint8_t *ty = realloc(t->type, (size_t)cap);
  if (ty) t->type = ty;
  uint8_t *b = realloc(t->begin, (size_t)cap);
  if (b) t->begin = b;
  if (!w || !p || !c || !ty || !b) return -1;
  t->cap = cap;
  return 0;
}

/* Writes token t's two predicted columns. */
static void put_labels(const tag_ctx *t, FILE *out, char sep, int32_t i) {
  size_t len;
  const char *ps = vt_featdict_str(&t->m->pos_names, t->pos[i], &len);
  fputc(sep, out);
  fwrite(ps, 1, len, out);
  fputc(sep, out);
  if (t->ctag[i] == 0) {
    fputc('O', out);
    return;
  }
  const char *cs = vt_featdict_str(&t->m->chunk_names, t->ctag[i], &len);
  fputs(t->begin[i] ? "B-" : "I-", out);
  fwrite(cs, 1, len, out);
}

/* Tags and writes sentence s of b. */
static vt_status tag_sentence(tag_ctx *t, const vt_sentbatch *b, int32_t s, int64_t gold_s,
                              FILE *out) {
  const vt_sentence *se = &b->sents[s];
  const int32_t T = se->T;
  if (T > 0) {
    if (grow(t, T)) return VT_ENOMEM;
    vt_chunk_batch_x(t->m, b, s, t->ro.word_col, t->word, t->type);
    vt_chunk_x x = {T, t->word, t->type};
    vt_chunk_out o = {t->pos, t->ctag, t->begin, 0};
    vt_arena_reset(t->arena);
    double t0 = vt_cli_now();
    vt_status st = vt_chunk_tag_sentence(t->m, &x, t->W, t->arena, &o, &t->stats);
    t->decode_seconds += vt_cli_now() - t0;
    if (st != VT_OK) return st;
    if (t->eval) {
      const int64_t g = t->gold.off[gold_s];
      vt_chunk_eval_add(&t->ev, T, t->gold.pos + g, t->gold.ctag + g, t->gold.bio + g, t->pos,
                        t->ctag, t->begin);
    }
  }
  for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
    const vt_sentline *ln = &b->lines[l];
    fwrite(b->bytes + ln->off, 1, ln->len, out);
    if (ln->tok >= 0) put_labels(t, out, se->sep, ln->tok);
    fputc('\n', out);
  }
  if (T > 0) fputc('\n', out);
  return VT_OK;
}

/* Tags every sentence of `path`; returns a CLI exit status. */
static int tag_file(tag_ctx *t, const char *path, const vt_conll_opts *co, vt_sentbatch *b,
                    FILE *out) {
  char err[512];
  vt_conll *r = NULL;
  vt_status st = vt_conll_open(&r, path, co, err, sizeof err);
  while (st == VT_OK) {
    int32_t n;
    int full;
    vt_sentbatch_clear(b);
    st = vt_conll_read(r, b, 4096, (size_t)16 << 20, &n, err, sizeof err);
    if (st != VT_OK || n == 0) break;
    for (int32_t s = 0; s < b->n_sents; s++) /* every token line has the word column */
      if (b->sents[s].T > 0 && b->sents[s].ncols <= t->ro.word_col) {
        snprintf(err, sizeof err, "%s:%llu: %d columns, no word column %d", b->sents[s].file,
                 (unsigned long long)vt_sentbatch_lineno(b, s, 0), b->sents[s].ncols,
                 t->ro.word_col);
        st = VT_EFORMAT;
        goto end;
      }
    if (t->eval) {
      t->gold.n_sent = t->gold.n_tok = 0;
      st = vt_chunk_corpus_add(&t->gold, t->m, b, &t->ro, &full, err, sizeof err);
      if (st != VT_OK) break;
    }
    int64_t g = 0;
    for (int32_t s = 0; s < b->n_sents && st == VT_OK; s++) {
      st = tag_sentence(t, b, s, g, out);
      g += b->sents[s].T > 0;
    }
    if (st == VT_ENOMEM) snprintf(err, sizeof err, "%s: out of memory", path);
  }
end:
  vt_conll_close(r);
  if (st == VT_OK) return VT_EXIT_OK;
  vt_cli_error("%s", err);
  return st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
}

int vt_cmd_chunk_tag(int argc, char **argv) {
  static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                           {"max-chunk", required_argument, 0, OPT_MAXCHUNK},
                                           {"word-col", required_argument, 0, OPT_WORDCOL},
                                           {"pos-col", required_argument, 0, OPT_POSCOL},
                                           {"chunk-col", required_argument, 0, OPT_CHUNKCOL},
                                           {"eval", no_argument, 0, OPT_EVAL},
                                           {"stats", no_argument, 0, OPT_STATS},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *model_path = NULL, *out_path = NULL;
  long long W = -1;
  int rc = VT_EXIT_USAGE, c, want_stats = 0;
  char err[512];
  vt_chunk_model m;
  memset(&m, 0, sizeof m);
  vt_conll_opts co;
  vt_conll_opts_init(&co);
  tag_ctx t;
  memset(&t, 0, sizeof t);
  vt_chunk_read_opts_init(&t.ro);
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_outfile of;
  memset(&of, 0, sizeof of);
  optind = 1;
  while ((c = getopt_long(argc, argv, "m:o:h", longopts, NULL)) != -1) {
    int h = vt_cli_corpus_opt(c, optarg, &co);
    if (h < 0) goto done;
    if (h > 0) continue;
    int32_t *col = c == OPT_WORDCOL    ? &t.ro.word_col
                   : c == OPT_POSCOL   ? &t.ro.pos_col
                   : c == OPT_CHUNKCOL ? &t.ro.chunk_col
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
    case 'm': model_path = optarg; break;
    case 'o': out_path = optarg; break;
    case OPT_EVAL: t.eval = 1; break;
    case OPT_STATS: want_stats = 1; break;
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
    default: usage(stderr); goto done;
    }
  }
  if (!model_path) {
    vt_cli_error("chunk-tag: -m MODEL is required (see vitesse chunk-tag --help)");
    goto done;
  }
  int st = vt_chunk_model_load(&m, model_path, err, sizeof err);
  if (st != VT_OK) {
    vt_cli_error("%s", err);
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  rc = VT_EXIT_FAIL;
  t.m = &m;
  t.W = W >= 0 ? (int32_t)W : m.max_chunk;
  if (!t.eval) t.ro.pos_col = -1, t.ro.chunk_col = -2;
  if (vt_arena_create(&t.arena, 0) != VT_OK) {
    vt_cli_error("out of memory");
    goto done;
  }
  if (vt_outfile_open(&of, out_path, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    goto done;
  }
  const double t0 = vt_cli_now();
  if (optind == argc) rc = tag_file(&t, "-", &co, &b, of.fp);
  for (int i = optind; i < argc; i++)
    if ((rc = tag_file(&t, argv[i], &co, &b, of.fp)) != VT_EXIT_OK) break;
  if (rc != VT_EXIT_OK) goto done;
  if (vt_outfile_commit(&of, err, sizeof err) != VT_OK) {
    vt_cli_error("%s", err);
    rc = VT_EXIT_FAIL;
    goto done;
  }
  const double secs = vt_cli_now() - t0;
  if (t.eval) {
    double p, r, f1 = vt_chunk_eval_f1(&t.ev, &p, &r);
    fprintf(stderr,
            "tokens %lld, POS accuracy %.2f%%, chunk-tag accuracy %.2f%%, chunks: "
            "precision %.2f%% recall %.2f%% F1 %.2f\n",
            (long long)t.ev.tokens, vt_chunk_eval_pos_acc(&t.ev), vt_chunk_eval_tag_acc(&t.ev), p,
            r, f1);
  }
  if (want_stats) {
    const double ns = (double)t.stats.sentences;
    fprintf(stderr,
            "{\"model\": \"joint-chunk\", \"simd\": \"%s\", \"max_chunk\": %d, "
            "\"pos_tags\": %d, \"chunk_tags\": %d, \"sentences\": %lld, \"tokens\": %lld, "
            "\"seconds\": %.6f, \"decode_seconds\": %.6f, \"sentences_per_s\": %.1f, "
            "\"decode_sentences_per_s\": %.1f}\n",
            vt_simd_name(vt_simd_active()), t.W, m.p, m.c, (long long)t.stats.sentences,
            (long long)t.stats.tokens, secs, t.decode_seconds, secs > 0 ? ns / secs : 0.0,
            t.decode_seconds > 0 ? ns / t.decode_seconds : 0.0);
  }
  rc = VT_EXIT_OK;
done:
  vt_outfile_abort(&of);
  vt_sentbatch_free(&b);
  vt_chunk_corpus_free(&t.gold);
  vt_arena_destroy(t.arena);
  free(t.word), free(t.pos), free(t.ctag), free(t.type), free(t.begin);
  vt_chunk_model_free(&m);
  return rc;
}

int vt_chunk_cli_joint_model(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *path = NULL;
    if ((!strcmp(a, "-m") || !strcmp(a, "--model")) && i + 1 < argc)
      path = argv[i + 1];
    else if (!strncmp(a, "--model=", 8))
      path = a + 8;
    else if (!strncmp(a, "-m", 2) && a[2])
      path = a + 2;
    if (path) return vt_chunk_model_sniff(path);
  }
  return 0;
}
