/* engine/cli/cmd_eval.c: `vitesse eval`, token accuracy and conlleval's chunk figures. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conlleval.h"
#include "text_cli.h"

#define MAX_LAYERS 16

static void eval_usage(FILE *f) {
  fputs("usage: vitesse eval [--chunk] [--split SEP] [--gold-col C] [--pred-col C]\n"
        "                    [corpus options] [FILE...]\n"
        "\n"
        "Compares gold and predicted labels of a tagged corpus (the output of vitesse tag on a\n"
        "corpus with gold labels; standard input when no FILE): token accuracy, and with\n"
        "--chunk the chunk precision, recall and F1 of conlleval (IOB1, IOB2, IOE1, IOE2,\n"
        "IOBES), overall and per type, in conlleval's format.\n"
        "options:\n"
        "  --chunk         chunk figures (labels B-TYPE, I-TYPE, E-TYPE, S-TYPE, O)\n"
        "  --split SEP     evaluate each layer of joint labels (e.g. --split '|' for NN|B-NP)\n"
        "  --gold-col C    gold label column (default: the one before the last)\n"
        "  --pred-col C    predicted label column (default: the last)\n"
        "Columns are 0-based indices, last, or CoNLL-U names. A line whose first column is -X-\n"
        "is a boundary, as in conlleval.\n",
        f);
  fputs(VT_CORPUS_HELP, f);
}

enum { OPT_CHUNK = 256, OPT_SPLIT, OPT_GOLD, OPT_PRED };

typedef struct eval_run {
  int chunk;
  const char *split;
  size_t split_len;
  int32_t gold_col, pred_col; /* -2: default */
  int n_layers;               /* 0 until the first token (1 without --split) */
  vt_conlleval layer[MAX_LAYERS];
  vt_conlleval whole;
  int64_t sentences, exact;
} eval_run;

/* Splits [s, s+n) at `sep` into at most `max` parts (the last keeps the rest). */
static int split_label(const char *s, size_t n, const char *sep, size_t sl, int max,
                       const char **part, size_t *plen) {
  int k = 0;
  const char *end = s + n;
  while (k < max - 1 && sl > 0) {
    const char *hit = NULL;
    for (const char *p = s; p + sl <= end; p++)
      if (memcmp(p, sep, sl) == 0) {
        hit = p;
        break;
      }
    if (!hit) break;
    part[k] = s;
    plen[k++] = (size_t)(hit - s);
    s = hit + sl;
  }
  part[k] = s;
  plen[k++] = (size_t)(end - s);
  return k;
}

static int resolve(int32_t want, int32_t dflt_from_end, int32_t ncols) {
  if (want == -2) return ncols - dflt_from_end;
  if (want == -1) return ncols - 1;
  return want;
}

/* Counts the sentences of one batch. */
static vt_status eval_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  eval_run *ev = ctx;
  vt_status st = VT_OK;
  for (int32_t s = 0; s < b->n_sents && st == VT_OK; s++) {
    const vt_sentence *se = &b->sents[s];
    if (se->T == 0) continue;
    int gc = resolve(ev->gold_col, 2, se->ncols), pc = resolve(ev->pred_col, 1, se->ncols);
    if (gc < 0 || gc >= se->ncols || pc < 0 || pc >= se->ncols) {
      snprintf(err, errlen,
               "%s:%llu: %d column(s): no gold column %d and predicted "
               "column %d",
               se->file, (unsigned long long)vt_sentbatch_lineno(b, s, 0), se->ncols, gc, pc);
      st = VT_EFORMAT;
      break;
    }
    int all_right = 1, counted = 0;
    for (int32_t t = 0; t < se->T && st == VT_OK; t++) {
      size_t gl, pl, fl;
      const char *first = vt_sentbatch_field(b, s, t, 0, &fl);
      if (fl == 3 && memcmp(first, "-X-", 3) == 0) { /* conlleval's document boundary */
        vt_conlleval_boundary(&ev->whole);
        for (int l = 0; l < ev->n_layers; l++) vt_conlleval_boundary(&ev->layer[l]);
        continue;
      }
      const char *g = vt_sentbatch_field(b, s, t, gc, &gl);
      const char *p = vt_sentbatch_field(b, s, t, pc, &pl);
      counted = 1;
      all_right &= gl == pl && memcmp(g, p, gl) == 0;
      st = vt_conlleval_token(&ev->whole, g, gl, p, pl);
      if (!ev->split) continue;
      const char *gp[MAX_LAYERS], *pp[MAX_LAYERS];
      size_t gpl[MAX_LAYERS], ppl[MAX_LAYERS];
      if (!ev->n_layers) {
        ev->n_layers = split_label(g, gl, ev->split, ev->split_len, MAX_LAYERS, gp, gpl);
        for (int l = 0; l < ev->n_layers; l++)
          if (vt_conlleval_init(&ev->layer[l]) != VT_OK) st = VT_ENOMEM;
      }
      int ng = split_label(g, gl, ev->split, ev->split_len, ev->n_layers, gp, gpl);
      int np = split_label(p, pl, ev->split, ev->split_len, ev->n_layers, pp, ppl);
      for (int l = 0; l < ev->n_layers && st == VT_OK; l++)
        st = vt_conlleval_token(&ev->layer[l], l < ng ? gp[l] : "", l < ng ? gpl[l] : 0,
                                l < np ? pp[l] : "", l < np ? ppl[l] : 0);
    }
    vt_conlleval_boundary(&ev->whole);
    for (int l = 0; l < ev->n_layers; l++) vt_conlleval_boundary(&ev->layer[l]);
    ev->sentences += counted;
    ev->exact += counted && all_right;
  }
  return st;
}

/* Adds one file; returns a CLI exit status. */
static int eval_file(eval_run *ev, const char *path, const vt_conll_opts *ro) {
  char err[512];
  vt_status st = vt_cli_corpus_each(path, ro, eval_batch, ev, err, sizeof err);
  if (st == VT_OK) return VT_EXIT_OK;
  vt_cli_error("%s", st == VT_ENOMEM ? "eval: out of memory" : err);
  return st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
}

static void report(const char *what, vt_conlleval *ev, int chunk) {
  printf("%stokens: %lld, correct: %lld, accuracy: %.2f%%\n", what, (long long)ev->tokens,
         (long long)ev->correct_tags,
         ev->tokens ? 100.0 * (double)ev->correct_tags / (double)ev->tokens : 0.0);
  if (chunk) vt_conlleval_report(ev, stdout);
}

int vt_cmd_eval(int argc, char **argv) {
  static const struct option longopts[] = {{"chunk", no_argument, 0, OPT_CHUNK},
                                           {"split", required_argument, 0, OPT_SPLIT},
                                           {"gold-col", required_argument, 0, OPT_GOLD},
                                           {"pred-col", required_argument, 0, OPT_PRED},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  int rc = VT_EXIT_USAGE;
  vt_conll_opts ro;
  vt_conll_opts_init(&ro);
  eval_run *ev = calloc(1, sizeof *ev);
  if (!ev || vt_conlleval_init(&ev->whole) != VT_OK) {
    vt_cli_error("eval: out of memory");
    rc = VT_EXIT_FAIL;
    goto done;
  }
  ev->gold_col = ev->pred_col = -2;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    int h = vt_cli_corpus_opt(c, optarg, &ro);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case OPT_CHUNK: ev->chunk = 1; break;
    case OPT_SPLIT:
      if (!*optarg) {
        vt_cli_error("--split: the separator is empty");
        goto done;
      }
      ev->split = optarg;
      ev->split_len = strlen(optarg);
      break;
    case OPT_GOLD:
    case OPT_PRED:
      if (vt_cli_parse_col(optarg, c == OPT_GOLD ? &ev->gold_col : &ev->pred_col)) {
        vt_cli_error("%s: expected a column index, last or a CoNLL-U name, got '%s'",
                     c == OPT_GOLD ? "--gold-col" : "--pred-col", optarg);
        goto done;
      }
      break;
    case 'h':
      eval_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: eval_usage(stderr); goto done;
    }
  }
  if (optind == argc) {
    rc = eval_file(ev, "-", &ro);
  } else {
    for (int i = optind; i < argc; i++)
      if ((rc = eval_file(ev, argv[i], &ro)) != VT_EXIT_OK) break;
  }
  if (rc != VT_EXIT_OK) goto done;
  printf("sentences: %lld, exactly right: %lld (%.2f%%)\n", (long long)ev->sentences,
         (long long)ev->exact,
         ev->sentences ? 100.0 * (double)ev->exact / (double)ev->sentences : 0.0);
  if (!ev->split) {
    report("", &ev->whole, ev->chunk);
  } else {
    report("joint labels: ", &ev->whole, 0);
    for (int l = 0; l < ev->n_layers; l++) {
      char what[64];
      snprintf(what, sizeof what, "layer %d of %d: ", l + 1, ev->n_layers);
      report(what, &ev->layer[l], ev->chunk);
    }
  }
  rc = VT_EXIT_OK;
done:
  if (ev) {
    vt_conlleval_free(&ev->whole);
    for (int l = 0; l < ev->n_layers; l++) vt_conlleval_free(&ev->layer[l]);
    free(ev);
  }
  return rc;
}
