/* engine/sched/chunk_job.c: the joint-model tag job of the engine (vt_engine_tag with a joint
 * label-chunk model, Shimizu & Haas 2006): the corpus reader cuts batches of whole sentences,
 * workers check the word column, read the gold columns when evaluating, decode each sentence
 * exactly and format its lines with the predicted POS tag and chunk label; the writer hands them
 * to the sink in input order. The model is read-only and shared (its dictionaries are not grown:
 * grow == 0). Each slot owns its sentence batch, text buffer and gold corpus; each worker its
 * decoder buffers and counters, so the steady state allocates nothing. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "chunk/chunk_corpus.h"
#include "chunk/chunk_tag.h"
#include "core/clock.h"
#include "core/errmsg.h"
#include "sched/corpus_feed.h"
#include "sched/engine.h"
#include "text/batch_tag.h"

typedef struct chunk_worker {
  _Alignas(64) int32_t cap; /* workers' counters a cache line apart */
  int32_t *word, *pos, *ctag;
  uint8_t *type, *begin;
  vt_chunk_eval ev;
  vt_chunk_stats stats;
  double decode_seconds;
} chunk_worker;

typedef struct chunk_job {
  const vt_chunk_model *m;
  int32_t W;
  vt_chunk_read_opts ro; /* word column; gold columns with eval */
  int eval;
  vt_corpus_feed feed;
  vt_conll_text *text;   /* per slot: the raw lines the reader cut */
  vt_sentbatch *sb;      /* per slot: parsed by the worker */
  vt_textbuf *tb;        /* per slot */
  vt_chunk_corpus *gold; /* per slot (eval) */
  chunk_worker *wk;      /* per worker */
  vt_corpus_out out;
  const vt_engine_opts *eo;
} chunk_job;

static int chunk_read(void *ctx, vt_sched_batch *b) {
  chunk_job *j = ctx;
  return vt_corpus_feed_read(&j->feed, &j->text[b->slot], &j->sb[b->slot], b);
}

/* Grows the worker's buffers to n tokens. Returns 0 or -1. */
static int grow(chunk_worker *k, int32_t n) {
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
static vt_status format_sentence(const chunk_job *j, const chunk_worker *k, const vt_sentbatch *b,
                                 int32_t s, vt_textbuf *tb) {
  const vt_sentence *se = &b->sents[s];
  for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
    const vt_sentline *ln = &b->lines[l];
    size_t plen = 0, clen = 1;
    const char *ps = NULL, *cs = "O";
    if (ln->tok >= 0) {
      ps = vt_featdict_str(&j->m->pos_names, k->pos[ln->tok], &plen);
      if (k->ctag[ln->tok] != 0) cs = vt_featdict_str(&j->m->chunk_names, k->ctag[ln->tok], &clen);
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

static vt_status chunk_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  chunk_job *j = ctx;
  vt_sentbatch *sb = &j->sb[b->slot];
  vt_textbuf *tb = &j->tb[b->slot];
  chunk_worker *k = &j->wk[w->id];
  vt_chunk_corpus *gold = &j->gold[b->slot];
  tb->len = 0;
  vt_status pst = vt_corpus_feed_parse(&j->feed, &j->text[b->slot], sb, b);
  if (pst != VT_OK) return pst;
  for (int32_t s = 0; s < sb->n_sents; s++) /* every token line has the word column */
    if (sb->sents[s].T > 0 && sb->sents[s].ncols <= j->ro.word_col) {
      snprintf(b->err, sizeof b->err, "%s:%llu: %d columns, no word column %d", sb->sents[s].file,
               (unsigned long long)vt_sentbatch_lineno(sb, s, 0), sb->sents[s].ncols,
               j->ro.word_col);
      return VT_EFORMAT;
    }
  if (j->eval) {
    int full;
    gold->n_sent = gold->n_tok = 0;
    /* grow == 0: the model is only read. */
    vt_status st =
        vt_chunk_corpus_add(gold, (vt_chunk_model *)j->m, sb, &j->ro, &full, b->err, sizeof b->err);
    if (st != VT_OK) return st;
  }
  int64_t g = 0;
  for (int32_t s = 0; s < sb->n_sents; s++) {
    const int32_t T = sb->sents[s].T;
    if (T > 0) {
      if (grow(k, T)) goto nomem;
      vt_chunk_batch_x(j->m, sb, s, j->ro.word_col, k->word, k->type);
      vt_chunk_x x = {T, k->word, k->type};
      vt_chunk_out o = {k->pos, k->ctag, k->begin, 0};
      vt_arena_reset(w->arena);
      double t0 = vt_clock_seconds();
      vt_status st = vt_chunk_tag_sentence(j->m, &x, j->W, w->arena, &o, &k->stats);
      k->decode_seconds += vt_clock_seconds() - t0;
      if (st != VT_OK) goto nomem;
      if (j->eval) {
        const int64_t at = gold->off[g];
        vt_chunk_eval_add(&k->ev, T, gold->pos + at, gold->ctag + at, gold->bio + at, k->pos,
                          k->ctag, k->begin);
      }
      g++;
    }
    if (format_sentence(j, k, sb, s, tb) != VT_OK) goto nomem;
  }
  return VT_OK;
nomem:
  snprintf(b->err, sizeof b->err, "%s: out of memory", sb->n_sents ? sb->sents[0].file : "-");
  return VT_ENOMEM;
}

static vt_status chunk_write(void *ctx, vt_sched_batch *b) {
  chunk_job *j = ctx;
  return vt_corpus_out_write(&j->out, &j->tb[b->slot], &j->sb[b->slot]);
}

static void chunk_progress(void *ctx, const vt_sched_progress *p) {
  chunk_job *j = ctx;
  int64_t total, done = vt_corpus_feed_bytes(&j->feed, &total);
  vt_engine_progress(j->eo, p, done, total);
}

double vt_run_report_chunk_f1(const vt_run_report *r, double *pos_acc, double *tag_acc,
                              double *precision, double *recall) {
  vt_chunk_eval ev = {r->eval_tokens,      r->eval_pos_ok,      r->eval_tag_ok,
                      r->eval_chunks_gold, r->eval_chunks_pred, r->eval_chunks_ok};
  if (pos_acc) *pos_acc = vt_chunk_eval_pos_acc(&ev);
  if (tag_acc) *tag_acc = vt_chunk_eval_tag_acc(&ev);
  return vt_chunk_eval_f1(&ev, precision, recall);
}

vt_status vt_chunk_job_run(vt_engine *e, const vt_chunk_model *m, const vt_tag_opts *o,
                           const vt_reader_opts *ro, const char *const *files, int n_files,
                           const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                           vt_run_report *rep) {
  vt_status st = VT_ENOMEM;
  vt_sched *sched = NULL;
  vt_sched_stats rs;
  const vt_plan *plan = &e->plan;
  char err[512];
  chunk_job j;
  int slots = 0;
  memset(&j, 0, sizeof j);
  memset(&rs, 0, sizeof rs);
  memset(rep, 0, sizeof *rep);
  err[0] = '\0';
  j.m = m;
  j.W = o->max_chunk >= 0 ? o->max_chunk : m->max_chunk;
  vt_chunk_read_opts_init(&j.ro);
  j.ro.word_col = o->word_col;
  j.eval = o->eval;
  j.ro.pos_col = j.eval ? o->pos_col : -1;
  j.ro.chunk_col = j.eval ? o->chunk_col : -2;
  j.feed = (vt_corpus_feed){ro, files, n_files, 0, NULL, e->opts.batch_tokens, 0, 0, -1, part};
  j.out = (vt_corpus_out){sink, sink_ctx, 0, rep};
  j.eo = &e->opts;
  if (o->word_col < 0 || (j.eval && o->pos_col < 0)) {
    snprintf(err, sizeof err, "joint tagging: the word and POS columns must be >= 0");
    st = VT_EINVAL;
    goto done;
  }
  vt_sched_config cfg = {&e->topo, plan, e->opts.slots, 0, NULL, NULL, NULL};
  if ((st = vt_sched_create(&sched, &cfg)) != VT_OK) {
    snprintf(err, sizeof err, "cannot set up the engine: %s", vt_strerror(st));
    goto done;
  }
  st = VT_ENOMEM;
  slots = vt_sched_slots(sched);
  j.text = calloc((size_t)slots, sizeof *j.text);
  j.sb = calloc((size_t)slots, sizeof *j.sb);
  j.tb = calloc((size_t)slots, sizeof *j.tb);
  j.gold = calloc((size_t)slots, sizeof *j.gold);
  j.wk = aligned_alloc(64, (size_t)plan->n_workers * sizeof *j.wk);
  if (!j.text || !j.sb || !j.tb || !j.gold || !j.wk) {
    snprintf(err, sizeof err, "out of memory");
    goto done;
  }
  memset(j.wk, 0, (size_t)plan->n_workers * sizeof *j.wk);
  vt_sched_job job = {&j,
                      chunk_read,
                      chunk_work,
                      chunk_write,
                      e->opts.progress ? chunk_progress : NULL,
                      0,
                      &e->cancel,
                      e->opts.sink_any_thread};
  st = vt_sched_run(sched, &job, &rs, err, sizeof err);
  rep->write_errno = j.out.write_errno;
  if (j.out.write_errno) snprintf(err, sizeof err, "write error: %s", strerror(j.out.write_errno));
  if (st == VT_ECANCELED) snprintf(err, sizeof err, "canceled");
  for (int i = 0; i < plan->n_workers; i++) {
    const chunk_worker *k = &j.wk[i];
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
  rep->wall_seconds = rs.wall_seconds;
  rep->serial_cpu_seconds = rs.serial_cpu_seconds;
  rep->worker_cpu_seconds = rs.worker_cpu_seconds;
  rep->canceled = rs.canceled;
done:
  if (st != VT_OK) vt_fail(st, "%s", err);
  vt_engine_keep_stats(e, &rs);
  if (st == VT_ECANCELED) atomic_store(&e->cancel, 0);
  vt_corpus_feed_close(&j.feed);
  for (int i = 0; i < slots && j.text; i++) free(j.text[i].data);
  for (int i = 0; i < slots && j.sb; i++) vt_sentbatch_free(&j.sb[i]);
  for (int i = 0; i < slots && j.tb; i++) vt_textbuf_free(&j.tb[i]);
  for (int i = 0; i < slots && j.gold; i++) vt_chunk_corpus_free(&j.gold[i]);
  for (int i = 0; i < plan->n_workers && j.wk; i++) {
    chunk_worker *k = &j.wk[i];
    free(k->word), free(k->pos), free(k->ctag), free(k->type), free(k->begin);
  }
  free(j.text);
  free(j.sb);
  free(j.tb);
  free(j.gold);
  free(j.wk);
  vt_sched_destroy(sched);
  return st;
}
