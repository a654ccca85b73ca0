/* engine/api/tagdict_build.c: vt_tagdict_build (vitesse.h): a tag dictionary from a labelled
 * corpus, every label each word has in it, in the file format vt_constraints_load_dict reads. */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/conll.h"
#include "text/strhash.h"

/* Interned strings: bytes back to back, an open-addressing table of index + 1. */
typedef struct strset {
  char *bytes;
  size_t len, cap;
  size_t *off; /* n + 1 */
  int32_t n, ncap;
  int32_t *slot;
  uint32_t mask;
  uint64_t key; /* the hash key (strhash.h), drawn with the first table */
} strset;

/* The index of [s, s + n) in `z`, adding it when absent; -1 when out of memory. */
static int32_t intern(strset *z, const char *s, size_t n) {
  if (!z->slot || (uint32_t)(z->n + 1) * 2 > z->mask) {
    uint32_t cap = z->slot ? (z->mask + 1) * 2 : 1024;
    if (!z->slot) z->key = vt_hash_key();
    int32_t *slot = calloc(cap, sizeof *slot);
    if (!slot) return -1;
    for (int32_t i = 0; i < z->n; i++) {
      uint32_t h =
          (uint32_t)vt_strhash_keyed(z->bytes + z->off[i], z->off[i + 1] - z->off[i], z->key) &
          (cap - 1);
      while (slot[h]) h = (h + 1) & (cap - 1);
      slot[h] = i + 1;
    }
    free(z->slot);
    z->slot = slot;
    z->mask = cap - 1;
  }
  uint32_t h = (uint32_t)vt_strhash_keyed(s, n, z->key) & z->mask;
  for (; z->slot[h]; h = (h + 1) & z->mask) {
    int32_t i = z->slot[h] - 1;
    if (z->off[i + 1] - z->off[i] == n && memcmp(z->bytes + z->off[i], s, n) == 0) return i;
  }
  if (z->len + n > z->cap) {
    size_t cap = z->cap ? z->cap : 4096;
    while (cap < z->len + n) cap *= 2;
    char *b = realloc(z->bytes, cap);
    if (!b) return -1;
    z->bytes = b;
    z->cap = cap;
  }
  if (z->n + 2 > z->ncap) {
    int32_t cap = z->ncap ? 2 * z->ncap : 1024;
    size_t *o = realloc(z->off, (size_t)cap * sizeof *o);
    if (!o) return -1;
    if (z->n == 0) o[0] = 0;
    z->off = o;
    z->ncap = cap;
  }
  memcpy(z->bytes + z->len, s, n);
  z->len += n;
  z->off[z->n + 1] = z->len;
  z->slot[h] = z->n + 1;
  return z->n++;
}

static void strset_free(strset *z) {
  free(z->bytes);
  free(z->off);
  free(z->slot);
}

typedef struct build {
  int32_t word_col, label_col;
  strset words, labels;
  /* per word: the head of its label list; list cells: label and next (-1 ends) */
  int32_t *head, *tail;
  int32_t *lab, *next;
  size_t ncells, cap_cells;
  int32_t cap_words;
  int64_t skipped; /* tokens whose word or label holds a blank: not representable */
} build;

static int has_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] == ' ' || s[i] == '\t') return 1;
  return 0;
}

static vt_status add_pair(build *d, const char *w, size_t wn, const char *l, size_t ln) {
  int32_t wi = intern(&d->words, w, wn), li = wi < 0 ? -1 : intern(&d->labels, l, ln);
  if (wi < 0 || li < 0) return VT_ENOMEM;
  if (wi >= d->cap_words) {
    int32_t cap = d->cap_words ? 2 * d->cap_words : 1024;
    int32_t *h = realloc(d->head, (size_t)cap * sizeof *h);
    if (h) d->head = h;
    int32_t *t = h ? realloc(d->tail, (size_t)cap * sizeof *t) : NULL;
    if (t) d->tail = t;
    if (!h || !t) return VT_ENOMEM;
    for (int32_t i = d->cap_words; i < cap; i++) d->head[i] = d->tail[i] = -1;
    d->cap_words = cap;
  }
  for (int32_t c = d->head[wi]; c >= 0; c = d->next[c])
    if (d->lab[c] == li) return VT_OK;
  if (d->ncells == d->cap_cells) {
    size_t cap = d->cap_cells ? 2 * d->cap_cells : 4096;
    int32_t *a = realloc(d->lab, cap * sizeof *a);
    if (a) d->lab = a;
    int32_t *b = a ? realloc(d->next, cap * sizeof *b) : NULL;
    if (b) d->next = b;
    if (!a || !b) return VT_ENOMEM;
    d->cap_cells = cap;
  }
  int32_t c = (int32_t)d->ncells++;
  d->lab[c] = li;
  d->next[c] = -1;
  if (d->tail[wi] >= 0)
    d->next[d->tail[wi]] = c;
  else
    d->head[wi] = c;
  d->tail[wi] = c;
  return VT_OK;
}

static vt_status add_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  build *d = ctx;
  for (int32_t s = 0; s < b->n_sents; s++) {
    const vt_sentence *se = &b->sents[s];
    if (se->T == 0) continue;
    int32_t lc = d->label_col < 0 ? se->ncols - 1 : d->label_col;
    if (d->word_col >= se->ncols || lc >= se->ncols || lc == d->word_col) {
      vt_errorf(err, errlen, NULL, "%s:%llu: %d column(s): no word column %d and label column %d",
                se->file, (unsigned long long)vt_sentbatch_lineno(b, s, 0), se->ncols, d->word_col,
                lc);
      return VT_EFORMAT;
    }
    for (int32_t t = 0; t < se->T; t++) {
      size_t wn, ln;
      const char *w = vt_sentbatch_field(b, s, t, d->word_col, &wn);
      const char *l = vt_sentbatch_field(b, s, t, lc, &ln);
      if (wn == 0 || ln == 0 || has_blank(w, wn) || has_blank(l, ln)) {
        d->skipped++;
        continue;
      }
      if (add_pair(d, w, wn, l, ln) != VT_OK) {
        vt_errorf(err, errlen, NULL, "out of memory");
        return VT_ENOMEM;
      }
    }
  }
  return VT_OK;
}

vt_status vt_tagdict_build(const vt_reader_opts *ro, const char *const *files, int n_files,
                           int32_t word_col, int32_t label_col, FILE *out, int64_t *n_words) {
  build d;
  memset(&d, 0, sizeof d);
  d.word_col = word_col;
  d.label_col = label_col;
  char err[VT_ERR_LINE];
  vt_status st = VT_OK;
  vt_reader_opts r;
  if (ro)
    r = *ro;
  else
    vt_reader_opts_init(&r);
  if (n_words) *n_words = 0;
  if (word_col < 0 || label_col < -1 || n_files < 1) {
    st = vt_fail(VT_EINVAL, "tag dictionary: a file, word column >= 0 and label column >= -1 "
                            "expected");
    goto done;
  }
  for (int f = 0; f < n_files && st == VT_OK; f++)
    if ((st = vt_conll_each(files[f], &r, add_batch, &d, err, sizeof err)) != VT_OK)
      vt_fail(st, "%s", err);
  if (st != VT_OK) goto done;
  for (int32_t w = 0; w < d.words.n; w++) {
    fwrite(d.words.bytes + d.words.off[w], 1, d.words.off[w + 1] - d.words.off[w], out);
    for (int32_t c = d.head[w]; c >= 0; c = d.next[c]) {
      fputc(' ', out);
      fwrite(d.labels.bytes + d.labels.off[d.lab[c]], 1,
             d.labels.off[d.lab[c] + 1] - d.labels.off[d.lab[c]], out);
    }
    fputc('\n', out);
  }
  if (n_words) *n_words = d.words.n;
done:
  strset_free(&d.words);
  strset_free(&d.labels);
  free(d.head);
  free(d.tail);
  free(d.lab);
  free(d.next);
  return st;
}
