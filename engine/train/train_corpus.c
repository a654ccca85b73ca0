/* engine/train/train_corpus.c: compiles sentence batches into training corpora (see
 * train_corpus.h).
 */
#include "train/train_corpus.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"

vt_status vt_trainset_init(vt_trainset *d, const vt_tmplset *ts, int32_t label_col) {
  memset(d, 0, sizeof *d);
  d->ts = ts;
  d->label_col = label_col;
  d->col_used = calloc((size_t)ts->max_col + 2, 1);
  if (!d->col_used || vt_featdict_init(&d->feats) != VT_OK ||
      vt_featdict_init(&d->labels) != VT_OK) {
    vt_trainset_free(d);
    return VT_ENOMEM;
  }
  for (int32_t i = 0; i < ts->n; i++) {
    const vt_tmpl *tm = &ts->t[i];
    for (uint32_t k = 0; k < tm->n; k++) {
      const vt_tmpl_item *it = &ts->items[tm->item0 + k];
      if (it->kind != VT_TI_LIT) d->col_used[it->col] = 1;
    }
  }
  return VT_OK;
}

void vt_trainset_free(vt_trainset *d) {
  vt_featdict_free(&d->feats);
  vt_featdict_free(&d->labels);
  free(d->col_used);
  free(d->buf);
  free(d->flen);
  free(d->fhash);
  free(d->remap);
  free(d->dict_of);
  free(d->bigram);
  memset(d, 0, sizeof *d);
}

void vt_tcorpus_free(vt_tcorpus *c) {
  free(c->sent_off);
  free(c->gold);
  free(c->ufeat);
  free(c->bfeat);
  memset(c, 0, sizeof *c);
}

static vt_status corpus_reserve(vt_tcorpus *c, int64_t n_sent, int64_t n_tok) {
  if (n_sent + 1 > c->cap_sent) {
    int64_t cap = c->cap_sent ? c->cap_sent : 1024;
    while (cap < n_sent + 1) cap *= 2;
    int64_t *p = realloc(c->sent_off, (size_t)cap * sizeof *p);
    if (!p) return VT_ENOMEM;
    c->sent_off = p;
    c->cap_sent = cap;
  }
  if (n_tok > c->cap_tok) {
    int64_t cap = c->cap_tok ? c->cap_tok : 16384;
    while (cap < n_tok) cap *= 2;
    int32_t *g = realloc(c->gold, (size_t)cap * sizeof *g);
    if (!g) return VT_ENOMEM;
    c->gold = g;
    int32_t *u = realloc(c->ufeat, (size_t)cap * (size_t)(c->n_u ? c->n_u : 1) * sizeof *u);
    if (!u) return VT_ENOMEM;
    c->ufeat = u;
    int32_t *b = realloc(c->bfeat, (size_t)cap * (size_t)(c->n_b ? c->n_b : 1) * sizeof *b);
    if (!b) return VT_ENOMEM;
    c->bfeat = b;
    c->cap_tok = cap;
  }
  return VT_OK;
}

/* The feature ids of token t of tk into uf (the unigram templates) and bf (the bigram ones; -1 at
 * t = 0): added (training) or looked up and remapped (frozen). The token's strings are all made
 * and hashed first and their dictionary entries prefetched (vt_featdict_prefetch), then looked up
 * in template order: the ids of one lookup at a time. */
static vt_status token_features(vt_trainset *d, const vt_tokens *tk, int32_t t, int32_t *uf,
                                int32_t *bf) {
  const vt_tmplset *ts = d->ts;
  const int32_t m = ts->n_u + (t > 0 ? ts->n_b : 0);
  for (int32_t j = 0; j < m; j++) {
    const int32_t i = j < ts->n_u ? ts->u_idx[j] : ts->b_idx[j - ts->n_u];
    char *str = d->buf + (size_t)j * d->slot;
    d->flen[j] = vt_tmpl_expand(ts, i, tk, t, str);
    d->fhash[j] = vt_featdict_hash(&d->feats, str, d->flen[j]);
    vt_featdict_prefetch(&d->feats, d->fhash[j], 0);
  }
  for (int stage = 1; stage <= 2; stage++)
    for (int32_t j = 0; j < m; j++) vt_featdict_prefetch(&d->feats, d->fhash[j], stage);
  for (int32_t k = 0; k < ts->n_b; k++) bf[k] = -1;
  for (int32_t j = 0; j < m; j++) {
    int32_t *id = j < ts->n_u ? &uf[j] : &bf[j - ts->n_u];
    const char *str = d->buf + (size_t)j * d->slot;
    if (d->frozen) {
      const int32_t did = vt_featdict_find_hashed(&d->feats, str, d->flen[j], d->fhash[j]);
      *id = did < 0 ? -1 : d->remap[did];
    } else if (vt_featdict_add_hashed(&d->feats, str, d->flen[j], d->fhash[j], id) != VT_OK) {
      return VT_ENOMEM;
    }
  }
  return VT_OK;
}

vt_status vt_trainset_compile(vt_trainset *d, vt_tcorpus *c, const vt_sentbatch *b, char *err,
                              size_t errlen) {
  const vt_tmplset *ts = d->ts;
  c->n_u = ts->n_u;
  c->n_b = ts->n_b;
  if (!c->sent_off && corpus_reserve(c, 0, 0) != VT_OK) goto nomem;
  c->sent_off[0] = 0;
  for (int32_t s = 0; s < b->n_sents; s++) {
    const vt_sentence *se = &b->sents[s];
    const int32_t T = se->T;
    if (T == 0) continue;
    int32_t lc = d->label_col < 0 ? se->ncols - 1 : d->label_col;
    uint64_t line = vt_sentbatch_lineno(b, s, 0);
    if (lc >= se->ncols) {
      vt_errorf(err, errlen, NULL, "%s:%llu: %d column(s), no label column %d", se->file,
                (unsigned long long)line, se->ncols, lc);
      return VT_EFORMAT;
    }
    if (ts->max_col >= se->ncols) {
      vt_errorf(err, errlen, NULL, "%s:%llu: %d columns, but a template reads column %d", se->file,
                (unsigned long long)line, se->ncols, ts->max_col);
      return VT_EFORMAT;
    }
    if (lc <= ts->max_col && d->col_used[lc]) {
      vt_errorf(err, errlen, NULL, "%s:%llu: a template reads column %d, the label column",
                se->file, (unsigned long long)line, lc);
      return VT_EFORMAT;
    }
    if (!d->ncols) d->ncols = se->ncols;
    vt_tokens tk;
    vt_sentbatch_tokens(b, s, &tk);
    size_t maxf = 0;
    for (size_t f = 0; f < (size_t)T * (size_t)tk.ncols; f++)
      if (tk.fields[2 * f + 1] > maxf) maxf = tk.fields[2 * f + 1];
    size_t need = 0;
    for (int32_t i = 0; i < ts->n; i++) {
      size_t bound = vt_tmpl_bound(ts, i, maxf);
      if (bound > need) need = bound;
    }
    if (!d->flen && (!(d->flen = malloc(((size_t)ts->n + 1) * sizeof *d->flen)) ||
                     !(d->fhash = malloc(((size_t)ts->n + 1) * sizeof *d->fhash))))
      goto nomem;
    if (need > d->slot) d->slot = need;
    if (d->slot * ((size_t)ts->n + 1) > d->buf_cap) {
      char *nb = realloc(d->buf, d->slot * ((size_t)ts->n + 1));
      if (!nb) goto nomem;
      d->buf = nb;
      d->buf_cap = d->slot * ((size_t)ts->n + 1);
    }
    if (corpus_reserve(c, c->n_sent + 1, c->n_tok + T) != VT_OK) goto nomem;
    for (int32_t t = 0; t < T; t++) {
      const int64_t tok = c->n_tok + t;
      size_t ll;
      const char *lab = vt_sentbatch_field(b, s, t, lc, &ll);
      const unsigned char *bad = vt_label_control((const unsigned char *)lab, ll);
      if (bad) { /* a NUL would cut the name short in the model, a control byte be refused */
        vt_errorf(err, errlen, NULL,
                  "%s:%llu: the label holds the control byte 0x%02x, which a model cannot hold",
                  se->file, (unsigned long long)vt_sentbatch_lineno(b, s, t), *bad);
        return VT_EFORMAT;
      }
      if (d->frozen) {
        c->gold[tok] = vt_featdict_find(&d->labels, lab, ll);
      } else if (vt_featdict_add(&d->labels, lab, ll, &c->gold[tok]) != VT_OK) {
        goto nomem;
      }
      if (token_features(d, &tk, t, c->ufeat + tok * c->n_u, c->bfeat + tok * c->n_b) != VT_OK)
        goto nomem;
    }
    c->n_tok += T;
    c->sent_off[++c->n_sent] = c->n_tok;
    if (T > c->max_T) c->max_T = T;
  }
  return VT_OK;
nomem:
  vt_errorf(err, errlen, NULL, "out of memory compiling the corpus");
  return VT_ENOMEM;
}

vt_status vt_trainset_freeze(vt_trainset *d, vt_tcorpus *train, uint32_t min_count) {
  const int32_t n = d->feats.n;
  d->remap = malloc(((size_t)n + 1) * sizeof *d->remap);
  d->dict_of = malloc(((size_t)n + 1) * sizeof *d->dict_of);
  d->bigram = malloc((size_t)n + 1);
  if (!d->remap || !d->dict_of || !d->bigram) return VT_ENOMEM;
  int32_t w = 0;
  for (int32_t id = 0; id < n; id++) {
    if (d->feats.count[id] < min_count) {
      d->remap[id] = -1;
      continue;
    }
    size_t len;
    const char *s = vt_featdict_str(&d->feats, id, &len);
    d->dict_of[w] = id;
    /* A feature string starts with its template's type letter (Wapiti's in either case), or,
     * for the bigram half of a Wapiti `*` pattern, with "\n" (engine/text/template.h). */
    d->bigram[w] = s[0] == 'B' || s[0] == 'b' || s[0] == '\n';
    d->remap[id] = w++;
  }
  d->n_weights = w;
  d->frozen = 1;
  for (int64_t i = 0; i < train->n_tok * train->n_u; i++)
    if (train->ufeat[i] >= 0) train->ufeat[i] = d->remap[train->ufeat[i]];
  for (int64_t i = 0; i < train->n_tok * train->n_b; i++)
    if (train->bfeat[i] >= 0) train->bfeat[i] = d->remap[train->bfeat[i]];
  return VT_OK;
}
