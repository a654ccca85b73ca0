/* engine/train/corpus_src.c: a corpus from files or from sentences in memory, in batches
 * (corpus_src.h). */
#include "train/corpus_src.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/sentbatch.h"

/* Corpus batches: at most this many sentences and about this many bytes of text each. */
enum { BATCH_SENTS = 1024 };
#define BATCH_BYTES ((size_t)8 << 20)

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
 * or VT_ENOMEM (message in err). */
static vt_status batch_add(vt_sentbatch *b, const vt_sentence_in *s, const char *name,
                           uint64_t lineno, int32_t max_tokens, char *err, size_t errlen) {
  if (s->T < 0 || (s->T > 0 && (s->ncols < 1 || !s->cells)))
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "%s:%llu: a sentence needs T >= 0, ncols >= 1 and its cells", name,
                        (unsigned long long)lineno);
  if (s->T > max_tokens)
    return vt_fail_into(err, errlen, VT_EFORMAT,
                        "%s:%llu: sentence longer than %d tokens (--max-tokens)", name,
                        (unsigned long long)(lineno + (uint64_t)max_tokens), max_tokens);
  const uint64_t nf = (uint64_t)s->T * (uint64_t)s->ncols;
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < nf; i++) {
    if (!s->cells[i])
      return vt_fail_into(err, errlen, VT_EINVAL, "%s:%llu: cell %llu is NULL", name,
                          (unsigned long long)(lineno + i / (uint64_t)s->ncols),
                          (unsigned long long)(i % (uint64_t)s->ncols));
    bytes += strlen(s->cells[i]) + 1;
  }
  if (b->n_bytes + bytes > UINT32_MAX)
    return vt_fail_into(err, errlen, VT_EFORMAT, "%s:%llu: sentence too large (4 GiB)", name,
                        (unsigned long long)lineno);
  size_t cap_bytes = b->cap_bytes;
  if (b->n_bytes + bytes > cap_bytes) {
    size_t c = cap_bytes ? cap_bytes : 4096;
    while (c < b->n_bytes + bytes) c *= 2;
    char *q = realloc(b->bytes, c);
    if (!q) return vt_fail_into(err, errlen, VT_ENOMEM, "%s: out of memory", name);
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
    return vt_fail_into(err, errlen, VT_ENOMEM, "%s: out of memory", name);
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

vt_status vt_corpus_src_each(const vt_corpus_src *src, const vt_reader_opts *ro, vt_conll_fn fn,
                             void *ctx, char *err, size_t errlen) {
  vt_status st = VT_OK;
  vt_conll *r = NULL;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  err[0] = '\0';
  if (src->sents) {
    uint64_t lineno = 1;
    for (int64_t i = 0; i < src->n_sents && st == VT_OK; i++) {
      const vt_sentence_in *s = &src->sents[i];
      if (s->T == 0) continue;
      if ((st = batch_add(&b, s, src->name, lineno, ro->max_tokens, err, errlen)) != VT_OK)
        goto done;
      lineno += (uint64_t)s->T + 1;
      if (b.n_sents >= BATCH_SENTS || b.n_bytes >= BATCH_BYTES) {
        st = fn(ctx, &b, err, errlen);
        vt_sentbatch_clear(&b);
      }
    }
    if (st == VT_OK && b.n_sents > 0) st = fn(ctx, &b, err, errlen);
  } else {
    const int n_inputs = src->part ? 1 : src->n_files;
    for (int f = 0; f < n_inputs && st == VT_OK; f++) {
      const vt_train_part *pt = src->part;
      vt_reader_opts pro = *ro;
      if (pt && pt->sep != VT_SEP_AUTO) pro.sep = pt->sep; /* the whole file's */
      st = pt ? vt_conll_open_mem(&r, pt->name, pt->data, pt->len, (uint64_t)pt->first_line, &pro,
                                  err, errlen)
              : vt_conll_open(&r, src->files[f], ro, err, errlen);
      while (st == VT_OK) {
        int32_t n;
        vt_sentbatch_clear(&b);
        st = vt_conll_read(r, &b, BATCH_SENTS, BATCH_BYTES, &n, err, errlen);
        if (st != VT_OK || n == 0) break;
        st = fn(ctx, &b, err, errlen);
      }
      vt_conll_close(r);
      r = NULL;
    }
  }
  if (st == VT_ECANCELED) st = VT_OK;
done:
  vt_sentbatch_free(&b);
  return st;
}
