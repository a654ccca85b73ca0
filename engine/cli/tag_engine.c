/* engine/cli/tag_engine.c: the tag job of the engine (see tag_engine.h). Each slot of the ring
 * owns a sentence batch (filled by the reader) and a text buffer (filled by a worker), kept
 * across batches, so the steady state allocates nothing. */
#include "tag_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_replica.h"

#define BYTES_PER_TOKEN 16

/* Memory of each worker's cache of local emission rows (engine/text/rowcache.h). */
#define ROW_CACHE_BYTES ((size_t)4 << 20)

typedef struct padded_tag_stats {
  _Alignas(64) vt_tag_stats s; /* one cache line per worker */
} padded_tag_stats;

typedef struct tag_job {
  const vt_decode_opts *opts;
  const vt_conll_opts *ro;
  char **files;
  int n_files, file; /* the file being read */
  vt_conll *r;
  int64_t budget, read_sents;
  vt_sentbatch *sb; /* per slot */
  vt_textbuf *tb;   /* per slot */
  padded_tag_stats *ws;
  vt_rowcache **cache; /* per worker, made by the worker on its first batch (NULL: none) */
  FILE *out;
  int write_errno;
  vt_cli_tag_totals *tot;
  vt_cli_progress progress;
} tag_job;

static int tag_read(void *ctx, vt_sched_batch *b) {
  tag_job *j = ctx;
  vt_sentbatch *sb = &j->sb[b->slot];
  for (;;) {
    if (!j->r) {
      if (j->file >= (j->n_files ? j->n_files : 1)) return 0;
      const char *path = j->n_files ? j->files[j->file] : "-";
      vt_status st = vt_conll_open(&j->r, path, j->ro, b->err, sizeof b->err);
      if (st != VT_OK) return st;
    }
    int32_t n = 0;
    vt_sentbatch_clear(sb);
    size_t max_bytes = (size_t)j->budget * BYTES_PER_TOKEN;
    int32_t max_sents = j->budget < INT32_MAX ? (int32_t)j->budget : INT32_MAX;
    vt_status st = vt_conll_read(j->r, sb, max_sents, max_bytes, &n, b->err, sizeof b->err);
    if (st != VT_OK) return st;
    if (n > 0) {
      b->first = j->read_sents;
      b->items = n;
      for (int32_t s = 0; s < n; s++) b->tokens += sb->sents[s].T;
      j->read_sents += n;
      return 1;
    }
    vt_conll_close(j->r);
    j->r = NULL;
    j->file++;
  }
}

static vt_status tag_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  tag_job *j = ctx;
  const vt_sentbatch *sb = &j->sb[b->slot];
  vt_textbuf *tb = &j->tb[b->slot];
  tb->len = 0;
  if (!j->cache[w->id])
    (void)vt_rowcache_create(&j->cache[w->id], w->model, ROW_CACHE_BYTES); /* NULL: no cache */
  return vt_text_tag_batch(w->model, j->opts, w->arena, j->cache[w->id], sb, 0, sb->n_sents, tb,
                             &j->ws[w->id].s, b->err, sizeof b->err);
}

static vt_status tag_write(void *ctx, vt_sched_batch *b) {
  tag_job *j = ctx;
  const vt_textbuf *tb = &j->tb[b->slot];
  const vt_sentbatch *sb = &j->sb[b->slot];
  if (tb->len) {
    errno = 0;
    if (fwrite(tb->p, 1, tb->len, j->out) != tb->len) {
      j->write_errno = errno ? errno : EIO;
      return VT_EIO;
    }
  }
  for (int32_t s = 0; s < sb->n_sents; s++) {
    j->tot->sentences += sb->sents[s].T > 0;
    j->tot->tokens += sb->sents[s].T;
  }
  return VT_OK;
}

static vt_status model_clone(const void *model, const vt_mem *mem, void **out) {
  vt_textmodel *m = NULL;
  vt_status st = vt_textmodel_clone_to(&m, model, mem);
  *out = m;
  return st;
}

static void model_free(void *replica, const vt_mem *mem) { vt_textmodel_clone_free(replica, mem); }

static void tag_progress(void *ctx, const vt_sched_progress *p) {
  vt_cli_progress_show(&((tag_job *)ctx)->progress, p);
}

vt_status vt_cli_tag_run(const vt_cli_engine *eng, const vt_topo *topo, const vt_plan *plan,
                         const vt_textmodel *m, const vt_decode_opts *opts, const vt_conll_opts *ro,
                         char **files, int n_files, FILE *out, const atomic_int *cancel,
                         vt_cli_tag_totals *tot, vt_sched_stats *ss, int *write_errno, char *err,
                         size_t errlen) {
  vt_status st = VT_ENOMEM;
  vt_sched *sched = NULL;
  vt_sched_stats rs;
  tag_job j;
  int slots = 0;
  memset(&j, 0, sizeof j);
  memset(&rs, 0, sizeof rs);
  memset(tot, 0, sizeof *tot);
  if (write_errno) *write_errno = 0;
  if (err && errlen) err[0] = '\0';
  j.opts = opts;
  j.ro = ro;
  j.files = files;
  j.n_files = n_files;
  j.budget = eng->batch_tokens;
  j.out = out;
  j.tot = tot;
  vt_cli_progress_init(&j.progress, eng->quiet, 0);

  vt_sched_config cfg = {topo, plan, eng->slots, 0, m, model_clone, model_free};
  if ((st = vt_sched_create(&sched, &cfg)) != VT_OK) {
    snprintf(err, errlen, "cannot set up the engine: %s", vt_strerror(st));
    goto done;
  }
  st = VT_ENOMEM;
  slots = vt_sched_slots(sched);
  j.sb = calloc((size_t)slots, sizeof *j.sb);
  j.tb = calloc((size_t)slots, sizeof *j.tb);
  j.ws = aligned_alloc(64, (size_t)plan->n_workers * sizeof *j.ws);
  j.cache = calloc((size_t)plan->n_workers, sizeof *j.cache);
  if (!j.sb || !j.tb || !j.ws || !j.cache) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  memset(j.ws, 0, (size_t)plan->n_workers * sizeof *j.ws);
  vt_sched_job job = {&j, tag_read, tag_work, tag_write, tag_progress, 0, cancel};
  st = vt_sched_run(sched, &job, &rs, err, errlen);
  if (write_errno) *write_errno = j.write_errno;
  for (int i = 0; i < plan->n_workers; i++) {
    const vt_tag_stats *w = &j.ws[i].s;
    tot->tag.feature_seconds += w->feature_seconds;
    tot->tag.decode_seconds += w->decode_seconds;
    tot->tag.unknown_features += w->unknown_features;
    tot->tag.lookups += w->lookups;
    tot->tag.cache_hits += w->cache_hits;
    tot->tag.decode.sentences += w->decode.sentences;
    tot->tag.decode.tokens += w->decode.tokens;
    tot->tag.decode.cells += w->decode.cells;
    tot->tag.decode.iterations += w->decode.iterations;
  }
done:
  if (ss) {
    *ss = rs;
    vt_sched_worker_stats *copy = NULL;
    if (rs.n_workers && (copy = malloc((size_t)rs.n_workers * sizeof *copy)))
      memcpy(copy, rs.workers, (size_t)rs.n_workers * sizeof *copy);
    ss->workers = copy;
    if (!copy) ss->n_workers = 0;
  }
  vt_conll_close(j.r);
  for (int i = 0; i < slots && j.sb; i++) vt_sentbatch_free(&j.sb[i]);
  for (int i = 0; i < slots && j.tb; i++) vt_textbuf_free(&j.tb[i]);
  free(j.sb);
  free(j.tb);
  free(j.ws);
  for (int i = 0; i < plan->n_workers && j.cache; i++) vt_rowcache_destroy(j.cache[i]);
  free(j.cache);
  vt_sched_destroy(sched);
  return st;
}
