/* engine/cli/run.c: the decode job of the engine. The reader cuts the lattice set into batches of
 * about --batch-tokens tokens (nothing is copied: E stays mapped); a worker decodes a batch
 * sentence by sentence with its node's replica of the model, scratch from its arena (reset after
 * every sentence), and formats the lines into the batch's output buffer; the writer writes the
 * buffers in order and releases the pages of E behind it. */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "npy.h"
#include "trans_replica.h"

/* Drop pages of E behind the writer once this many values are behind it (1-2 MB). */
#define RELEASE_STEP ((int64_t)1 << 18)

typedef struct padded_stats {
  _Alignas(64) vt_decode_stats d; /* one cache line per worker */
} padded_stats;

typedef struct decode_job {
  const vt_cli_source *src;
  const vt_decode_opts *opts;
  int64_t budget; /* tokens per batch */
  FILE *out;
  double deadline; /* stop reading at this time; 0 = never */
  int64_t next;    /* next sentence to read */
  padded_stats *wstats;
  int write_errno;
  int64_t released; /* values of E released (those before it) */
  vt_cli_progress progress;
} decode_job;

/* Releases the pages of E below the first row of sentence `upto`, once enough are behind. */
static void release_rows(decode_job *j, int64_t upto) {
  const int64_t end = j->src->offset[upto] * j->src->L;
  if (!j->src->E_file || end - j->released < RELEASE_STEP) return;
  vt_npy_release(j->src->E_file, j->released, end - j->released);
  j->released = end;
}

static int decode_read(void *ctx, vt_sched_batch *b) {
  decode_job *j = ctx;
  const vt_cli_source *src = j->src;
  if (j->next >= src->n_sent) return 0;
  if (j->deadline > 0 && vt_cli_now() >= j->deadline) return 0;
  int64_t cost = 0;
  b->first = j->next;
  while (j->next < src->n_sent) {
    int64_t T = src->offset[j->next + 1] - src->offset[j->next];
    int64_t c = T > 0 ? T : 1; /* empty sentences count: a batch is never unbounded */
    if (b->items > 0 && cost + c > j->budget) break;
    cost += c;
    b->tokens += T;
    b->items++;
    j->next++;
  }
  return 1;
}

/* Appends the decimal form of v (>= 0) to p; returns the new end. */
static char *put_uint(char *p, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *p++ = tmp[--n];
  return p;
}

/* Appends the lines of sentence `sent` to b->out. */
static vt_status format_sentence(vt_sched_batch *b, int64_t sent, int32_t T, int32_t k,
                                 const int32_t *labels, const double *scores, int32_t np) {
  int32_t lines = np > 0 ? np : 1;
  /* Each line: two indices, a score and T labels of at most 11 characters. */
  if (vt_sched_buf_reserve(&b->out, (size_t)lines * (64 + 12 * (size_t)T)) != VT_OK)
    return VT_ENOMEM;
  char *q = b->out.data + b->out.len;
  for (int32_t p = 0; p < lines; p++) {
    q = put_uint(q, (uint64_t)sent);
    *q++ = '\t';
    q = put_uint(q, (uint64_t)p);
    *q++ = '\t';
    q += snprintf(q, 32, "%.9g", np > 0 ? scores[p] : -INFINITY);
    *q++ = '\t';
    if (np > 0) {
      const int32_t *lab = labels + (int64_t)p * T;
      for (int32_t t = 0; t < T; t++) {
        if (t) *q++ = ' ';
        q = put_uint(q, (uint64_t)lab[t]);
      }
    }
    *q++ = '\n';
  }
  b->out.len = (size_t)(q - b->out.data);
  (void)k;
  return VT_OK;
}

static vt_status decode_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  decode_job *j = ctx;
  const vt_cli_source *src = j->src;
  const vt_trans *tr = w->model;
  const int32_t k = j->opts->k, L = src->L;
  vt_decode_stats *ds = &j->wstats[w->id].d;
  for (int64_t s = b->first; s < b->first + b->items; s++) {
    int64_t row = src->offset[s];
    int32_t T = (int32_t)(src->offset[s + 1] - row), np = 0;
    int32_t *labels = VT_ARENA_NEW(w->arena, int32_t, (size_t)k * (size_t)T);
    double *scores = VT_ARENA_NEW(w->arena, double, k);
    vt_status st = VT_ENOMEM;
    if (labels && scores) {
      if (src->E_is_f64)
        st = vt_decode(tr, j->opts, w->arena, (const double *)src->E + row * L, T, labels, scores,
                       &np, ds);
      else
        st = vt_decode_f32(tr, j->opts, w->arena, (const float *)src->E + row * L, T, labels,
                           scores, &np, ds);
    }
    if (st == VT_OK) st = format_sentence(b, s, T, k, labels, scores, np);
    vt_arena_reset(w->arena);
    if (st != VT_OK) {
      snprintf(b->err, sizeof b->err, "sentence %lld: decoding failed: %s", (long long)s,
               vt_strerror(st));
      return st;
    }
  }
  return VT_OK;
}

static vt_status decode_write(void *ctx, vt_sched_batch *b) {
  decode_job *j = ctx;
  if (j->out && b->out.len) {
    errno = 0;
    if (fwrite(b->out.data, 1, b->out.len, j->out) != b->out.len) {
      j->write_errno = errno ? errno : EIO;
      return VT_EIO;
    }
  }
  release_rows(j, b->first + b->items);
  return VT_OK;
}

static void decode_progress(void *ctx, const vt_sched_progress *p) {
  decode_job *j = ctx;
  vt_cli_progress_show(&j->progress, p);
}

static vt_status trans_clone(const void *model, const vt_mem *mem, void **out) {
  vt_trans *t = NULL;
  vt_status st = vt_trans_clone_to(&t, model, mem);
  *out = t;
  return st;
}

static void trans_free(void *replica, const vt_mem *mem) { vt_trans_clone_free(replica, mem); }

vt_status vt_cli_decode_run(const vt_cli_engine *eng, const vt_topo *topo, const vt_plan *plan,
                            const vt_trans *trans, const vt_decode_opts *opts,
                            const vt_cli_source *src, FILE *out, double time_budget,
                            const atomic_int *cancel, vt_cli_run_stats *stats,
                            vt_sched_stats *sstats, int *write_errno) {
  vt_status st = VT_ENOMEM;
  vt_sched *sched = NULL;
  vt_sched_stats rs;
  char err[300];
  decode_job j;
  memset(&j, 0, sizeof j);
  memset(stats, 0, sizeof *stats);
  memset(&rs, 0, sizeof rs);
  if (write_errno) *write_errno = 0;
  j.src = src;
  j.opts = opts;
  j.out = out;
  /* Under a time budget small batches let the run stop close to it. */
  j.budget = time_budget > 0 && eng->batch_tokens > 512 ? 512 : eng->batch_tokens;
  j.wstats = aligned_alloc(64, (size_t)plan->n_workers * sizeof *j.wstats);
  if (!j.wstats) goto done;
  memset(j.wstats, 0, (size_t)plan->n_workers * sizeof *j.wstats);
  vt_cli_progress_init(&j.progress, eng->quiet || !out, src->n_sent);
  vt_sched_config cfg = {topo, plan, eng->slots, 0, trans, trans_clone, trans_free};
  st = vt_sched_create(&sched, &cfg);
  if (st != VT_OK) {
    vt_cli_error("cannot set up the engine: %s", vt_strerror(st));
    goto done;
  }
  vt_sched_job job = {&j, decode_read, decode_work, decode_write, decode_progress, 0, cancel};
  if (time_budget > 0) j.deadline = vt_cli_now() + time_budget;
  st = vt_sched_run(sched, &job, &rs, err, sizeof err);
  if (st != VT_OK && st != VT_ECANCELED && !j.write_errno) vt_cli_error("%s", err);
  if (write_errno) *write_errno = j.write_errno;
  for (int i = 0; i < plan->n_workers; i++) {
    const vt_decode_stats *d = &j.wstats[i].d;
    stats->decode.sentences += d->sentences;
    stats->decode.tokens += d->tokens;
    stats->decode.cells += d->cells;
    stats->decode.iterations += d->iterations;
    stats->decode.active_labels += d->active_labels;
    stats->decode.nodes += d->nodes;
    stats->decode.pruned += d->pruned;
    stats->decode.pops += d->pops;
    stats->decode.fallbacks += d->fallbacks;
  }
  stats->decode_seconds = rs.wall_seconds;
  stats->sentences_done = rs.items_written;
done:
  if (!j.wstats) vt_cli_error("out of memory");
  if (sstats) *sstats = rs;
  /* rs.workers points into the scheduler: keep a copy valid past its destruction. */
  if (sstats && rs.n_workers) {
    vt_sched_worker_stats *copy = malloc((size_t)rs.n_workers * sizeof *copy);
    if (copy) memcpy(copy, rs.workers, (size_t)rs.n_workers * sizeof *copy);
    sstats->workers = copy;
    if (!copy) sstats->n_workers = 0;
  }
  vt_sched_destroy(sched);
  free(j.wstats);
  return st;
}

vt_status vt_cli_run(const vt_trans *trans, const vt_decode_opts *opts, const vt_cli_source *src,
                     int threads, FILE *out, double time_budget, vt_cli_run_stats *stats) {
  vt_cli_engine eng;
  vt_topo topo;
  vt_plan plan;
  vt_cli_engine_init(&eng);
  eng.threads = threads;
  eng.quiet = 1;
  if (vt_cli_engine_plan(&eng, &topo, &plan) != 0) return VT_EINVAL;
  vt_status st = vt_cli_decode_run(&eng, &topo, &plan, trans, opts, src, out, time_budget, NULL,
                                   stats, NULL, NULL);
  vt_plan_free(&plan);
  vt_topo_free(&topo);
  return st;
}
