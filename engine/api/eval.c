/* engine/api/eval.c: vt_eval_files (vitesse.h), token accuracy and conlleval's chunk figures of
 * tagged corpora, per layer of joint labels on request. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/conll.h"
#include "text/conlleval.h"

#define MAX_LAYERS 16

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

static void report(FILE *out, const char *what, vt_conlleval *ev, int chunk) {
  fprintf(out, "%stokens: %lld, correct: %lld, accuracy: %.2f%%\n", what, (long long)ev->tokens,
          (long long)ev->correct_tags,
          ev->tokens ? 100.0 * (double)ev->correct_tags / (double)ev->tokens : 0.0);
  if (chunk) vt_conlleval_report(ev, out);
}

void vt_eval_opts_init(vt_eval_opts *o) {
  memset(o, 0, sizeof *o);
  o->gold_col = o->pred_col = -2;
  vt_reader_opts_init(&o->reader);
}

vt_status vt_eval_files(const vt_eval_opts *o, const char *const *files, int n_files, FILE *out) {
  char err[VT_ERR_LINE];
  vt_status st = VT_ENOMEM;
  eval_run *ev = calloc(1, sizeof *ev);
  if (!ev || vt_conlleval_init(&ev->whole) != VT_OK) goto done;
  ev->chunk = o->chunk;
  ev->split = o->split && *o->split ? o->split : NULL;
  ev->split_len = ev->split ? strlen(ev->split) : 0;
  /* CoNLL-U: the gold label is UPOS (a MISC default would compare nothing useful). */
  ev->gold_col = o->gold_col == -2 && o->reader.conllu ? 3 : o->gold_col;
  ev->pred_col = o->pred_col;
  st = VT_OK;
  for (int i = 0; i < (n_files ? n_files : 1) && st == VT_OK; i++)
    st = vt_conll_each(n_files ? files[i] : "-", &o->reader, eval_batch, ev, err, sizeof err);
  if (st != VT_OK) goto done;
  if (ev->whole.tokens == 0) { /* nothing to compare: a report of 0.00% would mislead */
    if (n_files == 1 || n_files == 0)
      snprintf(err, sizeof err, "%s: no tokens to evaluate", n_files ? files[0] : "-");
    else
      snprintf(err, sizeof err, "eval: no tokens to evaluate in the %d input files", n_files);
    st = VT_EFORMAT;
    goto done;
  }
  fprintf(out, "sentences: %lld, exactly right: %lld (%.2f%%)\n", (long long)ev->sentences,
          (long long)ev->exact,
          ev->sentences ? 100.0 * (double)ev->exact / (double)ev->sentences : 0.0);
  if (!ev->split) {
    report(out, "", &ev->whole, ev->chunk);
  } else {
    report(out, "joint labels: ", &ev->whole, 0);
    for (int l = 0; l < ev->n_layers; l++) {
      char what[64];
      snprintf(what, sizeof what, "layer %d of %d: ", l + 1, ev->n_layers);
      report(out, what, &ev->layer[l], ev->chunk);
    }
  }
done:
  if (st == VT_ENOMEM)
    vt_fail(st, "eval: out of memory");
  else if (st != VT_OK)
    vt_fail(st, "%s", err);
  if (ev) {
    vt_conlleval_free(&ev->whole);
    for (int l = 0; l < ev->n_layers; l++) vt_conlleval_free(&ev->layer[l]);
    free(ev);
  }
  return st;
}
