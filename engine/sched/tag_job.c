/* engine/sched/tag_job.c: the tag job of the engine (vt_engine_tag with a tagger model): the
 * corpus reader cuts batches of whole sentences (about batch_tokens tokens, counting 16 bytes a
 * token line), workers tag them (vt_text_tag_batch: features, emissions, decoding, text) with
 * their node's replica of the model, the writer hands them to the sink in input order. Each slot
 * of the ring owns the raw lines (cut by the reader), a sentence batch (parsed from them by the
 * worker) and a text buffer (filled by the worker), kept across batches, so the steady state
 * allocates nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "sched/corpus_feed.h"
#include "sched/engine.h"
#include "text/batch_tag.h"
#include "text/model_replica.h"

/* Memory of each worker's cache of local emission rows (engine/text/rowcache.h). */
#define ROW_CACHE_BYTES ((size_t)4 << 20)

typedef struct padded_tag_stats {
  _Alignas(64) vt_tag_stats s; /* one cache line per worker */
} padded_tag_stats;

typedef struct tag_job {
  const vt_decode_opts *opts;
  vt_text_conf conf; /* -v and allowed labels */
  vt_corpus_feed feed;
  vt_conll_text *text; /* per slot: the raw lines the reader cut */
  vt_sentbatch *sb;    /* per slot: parsed by the worker */
  vt_textbuf *tb;      /* per slot */
  padded_tag_stats *ws;
  vt_rowcache **cache; /* per worker, made by the worker on its first batch (NULL: none) */
  vt_corpus_out out;
  const vt_engine_opts *eo;
} tag_job;

static int tag_read(void *ctx, vt_sched_batch *b) {
  tag_job *j = ctx;
  return vt_corpus_feed_read(&j->feed, &j->text[b->slot], &j->sb[b->slot], b);
}

static vt_status tag_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  tag_job *j = ctx;
  vt_sentbatch *sb = &j->sb[b->slot];
  vt_textbuf *tb = &j->tb[b->slot];
  tb->len = 0;
  vt_status st = vt_corpus_feed_parse(&j->feed, &j->text[b->slot], sb, b);
  if (st != VT_OK) return st;
  if (!j->cache[w->id])
    (void)vt_rowcache_create(&j->cache[w->id], w->model, ROW_CACHE_BYTES); /* NULL: no cache */
  return vt_text_tag_batch(w->model, j->opts, &j->conf, w->arena, j->cache[w->id], sb, 0,
                           sb->n_sents, tb, &j->ws[w->id].s, b->err, sizeof b->err);
}

static vt_status tag_write(void *ctx, vt_sched_batch *b) {
  tag_job *j = ctx;
  return vt_corpus_out_write(&j->out, &j->tb[b->slot], &j->sb[b->slot]);
}

static vt_status model_clone(const void *model, const vt_mem *mem, void **out) {
  vt_textmodel *m = NULL;
  vt_status st = vt_textmodel_clone_to(&m, model, mem);
  *out = m;
  return st;
}

static void model_free(void *replica, const vt_mem *mem) { vt_textmodel_clone_free(replica, mem); }

static void tag_progress(void *ctx, const vt_sched_progress *p) {
  tag_job *j = ctx;
  int64_t total, done = vt_corpus_feed_bytes(&j->feed, &total);
  vt_engine_progress(j->eo, p, done, total);
}

vt_status vt_tag_job_run(vt_engine *e, const vt_textmodel *m, const vt_tag_opts *o,
                         const vt_reader_opts *ro, const char *const *files, int n_files,
                         const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                         vt_run_report *rep) {
  vt_status st = VT_ENOMEM;
  vt_sched *sched = NULL;
  vt_sched_stats rs;
  const vt_plan *plan = &e->plan;
  char err[512];
  tag_job j;
  int slots = 0;
  memset(&j, 0, sizeof j);
  memset(&rs, 0, sizeof rs);
  memset(rep, 0, sizeof *rep);
  err[0] = '\0';
  j.opts = &o->decode;
  j.conf = (vt_text_conf){o->verbose, o->constraints, o->label_sep, &e->cancel};
  j.feed = (vt_corpus_feed){ro, files, n_files, 0, NULL, e->opts.batch_tokens, 0, 0, -1, part};
  j.out = (vt_corpus_out){sink, sink_ctx, 0, rep};
  j.eo = &e->opts;

  vt_sched_config cfg = {&e->topo, plan, e->opts.slots, 0, m, model_clone, model_free};
  if ((st = vt_sched_create(&sched, &cfg)) != VT_OK) {
    snprintf(err, sizeof err, "cannot set up the engine: %s", vt_strerror(st));
    goto done;
  }
  st = VT_ENOMEM;
  slots = vt_sched_slots(sched);
  j.text = calloc((size_t)slots, sizeof *j.text);
  j.sb = calloc((size_t)slots, sizeof *j.sb);
  j.tb = calloc((size_t)slots, sizeof *j.tb);
  j.ws = aligned_alloc(64, (size_t)plan->n_workers * sizeof *j.ws);
  j.cache = calloc((size_t)plan->n_workers, sizeof *j.cache);
  if (!j.text || !j.sb || !j.tb || !j.ws || !j.cache) {
    snprintf(err, sizeof err, "out of memory");
    goto done;
  }
  memset(j.ws, 0, (size_t)plan->n_workers * sizeof *j.ws);
  vt_sched_job job = {&j,
                      tag_read,
                      tag_work,
                      tag_write,
                      e->opts.progress ? tag_progress : NULL,
                      0,
                      &e->cancel,
                      e->opts.sink_any_thread};
  st = vt_sched_run(sched, &job, &rs, err, sizeof err);
  rep->write_errno = j.out.write_errno;
  if (j.out.write_errno) snprintf(err, sizeof err, "write error: %s", strerror(j.out.write_errno));
  if (st == VT_ECANCELED) snprintf(err, sizeof err, "canceled");
  for (int i = 0; i < plan->n_workers; i++) {
    const vt_tag_stats *w = &j.ws[i].s;
    rep->feature_seconds += w->feature_seconds;
    rep->decode_seconds += w->decode_seconds;
    rep->unknown_features += w->unknown_features;
    rep->lookups += w->lookups;
    rep->cache_hits += w->cache_hits;
    vt_decode_stats_add(&rep->decode, &w->decode);
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
  free(j.text);
  free(j.sb);
  free(j.tb);
  free(j.ws);
  for (int i = 0; i < plan->n_workers && j.cache; i++) vt_rowcache_destroy(j.cache[i]);
  free(j.cache);
  vt_sched_destroy(sched);
  return st;
}
