/* engine/sched/corpus_job.c: the corpus job of the engine (vt_engine_tag and vt_engine_tag_part,
 * any model kind with features): the reader cuts batches of whole sentences (corpus_feed.h:
 * column corpora or CRFsuite item files, as the kind takes), workers tag them as the model's
 * table says (its corpus.tag_batch: features, emissions, decoding, text) with their node's
 * replica of the model or the shared model, and the writer hands the text to the sink in input
 * order. Each slot of the ring owns its input (raw lines and their parsed batch, or item
 * sequences), its text buffer and the kind's slot state; each worker the kind's worker state;
 * all kept across batches, so the steady state allocates nothing. */
#include <stdlib.h>
#include <string.h>

#include "models/kind_ops.h"
#include "sched/corpus_feed.h"
#include "sched/engine.h"

/* A worker's state sits a cache line apart from the next one's. */
#define WORKER_ALIGN 64

typedef struct corpus_job {
  const vt_model *m;
  const vt_corpus_ops *k;
  const vt_tag_opts *o;
  const atomic_int *cancel;
  vt_corpus_feed feed;
  int slots, workers;
  vt_conll_text *text; /* per slot, column corpora: the raw lines the reader cut */
  vt_sentbatch *sb;    /* per slot, column corpora: parsed by the worker */
  vt_items_batch *ib;  /* per slot, item files */
  vt_textbuf *tb;      /* per slot: the batch's output text */
  unsigned char *slot; /* slots x k->slot_size */
  unsigned char *wk;   /* workers x stride */
  size_t stride;       /* k->worker_size rounded up to WORKER_ALIGN */
  vt_corpus_out out;
  const vt_engine_opts *eo;
  const vt_corpus_marks *marks; /* NULL: no marks */
  vt_corpus_pos *pos;           /* per slot, with marks: the place after its batch */
} corpus_job;

static int corpus_read(void *ctx, vt_sched_batch *b) {
  corpus_job *j = ctx;
  int got = j->k->items ? vt_corpus_feed_read_items(&j->feed, &j->ib[b->slot], b)
                        : vt_corpus_feed_read(&j->feed, &j->text[b->slot], &j->sb[b->slot], b);
  if (got == 1 && j->pos) vt_corpus_feed_where(&j->feed, &j->pos[b->slot]);
  return got;
}

static vt_status corpus_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  corpus_job *j = ctx;
  vt_textbuf *tb = &j->tb[b->slot];
  tb->len = 0;
  if (!j->k->items) {
    vt_status st = vt_corpus_feed_parse(&j->feed, &j->text[b->slot], &j->sb[b->slot], b);
    if (st != VT_OK) return st;
  }
  vt_corpus_work cw = {j->m,
                       j->k->clone ? w->model : NULL,
                       j->o,
                       j->cancel,
                       w->arena,
                       j->wk + (size_t)w->id * j->stride,
                       j->slot + (size_t)b->slot * j->k->slot_size,
                       j->k->items ? NULL : &j->sb[b->slot],
                       j->k->items ? &j->ib[b->slot] : NULL,
                       tb,
                       b->err,
                       sizeof b->err};
  return j->k->tag_batch(&cw);
}

static vt_status corpus_write(void *ctx, vt_sched_batch *b) {
  corpus_job *j = ctx;
  int64_t sentences = 0, tokens = 0;
  if (j->k->items) {
    sentences = b->items;
    tokens = b->tokens;
  } else { /* the sentences with a token */
    const vt_sentbatch *sb = &j->sb[b->slot];
    for (int32_t s = 0; s < sb->n_sents; s++) {
      sentences += sb->sents[s].T > 0;
      tokens += sb->sents[s].T;
    }
  }
  vt_status st = vt_corpus_out_write(&j->out, &j->tb[b->slot], sentences, tokens);
  if (st == VT_OK && j->pos && j->marks->mark) j->marks->mark(j->marks->ctx, &j->pos[b->slot]);
  return st;
}

static void corpus_progress(void *ctx, const vt_sched_progress *p) {
  corpus_job *j = ctx;
  int64_t total, done = vt_corpus_feed_bytes(&j->feed, &total);
  vt_engine_progress(j->eo, p, done, total);
}

static vt_status corpus_setup(void *ctx, int slots, int workers) {
  corpus_job *j = ctx;
  j->slots = slots;
  j->workers = workers;
  j->tb = calloc((size_t)slots, sizeof *j->tb);
  if (j->k->items)
    j->ib = calloc((size_t)slots, sizeof *j->ib);
  else {
    j->text = calloc((size_t)slots, sizeof *j->text);
    j->sb = calloc((size_t)slots, sizeof *j->sb);
  }
  j->slot = calloc((size_t)slots, j->k->slot_size ? j->k->slot_size : 1);
  if (j->marks && !(j->pos = calloc((size_t)slots, sizeof *j->pos))) return VT_ENOMEM;
  j->stride = (j->k->worker_size + WORKER_ALIGN - 1) / WORKER_ALIGN * WORKER_ALIGN;
  const size_t wbytes = (size_t)workers * (j->stride ? j->stride : WORKER_ALIGN);
  if ((j->wk = aligned_alloc(WORKER_ALIGN, wbytes))) memset(j->wk, 0, wbytes);
  if (!j->tb || !j->slot || !j->wk || (j->k->items ? !j->ib : !j->text || !j->sb)) return VT_ENOMEM;
  return VT_OK;
}

vt_status vt_corpus_job_run(vt_engine *e, const vt_model *m, const vt_tag_opts *o,
                            const vt_reader_opts *ro, const char *const *files, int n_files,
                            const vt_corpus_part *part, const vt_corpus_marks *marks,
                            vt_sink_fn sink, void *sink_ctx, vt_run_report *rep, char *err,
                            size_t errlen) {
  corpus_job j;
  memset(&j, 0, sizeof j);
  memset(rep, 0, sizeof *rep);
  j.m = m;
  j.k = m->ops->corpus;
  j.o = o;
  j.cancel = &e->cancel;
  j.feed = (vt_corpus_feed){ro, files, n_files, 0,    NULL, e->opts.batch_tokens,
                            0,  0,     -1,      part, NULL, marks && !part ? marks->start : NULL};
  vt_corpus_feed_start(&j.feed);
  j.marks = marks && !part ? marks : NULL;
  j.out = (vt_corpus_out){sink, sink_ctx, 0, rep};
  j.eo = &e->opts;
  vt_engine_job ej = {{&j, corpus_read, corpus_work, corpus_write, corpus_progress, 0, NULL, 0,
                       vt_corpus_feed_light(&j.feed)},
                      j.k->clone ? m : NULL,
                      j.k->clone,
                      j.k->clone_free,
                      corpus_setup,
                      &j.out.write_errno,
                      0};
  vt_status st = vt_engine_job_run(e, &ej, rep, err, errlen);
  for (int i = 0; i < j.workers && j.wk; i++) j.k->report(j.wk + (size_t)i * j.stride, rep);
  vt_corpus_feed_close(&j.feed);
  for (int i = 0; i < j.slots; i++) {
    if (j.text) free(j.text[i].data);
    if (j.sb) vt_sentbatch_free(&j.sb[i]);
    if (j.ib) vt_items_batch_free(&j.ib[i]);
    if (j.tb) vt_textbuf_free(&j.tb[i]);
    if (j.slot && j.k->slot_free) j.k->slot_free(j.slot + (size_t)i * j.k->slot_size);
  }
  for (int i = 0; i < j.workers && j.wk; i++)
    if (j.k->worker_free) j.k->worker_free(j.wk + (size_t)i * j.stride);
  free(j.text);
  free(j.sb);
  free(j.ib);
  free(j.tb);
  free(j.slot);
  free(j.wk);
  free(j.pos);
  return st;
}
