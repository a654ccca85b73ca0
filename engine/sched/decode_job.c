/* engine/sched/decode_job.c: the decode job of the engine (vt_engine_decode). The reader cuts the
 * lattice set into batches of about --batch-tokens tokens (nothing is copied: E stays mapped); a
 * worker decodes a batch sentence by sentence with its node's replica of the model, scratch from
 * its arena (reset after every sentence), formats the lines into the batch's output buffer and
 * drops the pages of E wholly inside its batch; the writer writes the buffers in order and
 * releases the pages of E behind it (then only those at batch edges are still resident: the
 * page-table work stays off the serial thread). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/errmsg.h"
#include "core/trans_replica.h"
#include "decode/decoders.h"
#include "io/lattice_set.h"
#include "io/npy.h"
#include "sched/engine.h"

/* Drop pages of E behind the writer once this many values are behind it (1-2 MB). */
#define RELEASE_STEP ((int64_t)1 << 18)

typedef struct padded_stats {
  _Alignas(64) vt_decode_stats d; /* one cache line per worker */
} padded_stats;

typedef struct decode_job {
  const vt_lattices *src;
  const vt_decode_opts *opts;
  const vt_conf_opts *conf;
  const atomic_int *cancel; /* the engine's: the search decoders poll it inside a sentence */
  int64_t budget;           /* tokens per batch */
  vt_sink_fn sink;
  void *sink_ctx;
  int64_t next; /* next sentence to read */
  int64_t end;  /* one past the last sentence to read */
  padded_stats *wstats;
  int write_errno;
  int64_t released; /* values of E released (those before it) */
  const vt_engine_opts *eo;
  vt_mark_fn mark; /* NULL: nobody is told the place after a batch */
  void *mark_ctx;
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
  const vt_lattices *src = j->src;
  if (j->next >= j->end) return 0;
  int64_t cost = 0;
  b->first = j->next;
  while (j->next < j->end) {
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

/* Appends the lines of sentence `sent` to b->out; with `logz` (not NULL) each line ends in
 * <TAB>logZ<TAB>probability. */
static vt_status format_sentence(vt_sched_batch *b, int64_t sent, int32_t T, int32_t k,
                                 const int32_t *labels, const double *scores, int32_t np,
                                 const double *logz) {
  int32_t lines = np > 0 ? np : 1;
  /* Each line: two indices, a score, T labels of at most 11 characters, log Z and a
   * probability. */
  if (vt_sched_buf_reserve(&b->out, (size_t)lines * (128 + 12 * (size_t)T)) != VT_OK)
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
    if (logz) {
      double pr = np > 0 && *logz > -INFINITY ? exp(scores[p] - *logz) : 0.0;
      q += snprintf(q, 64, "\t%.9g\t%.9g", *logz, pr > 1.0 ? 1.0 : pr);
    }
    *q++ = '\n';
  }
  b->out.len = (size_t)(q - b->out.data);
  (void)k;
  return VT_OK;
}

/* Forward-backward over sentence rows [row, row + T): *logz, and with a posteriors sink the
 * marginals appended to b->aux as float32. */
static vt_status sentence_posteriors(const decode_job *j, const vt_trans *tr, vt_arena *arena,
                                     vt_sched_batch *b, int64_t row, int32_t T, double *logz) {
  const vt_lattices *src = j->src;
  const int32_t L = src->L;
  const size_t n = (size_t)T * (size_t)L;
  double *marg = NULL;
  if (j->conf->post_sink && !(marg = VT_ARENA_NEW(arena, double, n + 1))) return VT_ENOMEM;
  vt_status st;
  if (src->is_f64)
    st = vt_posteriors(tr, arena, (const double *)src->E + row * L, T, marg, logz);
  else
    st = vt_posteriors_f32(tr, arena, (const float *)src->E + row * L, T, marg, logz);
  if (st != VT_OK || !marg) return st;
  if (vt_sched_buf_reserve(&b->aux, n * sizeof(float)) != VT_OK) return VT_ENOMEM;
  float *o = (float *)(void *)(b->aux.data + b->aux.len);
  for (size_t i = 0; i < n; i++) o[i] = (float)marg[i];
  b->aux.len += n * sizeof(float);
  return VT_OK;
}

static vt_status decode_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  decode_job *j = ctx;
  const vt_lattices *src = j->src;
  const vt_trans *tr = w->model;
  const int32_t k = j->opts->k, L = src->L;
  vt_decode_stats *ds = &j->wstats[w->id].d;
  for (int64_t s = b->first; s < b->first + b->items; s++) {
    int64_t row = src->offset[s];
    int32_t T = (int32_t)(src->offset[s + 1] - row), np = 0;
    int32_t *labels = VT_ARENA_NEW(w->arena, int32_t, (size_t)k * (size_t)T);
    double *scores = VT_ARENA_NEW(w->arena, double, k);
    vt_status st = VT_ENOMEM;
    /* A cancel: the batch is dropped (never written), whether it comes between sentences or
     * inside one (the search decoders poll the flag as they charge their budget). */
    if (atomic_load_explicit(j->cancel, memory_order_relaxed))
      st = VT_ECANCELED;
    else if (labels && scores) {
      if (src->is_f64)
        st = vt_decode_cancelable(tr, j->opts, j->cancel, w->arena,
                                  (const double *)src->E + row * L, T, labels, scores, &np, ds);
      else
        st = vt_decode_f32_cancelable(tr, j->opts, j->cancel, w->arena,
                                      (const float *)src->E + row * L, T, labels, scores, &np, ds);
    }
    double logz = 0.0;
    if (st == VT_OK && (j->conf->logz || j->conf->post_sink))
      st = sentence_posteriors(j, tr, w->arena, b, row, T, &logz);
    if (st == VT_OK)
      st = format_sentence(b, s, T, k, labels, scores, np, j->conf->logz ? &logz : NULL);
    vt_arena_reset(w->arena);
    if (st != VT_OK) {
      snprintf(b->err, sizeof b->err, "sentence %lld: decoding failed: %s", (long long)s,
               vt_strerror(st));
      return st;
    }
  }
  if (src->E_file) {
    const int64_t lo = src->offset[b->first] * L, hi = src->offset[b->first + b->items] * L;
    vt_npy_release_inside(src->E_file, lo, hi - lo);
  }
  return VT_OK;
}

static vt_status decode_write(void *ctx, vt_sched_batch *b) {
  decode_job *j = ctx;
  if (j->sink && b->out.len) {
    errno = 0;
    vt_status st = j->sink(j->sink_ctx, b->out.data, b->out.len);
    if (st != VT_OK) {
      j->write_errno = errno ? errno : EIO;
      return st;
    }
  }
  if (j->conf->post_sink && b->aux.len) {
    errno = 0;
    vt_status st = j->conf->post_sink(j->conf->post_ctx, b->aux.data, b->aux.len);
    if (st != VT_OK) {
      j->write_errno = errno ? errno : EIO;
      return st;
    }
  }
  release_rows(j, b->first + b->items);
  if (j->mark) { /* every sentence before this one written: the place after the batch */
    vt_corpus_pos after;
    memset(&after, 0, sizeof after);
    after.sentences = b->first + b->items;
    j->mark(j->mark_ctx, &after);
  }
  return VT_OK;
}

static void decode_progress(void *ctx, const vt_sched_progress *p) {
  decode_job *j = ctx;
  vt_engine_progress(j->eo, p, 0, 0);
}

static vt_status trans_clone(const void *model, const vt_mem *mem, void **out) {
  if (!mem) { /* one NUMA node: the model as it is */
    *out = (void *)(uintptr_t)model;
    return VT_OK;
  }
  vt_trans *t = NULL;
  vt_status st = vt_trans_clone_to(&t, model, mem);
  *out = t;
  return st;
}

static void trans_free(void *replica, const vt_mem *mem) {
  if (mem) vt_trans_clone_free(replica, mem);
}

vt_status vt_decode_job_run(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                            const vt_conf_opts *conf, const vt_lattices *lat, int64_t first,
                            int64_t count, vt_mark_fn mark, void *mark_ctx, vt_sink_fn sink,
                            void *sink_ctx, vt_run_report *rep, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  const vt_plan *plan = &e->plan;
  decode_job j;
  memset(&j, 0, sizeof j);
  memset(rep, 0, sizeof *rep);
  if (vt_trans_labels(trans) != lat->L) {
    st = vt_fail_into(err, errlen, VT_EINVAL, "the transition model has %d labels, the lattices %d",
                      vt_trans_labels(trans), lat->L);
    goto fail;
  }
  if (first < 0 || count < 0 || first > lat->n_sent || count > lat->n_sent - first) {
    st =
        vt_fail_into(err, errlen, VT_EINVAL,
                     "decode: sentences [%lld, %lld) are not in the %lld of the lattices",
                     (long long)first, (long long)first + (long long)count, (long long)lat->n_sent);
    goto fail;
  }
  j.src = lat;
  j.next = first;
  j.end = first + count;
  j.released = lat->offset[first] * lat->L;
  j.opts = opts;
  j.conf = conf;
  j.cancel = &e->cancel;
  j.sink = sink;
  j.sink_ctx = sink_ctx;
  j.mark = mark;
  j.mark_ctx = mark_ctx;
  j.eo = &e->opts;
  j.budget = e->opts.batch_tokens;
  j.wstats = aligned_alloc(64, (size_t)plan->n_workers * sizeof *j.wstats);
  if (!j.wstats) {
    vt_fail_into(err, errlen, st, "out of memory");
    goto fail;
  }
  memset(j.wstats, 0, (size_t)plan->n_workers * sizeof *j.wstats);
  if (conf->post_sink && first == 0) { /* the .npy header of the whole set: the rows follow */
    char hdr[256];
    const int64_t shape[2] = {lat->offset[lat->n_sent], lat->L};
    size_t n = vt_npy_header(VT_NPY_F32, 2, shape, hdr, sizeof hdr);
    errno = 0;
    if ((st = conf->post_sink(conf->post_ctx, hdr, n)) != VT_OK) {
      j.write_errno = rep->write_errno = errno ? errno : EIO;
      vt_fail_into(err, errlen, st, "write error: %s", strerror(j.write_errno));
      goto fail;
    }
  }
  /* Light reads: the lattices are mapped, and a batch is a range of them. */
  vt_engine_job ej = {{&j, decode_read, decode_work, decode_write, decode_progress, 0, NULL, 0, 1},
                      trans,
                      trans_clone,
                      trans_free,
                      NULL,
                      &j.write_errno,
                      1};
  st = vt_engine_job_run(e, &ej, rep, err, errlen);
  for (int i = 0; i < plan->n_workers; i++) vt_decode_stats_add(&rep->decode, &j.wstats[i].d);
  free(j.wstats);
  return st;
fail : { /* nothing ran: the engine's last-run statistics are empty */
  vt_sched_stats none;
  memset(&none, 0, sizeof none);
  vt_engine_keep_stats(e, &none);
  free(j.wstats);
  return st;
}
}
