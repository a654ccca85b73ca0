/* engine/train/train_ipm.c: the averaged perceptron on several cores, or several processes, by
 * parameter mixing in rounds (see vt_train_run_ipm in train_ipm.h).
 *
 * Every epoch each shard shuffles its sentences, then the shards train round by round: in a round
 * every shard trains its next vt_ipm_round_length sentences (about VT_IPM_ROUND over all shards)
 * from the mixed weights W, then the mix (train_mix.c) sums the deltas of this process's shards
 * into its part, gathers every process's part (this one's alone without a communicator) and adds
 * their sum to W. Mixing by sums this often is a mini-batch of about VT_IPM_ROUND sentences whose
 * shards each see their own updates at once: it stays as accurate as the sequential perceptron,
 * where mixing once an epoch by averages (McDonald, Hall & Mann 2010) lost 0.2-0.7 points of
 * token accuracy at 2-4 shards in 5 epochs (perf/README.md). A round's cost beyond its sentences
 * follows what it changed: the mix lists the features and transition cells the shards updated,
 * and a shard brings only those cells of its transitions and decoder back to W, in one
 * vt_trans_update with its round's last update (O(L) a changed row or column, never O(L^2)).
 *
 * Threads share nothing they write: during a round a shard reads W (never written then) and
 * writes only its own deltas, transitions, decoder, order and buffers. The sums are of integers,
 * so exact whatever the order, and each feature's keys reach W in ascending order: the weights,
 * and the model, are the same bits for any thread count and any split of the shards over
 * processes.
 *
 * Why the deltas are integers: shard_update adds +-1 to a weight (dw) and +-c to its
 * accumulator (du), where c = the mixed clock W->c (1, then advanced after every round by the
 * round's length in the largest shard, so by ceil(N / S) an epoch) plus the sentence's index in
 * its round. A sum of integers stays exact in doubles while every partial sum is below 2^53 in
 * magnitude. In an epoch a weight changes at most once a token (each template gives a token one
 * feature; a transition cell is the gold or the predicted pair of a position, not both) by at
 * most the last example number, so vt_train_run_ipm refuses a job where n_tok x that number
 * reaches 2^53. (A template written twice with the same name would give a token the same feature
 * twice and double the bound unnoticed.) The mix checks every value it adds again: one that is
 * not an integer fails the job.
 *
 * A shard decodes with its current weights: emissions add to W's vector of a feature the
 * shard's delta of it when it has one (vt_wover; integers, so the same sums in any order), and
 * its transitions are W's plus its deltas. Memory per shard: the deltas of the features it
 * updated in the round, L x L transitions
 * (current, deltas and their accumulators: 3 L^2 doubles), its bound transition model, 4 bytes a
 * feature (its slot) and 1.5 L^2 / 8 doubles of cells to refresh; per process, the mixer (2 L^2
 * doubles, 4 bytes a feature) and the gathered parts. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "core/omp_tsan.h"
#include "text/strhash.h"
#include "train/perc_ckpt.h"
#include "train/perc_step.h"
#include "train/train_eval.h"
#include "train/train_ipm.h"
#include "train/train_mix.h"

int64_t vt_ipm_shard_start(int64_t n_sent, int32_t shards, int32_t s) {
  const int64_t q = n_sent / shards, r = n_sent % shards;
  return q * s + r * s / shards;
}

int64_t vt_ipm_round_length(int32_t shards) {
  return shards > 0 && shards < VT_IPM_ROUND ? VT_IPM_ROUND / shards : 1;
}

/* One shard's state; everything here is written by the thread running the shard only. */
typedef struct shard {
  vt_wover own;     /* the features it updated this round: their deltas */
  int64_t first, n; /* its sentences: local ids order[first .. first + n) */
  uint64_t rng;     /* its shuffle's generator, carried across epochs */
  double c;         /* example number of the sentence being trained */
  double *dA, *dAu; /* this round's transition deltas and their accumulators (L x L) */
  double *dS, *dSu, *dF, *dFu;
  int32_t *cells; /* the transition cells its deltas changed this round (repeats allowed) */
  int64_t n_cells, cap_cells;
  double *A, *S, *F;     /* current transitions: the mixed ones plus the deltas */
  vt_trans *tr;          /* bound to A, S, F (NULL for observation-dependent bigram models) */
  int synced;            /* A, S, F and tr have followed the mixes (else: copied afresh) */
  int64_t late0, late1;  /* cells[late0..late1): the round's last update, which tr lacks */
  int late_se;           /* and it changed S or F, which tr lacks too */
  int32_t *rprev, *rcur; /* the cells to bring to the mixed weights, and their values */
  double *rval;
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
  free(h->cells);
  free(h->rprev);
  free(h->rcur);
  free(h->rval);
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
  h->S = calloc(L + 1, sizeof *h->S);
  h->F = calloc(L + 1, sizeof *h->F);
  h->E = malloc(maxT * L * sizeof *h->E);
  h->pred = malloc(maxT * sizeof *h->pred);
  h->cprev = malloc(2 * maxT * sizeof *h->cprev);
  h->ccur = malloc(2 * maxT * sizeof *h->ccur);
  h->cval = malloc(2 * maxT * sizeof *h->cval);
  h->rprev = malloc((L * L / 8 + 1) * sizeof *h->rprev);
  h->rcur = malloc((L * L / 8 + 1) * sizeof *h->rcur);
  h->rval = malloc((L * L / 8 + 1) * sizeof *h->rval);
  if (!h->rprev || !h->rcur || !h->rval || !h->dA || !h->dAu || !h->dS || !h->dSu || !h->dF ||
      !h->dFu || !h->A || !h->S || !h->F || !h->E || !h->pred || !h->cprev || !h->ccur ||
      !h->cval || vt_arena_create(&h->arena, 0) != VT_OK)
    return VT_ENOMEM;
  return VT_OK;
}

/* Notes cells g and q as changed this round. VT_OK or VT_ENOMEM. */
static vt_status note_cells(shard *h, int32_t g, int32_t q) {
  if (h->n_cells + 2 > h->cap_cells) {
    const int64_t cap = h->cap_cells ? 2 * h->cap_cells : 256;
    int32_t *c = realloc(h->cells, (size_t)cap * sizeof *c);
    if (!c) return VT_ENOMEM;
    h->cells = c;
    h->cap_cells = cap;
  }
  h->cells[h->n_cells++] = g;
  h->cells[h->n_cells++] = q;
  return VT_OK;
}

/* Forgets the last round's deltas and private copies, and brings the shard's transitions (and
 * its decoder) to the mixed ones of W: the cells it changed and those the last mix changed
 * (`changed[0..n_changed)`), or all of them the first time or when that is most of them. The
 * decoder gets the round's last update here too (shard_round leaves it late), in the same
 * refresh. */
static vt_status shard_sync(shard *h, const vt_weights *W, const int32_t *changed,
                            int64_t n_changed, const int32_t *rank, int obs_bigram) {
  const int32_t L = W->L;
  const size_t l = (size_t)L, LL = l * l;
  vt_wover_clear(&h->own);
  memset(h->dS, 0, l * sizeof *h->dS);
  memset(h->dSu, 0, l * sizeof *h->dSu);
  memset(h->dF, 0, l * sizeof *h->dF);
  memset(h->dFu, 0, l * sizeof *h->dFu);
  const int se =
      h->late_se || memcmp(h->S, W->S, l * sizeof *h->S) || memcmp(h->F, W->F, l * sizeof *h->F);
  memcpy(h->S, W->S, l * sizeof *h->S);
  memcpy(h->F, W->F, l * sizeof *h->F);
  int64_t n = h->n_cells + n_changed;
  vt_status st = VT_OK;
  if (!h->synced || n > (int64_t)(LL / 8)) {
    memset(h->dA, 0, LL * sizeof *h->dA);
    memset(h->dAu, 0, LL * sizeof *h->dAu);
    memcpy(h->A, W->A, LL * sizeof *h->A);
    vt_trans_destroy(h->tr);
    h->tr = NULL;
    if (!obs_bigram) st = vt_trans_create(&h->tr, L, h->A, h->S, h->F, rank);
  } else {
    int32_t k = 0; /* the cells whose value differs (the others' deltas) */
    for (int64_t i = 0; i < n; i++) {
      const int32_t c = i < h->n_cells ? h->cells[i] : changed[i - h->n_cells];
      h->dA[c] = h->dAu[c] = 0;
      if (h->A[c] == W->A[c] && (i < h->late0 || i >= h->late1)) continue;
      h->A[c] = W->A[c];
      h->rprev[k] = c / L;
      h->rcur[k] = c % L;
      h->rval[k++] = h->A[c];
    }
    if (h->tr && (k || se))
      st =
          vt_trans_update(h->tr, k, h->rprev, h->rcur, h->rval, se ? h->S : NULL, se ? h->F : NULL);
  }
  h->n_cells = h->late0 = h->late1 = 0;
  h->late_se = 0;
  h->synced = st == VT_OK;
  return st;
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
    if (note_cells(h, (int32_t)g, (int32_t)q) != VT_OK) return VT_ENOMEM;
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
  const vt_mixer *m; /* the last mix: the transition cells it changed */
  int64_t *order;    /* each shard shuffles its own range */
  const int32_t *rank;
  int obs_bigram;
  const vt_perc_opts *o;
  vt_decode_opts dopts;
  int32_t epoch;
  int64_t per_round; /* sentences a shard trains between two mixes (its last round: what is left) */
  int64_t done;      /* sentences done by this process's shards this epoch (omp atomic) */
  int64_t next;      /* the progress callback's next count (OpenMP's thread 0 only) */
} epoch_ctx;

/* The shard's round r of the epoch: its sentences order[r m, min((r + 1) m, n)) (m = x->per_round)
 * of this epoch's order, from the mixed weights x->W. */
static vt_status shard_round(shard *h, epoch_ctx *x, int64_t r) {
  const vt_weights *W = x->W;
  const vt_tcorpus *tc = x->train;
  const int32_t L = W->L;
  const int64_t *order = x->order + h->first;
  const int32_t *changed;
  const int64_t n_changed = vt_mixer_changed(x->m, &changed);
  vt_status st = shard_sync(h, W, changed, n_changed, x->rank, x->obs_bigram);
  if (st != VT_OK) return st;
  const int64_t total = tc->n_sent, tick = total / 100 + 1;
  const double c0 = W->c;
  const int64_t i0 = r * x->per_round < h->n ? r * x->per_round : h->n;
  const int64_t i1 = i0 + x->per_round < h->n ? i0 + x->per_round : h->n;
  for (int64_t i = i0; i < i1; i++) {
    const int64_t sid = order[i], t0 = tc->sent_off[sid];
    const int32_t T = (int32_t)(tc->sent_off[sid + 1] - t0);
    h->c = c0 + (double)(i - i0);
    vt_weights_emit_over(W, &h->own, tc->ufeat + t0 * tc->n_u, tc->n_u, T, h->E);
    double score, d0 = vt_clock_seconds();
    int32_t np;
    if (x->obs_bigram) {
      vt_obs_lattice lat = {L, T, h->A, h->S, h->F, h->E, NULL, NULL, NULL, NULL};
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
      const int64_t before = h->n_cells;
      if ((st = shard_update(h, W, tc, t0, T, &nc, &se)) != VT_OK) return st;
      if (i + 1 == i1) { /* the round's last update: the decoder gets it with the next sync */
        h->late0 = before;
        h->late1 = h->n_cells;
        h->late_se = se;
      } else if (h->tr && (st = vt_trans_update(h->tr, nc, h->cprev, h->ccur, h->cval,
                                                se ? h->S : NULL, se ? h->F : NULL)) != VT_OK) {
        return st;
      }
    }
    int64_t done;
#pragma omp atomic capture
    done = ++x->done;
    /* callbacks run on the calling thread only (OpenMP's thread 0 is the caller) */
    if (x->o->progress && omp_get_thread_num() == 0 && done >= x->next) {
      x->o->progress(x->o->ctx, x->epoch, x->o->epochs, done, total);
      x->next = done + tick;
    }
  }
  return VT_OK;
}

/* With a communicator: whether every process's `st` is VT_OK. A process whose own st is VT_OK
 * gets VT_ECANCELED (message in err) when another's is not, and VT_EIO when the call fails;
 * else st is returned as it was. Without one, st. */
static vt_status agree(const vt_train_comm *comm, vt_status st, char *err, size_t errlen) {
  if (!comm) return st;
  int64_t failed = st != VT_OK;
  if (comm->sum_i64(comm->ctx, &failed, 1) != 0)
    return vt_fail_into(err, errlen, VT_EIO,
                        "training: a collective call between the processes failed");
  if (failed && st == VT_OK)
    return vt_fail_into(err, errlen, VT_ECANCELED, "training: another process failed");
  return st;
}

/* The round's mix: this process's part of its ns shards' deltas d (a failure part when `st`
 * is not VT_OK), every process's part by comm (this one's alone without), then W += their sum
 * and the clock W->c += tick. Returns VT_OK or as vt_train_run_ipm says; with comm, the
 * processes fail together. */
static vt_status mix(vt_weights *W, vt_mixer *m, const vt_mix_deltas *d, int32_t ns, vt_status st,
                     const vt_train_comm *comm, double tick, int nthreads, char *err,
                     size_t errlen) {
  void *gathered = NULL;
  const void *all = NULL;
  size_t len = 0;
  int failed = 0;
  if (st == VT_OK && (st = vt_mixer_part(m, W, d, ns, nthreads, &all, &len)) != VT_OK)
    vt_errorf(err, errlen, NULL, "training: out of memory");
  if (comm) {
    uint8_t fail_part[VT_MIX_HEAD];
    if (st != VT_OK) {
      len = vt_mix_fail_part(fail_part, W->L);
      all = fail_part;
    }
    if (comm->gather_all(comm->ctx, all, len, &gathered, &len) != 0) {
      /* every process gets the failure from the same call */
      st = vt_fail_into(err, errlen, VT_EIO,
                        "training: a collective call between the processes failed");
      goto done;
    }
    all = gathered;
  }
  if (st == VT_OK) {
    st = vt_mix_add(m, W, all, len, nthreads, &failed);
    if (st == VT_OK && failed)
      st = vt_fail_into(err, errlen, VT_ECANCELED, "training: another process failed");
    if (st == VT_ENOMEM) vt_errorf(err, errlen, NULL, "training: out of memory");
    if (st == VT_EFORMAT)
      vt_errorf(err, errlen, NULL,
                "training: a process's deltas are malformed or not integers: "
                "parameter mixing cannot be exact");
  }
  if ((st = agree(comm, st, err, errlen)) == VT_OK) W->c += tick;
done:
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
  vt_mixer *m = NULL;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  /* A failure here still meets the other processes at `agree`: they fail with this one. */
  vt_status st = span_check(train, o, &sp, err, errlen);
  const vt_train_comm *comm = o->span ? o->span->comm : NULL;
  const int32_t ns = st == VT_OK ? sp.s1 - sp.s0 : 0;
  int nthreads = o->threads > 0 ? o->threads : omp_get_max_threads();
  if (nthreads > ns) nthreads = ns > 0 ? ns : 1;
  /* the averaging clock: examples of the largest shard an epoch, a round's length a round */
  const int64_t largest = st == VT_OK ? (sp.n_sent + o->shards - 1) / o->shards : 0;
  const double per_epoch = (double)largest;
  const int64_t per_round = vt_ipm_round_length(o->shards);
  const int64_t rounds = (largest + per_round - 1) / per_round;
  shard *sh = NULL;
  vt_mix_deltas *d = NULL;
  int64_t *order = NULL;
  if (st != VT_OK) goto setup;
  sh = calloc((size_t)ns + 1, sizeof *sh);
  d = calloc((size_t)ns + 1, sizeof *d);
  order = malloc(((size_t)train->n_sent + 1) * sizeof *order);
  m = vt_mixer_create(W);
  st = VT_ENOMEM;
  if (!sh || !d || !order || !m) goto setup;
  const size_t maxT = (size_t)(train->max_T > 0 ? train->max_T : 1);
  for (int32_t k = 0; k < ns; k++) {
    if (shard_alloc(&sh[k], W, maxT) != VT_OK) goto setup;
    const int32_t s = sp.s0 + k;
    sh[k].first = vt_ipm_shard_start(sp.n_sent, o->shards, s) - sp.sent0;
    sh[k].n = vt_ipm_shard_start(sp.n_sent, o->shards, s + 1) - sp.sent0 - sh[k].first;
    /* shard 0's generator is the sequential trainer's (vt_mix64(0) = 0): one shard trains as
     * the sequential perceptron (the same values of every weight) */
    sh[k].rng = o->seed ^ vt_mix64((uint64_t)s * 0x9E3779B97F4A7C15ull);
  }
  for (int64_t i = 0; i < train->n_sent; i++) order[i] = i;
  for (int32_t k = 0; k < ns; k++) /* the shuffles of the epochs a checkpoint did */
    for (int32_t e = 0; e < o->done; e++)
      vt_train_shuffle(order + sh[k].first, sh[k].n, &sh[k].rng);
  st = VT_OK;
  if ((double)sp.n_tok * (W->c + (o->epochs - o->done) * per_epoch) >= 0x1p53)
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "training: %lld tokens over %d epochs are too many for exact parameter "
                      "mixing (tokens x examples reach 2^53)",
                      (long long)sp.n_tok, (int)o->epochs);
setup:
  if (st == VT_ENOMEM) vt_errorf(err, errlen, NULL, "training: out of memory");
  if ((st = agree(comm, st, err, errlen)) != VT_OK) goto done;
  epoch_ctx x = {W, train, m, order, rank, obs_bigram, o, {0}, 0, per_round, 0, 0};
  vt_decode_opts_init(&x.dopts);
  x.dopts.algo = o->algo;

  for (int32_t epoch = o->done + 1; epoch <= o->epochs; epoch++) {
    double t_start = vt_clock_seconds();
    x.epoch = epoch;
    x.done = x.next = 0;
    for (int32_t k = 0; k < ns; k++) vt_train_shuffle(order + sh[k].first, sh[k].n, &sh[k].rng);
    int64_t tok_err = 0, sent_err = 0;
    for (int64_t r = 0; r < rounds; r++) {
      if (ns > 0) {
#pragma omp parallel num_threads(nthreads)
        {
          VT_OMP_BEGIN();
#pragma omp for schedule(dynamic, 1)
          for (int32_t k = 0; k < ns; k++) sh[k].st = shard_round(&sh[k], &x, r);
          VT_OMP_END();
        }
        VT_OMP_JOINED();
      }
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
        const shard *h = &sh[k];
        d[k] = (vt_mix_deltas){&h->own, h->dA,  h->dAu,   h->dS,     h->dSu,
                               h->dF,   h->dFu, h->cells, h->n_cells};
      }
      /* the clock advances by the round's length in the largest shard */
      const int64_t left = largest - r * x.per_round;
      const double tick = (double)(left < x.per_round ? left : x.per_round);
      st = mix(W, m, d, ns, local, comm, tick, nthreads, err, errlen);
      if (st != VT_OK) goto done;
    }
    int stop = 0;
    st = vt_train_epoch_end(W, train, dev, rank, obs_bigram, o, epoch, tok_err, sent_err,
                            vt_clock_seconds() - t_start, rep, &stop, err, errlen);
    if (st != VT_OK) goto done;
    if (stop) break;
    if (vt_ckpt_on_interval(o->ckpt, epoch, o->epochs)) { /* process 0 decides and writes */
      int64_t want = vt_ckpt_due(o->ckpt, epoch, o->epochs);
      if (comm) {
        want = o->ckpt->writer ? want : 0;
        if (comm->sum_i64(comm->ctx, &want, 1) != 0) {
          st = vt_fail_into(err, errlen, VT_EIO,
                            "training: a collective call between the processes failed");
          goto done;
        }
      }
      if (want && (st = agree(comm, vt_perc_ckpt_save(o->ckpt, W, epoch, o->epochs, err, errlen),
                              err, errlen)) != VT_OK)
        goto done;
      if ((st = vt_ckpt_stop(o->ckpt, epoch, 0, err, errlen)) != VT_OK) goto done;
    }
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
  free(d);
  vt_mixer_destroy(m);
  return st;
}
