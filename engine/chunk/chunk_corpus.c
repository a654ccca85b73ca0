/* engine/chunk/chunk_corpus.c: column corpora as joint-model sentences (see chunk_corpus.h). */
#include "chunk/chunk_corpus.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "text/featdict.h"

void vt_chunk_read_opts_init(vt_chunk_read_opts *o) {
  memset(o, 0, sizeof *o);
  o->word_col = 0;
  o->pos_col = 1;
  o->chunk_col = -1;
}

void vt_chunk_corpus_free(vt_chunk_corpus *cp) {
  free(cp->off);
  free(cp->word);
  free(cp->type);
  free(cp->pos);
  free(cp->ctag);
  free(cp->begin);
  free(cp->bio);
  memset(cp, 0, sizeof *cp);
}

void vt_chunk_corpus_x(const vt_chunk_corpus *cp, int64_t s, vt_chunk_x *x) {
  x->n = (int32_t)(cp->off[s + 1] - cp->off[s]);
  x->word = cp->word + cp->off[s];
  x->type = cp->type + cp->off[s];
}

char vt_chunk_label_parse(const char *s, size_t len, const char **type, size_t *type_len) {
  *type = s;
  *type_len = 0;
  if (len < 3 || s[1] != '-' || (s[0] != 'B' && s[0] != 'I')) return 'O';
  *type = s + 2;
  *type_len = len - 2;
  return s[0];
}

void vt_chunk_batch_x(const vt_chunk_model *m, const vt_sentbatch *b, int32_t s, int32_t word_col,
                      int32_t *word, uint8_t *type) {
  for (int32_t t = 0; t < b->sents[s].T; t++) {
    size_t len;
    const char *w = vt_sentbatch_field(b, s, t, word_col, &len);
    word[t] = vt_featdict_find(&m->words, w, len);
    type[t] = (uint8_t)vt_chunk_token_type(w, len);
  }
}

static vt_status reserve(vt_chunk_corpus *cp, int64_t n_sent, int64_t n_tok) {
  if (n_sent + 1 > cp->cap_sent) {
    int64_t cap = cp->cap_sent ? 2 * cp->cap_sent : 1024;
    int64_t *o = realloc(cp->off, (size_t)cap * sizeof *o);
    if (!o) return VT_ENOMEM;
    cp->off = o;
    cp->cap_sent = cap;
  }
  if (n_tok <= cp->cap) return VT_OK;
  int64_t cap = cp->cap ? cp->cap : 4096;
  while (cap < n_tok) cap *= 2;
#define GROW(f)                                                                                    \
  do {                                                                                             \
    void *p_ = realloc(cp->f, (size_t)cap * sizeof *cp->f);                                        \
    if (!p_) return VT_ENOMEM;                                                                     \
    cp->f = p_;                                                                                    \
  } while (0)
  GROW(word);
  GROW(type);
  GROW(pos);
  GROW(ctag);
  GROW(begin);
  GROW(bio);
#undef GROW
  cp->cap = cap;
  return VT_OK;
}

/* Chunk tag of a label's type: the model's id, added when allowed, else 0 (outside). */
static vt_status chunk_type_id(vt_chunk_model *m, const vt_chunk_read_opts *o, const char *ty,
                               size_t len, int32_t *id) {
  *id = vt_featdict_find(&m->chunk_names, ty, len);
  if (*id > 0) return VT_OK;
  *id = 0;
  if (!o->grow || !o->all_types || (len == 1 && ty[0] == 'O')) return VT_OK;
  if (vt_featdict_add(&m->chunk_names, ty, len, id) != VT_OK) return VT_ENOMEM;
  m->c = m->chunk_names.n;
  return VT_OK;
}

/* Training refuses a POS tag or chunk label the model cannot hold (vt_label_control): VT_OK,
 * or VT_EFORMAT with "FILE:LINE: the WHAT holds the control byte 0xNN ..." in err. */
static vt_status label_check(const vt_sentbatch *b, int32_t s, int32_t t, const char *what,
                             const char *f, size_t len, char *err, size_t errlen) {
  const unsigned char *bad = vt_label_control((const unsigned char *)f, len);
  if (!bad) return VT_OK;
  vt_errorf(err, errlen, NULL,
            "%s:%llu: the %s holds the control byte 0x%02x, which a model "
            "cannot hold",
            b->sents[s].file, (unsigned long long)vt_sentbatch_lineno(b, s, t), what, *bad);
  return VT_EFORMAT;
}

/* Appends sentence s of b to cp. */
static vt_status add_sentence(vt_chunk_corpus *cp, vt_chunk_model *m, const vt_sentbatch *b,
                              int32_t s, const vt_chunk_read_opts *o, char *err, size_t errlen) {
  const vt_sentence *se = &b->sents[s];
  const int32_t T = se->T;
  int32_t ccol = o->chunk_col == -1 ? se->ncols - 1 : o->chunk_col;
  int32_t need = o->word_col > o->pos_col ? o->word_col : o->pos_col;
  need = ccol > need ? ccol : need;
  if (need >= se->ncols || ccol == o->pos_col || ccol == o->word_col) {
    vt_errorf(err, errlen, NULL,
              "%s:%llu: %d columns; the joint model reads word column %d, "
              "POS column %d and chunk column %d (0-based; -1 = none)",
              se->file, (unsigned long long)vt_sentbatch_lineno(b, s, 0), se->ncols, o->word_col,
              o->pos_col, ccol);
    return VT_EFORMAT;
  }
  int64_t t0 = cp->n_tok;
  vt_status st = reserve(cp, cp->n_sent + 1, t0 + T);
  if (st != VT_OK) return st;
  if (cp->n_sent == 0) cp->off[0] = 0;
  const int32_t W = o->max_chunk;
  int32_t run = 0; /* tokens in the current chunk so far */
  for (int32_t t = 0; t < T; t++) {
    size_t len;
    const char *f = vt_sentbatch_field(b, s, t, o->word_col, &len);
    int32_t id = vt_featdict_find(&m->words, f, len);
    if (id < 0 && o->grow && vt_featdict_add(&m->words, f, len, &id) != VT_OK) return VT_ENOMEM;
    cp->word[t0 + t] = id;
    cp->type[t0 + t] = (uint8_t)vt_chunk_token_type(f, len);
    id = -1;
    if (o->pos_col >= 0) {
      size_t cl;
      f = vt_sentbatch_field(b, s, t, o->pos_col, &len);
      if (o->grow && (st = label_check(b, s, t, "POS tag", f, len, err, errlen)) != VT_OK)
        return st;
      f = vt_chunk_pos_collapse(m->collapse, f, len, &cl);
      id = vt_featdict_find(&m->pos_names, f, cl);
      if (id < 0 && o->grow) {
        if (vt_featdict_add(&m->pos_names, f, cl, &id) != VT_OK) return VT_ENOMEM;
        m->p = m->pos_names.n;
      }
    }
    cp->pos[t0 + t] = id;
    int32_t tag = 0;
    char bi = 'O';
    if (ccol >= 0) {
      const char *ty;
      size_t tl;
      f = vt_sentbatch_field(b, s, t, ccol, &len);
      if (o->grow && (st = label_check(b, s, t, "chunk label", f, len, err, errlen)) != VT_OK)
        return st;
      bi = vt_chunk_label_parse(f, len, &ty, &tl);
      if (bi != 'O' && (st = chunk_type_id(m, o, ty, tl, &tag)) != VT_OK) return st;
    }
    const int32_t prev = t ? cp->ctag[t0 + t - 1] : -1;
    const int starts = tag ? (bi == 'B' || prev != tag) : prev != 0;
    cp->ctag[t0 + t] = tag;
    cp->bio[t0 + t] = (uint8_t)(tag && starts);
    int cut = !starts && W > 0 && run == W;
    if (cut && tag) cp->cut++;
    cp->begin[t0 + t] = (uint8_t)(starts || cut);
    run = cp->begin[t0 + t] ? 1 : run + 1;
  }
  cp->n_tok += T;
  cp->off[++cp->n_sent] = cp->n_tok;
  if (T > cp->max_n) cp->max_n = T;
  return VT_OK;
}

vt_status vt_chunk_corpus_add(vt_chunk_corpus *cp, vt_chunk_model *m, const vt_sentbatch *b,
                              const vt_chunk_read_opts *o, int *full, char *err, size_t errlen) {
  *full = 0;
  for (int32_t s = 0; s < b->n_sents; s++) {
    if (o->max_sents && cp->n_sent >= o->max_sents) {
      *full = 1;
      return VT_OK;
    }
    if (b->sents[s].T == 0) continue;
    vt_status st = add_sentence(cp, m, b, s, o, err, errlen);
    if (st != VT_OK) {
      if (st == VT_ENOMEM) vt_errorf(err, errlen, b->sents[s].file, "out of memory");
      return st;
    }
  }
  *full = o->max_sents && cp->n_sent >= o->max_sents;
  return VT_OK;
}
