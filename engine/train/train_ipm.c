/* engine/train/train_ipm.c: the averaged perceptron on several cores, or several processes, by
 * iterative parameter mixing (McDonald, Hall & Mann 2010; see vt_train_run_ipm in
 * train_ipm.h).
 *
 * Threads share nothing they write: during an epoch a shard reads the mixed weights W (never
 * written then) and writes only its own deltas, transitions, decoder, order and buffers. The mix
 * that follows runs in parallel over chunks of features: first every chunk's deltas, summed
 * over this process's shards, are written as records of this process's part; then the parts of
 * all processes (this one's alone without a communicator) are added, feature by feature, into
 * W, each thread writing whole feature vectors of its own. The sums are of integers, so exact
 * whatever the order, and each feature's keys reach W in ascending order: the weights, and the
 * model, are the same bits for any thread count and any split of the shards over processes.
 *
 * Why the deltas are integers: shard_update adds +-1 to a weight (dw) and +-c to its
 * accumulator (du), where c = the mixed clock W->c (1, then advanced by the integer per_epoch
 * every epoch) plus the sentence's index in its shard. A sum of integers stays exact in doubles
 * while every partial sum is below 2^53 in magnitude; a weight changes at most once a token per
 * template slot and c never passes the last example number, so vt_train_run_ipm refuses a job
 * where n_tok x that number reaches 2^53 (a template set that repeats a template word for word
 * doubles a slot's updates: such a job, past 2^52, is not caught). The parts are checked again
 * as they are added: a value that is not an integer fails the job.
 *
 * A shard decodes with its current weights without a second pass over its deltas: the first
 * update of a feature copies the feature's mixed vector into the shard (vt_wover), and emissions
 * take a feature's vector from the shard when it owns one, else from W. Memory per shard: the
 * deltas and copies of the features it updated in the epoch, L x L transitions (current, deltas
 * and their accumulators: 3 L^2 doubles) and its bound transition model, and 4 bytes a feature
 * (its slot); per process, its part (20 bytes a changed weight, 2 L^2 + 4 L doubles) and the
 * gathered parts. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "core/omp_tsan.h"
#include "text/strhash.h"
#include "train/perc_step.h"
#include "train/train_eval.h"
#include "train/train_ipm.h"

enum {
  HDR_BYTES = 48,  /* a part's header: 6 words (train_ipm.h) */
  REC_HEAD = 8,    /* a record's {f, n} */
  ENT_BYTES = 20,  /* an entry's {key, dw, du} */
  MIX_CHUNK = 1024 /* features a task of the mix */
};

int64_t vt_ipm_shard_start(int64_t n_sent, int32_t shards, int32_t s) {
  const int64_t q = n_sent / shards, r = n_sent % shards;
  return q * s + r * s / shards;
}

/* One shard's state; everything here is written by the thread running the shard only. */
typedef struct shard {
  vt_wover own;     /* the features it updated this epoch: deltas and current weights */
  int64_t first, n; /* its sentences: local ids order[first .. first + n) */
  uint64_t rng;     /* its shuffle's generator, carried across epochs */
  double c;         /* example number of the sentence being trained */
  double *dA, *dAu; /* this epoch's transition deltas and their accumulators (L x L) */
  double *dS, *dSu, *dF, *dFu;
  double *A, *S, *F; /* current transitions: the mixed ones plus the deltas */
  vt_trans *tr;      /* bound to A, S, F (NULL for observation-dependent bigram models) */
  vt_arena *arena;
  double *E, *cval;
  int32_t *pred, *cprev, *ccur;
  vt_decode_stats stats;
  double decode_seconds;
  int64_t tok_err, sent_err;
  vt_status st;
} shard;

static void shard_free(shard *h) {
  vt_wover_free(&h->own);
  double *arrays[] = {h->dA, h->dAu, h->dS, h->dSu, h->dF, h->dFu, h->A, h->S, h->F, h->E, h->cval};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  vt_trans_destroy(h->tr);
  vt_arena_destroy(h->arena);
  free(h->pred);
  free(h->cprev);
  free(h->ccur);
  memset(h, 0, sizeof *h);
}

static vt_status shard_alloc(shard *h, const vt_weights *W, size_t maxT) {
  const size_t L = (size_t)W->L;
  memset(h, 0, sizeof *h);
  if (vt_wover_init(&h->own, W->n_feat) != VT_OK) return VT_ENOMEM;
  h->dA = malloc(L * L * sizeof *h->dA);
  h->dAu = malloc(L * L * sizeof *h->dAu);
  h->dS = malloc(L * sizeof *h->dS);
  h->dSu = malloc(L * sizeof *h->dSu);
  h->dF = malloc(L * sizeof *h->dF);
  h->dFu = malloc(L * sizeof *h->dFu);
  h->A = malloc(L * L * sizeof *h->A);
  h->S = malloc(L * sizeof *h->S);
  h->F = malloc(L * sizeof *h->F);
  h->E = malloc(maxT * L * sizeof *h->E);
  h->pred = malloc(maxT * sizeof *h->pred);
  h->cprev = malloc(2 * maxT * sizeof *h->cprev);
  h->ccur = malloc(2 * maxT * sizeof *h->ccur);
  h->cval = malloc(2 * maxT * sizeof *h->cval);
  if (!h->dA || !h->dAu || !h->dS || !h->dSu || !h->dF || !h->dFu || !h->A || !h->S || !h->F ||
      !h->E || !h->pred || !h->cprev || !h->ccur || !h->cval ||
      vt_arena_create(&h->arena, 0) != VT_OK)
    return VT_ENOMEM;
  return VT_OK;
}

/* Forgets the last epoch's deltas and private copies. */
static void shard_clear(shard *h, int32_t L) {
  const size_t l = (size_t)L;
  vt_wover_clear(&h->own);
  memset(h->dA, 0, l * l * sizeof *h->dA);
  memset(h->dAu, 0, l * l * sizeof *h->dAu);
  memset(h->dS, 0, l * sizeof *h->dS);
  memset(h->dSu, 0, l * sizeof *h->dSu);
  memset(h->dF, 0, l * sizeof *h->dF);
  memset(h->dFu, 0, l * sizeof *h->dFu);
}

/* The perceptron update of one sentence (gold y, prediction p) into the shard's deltas, at
 * example number h->c (features first updated are copied from the mixed weights W); the shard's
 * current transitions follow, and the changed cells' new values go to cprev/ccur/cval for
 * vt_trans_update. *se_changed: S or F changed. Every delta it adds is +-1 (weights) or +-h->c
 * (accumulators), an integer. */
static vt_status shard_update(shard *h, const vt_weights *W, const vt_tcorpus *c, int64_t t0,
                              int32_t T, int32_t *n_cells, int *se_changed) {
  const int32_t L = W->L, *y = c->gold + t0, *p = h->pred;
  const double cnt = h->c;
  int32_t nc = 0;
  for (int32_t t = 0; t < T; t++) {
    if (y[t] == p[t]) continue;
    const int32_t *fs = c->ufeat + (t0 + t) * c->n_u;
    for (int32_t k = 0; k < c->n_u; k++) {
      if (fs[k] < 0) continue;
      if (vt_wover_add(&h->own, W, fs[k], y[t], 1.0, cnt) != VT_OK) return VT_ENOMEM;
      if (vt_wover_add(&h->own, W, fs[k], p[t], -1.0, cnt) != VT_OK) return VT_ENOMEM;
    }
  }
  for (int32_t t = 1; t < T; t++) {
    if (y[t - 1] == p[t - 1] && y[t] == p[t]) continue;
    size_t g = (size_t)y[t - 1] * L + (size_t)y[t], q = (size_t)p[t - 1] * L + (size_t)p[t];
    h->dA[g] += 1.0;
    h->dAu[g] += cnt;
    h->dA[q] -= 1.0;
    h->dAu[q] -= cnt;
    h->A[g] += 1.0;
    h->A[q] -= 1.0;
    h->cprev[nc] = y[t - 1];
    h->ccur[nc] = y[t];
    h->cprev[nc + 1] = p[t - 1];
    h->ccur[nc + 1] = p[t];
    nc += 2;
    const int32_t *bf = c->bfeat + (t0 + t) * c->n_b;
    for (int32_t k = 0; k < c->n_b; k++) {
      if (bf[k] < 0) continue;
      if (vt_wover_add(&h->own, W, bf[k], (int32_t)g, 1.0, cnt) != VT_OK) return VT_ENOMEM;
      if (vt_wover_add(&h->own, W, bf[k], (int32_t)q, -1.0, cnt) != VT_OK) return VT_ENOMEM;
    }
  }
  for (int32_t i = 0; i < nc; i++) h->cval[i] = h->A[(size_t)h->cprev[i] * L + (size_t)h->ccur[i]];
  *se_changed = 0;
  if (y[0] != p[0]) {
    h->dS[y[0]] += 1.0, h->dSu[y[0]] += cnt, h->S[y[0]] += 1.0;
    h->dS[p[0]] -= 1.0, h->dSu[p[0]] -= cnt, h->S[p[0]] -= 1.0;
    *se_changed = 1;
  }
  if (y[T - 1] != p[T - 1]) {
    h->dF[y[T - 1]] += 1.0, h->dFu[y[T - 1]] += cnt, h->F[y[T - 1]] += 1.0;
    h->dF[p[T - 1]] -= 1.0, h->dFu[p[T - 1]] -= cnt, h->F[p[T - 1]] -= 1.0;
    *se_changed = 1;
  }
  *n_cells = nc;
  return VT_OK;
}

/* What every shard of an epoch shares (read-only, but for the progress counter). */
typedef struct epoch_ctx {
  const vt_weights *W;
  const vt_tcorpus *train;
  int64_t *order; /* each shard shuffles its own range */
  const int32_t *rank;
  int obs_bigram;
  const vt_perc_opts *o;
  vt_decode_opts dopts;
  int32_t epoch;
  int64_t done; /* sentences done by this process's shards (omp atomic) */
} epoch_ctx;

/* The shard's epoch: its sentences in a new order of its own generator, from the mixed weights
 * x->W. */
static vt_status shard_epoch(shard *h, epoch_ctx *x) {
  const vt_weights *W = x->W;
  const vt_tcorpus *tc = x->train;
  const int32_t L = W->L;
  const size_t LL = (size_t)L * (size_t)L;
  const int64_t *order = x->order + h->first;
  vt_status st;
  shard_clear(h, L);
  memcpy(h->A, W->A, LL * sizeof *h->A);
  memcpy(h->S, W->S, (size_t)L * sizeof *h->S);
  memcpy(h->F, W->F, (size_t)L * sizeof *h->F);
  vt_trans_destroy(h->tr);
  h->tr = NULL;
  if (!x->obs_bigram && (st = vt_trans_create(&h->tr, L, h->A, h->S, h->F, x->rank)) != VT_OK)
    return st;
  vt_train_shuffle(x->order + h->first, h->n, &h->rng);
  const int64_t total = tc->n_sent, tick = total / 100 + 1;
  const double c0 = W->c;
  int64_t next = 0;
  for (int64_t i = 0; i < h->n; i++) {
    const int64_t sid = order[i], t0 = tc->sent_off[sid];
    const int32_t T = (int32_t)(tc->sent_off[sid + 1] - t0);
    h->c = c0 + (double)i;
    vt_weights_emit_over(W, &h->own, tc->ufeat + t0 * tc->n_u, tc->n_u, T, h->E);
    double score, d0 = vt_clock_seconds();
    int32_t np;
    if (x->obs_bigram) {
      vt_obs_lattice lat = {L, T, h->A, h->S, h->F, h->E, NULL, NULL, NULL};
      st = vt_train_obs_deltas(W, &h->own, tc->bfeat + t0 * tc->n_b, tc->n_b, T, 0, h->arena, &lat);
      if (st == VT_OK)
        st = vt_obs_decode(&lat, &x->dopts, h->arena, h->pred, &score, &np, &h->stats);
    } else {
      st = vt_decode(h->tr, &x->dopts, h->arena, h->E, T, h->pred, &score, &np, &h->stats);
    }
    h->decode_seconds += vt_clock_seconds() - d0;
    vt_arena_reset(h->arena);
    if (st != VT_OK) return st;
    int32_t wrong = 0;
    for (int32_t t = 0; t < T; t++) wrong += h->pred[t] != tc->gold[t0 + t];
    if (wrong) {
      int32_t nc;
      int se;
      h->tok_err += wrong;
      h->sent_err++;
      if ((st = shard_update(h, W, tc, t0, T, &nc, &se)) != VT_OK) return st;
      if (h->tr && (st = vt_trans_update(h->tr, nc, h->cprev, h->ccur, h->cval, se ? h->S : NULL,
                                         se ? h->F : NULL)) != VT_OK)
        return st;
    }
    int64_t done;
#pragma omp atomic capture
    done = ++x->done;
    /* callbacks run on the calling thread only (OpenMP's thread 0 is the caller) */
    if (x->o->progress && omp_get_thread_num() == 0 && done >= next) {
      x->o->progress(x->o->ctx, x->epoch, x->o->epochs, done, total);
      next = done + tick;
    }
  }
  return VT_OK;
}

/* A growable byte buffer. */
typedef struct bytes {
  uint8_t *p;
  size_t n, cap;
} bytes;

/* Room for `more` bytes after b->n. VT_OK or VT_ENOMEM. */
static vt_status bytes_reserve(bytes *b, size_t more) {
  if (b->cap - b->n >= more) return VT_OK;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->n < more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) return VT_ENOMEM;
  b->p = p;
  b->cap = cap;
  return VT_OK;
}

/* Appends len bytes at src (room reserved). */
static void bytes_put(bytes *b, const void *src, size_t len) {
  memcpy(b->p + b->n, src, len);
  b->n += len;
}

static int32_t get_i32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static double get_f64(const uint8_t *p) {
  double v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* v is an integer of magnitude below 2^53 (false for NaN and infinities). */
static int exact_int(double v) { return fabs(v) < 0x1p53 && v == (double)(int64_t)v; }

/* A feature's summed delta for one key. */
typedef struct ent {
  int32_t key;
  double w, u;
} ent;

static int ent_by_key(const void *a, const void *b) {
  const int32_t x = ((const ent *)a)->key, y = ((const ent *)b)->key;
  return x < y ? -1 : x > y;
}

/* The deltas of feature f over the shards sh[0..ns), summed per key (exact: integers), into
 * (*e)[0..count) by ascending key, without the keys whose dw and du both sum to 0 (*e grows;
 * *cap its room). Returns the count, or -1 without memory. */
static int64_t feature_sum(const shard *sh, int32_t ns, int32_t f, ent **e, int64_t *cap) {
  int64_t m = 0;
  for (int32_t s = 0; s < ns; s++) {
    const int32_t slot = sh[s].own.slot[f];
    if (slot < 0) continue;
    const vt_wvec *v = &sh[s].own.d[slot];
    if (m + v->n > *cap) {
      int64_t c = *cap ? *cap : 64;
      while (c < m + v->n) c *= 2;
      ent *g = realloc(*e, (size_t)c * sizeof *g);
      if (!g) return -1;
      *e = g;
      *cap = c;
    }
    for (int32_t i = 0; i < v->n; i++) {
      const double w = vt_wvec_w(v, i), u = v->u[i];
      if (w == 0 && u == 0) continue; /* a dense delta's untouched labels */
      (*e)[m++] = (ent){vt_wvec_key(v, i), w, u};
    }
  }
  ent *a = *e;
  if (m > 1) qsort(a, (size_t)m, sizeof *a, ent_by_key);
  int64_t k = 0;
  for (int64_t i = 0; i < m;) {
    ent sum = a[i++];
    while (i < m && a[i].key == sum.key) sum.w += a[i].w, sum.u += a[i++].u;
    if (sum.w != 0 || sum.u != 0) a[k++] = sum;
  }
  return k;
}

/* What the mix keeps from epoch to epoch. */
typedef struct mixer {
  int64_t n_chunk;
  bytes *chunk;       /* per MIX_CHUNK features: their records in this process's part */
  int64_t *chunk_rec; /* and their count */
  double *tsum;       /* the shards' transition deltas summed: dA, dAu, dS, dSu, dF, dFu */
  bytes part;         /* this process's part */
} mixer;

static void mixer_free(mixer *m) {
  for (int64_t c = 0; m->chunk && c < m->n_chunk; c++) free(m->chunk[c].p);
  free(m->chunk);
  free(m->chunk_rec);
  free(m->tsum);
  free(m->part.p);
  memset(m, 0, sizeof *m);
}

static vt_status mixer_alloc(mixer *m, const vt_weights *W) {
  const size_t L = (size_t)W->L;
  memset(m, 0, sizeof *m);
  m->n_chunk = ((int64_t)W->n_feat + MIX_CHUNK - 1) / MIX_CHUNK;
  m->chunk = calloc((size_t)m->n_chunk + 1, sizeof *m->chunk);
  m->chunk_rec = calloc((size_t)m->n_chunk + 1, sizeof *m->chunk_rec);
  m->tsum = malloc((2 * L * L + 4 * L) * sizeof *m->tsum);
  return m->chunk && m->chunk_rec && m->tsum ? VT_OK : VT_ENOMEM;
}

/* Writes this process's part into m->part (train_ipm.h): the deltas of its ns shards summed,
 * on `nthreads` threads (each chunk of features by one). VT_OK or VT_ENOMEM. */
static vt_status build_part(mixer *m, const vt_weights *W, const shard *sh, int32_t ns,
                            int nthreads) {
  const int64_t nf = W->n_feat, LL = (int64_t)W->L * W->L;
  const int32_t L = W->L;
  int bad = 0;
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
    ent *e = NULL;
    int64_t cap = 0;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < m->n_chunk; c++) {
      bytes *b = &m->chunk[c];
      b->n = 0;
      m->chunk_rec[c] = 0;
      const int64_t f1 = (c + 1) * MIX_CHUNK < nf ? (c + 1) * MIX_CHUNK : nf;
      for (int64_t f = c * MIX_CHUNK; f < f1 && ns > 0; f++) {
        const int64_t k = feature_sum(sh, ns, (int32_t)f, &e, &cap);
        if (k == 0) continue;
        if (k < 0 || bytes_reserve(b, REC_HEAD + (size_t)k * ENT_BYTES) != VT_OK) {
#pragma omp atomic write
          bad = 1;
          break;
        }
        const int32_t head[2] = {(int32_t)f, (int32_t)k};
        bytes_put(b, head, sizeof head);
        for (int64_t i = 0; i < k; i++) {
          bytes_put(b, &e[i].key, 4);
          bytes_put(b, &e[i].w, 8);
          bytes_put(b, &e[i].u, 8);
        }
        m->chunk_rec[c]++;
      }
    }
    free(e);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < LL; i++) {
      double a = 0, au = 0;
      for (int32_t s = 0; s < ns; s++) a += sh[s].dA[i], au += sh[s].dAu[i];
      m->tsum[i] = a;
      m->tsum[LL + i] = au;
    }
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  if (bad) return VT_ENOMEM;
  double *t = m->tsum + 2 * LL;
  for (int32_t y = 0; y < L; y++) {
    t[y] = t[L + y] = t[2 * L + y] = t[3 * L + y] = 0;
    for (int32_t s = 0; s < ns; s++) {
      t[y] += sh[s].dS[y];
      t[L + y] += sh[s].dSu[y];
      t[2 * L + y] += sh[s].dF[y];
      t[3 * L + y] += sh[s].dFu[y];
    }
  }
  int64_t n_rec = 0, rec_bytes = 0;
  for (int64_t c = 0; c < m->n_chunk; c++) n_rec += m->chunk_rec[c], rec_bytes += m->chunk[c].n;
  const size_t tbytes = ns > 0 ? (size_t)(2 * LL + 4 * L) * sizeof(double) : 0;
  m->part.n = 0;
  if (bytes_reserve(&m->part, HDR_BYTES + (size_t)rec_bytes + tbytes) != VT_OK) return VT_ENOMEM;
  const int64_t head[6] = {HDR_BYTES + rec_bytes + (int64_t)tbytes, 0, L, n_rec, rec_bytes, ns > 0};
  bytes_put(&m->part, head, sizeof head);
  for (int64_t c = 0; c < m->n_chunk; c++) bytes_put(&m->part, m->chunk[c].p, m->chunk[c].n);
  bytes_put(&m->part, m->tsum, tbytes);
  return VT_OK;
}

/* One process's part as received. */
typedef struct part {
  const uint8_t *rec; /* its records */
  int64_t n_rec;
  int64_t *at;          /* offset of each record in rec (ascending features) */
  const uint8_t *trans; /* its transition deltas, or NULL */
} part;

/* Splits the gathered parts all[0..len) into *parts (malloc'd, *np of them, each with its
 * record index malloc'd) and checks their layout; *failed: some process sent a failure.
 * VT_OK, VT_ENOMEM or VT_EFORMAT (free *parts either way with parts_free). */
static vt_status parts_read(const uint8_t *all, size_t len, const vt_weights *W, part **parts,
                            int64_t *np, int *failed) {
  const int64_t L = W->L, tbytes = (2 * L * L + 4 * L) * (int64_t)sizeof(double);
  *parts = NULL;
  *np = 0;
  *failed = 0;
  int64_t cap = 0;
  for (size_t off = 0; off < len;) {
    int64_t h[6];
    if (len - off < HDR_BYTES) return VT_EFORMAT;
    memcpy(h, all + off, sizeof h);
    if (h[0] < HDR_BYTES || (uint64_t)h[0] > len - off) return VT_EFORMAT;
    const uint8_t *p = all + off;
    off += (size_t)h[0];
    if (h[1]) {
      *failed = 1;
      continue;
    }
    /* each record takes at least one entry */
    if (h[2] != L || h[3] < 0 || h[4] < 0 || h[3] > h[4] / (REC_HEAD + ENT_BYTES) ||
        h[0] != HDR_BYTES + h[4] + (h[5] ? tbytes : 0))
      return VT_EFORMAT;
    if (*np == cap) {
      cap = cap ? 2 * cap : 8;
      part *g = realloc(*parts, (size_t)cap * sizeof *g);
      if (!g) return VT_ENOMEM;
      *parts = g;
    }
    part *q = &(*parts)[(*np)++];
    q->rec = p + HDR_BYTES;
    q->n_rec = h[3];
    q->trans = h[5] ? p + HDR_BYTES + h[4] : NULL;
    q->at = malloc(((size_t)h[3] + 1) * sizeof *q->at);
    if (!q->at) return VT_ENOMEM;
    int64_t pos = 0;
    int32_t prev = -1;
    for (int64_t r = 0; r < h[3]; r++) {
      if (h[4] - pos < REC_HEAD) return VT_EFORMAT;
      const int32_t f = get_i32(q->rec + pos), n = get_i32(q->rec + pos + 4);
      if (f <= prev || f >= W->n_feat || n < 1 || (h[4] - pos - REC_HEAD) / ENT_BYTES < n)
        return VT_EFORMAT;
      q->at[r] = pos;
      pos += REC_HEAD + (int64_t)n * ENT_BYTES;
      prev = f;
    }
    if (pos != h[4]) return VT_EFORMAT;
  }
  return VT_OK;
}

static void parts_free(part *parts, int64_t np) {
  for (int64_t p = 0; parts && p < np; p++) free(parts[p].at);
  free(parts);
}

/* The first record of q for a feature >= f. */
static int64_t first_record(const part *q, int64_t f) {
  int64_t lo = 0, hi = q->n_rec;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (get_i32(q->rec + q->at[mid]) < f)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A mixing thread's place in the parts: per part, its next record, the entries left of the
 * feature being mixed, where the next is and the last key taken. */
typedef struct merge_pos {
  int64_t *cur, *left, *last;
  const uint8_t **ep;
} merge_pos;

/* W += (the sum of the parts' deltas) / k for the features of chunk c, each feature's keys in
 * ascending order, its parts merged by key; sets *bad_mem on a failed allocation, *bad_form on
 * a key out of range or out of order or a value that is not an integer. */
static void mix_chunk(vt_weights *W, const part *parts, int64_t np, int64_t c, double k,
                      merge_pos *m, int *bad_mem, int *bad_form) {
  const int64_t nf = W->n_feat, f1 = (c + 1) * MIX_CHUNK < nf ? (c + 1) * MIX_CHUNK : nf;
  for (int64_t p = 0; p < np; p++) m->cur[p] = first_record(&parts[p], c * MIX_CHUNK);
  for (;;) {
    int64_t f = f1;
    for (int64_t p = 0; p < np; p++)
      if (m->cur[p] < parts[p].n_rec && get_i32(parts[p].rec + parts[p].at[m->cur[p]]) < f)
        f = get_i32(parts[p].rec + parts[p].at[m->cur[p]]);
    if (f == f1) return;
    for (int64_t p = 0; p < np; p++) {
      m->left[p] = 0;
      m->last[p] = -1;
      if (m->cur[p] >= parts[p].n_rec) continue;
      const uint8_t *r = parts[p].rec + parts[p].at[m->cur[p]];
      if (get_i32(r) != f) continue;
      m->left[p] = get_i32(r + 4);
      m->ep[p] = r + REC_HEAD;
      m->cur[p]++;
    }
    const int64_t nkeys = W->bigram[f] ? (int64_t)W->L * W->L : W->L;
    for (;;) { /* the smallest key left in any part, summed over the parts */
      int64_t key = nkeys;
      for (int64_t p = 0; p < np; p++)
        if (m->left[p] && get_i32(m->ep[p]) < key) key = get_i32(m->ep[p]);
      if (key == nkeys) break;
      double w = 0, u = 0;
      for (int64_t p = 0; p < np; p++) {
        if (!m->left[p] || get_i32(m->ep[p]) != key) continue;
        const double dw = get_f64(m->ep[p] + 4), du = get_f64(m->ep[p] + 12);
        if (key < 0 || key <= m->last[p] || !exact_int(dw) || !exact_int(du)) *bad_form = 1;
        w += dw;
        u += du;
        m->last[p] = key;
        m->ep[p] += ENT_BYTES;
        m->left[p]--;
      }
      if (key < 0) return; /* reported above */
      if ((w != 0 || u != 0) &&
          vt_weights_add_wu(W, (int32_t)f, (int32_t)key, w / k, u / k) != VT_OK)
        *bad_mem = 1;
    }
    for (int64_t p = 0; p < np; p++)
      if (m->left[p]) *bad_form = 1; /* a key past the feature's range */
  }
}

/* W += (the sum of the parts' deltas) / k for every weight, on `nthreads` threads, each chunk
 * of features by one (mix_chunk), each transition cell by one. VT_OK, VT_ENOMEM, or VT_EFORMAT
 * for a part out of order or with a value that is not an integer (W is then undefined). */
static vt_status mix_parts(vt_weights *W, const part *parts, int64_t np, double k, int nthreads) {
  const int64_t nf = W->n_feat, LL = (int64_t)W->L * W->L;
  const int64_t n_chunk = (nf + MIX_CHUNK - 1) / MIX_CHUNK;
  const int32_t L = W->L;
  int bad_mem = 0, bad_form = 0;
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
    int tbad_mem = 0, tbad_form = 0;
    merge_pos m = {
        malloc(((size_t)np + 1) * sizeof *m.cur), malloc(((size_t)np + 1) * sizeof *m.left),
        malloc(((size_t)np + 1) * sizeof *m.last), malloc(((size_t)np + 1) * sizeof *m.ep)};
    if (!m.cur || !m.left || !m.last || !m.ep) tbad_mem = 1;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < n_chunk; c++)
      if (!tbad_mem) mix_chunk(W, parts, np, c, k, &m, &tbad_mem, &tbad_form);
    free(m.cur);
    free(m.left);
    free(m.last);
    free(m.ep);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < LL; i++) {
      double a = 0, au = 0;
      for (int64_t p = 0; p < np; p++) {
        if (!parts[p].trans) continue;
        const double da = get_f64(parts[p].trans + 8 * i);
        const double dau = get_f64(parts[p].trans + 8 * (LL + i));
        if (!exact_int(da) || !exact_int(dau)) tbad_form = 1;
        a += da;
        au += dau;
      }
      W->A[i] += a / k;
      W->Au[i] += au / k;
    }
    if (tbad_mem || tbad_form) {
#pragma omp critical
      bad_mem |= tbad_mem, bad_form |= tbad_form;
    }
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  for (int32_t y = 0; y < L; y++) {
    double t[4] = {0, 0, 0, 0};
    for (int64_t p = 0; p < np; p++)
      for (int j = 0; j < 4 && parts[p].trans; j++) {
        const double d = get_f64(parts[p].trans + 8 * (2 * LL + (int64_t)j * L + y));
        if (!exact_int(d)) bad_form = 1;
        t[j] += d;
      }
    W->S[y] += t[0] / k;
    W->Su[y] += t[1] / k;
    W->F[y] += t[2] / k;
    W->Fu[y] += t[3] / k;
  }
  return bad_mem ? VT_ENOMEM : bad_form ? VT_EFORMAT : VT_OK;
}

/* With a communicator: whether every process's `st` is VT_OK. A process whose own st is VT_OK
 * gets VT_ECANCELED (message in err) when another's is not, and VT_EIO when the call fails;
 * else st is returned as it was. Without one, st. */
static vt_status agree(const vt_train_comm *comm, vt_status st, char *err, size_t errlen) {
  if (!comm) return st;
  int64_t failed = st != VT_OK;
  if (comm->sum_i64(comm->ctx, &failed, 1) != 0)
    return vt_fail_into(err, errlen, VT_EIO,
                        "training: a collective call between the processes "
                        "failed");
  if (failed && st == VT_OK)
    return vt_fail_into(err, errlen, VT_ECANCELED, "training: another process failed");
  return st;
}

/* The epoch's mix: this process's part of its ns shards (a failure part when `st` is not
 * VT_OK), every process's part by comm (this one's alone without), then W += their sum / k
 * and the clock W->c += per_epoch. Returns VT_OK or as vt_train_run_ipm says; with comm, the
 * processes fail together. */
static vt_status mix(vt_weights *W, mixer *m, const shard *sh, int32_t ns, vt_status st,
                     const vt_train_comm *comm, double k, double per_epoch, int nthreads, char *err,
                     size_t errlen) {
  void *gathered = NULL;
  part *parts = NULL;
  int64_t np = 0;
  int failed = 0;
  if (st == VT_OK && (st = build_part(m, W, sh, ns, nthreads)) != VT_OK)
    vt_errorf(err, errlen, NULL, "training: out of memory");
  const uint8_t *all = m->part.p;
  size_t len = m->part.n;
  if (comm) {
    const int64_t fail_head[6] = {HDR_BYTES, 1, W->L, 0, 0, 0};
    const void *mine = st == VT_OK ? (const void *)m->part.p : (const void *)fail_head;
    if (comm->gather_all(comm->ctx, mine, st == VT_OK ? m->part.n : HDR_BYTES, &gathered, &len) !=
        0) {
      /* every process gets the failure from the same call */
      st = vt_fail_into(err, errlen, VT_EIO,
                        "training: a collective call between the processes failed");
      goto done;
    }
    all = gathered;
  }
  if (st == VT_OK) {
    st = parts_read(all, len, W, &parts, &np, &failed);
    if (st == VT_OK && failed)
      st = vt_fail_into(err, errlen, VT_ECANCELED, "training: another process failed");
    if (st == VT_OK) st = mix_parts(W, parts, np, k, nthreads);
    if (st == VT_ENOMEM) vt_errorf(err, errlen, NULL, "training: out of memory");
    if (st == VT_EFORMAT)
      vt_errorf(err, errlen, NULL,
                "training: a process's deltas are malformed or not integers: "
                "parameter mixing cannot be exact");
  }
  if ((st = agree(comm, st, err, errlen)) == VT_OK) W->c += per_epoch;
done:
  parts_free(parts, np);
  free(gathered);
  return st;
}

/* Checks o->span against `train` and o->shards; fills *sp with the span (the whole job when
 * o->span is NULL). VT_OK or VT_EINVAL (message in err). */
static vt_status span_check(const vt_tcorpus *train, const vt_perc_opts *o, vt_ipm_span *sp,
                            char *err, size_t errlen) {
  const int32_t S = o->shards;
  *sp = (vt_ipm_span){0, S, 0, train->n_sent, train->n_tok, NULL};
  if (S < 1)
    return vt_fail_into(err, errlen, VT_EINVAL, "training: parameter mixing over %d shards",
                        (int)S);
  if (!o->span) return VT_OK;
  *sp = *o->span;
  if (sp->s0 < 0 || sp->s0 > sp->s1 || sp->s1 > S || sp->n_sent < train->n_sent ||
      sp->n_tok < train->n_tok || (!sp->comm && (sp->s0 != 0 || sp->s1 != S)))
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training: shards [%d, %d) of %d, %lld sentences and %lld tokens "
                        "in all: not a span of this corpus (%lld sentences, %lld tokens)%s",
                        (int)sp->s0, (int)sp->s1, (int)S, (long long)sp->n_sent,
                        (long long)sp->n_tok, (long long)train->n_sent, (long long)train->n_tok,
                        sp->comm ? "" : " without a communicator, which needs all shards");
  const int64_t a = vt_ipm_shard_start(sp->n_sent, S, sp->s0);
  const int64_t b = vt_ipm_shard_start(sp->n_sent, S, sp->s1);
  if (sp->sent0 != a || train->n_sent != b - a)
    return vt_fail_into(err, errlen, VT_EINVAL,
                        "training: shards [%d, %d) of %d hold sentences [%lld, %lld) of %lld, "
                        "not the %lld given from %lld",
                        (int)sp->s0, (int)sp->s1, (int)S, (long long)a, (long long)b,
                        (long long)sp->n_sent, (long long)train->n_sent, (long long)sp->sent0);
  return VT_OK;
}

vt_status vt_train_run_ipm(vt_weights *W, const vt_tcorpus *train, const vt_tcorpus *dev,
                           const int32_t *rank, int obs_bigram, const vt_perc_opts *o,
                           vt_perc_report *rep, char *err, size_t errlen) {
  vt_ipm_span sp;
  mixer m;
  memset(&m, 0, sizeof m);
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  /* A failure here still meets the other processes at `agree`: they fail with this one. */
  vt_status st = span_check(train, o, &sp, err, errlen);
  const vt_train_comm *comm = o->span ? o->span->comm : NULL;
  const int32_t ns = st == VT_OK ? sp.s1 - sp.s0 : 0;
  int nthreads = o->threads > 0 ? o->threads : omp_get_max_threads();
  if (nthreads > ns) nthreads = ns > 0 ? ns : 1;
  /* the averaging clock: examples of the largest shard */
  const double per_epoch = st == VT_OK ? (double)((sp.n_sent + o->shards - 1) / o->shards) : 0;
  shard *sh = NULL;
  int64_t *order = NULL;
  if (st != VT_OK) goto setup;
  sh = calloc((size_t)ns + 1, sizeof *sh);
  order = malloc(((size_t)train->n_sent + 1) * sizeof *order);
  st = VT_ENOMEM;
  if (!sh || !order || mixer_alloc(&m, W) != VT_OK) goto setup;
  const size_t maxT = (size_t)(train->max_T > 0 ? train->max_T : 1);
  for (int32_t k = 0; k < ns; k++) {
    if (shard_alloc(&sh[k], W, maxT) != VT_OK) goto setup;
    const int32_t s = sp.s0 + k;
    sh[k].first = vt_ipm_shard_start(sp.n_sent, o->shards, s) - sp.sent0;
    sh[k].n = vt_ipm_shard_start(sp.n_sent, o->shards, s + 1) - sp.sent0 - sh[k].first;
    /* shard 0's generator is the sequential trainer's (vt_mix64(0) = 0): one shard trains as
     * the sequential perceptron */
    sh[k].rng = o->seed ^ vt_mix64((uint64_t)s * 0x9E3779B97F4A7C15ull);
  }
  for (int64_t i = 0; i < train->n_sent; i++) order[i] = i;
  st = VT_OK;
  if ((double)sp.n_tok * (W->c + o->epochs * per_epoch) >= 0x1p53)
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "training: %lld tokens over %d epochs are too many for exact parameter "
                      "mixing (tokens x examples reach 2^53)",
                      (long long)sp.n_tok, (int)o->epochs);
setup:
  if (st == VT_ENOMEM) vt_errorf(err, errlen, NULL, "training: out of memory");
  if ((st = agree(comm, st, err, errlen)) != VT_OK) goto done;
  epoch_ctx x = {W, train, order, rank, obs_bigram, o, {0}, 0, 0};
  vt_decode_opts_init(&x.dopts);
  x.dopts.algo = o->algo;

  for (int32_t epoch = 1; epoch <= o->epochs; epoch++) {
    double t_start = vt_clock_seconds();
    x.epoch = epoch;
    x.done = 0;
    if (ns > 0) {
#pragma omp parallel num_threads(nthreads)
      {
        VT_OMP_BEGIN();
#pragma omp for schedule(dynamic, 1)
        for (int32_t k = 0; k < ns; k++) sh[k].st = shard_epoch(&sh[k], &x);
        VT_OMP_END();
      }
      VT_OMP_JOINED();
    }
    int64_t tok_err = 0, sent_err = 0;
    vt_status local = VT_OK;
    for (int32_t k = 0; k < ns; k++) {
      if (local == VT_OK && (local = sh[k].st) != VT_OK) {
        if (local == VT_ENOMEM)
          vt_errorf(err, errlen, NULL, "training: out of memory");
        else
          vt_errorf(err, errlen, NULL, "training: decoding failed: %s", vt_strerror(local));
      }
      tok_err += sh[k].tok_err;
      sent_err += sh[k].sent_err;
      sh[k].tok_err = sh[k].sent_err = 0;
    }
    st = mix(W, &m, sh, ns, local, comm, (double)o->shards, per_epoch, nthreads, err, errlen);
    if (st != VT_OK) goto done;
    int stop = 0;
    st = vt_train_epoch_end(W, train, dev, rank, obs_bigram, o, epoch, tok_err, sent_err,
                            vt_clock_seconds() - t_start, rep, &stop, err, errlen);
    if (st != VT_OK) goto done;
    if (stop) break;
  }
  st = VT_OK;
done:
  for (int32_t k = 0; sh && k < ns; k++) {
    vt_decode_stats_add(&rep->decode, &sh[k].stats);
    rep->decode_seconds += sh[k].decode_seconds;
    shard_free(&sh[k]);
  }
  free(sh);
  free(order);
  mixer_free(&m);
  return st;
}
