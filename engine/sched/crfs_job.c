/* engine/sched/crfs_job.c: the CRFsuite tag job of the engine (vt_engine_tag and
 * vt_engine_tag_part with a CRFsuite model): the reader cuts item files (or a part of one held in
 * memory) into batches of whole sequences (io/crfs_items.h), workers
 * tag them (engine/text/crfs.h: emissions, decoder, marginals when asked) and format what
 * `crfsuite tag` prints, the writer hands the text to the sink in input order. The model is
 * read-only and small, so the workers share it instead of a replica per node; each slot's
 * batch and each worker's arena are kept across batches, so the steady state allocates nothing. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc/arena.h"
#include "core/errmsg.h"
#include "io/crfs_items.h"
#include "sched/engine.h"
#include "text/crfs.h"

typedef struct crfs_job {
  const vt_crfs *m;
  const vt_decode_opts *opts;
  int flags;                /* VT_CRFS_PROB | VT_CRFS_MARG | VT_CRFS_MARG_ALL */
  const char *const *files; /* n_files of them; none: standard input */
  int n_files, file;
  const vt_corpus_part *part; /* not NULL: read this piece of memory instead of the files */
  const vt_reader_opts *ro;
  vt_items *r;
  size_t max_bytes;
  int64_t read_seqs, bytes_done, bytes_total;
  vt_items_batch *ib;  /* per slot */
  vt_decode_stats *ws; /* per worker */
  vt_sink_fn sink;
  void *sink_ctx;
  int write_errno;
  vt_run_report *rep;
  const vt_engine_opts *eo;
} crfs_job;

static int crfs_read(void *ctx, vt_sched_batch *b) {
  crfs_job *j = ctx;
  vt_items_batch *ib = &j->ib[b->slot];
  for (;;) {
    if (!j->r) {
      if (j->file >= (j->n_files && !j->part ? j->n_files : 1)) return 0;
      const char *path = j->n_files ? j->files[j->file] : "-";
      const vt_corpus_part *pt = j->part;
      vt_status st =
          pt ? vt_items_open_mem(&j->r, pt->name, pt->data, pt->len, (uint64_t)pt->first_line,
                                 j->ro->max_line_bytes, j->ro->max_tokens, b->err, sizeof b->err)
             : vt_items_open(&j->r, path, j->ro->max_line_bytes, j->ro->max_tokens, b->err,
                             sizeof b->err);
      if (st != VT_OK) return st;
    }
    vt_status st = vt_items_read(j->r, ib, j->max_bytes, b->err, sizeof b->err);
    if (st != VT_OK) return st;
    if (ib->n_seq > 0) {
      b->first = j->read_seqs;
      b->items = ib->n_seq;
      b->tokens = ib->items;
      j->read_seqs += ib->n_seq;
      return 1;
    }
    int64_t size, at = vt_items_offset(j->r, &size);
    j->bytes_done += size >= 0 ? size : at;
    vt_items_close(j->r);
    j->r = NULL;
    j->file++;
  }
}

static vt_status crfs_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  crfs_job *j = ctx;
  const vt_items_batch *ib = &j->ib[b->slot];
  const int32_t L = j->m->L, k = j->opts->k;
  const char *p = ib->text;
  char err[200];
  b->out.len = 0;
  for (int32_t s = 0; s < ib->n_seq; s++) {
    int32_t T = ib->n_items[s], n_paths = 0, bad = -1;
    vt_arena_reset(w->arena);
    const char **lines = VT_ARENA_NEW(w->arena, const char *, (size_t)T);
    size_t *lens = VT_ARENA_NEW(w->arena, size_t, (size_t)T);
    int32_t *labels = VT_ARENA_NEW(w->arena, int32_t, (size_t)k * (size_t)T);
    double *scores = VT_ARENA_NEW(w->arena, double, (size_t)k);
    double *marg = j->flags ? VT_ARENA_NEW(w->arena, double, (size_t)T *(size_t)L) : NULL;
    double logz = 0;
    if (!lines || !lens || !labels || !scores || (j->flags && !marg)) {
      snprintf(b->err, sizeof b->err, "out of memory");
      return VT_ENOMEM;
    }
    for (int32_t t = 0; t < T; t++) {
      const char *nl = memchr(p, '\n', (size_t)(ib->text + ib->len - p));
      lines[t] = p;
      lens[t] = (size_t)(nl - p);
      p = nl + 1;
    }
    vt_status st = vt_crfs_tag(j->m, j->opts, w->arena, lines, lens, T, labels, scores, &n_paths,
                               marg, &logz, &bad, &j->ws[w->id], err, sizeof err);
    if (st == VT_EFORMAT) {
      vt_errorf(b->err, sizeof b->err, NULL, "%s:%llu: %s", ib->file,
                (unsigned long long)(ib->line0[s] + (uint64_t)bad), err);
      return st;
    }
    if (st != VT_OK) {
      snprintf(b->err, sizeof b->err, "decoding failed: %s", vt_strerror(st));
      return st;
    }
    if (vt_crfs_format(j->m, j->flags, k, T, labels, scores, n_paths, marg, logz, &b->out.data,
                       &b->out.len, &b->out.cap)) {
      snprintf(b->err, sizeof b->err, "out of memory");
      return VT_ENOMEM;
    }
  }
  return VT_OK;
}

static vt_status crfs_write(void *ctx, vt_sched_batch *b) {
  crfs_job *j = ctx;
  if (b->out.len) {
    errno = 0;
    vt_status st = j->sink(j->sink_ctx, b->out.data, b->out.len);
    if (st != VT_OK) {
      j->write_errno = errno ? errno : EIO;
      return st;
    }
  }
  j->rep->sentences += b->items;
  j->rep->tokens += b->tokens;
  return VT_OK;
}

static void crfs_progress(void *ctx, const vt_sched_progress *p) {
  crfs_job *j = ctx;
  if (j->bytes_total < 0 && j->part) j->bytes_total = (int64_t)j->part->len;
  if (j->bytes_total < 0) { /* the input's size: 0 when one file is not a regular one */
    j->bytes_total = 0;
    for (int i = 0; i < (j->n_files ? j->n_files : 1); i++) {
      struct stat st;
      const char *f = j->n_files ? j->files[i] : "-";
      if ((strcmp(f, "-") ? stat(f, &st) : fstat(0, &st)) != 0 || !S_ISREG(st.st_mode)) {
        j->bytes_total = 0;
        break;
      }
      j->bytes_total += (int64_t)st.st_size;
    }
  }
  int64_t size, at = j->r ? vt_items_offset(j->r, &size) : 0;
  vt_engine_progress(j->eo, p, j->bytes_done + at, j->bytes_total);
}

vt_status vt_crfs_job_run(vt_engine *e, const vt_crfs *m, const vt_tag_opts *o,
                          const vt_reader_opts *ro, const char *const *files, int n_files,
                          const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                          vt_run_report *rep) {
  vt_status st;
  vt_sched *sched = NULL;
  vt_sched_stats rs;
  const vt_plan *plan = &e->plan;
  char err[512];
  crfs_job j;
  int slots = 0;
  memset(&j, 0, sizeof j);
  memset(&rs, 0, sizeof rs);
  memset(rep, 0, sizeof *rep);
  err[0] = '\0';
  j.m = m;
  j.opts = &o->decode;
  j.flags = o->crfsuite_out & (VT_CRFS_PROB | VT_CRFS_MARG | VT_CRFS_MARG_ALL);
  j.files = files;
  j.n_files = n_files;
  j.part = part;
  j.ro = ro;
  j.max_bytes = (size_t)(e->opts.batch_tokens > 0 ? e->opts.batch_tokens : 4096) * 64;
  j.bytes_total = -1;
  j.sink = sink;
  j.sink_ctx = sink_ctx;
  j.rep = rep;
  j.eo = &e->opts;

  vt_sched_config cfg = {&e->topo, plan, e->opts.slots, 0, NULL, NULL, NULL};
  if ((st = vt_sched_create(&sched, &cfg)) != VT_OK) {
    snprintf(err, sizeof err, "cannot set up the engine: %s", vt_strerror(st));
    goto done;
  }
  st = VT_ENOMEM;
  slots = vt_sched_slots(sched);
  j.ib = calloc((size_t)slots, sizeof *j.ib);
  j.ws = calloc((size_t)plan->n_workers, sizeof *j.ws);
  if (!j.ib || !j.ws) {
    snprintf(err, sizeof err, "out of memory");
    goto done;
  }
  vt_sched_job job = {&j,
                      crfs_read,
                      crfs_work,
                      crfs_write,
                      e->opts.progress ? crfs_progress : NULL,
                      0,
                      &e->cancel,
                      e->opts.sink_any_thread};
  st = vt_sched_run(sched, &job, &rs, err, sizeof err);
  rep->write_errno = j.write_errno;
  if (j.write_errno) snprintf(err, sizeof err, "write error: %s", strerror(j.write_errno));
  if (st == VT_ECANCELED) snprintf(err, sizeof err, "canceled");
  for (int i = 0; i < plan->n_workers; i++) {
    const vt_decode_stats *w = &j.ws[i];
    rep->decode.sentences += w->sentences;
    rep->decode.tokens += w->tokens;
    rep->decode.cells += w->cells;
    rep->decode.iterations += w->iterations;
    rep->decode.fallbacks += w->fallbacks;
    rep->decode.budget_fallbacks += w->budget_fallbacks;
  }
  rep->wall_seconds = rs.wall_seconds;
  rep->canceled = rs.canceled;
done:
  if (st != VT_OK) vt_fail(st, "%s", err);
  vt_engine_keep_stats(e, &rs);
  if (st == VT_ECANCELED) atomic_store(&e->cancel, 0);
  vt_items_close(j.r);
  for (int i = 0; i < slots && j.ib; i++) vt_items_batch_free(&j.ib[i]);
  free(j.ib);
  free(j.ws);
  vt_sched_destroy(sched);
  return st;
}
