/* engine/models/kind_joint.c: the table of joint label-chunk models (kind_ops.h; Shimizu & Haas
 * 2006): POS tags and chunks decoded together, exactly, one structure per sentence. The model is
 * read-only and shared by every worker (its dictionaries are not grown). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk/chunk_corpus.h"
#include "chunk/chunk_eval.h"
#include "chunk/chunk_tag.h"
#include "core/clock.h"
#include "core/errmsg.h"
#include "models/chunk_model_file.h"
#include "models/kind_ops.h"

/* The kind's model (vt_model.impl). */
static vt_chunk_model *chunk(const vt_model *m) { return m->impl; }

static int sniff(const unsigned char *head, size_t n) {
  return vt_chunk_model_sniff_bytes(head, n);
}

static vt_status load(vt_model *m, const char *path, char *err, size_t errlen) {
  vt_chunk_model *c = calloc(1, sizeof *c);
  if (!(m->impl = c)) {
    snprintf(err, errlen, "%s: out of memory", path);
    return VT_ENOMEM;
  }
  return (vt_status)vt_chunk_model_load(c, path, err, errlen);
}

static vt_status load_mem(vt_model *m, const void *data, size_t size, const char *name, char *err,
                          size_t errlen) {
  vt_chunk_model *c = calloc(1, sizeof *c);
  if (!(m->impl = c)) {
    snprintf(err, errlen, "%s: out of memory", name);
    return VT_ENOMEM;
  }
  return (vt_status)vt_chunk_model_load_mem(c, data, size, name, err, errlen);
}

static vt_status describe(vt_model *m) {
  vt_model_info *in = &m->info;
  const vt_chunk_model *c = chunk(m);
  in->labels = c->p;
  in->chunk_labels = 2 * c->c - 1;
  in->max_chunk = c->max_chunk;
  if (vt_kind_names_alloc(&m->names, c->p) != VT_OK ||
      vt_kind_names_alloc(&m->chunk_names, in->chunk_labels) != VT_OK)
    return VT_ENOMEM;
  for (int32_t y = 0; y < c->p; y++) {
    size_t len;
    const char *s = vt_featdict_str(&c->pos_names, y, &len);
    if (!(m->names[y] = vt_kind_dup(s, len))) return VT_ENOMEM;
  }
  if (!(m->chunk_names[0] = vt_kind_dup("O", 1))) return VT_ENOMEM;
  for (int32_t k = 1; k < c->c; k++) {
    size_t len;
    const char *s = vt_featdict_str(&c->chunk_names, k, &len);
    for (int b = 0; b < 2; b++) {
      char *p = malloc(len + 3);
      if (!p) return VT_ENOMEM;
      p[0] = b ? 'I' : 'B';
      p[1] = '-';
      memcpy(p + 2, s, len);
      p[len + 2] = '\0';
      m->chunk_names[2 * k - 1 + b] = p;
    }
  }
  return VT_OK;
}

static void model_free(vt_model *m) {
  if (m->impl) vt_chunk_model_free(chunk(m));
  free(m->impl);
}

static vt_trans *trans(const vt_model *m) {
  (void)m;
  return NULL;
}

static vt_status decoder_check(const vt_model *m, const vt_decode_opts *o, char *err,
                               size_t errlen) {
  vt_status st = vt_kind_decoder_check(m, o, err, errlen);
  if (st == VT_OK && o->k > 1)
    return vt_fail_into(err, errlen, VT_EUNSUPPORTED,
                        "-k %d: the joint label-chunk decoder returns one structure", o->k);
  return st;
}

/* A sentence held in memory: word observation ids and token types of column 0, then the
 * decoder; chunk ids "O" 0, B-X 2c-1, I-X 2c. */
static vt_status tag_cells(const vt_model *m, const vt_decode_opts *opts, vt_cells_scratch *s,
                           const char *const *cells, int32_t T, int32_t ncols, vt_tag_out *out,
                           char *err, size_t errlen) {
  (void)opts;
  const vt_chunk_model *cm = chunk(m);
  int32_t *word = VT_ARENA_NEW(s->arena, int32_t, (size_t)T);
  int32_t *ctag = VT_ARENA_NEW(s->arena, int32_t, (size_t)T);
  uint8_t *type = VT_ARENA_NEW(s->arena, uint8_t, (size_t)T);
  uint8_t *begin = VT_ARENA_NEW(s->arena, uint8_t, (size_t)T);
  if (!word || !ctag || !type || !begin)
    return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
  for (int32_t i = 0; i < T; i++) {
    const char *w = cells[(size_t)i * (size_t)ncols];
    size_t len = strlen(w);
    word[i] = vt_featdict_find(&cm->words, w, len);
    type[i] = (uint8_t)vt_chunk_token_type(w, len);
  }
  vt_chunk_x x = {T, word, type};
  vt_chunk_out o = {out->labels, ctag, begin, 0};
  vt_chunk_stats cs = {0, 0, 0};
  vt_status st = vt_chunk_tag_sentence(cm, &x, cm->max_chunk, s->arena, &o, &cs);
  if (st != VT_OK) return vt_fail_into(err, errlen, st, "decoding failed: %s", vt_strerror(st));
  out->stats.sentences += cs.sentences;
  out->stats.tokens += cs.tokens;
  out->stats.cells += cs.cells;
  out->n_paths = o.score > -INFINITY ? 1 : 0;
  if (out->scores) out->scores[0] = o.score;
  if (out->chunks)
    for (int32_t i = 0; i < T; i++)
      out->chunks[i] = ctag[i] == 0 ? 0 : 2 * ctag[i] - 1 + (begin[i] ? 0 : 1);
  return VT_OK;
}

/* ---- corpus runs: each worker checks the word column, reads the gold columns when evaluating,
 * decodes each sentence exactly and formats its lines with the predicted POS tag and chunk
 * label. ---- */

typedef struct joint_worker {
  int32_t cap;
  int32_t *word, *pos, *ctag;
  uint8_t *type, *begin;
  vt_chunk_eval ev;
  vt_chunk_stats stats;
  double decode_seconds;
} joint_worker;

/* The gold corpus of a slot's batch (evaluation). */
typedef struct joint_slot {
  vt_chunk_corpus gold;
} joint_slot;

/* Grows the worker's buffers to n tokens. Returns 0 or -1. */
static int grow(joint_worker *k, int32_t n) {
  if (n <= k->cap) return 0;
  int32_t cap = k->cap ? k->cap : 256;
  while (cap < n) cap *= 2;
  int32_t *w = realloc(k->word, (size_t)cap * sizeof *w);
  if (w) k->word = w;
  int32_t *p = realloc(k->pos, (size_t)cap * sizeof *p);
  if (p) k->pos = p;
  int32_t *c = realloc(k->ctag, (size_t)cap * sizeof *c);
  if (c) k->ctag = c;
  uint8_t *ty = realloc(k->type, (size_t)cap);
  if (ty) k->type = ty;
  uint8_t *bg = realloc(k->begin, (size_t)cap);
  if (bg) k->begin = bg;
  if (!w || !p || !c || !ty || !bg) return -1;
  k->cap = cap;
  return 0;
}

/* Appends `len` bytes to the buffer (room reserved by the caller). */
static void put(vt_textbuf *tb, const char *s, size_t len) {
  memcpy(tb->p + tb->len, s, len);
  tb->len += len;
}

/* Appends the lines of sentence s with token i's POS tag and chunk label. */
static vt_status format_sentence(const vt_chunk_model *m, const joint_worker *k,
                                 const vt_sentbatch *b, int32_t s, vt_textbuf *tb) {
  const vt_sentence *se = &b->sents[s];
  for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
    const vt_sentline *ln = &b->lines[l];
    size_t plen = 0, clen = 1;
    const char *ps = NULL, *cs = "O";
    if (ln->tok >= 0) {
      ps = vt_featdict_str(&m->pos_names, k->pos[ln->tok], &plen);
      if (k->ctag[ln->tok] != 0) cs = vt_featdict_str(&m->chunk_names, k->ctag[ln->tok], &clen);
    }
    if (vt_textbuf_reserve(tb, ln->len + plen + clen + 6)) return VT_ENOMEM;
    put(tb, b->bytes + ln->off, ln->len);
    if (ln->tok >= 0) {
      tb->p[tb->len++] = se->sep;
      put(tb, ps, plen);
      tb->p[tb->len++] = se->sep;
      if (k->ctag[ln->tok] != 0) put(tb, k->begin[ln->tok] ? "B-" : "I-", 2);
      put(tb, cs, clen);
    }
    tb->p[tb->len++] = '\n';
  }
  if (se->T > 0) {
    if (vt_textbuf_reserve(tb, 1)) return VT_ENOMEM;
    tb->p[tb->len++] = '\n';
  }
  return VT_OK;
}

/* The columns a run reads: the words; with evaluation, the gold POS and chunk columns. */
static void read_opts(const vt_tag_opts *o, vt_chunk_read_opts *ro) {
  vt_chunk_read_opts_init(ro);
  ro->word_col = o->word_col;
  ro->pos_col = o->eval ? o->pos_col : -1;
  ro->chunk_col = o->eval ? o->chunk_col : -2;
}

static vt_status corpus_check(const vt_model *m, const vt_tag_opts *o, char *err, size_t errlen) {
  (void)m;
  if (o->word_col < 0 || (o->eval && o->pos_col < 0))
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "joint tagging: the word and POS columns must be >= 0");
  return VT_OK;
}

static vt_status tag_batch(const vt_corpus_work *w) {
  const vt_chunk_model *m = chunk(w->m);
  const vt_tag_opts *o = w->o;
  const int32_t W = o->max_chunk >= 0 ? o->max_chunk : m->max_chunk;
  vt_sentbatch *sb = w->sb;
  joint_worker *k = w->worker;
  vt_chunk_corpus *gold = &((joint_slot *)w->slot)->gold;
  vt_chunk_read_opts ro;
  read_opts(o, &ro);
  for (int32_t s = 0; s < sb->n_sents; s++) /* every token line has the word column */
    if (sb->sents[s].T > 0 && sb->sents[s].ncols <= ro.word_col) {
      snprintf(w->err, w->errlen, "%s:%llu: %d columns, no word column %d", sb->sents[s].file,
               (unsigned long long)vt_sentbatch_lineno(sb, s, 0), sb->sents[s].ncols, ro.word_col);
      return VT_EFORMAT;
    }
  if (o->eval) {
    int full;
    gold->n_sent = gold->n_tok = 0;
    /* grow == 0: the model is only read. */
    vt_status st =
        vt_chunk_corpus_add(gold, (vt_chunk_model *)m, sb, &ro, &full, w->err, w->errlen);
    if (st != VT_OK) return st;
  }
  int64_t g = 0;
  for (int32_t s = 0; s < sb->n_sents; s++) {
    const int32_t T = sb->sents[s].T;
    if (T > 0) {
      if (grow(k, T)) goto nomem;
      vt_chunk_batch_x(m, sb, s, ro.word_col, k->word, k->type);
      vt_chunk_x x = {T, k->word, k->type};
      vt_chunk_out co = {k->pos, k->ctag, k->begin, 0};
      vt_arena_reset(w->arena);
      double t0 = vt_clock_seconds();
      vt_status st = vt_chunk_tag_sentence(m, &x, W, w->arena, &co, &k->stats);
      k->decode_seconds += vt_clock_seconds() - t0;
      if (st != VT_OK) goto nomem;
      if (o->eval) {
        const int64_t at = gold->off[g];
        vt_chunk_eval_add(&k->ev, T, gold->pos + at, gold->ctag + at, gold->bio + at, k->pos,
                          k->ctag, k->begin);
      }
      g++;
    }
    if (format_sentence(m, k, sb, s, w->out) != VT_OK) goto nomem;
  }
  return VT_OK;
nomem:
  snprintf(w->err, w->errlen, "%s: out of memory", sb->n_sents ? sb->sents[0].file : "-");
  return VT_ENOMEM;
}

static void corpus_report(const void *worker, vt_run_report *rep) {
  const joint_worker *k = worker;
  rep->decode.sentences += k->stats.sentences;
  rep->decode.tokens += k->stats.tokens;
  rep->decode.cells += k->stats.cells;
  rep->decode_seconds += k->decode_seconds;
  rep->eval_tokens += k->ev.tokens;
  rep->eval_pos_ok += k->ev.pos_ok;
  rep->eval_tag_ok += k->ev.tag_ok;
  rep->eval_chunks_gold += k->ev.gold;
  rep->eval_chunks_pred += k->ev.pred;
  rep->eval_chunks_ok += k->ev.match;
}

static void corpus_worker_free(void *worker) {
  joint_worker *k = worker;
  free(k->word), free(k->pos), free(k->ctag), free(k->type), free(k->begin);
}

static void corpus_slot_free(void *slot) { vt_chunk_corpus_free(&((joint_slot *)slot)->gold); }

double vt_run_report_chunk_f1(const vt_run_report *r, double *pos_acc, double *tag_acc,
                              double *precision, double *recall) {
  vt_chunk_eval ev = {r->eval_tokens,      r->eval_pos_ok,      r->eval_tag_ok,
                      r->eval_chunks_gold, r->eval_chunks_pred, r->eval_chunks_ok};
  if (pos_acc) *pos_acc = vt_chunk_eval_pos_acc(&ev);
  if (tag_acc) *tag_acc = vt_chunk_eval_tag_acc(&ev);
  return vt_chunk_eval_f1(&ev, precision, recall);
}

static const vt_corpus_ops corpus = {
    .items = 0,
    .worker_size = sizeof(joint_worker),
    .slot_size = sizeof(joint_slot),
    .check = corpus_check,
    .tag_batch = tag_batch,
    .report = corpus_report,
    .worker_free = corpus_worker_free,
    .slot_free = corpus_slot_free,
};

const vt_kind_ops vt_kind_joint = {
    .kind = VT_MODEL_JOINT_CHUNK,
    .name = "joint",
    .can = VT_CAN_COLUMNS | VT_CAN_CHUNKS | VT_CAN_OPEN_MEMORY,
    .sniff = sniff,
    .load = load,
    .load_mem = load_mem,
    .describe = describe,
    .free = model_free,
    .trans = trans,
    .decoder_default = vt_kind_decoder_default,
    .decoder_check = decoder_check,
    .tag_cells = tag_cells,
    .corpus = &corpus,
};
