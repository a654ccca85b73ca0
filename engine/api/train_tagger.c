/* engine/api/train_tagger.c: the public training API for taggers (vitesse.h, "training"): the
 * averaged perceptron over feature templates, from corpus files or sentences held in memory,
 * through to the model file. Templates are parsed, the corpora compiled (engine/text/
 * train_corpus.h), the weights trained (train.h), exported (train_export.h) and written
 * atomically (io/model_file.h); progress goes to the caller's callbacks, never to a stream. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conll.h"
#include "errmsg.h"
#include "model_file.h"
#include "sentbatch.h"
#include "train.h"
#include "train_export.h"
#include "vitesse.h"

/* Corpus batches: at most this many sentences and about this many bytes of text each. */
enum { BATCH_SENTS = 1024 };
#define BATCH_BYTES ((size_t)8 << 20)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void vt_train_opts_init(vt_train_opts *o) {
  memset(o, 0, sizeof *o);
  vt_reader_opts_init(&o->reader);
  o->epochs = 10;
  o->seed = 1;
  o->label_col = -1;
  o->min_count = 1;
  o->decoder = VT_ALGO_VITERBI;
  o->lex_warmup = 1;
  o->pos_col = 1;
  o->chunk_col = -1;
}

/* Where the sentences of one corpus come from: files, or sentences in memory named `name`. */
typedef struct corpus_src {
  const char *const *files;
  int n_files;
  const vt_sentence_in *sents;
  int64_t n_sents;
  const char *name;
} corpus_src;

/* Grows *p (elements of `size` bytes, capacity *cap) to hold `need`; 0, or -1 out of memory. */
static int grow(void **p, uint32_t *cap, uint64_t need, size_t size) {
  if (need <= *cap) return 0;
  if (need > UINT32_MAX) return -1;
  uint64_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  if (c > UINT32_MAX) c = UINT32_MAX;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return -1;
  *p = q;
  *cap = (uint32_t)c;
  return 0;
}

/* Appends in-memory sentence `s` (its first token on line `lineno`) to `b` as the corpus reader
 * would have read it: one tab-separated line per token. Returns VT_OK, VT_EINVAL, VT_EFORMAT
 * or VT_ENOMEM (message recorded). */
static vt_status batch_add(vt_sentbatch *b, const vt_sentence_in *s, const char *name,
                           uint64_t lineno, int32_t max_tokens) {
  if (s->T < 0 || (s->T > 0 && (s->ncols < 1 || !s->cells)))
    return vt_fail(VT_EINVAL, "%s:%llu: a sentence needs T >= 0, ncols >= 1 and its cells", name,
                   (unsigned long long)lineno);
  if (s->T > max_tokens)
    return vt_fail(VT_EFORMAT, "%s:%llu: sentence longer than %d tokens (--max-tokens)", name,
                   (unsigned long long)(lineno + (uint64_t)max_tokens), max_tokens);
  const uint64_t nf = (uint64_t)s->T * (uint64_t)s->ncols;
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < nf; i++) {
    if (!s->cells[i])
      return vt_fail(VT_EINVAL, "%s:%llu: cell %llu is NULL", name,
                     (unsigned long long)(lineno + i / (uint64_t)s->ncols),
                     (unsigned long long)(i % (uint64_t)s->ncols));
    bytes += strlen(s->cells[i]) + 1;
  }
  if (b->n_bytes + bytes > UINT32_MAX)
    return vt_fail(VT_EFORMAT, "%s:%llu: sentence too large (4 GiB)", name,
                   (unsigned long long)lineno);
  size_t cap_bytes = b->cap_bytes;
  if (b->n_bytes + bytes > cap_bytes) {
    size_t c = cap_bytes ? cap_bytes : 4096;
    while (c < b->n_bytes + bytes) c *= 2;
    char *q = realloc(b->bytes, c);
    if (!q) return vt_fail(VT_ENOMEM, "%s: out of memory", name);
    b->bytes = q;
    b->cap_bytes = c;
  }
  uint32_t cap_sents = (uint32_t)b->cap_sents;
  if (grow((void **)&b->lines, &b->cap_lines, (uint64_t)b->n_lines + (uint64_t)s->T,
           sizeof *b->lines) ||
      grow((void **)&b->fields, &b->cap_fields, (uint64_t)b->n_fields + 2 * nf,
           sizeof *b->fields) ||
      grow((void **)&b->tok_line, &b->cap_toks, (uint64_t)b->n_toks + (uint64_t)s->T,
           sizeof *b->tok_line) ||
      grow((void **)&b->sents, &cap_sents, (uint64_t)b->n_sents + 1, sizeof *b->sents))
    return vt_fail(VT_ENOMEM, "%s: out of memory", name);
  b->cap_sents = (int32_t)(cap_sents > INT32_MAX ? INT32_MAX : cap_sents);
  vt_sentence *se = &b->sents[b->n_sents++];
  se->file = name;
  se->line0 = b->n_lines;
  se->nlines = (uint32_t)s->T;
  se->tok0 = b->n_toks;
  se->field0 = b->n_fields / 2;
  se->T = s->T;
  se->ncols = s->T > 0 ? s->ncols : 0;
  se->sep = '\t';
  for (int32_t t = 0; t < s->T; t++) {
    vt_sentline *ln = &b->lines[b->n_lines];
    ln->off = (uint32_t)b->n_bytes;
    ln->tok = t;
    ln->lineno = lineno + (uint64_t)t;
    for (int32_t c = 0; c < s->ncols; c++) {
      const char *cell = s->cells[(size_t)t * (size_t)s->ncols + (size_t)c];
      size_t len = strlen(cell);
      if (c > 0) b->bytes[b->n_bytes++] = '\t';
      b->fields[b->n_fields++] = (uint32_t)b->n_bytes;
      b->fields[b->n_fields++] = (uint32_t)len;
      memcpy(b->bytes + b->n_bytes, cell, len);
      b->n_bytes += len;
    }
    ln->len = (uint32_t)(b->n_bytes - ln->off);
    b->tok_line[b->n_toks++] = b->n_lines++;
  }
  return VT_OK;
}

/* Compiles every sentence of `src` into `c` with the dictionaries of `d`. Returns VT_OK or the
 * first failure (message recorded). */
static vt_status compile_src(vt_trainset *d, vt_tcorpus *c, const corpus_src *src,
                             const vt_reader_opts *ro) {
  char err[512];
  vt_status st = VT_OK;
  vt_conll *r = NULL;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  if (src->sents) {
    uint64_t lineno = 1;
    for (int64_t i = 0; i < src->n_sents && st == VT_OK; i++) {
      const vt_sentence_in *s = &src->sents[i];
      if (s->T == 0) continue;
      st = batch_add(&b, s, src->name, lineno, ro->max_tokens);
      lineno += (uint64_t)(s->T > 0 ? s->T : 0) + 1;
      if (st == VT_OK && (b.n_sents >= BATCH_SENTS || b.n_bytes >= BATCH_BYTES)) {
        if ((st = vt_trainset_compile(d, c, &b, err, sizeof err)) != VT_OK)
          st = vt_fail(st, "%s", err);
        vt_sentbatch_clear(&b);
      }
    }
    if (st == VT_OK && b.n_sents > 0 &&
        (st = vt_trainset_compile(d, c, &b, err, sizeof err)) != VT_OK)
      st = vt_fail(st, "%s", err);
    goto done;
  }
  for (int f = 0; f < src->n_files && st == VT_OK; f++) {
    st = vt_conll_open(&r, src->files[f], ro, err, sizeof err);
    while (st == VT_OK) {
      int32_t n;
      vt_sentbatch_clear(&b);
      st = vt_conll_read(r, &b, BATCH_SENTS, BATCH_BYTES, &n, err, sizeof err);
      if (st != VT_OK || n == 0) break;
      st = vt_trainset_compile(d, c, &b, err, sizeof err);
    }
    vt_conll_close(r);
    r = NULL;
    if (st != VT_OK) st = vt_fail(st, "%s", err);
  }
done:
  vt_sentbatch_free(&b);
  return st;
}

/* The whole pipeline, for either kind of source. */
static vt_status train_tagger(const vt_train_opts *o, const corpus_src *train,
                              const corpus_src *dev, const char *out_path, vt_train_report *rep) {
  vt_status st = VT_OK;
  char err[512];
  vt_tmplset ts;
  memset(&ts, 0, sizeof ts);
  vt_trainset d;
  memset(&d, 0, sizeof d);
  vt_tcorpus tc, dc;
  memset(&tc, 0, sizeof tc);
  memset(&dc, 0, sizeof dc);
  vt_weights W;
  memset(&W, 0, sizeof W);
  vt_export x;
  memset(&x, 0, sizeof x);
  int32_t *rank = NULL;

  if (!o || !o->templates || !out_path) {
    st = vt_fail(VT_EINVAL, "train: the templates and the model path are required");
    goto done;
  }
  if (o->epochs < 1 || o->label_col < -1 || o->min_count < 1 || o->reader.max_tokens < 1) {
    st =
        vt_fail(VT_EINVAL, "train: epochs, min_count and max_tokens must be >= 1, label_col >= -1");
    goto done;
  }
  vt_algo algo = vt_algo_available(VT_ALGO_STAGGERED_COL) ? VT_ALGO_STAGGERED_COL : VT_ALGO_VITERBI;
  if (o->decoder_set) {
    algo = o->decoder;
    if ((unsigned)algo >= (unsigned)VT_ALGO_COUNT_) {
      st = vt_fail(VT_EINVAL, "--decoder: unknown algorithm %d", (int)algo);
      goto done;
    }
    if (!vt_algo_available(algo)) {
      st = vt_fail(VT_EUNSUPPORTED, "--decoder: not implemented in this version: '%s'",
                   vt_algo_name(algo));
      goto done;
    }
    if (!vt_algo_exact(algo)) {
      st = vt_fail(VT_EINVAL, "--decoder: '%s' is approximate; training needs an exact decoder",
                   vt_algo_name(algo));
      goto done;
    }
  }
  const size_t tmpl_len = o->templates_len ? o->templates_len : strlen(o->templates);
  st = vt_tmplset_parse(&ts, o->templates, tmpl_len,
                        o->templates_name ? o->templates_name : "templates", err, sizeof err);
  if (st != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  if (ts.n_b > 0 && !o->decoder_set) algo = VT_ALGO_VITERBI;
  if (vt_trainset_init(&d, &ts, o->label_col) != VT_OK) goto nomem;
  double t0 = now();
  if ((st = compile_src(&d, &tc, train, &o->reader)) != VT_OK) goto done;
  if (tc.n_sent == 0) {
    st = vt_fail(VT_EFORMAT, "%s: no sentence to train on",
                 train->sents || train->n_files != 1 ? train->name : train->files[0]);
    goto done;
  }
  if (vt_trainset_freeze(&d, &tc, o->min_count) != VT_OK) goto nomem;
  if (dev && (st = compile_src(&d, &dc, dev, &o->reader)) != VT_OK) goto done;
  const int32_t L = d.labels.n;
  rank = malloc((size_t)L * sizeof *rank);
  if (!rank || vt_weights_init(&W, L, d.n_weights, d.bigram) != VT_OK) goto nomem;
  vt_export_rank(&d, rank);
  rep->sentences = tc.n_sent;
  rep->tokens = tc.n_tok;
  rep->labels = L;
  rep->features = d.n_weights;
  rep->templates = ts.n;
  rep->decoder = algo;
  rep->read_seconds = now() - t0;
  rep->input_ok = 1;
  if (o->on_start) o->on_start(o->ctx, rep);

  vt_perc_opts to = {o->epochs, o->seed, algo, o->on_progress, o->on_epoch, o->ctx};
  vt_perc_report pr;
  st = vt_train_run(&W, &tc, dev ? &dc : NULL, rank, ts.n_b > 0, &to, &pr, err, sizeof err);
  rep->epochs = pr.epochs;
  rep->train_seconds = pr.seconds;
  rep->decode_seconds = pr.decode_seconds;
  rep->train_accuracy = pr.train_accuracy;
  rep->dev_accuracy = pr.dev_accuracy;
  if (st != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  vt_textmodel_meta meta;
  memset(&meta, 0, sizeof meta);
  meta.label_col = o->label_col;
  meta.ncols = d.ncols;
  meta.epochs = pr.epochs;
  meta.reader = vt_textmodel_reader_pack(&o->reader);
  meta.seed = o->seed;
  meta.train_sentences = (uint64_t)tc.n_sent;
  meta.train_tokens = (uint64_t)tc.n_tok;
  snprintf(meta.decoder, sizeof meta.decoder, "%s", vt_algo_name(algo));
  st = vt_export_build(&x, &d, &W, o->templates, tmpl_len, &meta);
  if (st != VT_OK) {
    st = st == VT_EINVAL ? vt_fail(VT_EIO, "%s: model too large", out_path)
                         : vt_fail(VT_ENOMEM, "%s: out of memory", out_path);
    goto done;
  }
  st = vt_textmodel_write(out_path, &x.img, err, sizeof err);
  if (st != VT_OK) {
    st = vt_fail(st == VT_ENOMEM ? VT_ENOMEM : VT_EIO, "%s", err);
    goto done;
  }
  rep->model_features = x.img.n_feat;
  rep->model_bytes = x.img.recs_len + (uint64_t)L * (uint64_t)L * 4;
  goto done;
nomem:
  st = vt_fail(VT_ENOMEM, "train: out of memory");
done:
  vt_export_free(&x);
  vt_weights_free(&W);
  vt_tcorpus_free(&tc);
  vt_tcorpus_free(&dc);
  vt_trainset_free(&d);
  vt_tmplset_free(&ts);
  free(rank);
  return st;
}

/* Zeroes *rep (NULL: nothing to do): no figure yet, no dev accuracy. */
static void report_reset(vt_train_report *rep) {
  if (!rep) return;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
}

/* Runs train_tagger with *rep reset, or with a scratch report when rep is NULL. */
static vt_status run(const vt_train_opts *o, const corpus_src *train, const corpus_src *dev,
                     const char *out_path, vt_train_report *rep) {
  vt_train_report scratch;
  if (!rep) rep = &scratch;
  report_reset(rep);
  return train_tagger(o, train, dev, out_path, rep);
}

vt_status vt_train_tagger(const vt_train_opts *opts, const char *const *train, int n_train,
                          const char *const *dev, int n_dev, const char *out_path,
                          vt_train_report *rep) {
  report_reset(rep);
  if (!train || n_train < 1 || n_dev < 0 || (n_dev > 0 && !dev))
    return vt_fail(VT_EINVAL, "train: expected at least one training corpus");
  for (int i = 0; i < n_train; i++)
    if (!train[i]) return vt_fail(VT_EINVAL, "train: corpus path %d is NULL", i);
  for (int i = 0; i < n_dev; i++)
    if (!dev[i]) return vt_fail(VT_EINVAL, "train: dev corpus path %d is NULL", i);
  corpus_src ts = {train, n_train, NULL, 0, "train"};
  corpus_src ds = {dev, n_dev, NULL, 0, "dev"};
  return run(opts, &ts, n_dev > 0 ? &ds : NULL, out_path, rep);
}

vt_status vt_train_tagger_mem(const vt_train_opts *opts, const vt_sentence_in *train,
                              int64_t n_train, const vt_sentence_in *dev, int64_t n_dev,
                              const char *out_path, vt_train_report *rep) {
  static const vt_sentence_in none = {NULL, 0, 0};
  report_reset(rep);
  if (n_train < 0 || (n_train > 0 && !train) || n_dev < 0 || (n_dev > 0 && !dev))
    return vt_fail(VT_EINVAL, "train: bad sentence array");
  corpus_src ts = {NULL, 0, n_train > 0 ? train : &none, n_train, "train"};
  corpus_src ds = {NULL, 0, n_dev > 0 ? dev : &none, n_dev, "dev"};
  return run(opts, &ts, n_dev > 0 ? &ds : NULL, out_path, rep);
}
