/* tests/test_ipm_span.c: iterative parameter mixing across processes (vt_ipm_span), the
 * processes played by POSIX threads of this program joined by tests/comm_threads.h. A job split
 * over 2 or 3 processes, each with its own weights and only its shards' sentences, ends with
 * every process's weights the same bits as one process training the whole corpus, for plain and
 * observation-dependent bigram templates, with processes holding no shard, shards with no
 * sentence and threads inside the processes; the epoch's end is agreed (the mistakes summed, a
 * stop asked on one process stops all); the parts the processes exchange hold integers only;
 * a process that fails, or a part that is not integers, fails every process without a hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm_threads.h"
#include "io/conll.h"
#include "test_util.h"
#include "train/train.h"
#include "train/train_export.h"
#include "train/train_ipm.h"

static char dir[] = "/tmp/vt_test_ipm_span.XXXXXX";

static const char plain_tmpl[] = "U00:%x[0,0]\nU01:%x[-1,0]/%x[0,0]\nU02:%x[0,1]\nB\n";
static const char obs_tmpl[] = "U00:%x[0,0]\nB01:%x[-1,0]/%x[0,0]\nB\n";

/* A compiled corpus and what training it needs. */
typedef struct job {
  vt_tmplset ts;
  vt_trainset d;
  vt_tcorpus c;
  int32_t *rank;
} job;

static void remove_dir(void) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* Writes n sentences of words w0..w9 (second column: the word mod 3) whose label is a function
 * of the word and the previous word, and compiles them with `tmpl`. 1 when it worked. */
static int job_make(job *j, const char *tmpl, int n, uint64_t seed) {
  static int made;
  static const char *const labels[] = {"NN", "VB", "DT", "JJ", "B-NP"};
  char err[256], path[400];
  memset(j, 0, sizeof *j);
  if (!made) {
    if (!mkdtemp(dir)) return 0;
    atexit(remove_dir);
    made = 1;
  }
  snprintf(path, sizeof path, "%s/corpus.txt", dir);
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  test_rng r = {seed};
  for (int s = 0; s < n; s++) {
    int T = 1 + test_int(&r, 12), prev = 10;
    for (int t = 0; t < T; t++) {
      int w = test_int(&r, 10);
      fprintf(f, "w%d\tx%d\t%s\n", w, w % 3, labels[(w * 7 + prev * 3) % 5]);
      prev = w;
    }
    fputs("\n", f);
  }
  fclose(f);
  if (vt_tmplset_parse(&j->ts, tmpl, strlen(tmpl), "t", err, sizeof err) != VT_OK) return 0;
  vt_trainset_init(&j->d, &j->ts, -1);
  vt_conll_opts o;
  vt_conll_opts_init(&o);
  vt_conll *rd;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  if (vt_conll_open(&rd, path, &o, err, sizeof err) != VT_OK) return 0;
  int32_t got;
  while (vt_conll_read(rd, &b, 7, 1 << 20, &got, err, sizeof err) == VT_OK && got > 0) {
    vt_trainset_compile(&j->d, &j->c, &b, err, sizeof err);
    vt_sentbatch_clear(&b);
  }
  vt_conll_close(rd);
  vt_sentbatch_free(&b);
  vt_trainset_freeze(&j->d, &j->c, 1);
  j->rank = malloc(sizeof(int32_t) * (size_t)j->d.labels.n);
  if (!j->rank) return 0;
  vt_export_rank(&j->d, j->rank);
  return j->c.n_sent == n;
}

static void job_free(job *j) {
  vt_tcorpus_free(&j->c);
  vt_trainset_free(&j->d);
  vt_tmplset_free(&j->ts);
  free(j->rank);
}

/* v = sentences [a, b) of c, sharing its token arrays (free v->sent_off alone). */
static void slice(const vt_tcorpus *c, int64_t a, int64_t b, vt_tcorpus *v) {
  memset(v, 0, sizeof *v);
  const int64_t t0 = c->sent_off[a];
  v->n_sent = b - a;
  v->n_tok = c->sent_off[b] - t0;
  v->sent_off = malloc(((size_t)(b - a) + 1) * sizeof *v->sent_off);
  for (int64_t s = a; s <= b; s++) {
    v->sent_off[s - a] = c->sent_off[s] - t0;
    if (s < b && c->sent_off[s + 1] - c->sent_off[s] > v->max_T)
      v->max_T = (int32_t)(c->sent_off[s + 1] - c->sent_off[s]);
  }
  v->gold = c->gold + t0;
  v->ufeat = c->ufeat + t0 * c->n_u;
  v->bfeat = c->bfeat + t0 * c->n_b;
  v->n_u = c->n_u;
  v->n_b = c->n_b;
}

/* What one process saw of the epochs' ends. */
typedef struct seen {
  int32_t calls, stop_at; /* on_epoch calls; stop when epoch == stop_at */
  vt_epoch_report last;
  int64_t progress; /* progress calls */
} seen;

static int on_epoch(void *ctx, const vt_epoch_report *r) {
  seen *s = ctx;
  s->calls++;
  s->last = *r;
  return r->epoch == s->stop_at;
}

static void on_progress(void *ctx, int32_t epoch, int32_t epochs, int64_t done, int64_t total) {
  ((seen *)ctx)->progress++;
}

/* A training run: one process of a job, or the whole job alone. */
typedef struct run {
  const job *j;
  vt_perc_opts o;
  vt_ipm_span span;
  vt_train_comm comm;
  vt_tcorpus part; /* this process's sentences (a slice) */
  const vt_tcorpus *dev;
  seen seen;
  vt_weights W;
  vt_perc_report rep;
  vt_status st;
  char err[256];
} run;

static void *run_main(void *arg) {
  run *r = arg;
  const job *j = r->j;
  r->err[0] = 0;
  r->st = vt_weights_init(&r->W, j->d.labels.n, j->d.n_weights, j->d.bigram);
  if (r->st == VT_OK)
    r->st = vt_train_run(&r->W, r->o.span ? &r->part : &j->c, r->dev, j->rank, j->ts.n_b > 0, &r->o,
                         &r->rep, r->err, sizeof r->err);
  return NULL;
}

static vt_perc_opts opts(int32_t shards, int32_t threads, int32_t epochs) {
  vt_perc_opts o;
  memset(&o, 0, sizeof o);
  o.epochs = epochs;
  o.seed = 11;
  o.algo = VT_ALGO_VITERBI;
  o.shards = shards;
  o.threads = threads;
  return o;
}

/* The whole job on one process, shards > 1 (no span), dev and callbacks set. */
static void run_alone(run *r, const job *j, int32_t shards, int32_t threads, int32_t epochs,
                      int32_t stop_at) {
  memset(r, 0, sizeof *r);
  r->j = j;
  r->o = opts(shards, threads, epochs);
  r->o.on_epoch = on_epoch;
  r->o.progress = on_progress;
  r->o.ctx = &r->seen;
  r->seen.stop_at = stop_at;
  r->dev = &j->c;
  run_main(r);
}

/* Wraps a member's comm: every gathered buffer goes through `look` first. */
typedef struct spy {
  vt_train_comm inner, outer;
  void (*look)(struct spy *s, uint8_t *all, size_t len);
  int64_t values, non_int, large_u; /* what look_integers counted */
} spy;

static int spy_gather(void *ctx, const void *mine, size_t len, void **all, size_t *all_len) {
  spy *s = ctx;
  int rc = s->inner.gather_all(s->inner.ctx, mine, len, all, all_len);
  if (rc == 0) s->look(s, *all, *all_len);
  return rc;
}

static int spy_sum_i64(void *ctx, int64_t *v, int64_t n) {
  spy *s = ctx;
  return s->inner.sum_i64(s->inner.ctx, v, n);
}

static int spy_sum_fix(void *ctx, vt_fix128 *v, int64_t n) {
  spy *s = ctx;
  return s->inner.sum_fix(s->inner.ctx, v, n);
}

static void value(spy *s, const uint8_t *p, int is_u) {
  double v;
  memcpy(&v, p, sizeof v);
  s->values++;
  s->non_int += !(fabs(v) < 0x1p53 && v == (double)(int64_t)v);
  s->large_u += is_u && fabs(v) > 1;
}

/* Reads every part by the layout of train_ipm.h and counts its values, those that are not
 * integers below 2^53, and the accumulator deltas past 1 (example numbers at work). */
static void look_integers(spy *s, uint8_t *all, size_t len) {
  for (size_t off = 0; off + 48 <= len;) {
    int64_t h[6];
    memcpy(h, all + off, sizeof h);
    const uint8_t *p = all + off + 48;
    if (h[0] < 48) return;
    off += (size_t)h[0];
    if (h[1]) continue;
    const int64_t L = h[2];
    for (int64_t r = 0; r < h[3]; r++) {
      int32_t n;
      memcpy(&n, p + 4, 4);
      p += 8;
      for (int32_t i = 0; i < n; i++, p += 20) {
        value(s, p + 4, 0);
        value(s, p + 12, 1);
      }
    }
    if (!h[5]) continue;
    int64_t nt;
    memcpy(&nt, p, 8);
    p += 8;
    for (int64_t i = 0; i < nt; i++, p += 20) { /* {cell, dA, dAu} */
      value(s, p + 4, 0);
      value(s, p + 12, 1);
    }
    for (int64_t i = 0; i < 4 * L; i++) value(s, p + 8 * i, (i / L) % 2); /* dS, dSu, dF, dFu */
  }
}

/* Makes the last transition value of the gathered parts 0.5 (on every process alike). */
static void look_spoil(spy *s, uint8_t *all, size_t len) {
  const double half = 0.5;
  if (len >= 8) memcpy(all + len - 8, &half, 8);
}

/* Runs the job over P processes: process p holds shards [cut[p], cut[p + 1]) of `shards`, on
 * 1 + p % 2 threads; process 0 has dev and on_epoch, process P - 1 the progress callback.
 * spies: NULL, or one per process wrapped around its comm. 1 when the threads ran. */
static int run_split(run *r, const job *j, int32_t shards, int P, const int32_t *cut,
                     int32_t epochs, int32_t stop_at, spy *spies) {
  pthread_t th[8];
  vt_comm_threads *g = P <= 8 ? vt_comm_threads_create(P) : NULL;
  if (!g) return 0;
  const vt_tcorpus *c = &j->c;
  for (int p = 0; p < P; p++) {
    run *q = &r[p];
    memset(q, 0, sizeof *q);
    q->j = j;
    q->o = opts(shards, 1 + p % 2, epochs);
    vt_comm_threads_member(g, p, &q->comm);
    if (spies) {
      spies[p].inner = q->comm;
      spies[p].outer = q->comm;
      spies[p].outer.ctx = &spies[p];
      spies[p].outer.gather_all = spy_gather;
      spies[p].outer.sum_i64 = spy_sum_i64;
      spies[p].outer.sum_fix = spy_sum_fix;
    }
    const int64_t a = vt_ipm_shard_start(c->n_sent, shards, cut[p]);
    const int64_t b = vt_ipm_shard_start(c->n_sent, shards, cut[p + 1]);
    slice(c, a, b, &q->part);
    q->span = (vt_ipm_span){cut[p],    cut[p + 1], a,
                            c->n_sent, c->n_tok,   spies ? &spies[p].outer : &q->comm};
    q->o.span = &q->span;
    q->o.ctx = &q->seen;
    q->seen.stop_at = stop_at;
    if (p == 0) {
      q->dev = c;
      q->o.on_epoch = on_epoch;
    }
    if (p == P - 1) q->o.progress = on_progress;
  }
  int ok = 1;
  for (int p = 0; p < P; p++) ok &= pthread_create(&th[p], NULL, run_main, &r[p]) == 0;
  for (int p = 0; p < P; p++) pthread_join(th[p], NULL);
  vt_comm_threads_destroy(g);
  return ok;
}

static void run_free(run *r) {
  vt_weights_free(&r->W);
  free(r->part.sent_off);
}

/* The same weights, bit for bit, in the same layout. */
static int same_weights(const vt_weights *a, const vt_weights *b) {
  const size_t L = (size_t)a->L, LL = L * L;
  if (a->L != b->L || a->n_feat != b->n_feat || memcmp(&a->c, &b->c, sizeof a->c)) return 0;
  if (memcmp(a->A, b->A, LL * 8) || memcmp(a->Au, b->Au, LL * 8) || memcmp(a->S, b->S, L * 8) ||
      memcmp(a->Su, b->Su, L * 8) || memcmp(a->F, b->F, L * 8) || memcmp(a->Fu, b->Fu, L * 8))
    return 0;
  for (int32_t f = 0; f < a->n_feat; f++) {
    const vt_wvec *x = &a->v[f], *y = &b->v[f];
    if (x->n != y->n || !x->dw != !y->dw) return 0;
    for (int32_t i = 0; i < x->n; i++) {
      const double xw = vt_wvec_w(x, i), yw = vt_wvec_w(y, i);
      if (vt_wvec_key(x, i) != vt_wvec_key(y, i) || memcmp(&xw, &yw, 8) ||
          memcmp(&x->u[i], &y->u[i], 8))
        return 0;
    }
  }
  return 1;
}

/* The same values, bit for bit, of every weight and accumulator, whatever the order or density
 * in which each feature's entries were stored (an entry missing from one is 0 there). */
static int same_values(const vt_weights *a, const vt_weights *b) {
  const size_t L = (size_t)a->L, LL = L * L;
  if (a->L != b->L || a->n_feat != b->n_feat || memcmp(&a->c, &b->c, sizeof a->c)) return 0;
  if (memcmp(a->A, b->A, LL * 8) || memcmp(a->Au, b->Au, LL * 8) || memcmp(a->S, b->S, L * 8) ||
      memcmp(a->Su, b->Su, L * 8) || memcmp(a->F, b->F, L * 8) || memcmp(a->Fu, b->Fu, L * 8))
    return 0;
  double *v = calloc(4 * LL, sizeof *v); /* a's w, a's u, b's w, b's u by key */
  int same = v != NULL;
  for (int32_t f = 0; same && f < a->n_feat; f++) {
    const vt_wvec *x[2] = {&a->v[f], &b->v[f]};
    memset(v, 0, 4 * LL * sizeof *v);
    for (int k = 0; k < 2; k++)
      for (int32_t i = 0; i < x[k]->n; i++) {
        v[(size_t)(2 * k) * LL + (size_t)vt_wvec_key(x[k], i)] = vt_wvec_w(x[k], i);
        v[(size_t)(2 * k + 1) * LL + (size_t)vt_wvec_key(x[k], i)] = x[k]->u[i];
      }
    same = !memcmp(v, v + 2 * LL, 2 * LL * sizeof *v);
  }
  free(v);
  return same;
}

/* Every process of a split ran well and ended with the weights of `alone`, with the same
 * report. */
static void expect_split_matches(const run *alone, run *r, int P, const char *what) {
  for (int p = 0; p < P; p++) {
    EXPECT(r[p].st == VT_OK, "%s: process %d: %s", what, p, r[p].err);
    EXPECT(same_weights(&alone->W, &r[p].W), "%s: process %d: weights differ from one process",
           what, p);
    EXPECT_EQ_INT(r[p].rep.epochs, alone->rep.epochs, what);
    EXPECT_EQ_DBL(r[p].rep.train_accuracy, alone->rep.train_accuracy, what);
    EXPECT_EQ_DBL(r[p].rep.dev_accuracy, p == 0 ? alone->rep.dev_accuracy : -1, what);
  }
  /* process 0's epoch reports are the whole job's */
  EXPECT_EQ_INT(r[0].seen.calls, alone->seen.calls, what);
  EXPECT_EQ_INT(r[0].seen.last.sentences, alone->seen.last.sentences, what);
  EXPECT_EQ_INT(r[0].seen.last.mistakes, alone->seen.last.mistakes, what);
  EXPECT_EQ_DBL(r[0].seen.last.train_accuracy, alone->seen.last.train_accuracy, what);
  EXPECT_EQ_DBL(r[0].seen.last.dev_accuracy, alone->seen.last.dev_accuracy, what);
  EXPECT(r[P - 1].seen.progress > 0 || r[P - 1].part.n_sent == 0, "%s: no progress", what);
}

TEST(shard_start) {
  const int64_t ten[4] = {0, 3, 6, 10}, two[6] = {0, 0, 0, 1, 1, 2};
  for (int s = 0; s <= 3; s++) EXPECT_EQ_INT(vt_ipm_shard_start(10, 3, s), ten[s], "10 / 3");
  for (int s = 0; s <= 5; s++) EXPECT_EQ_INT(vt_ipm_shard_start(2, 5, s), two[s], "2 / 5");
  const int64_t big = INT64_MAX / 2 + 12345;
  int64_t prev = 0;
  for (int s = 0; s <= 1024; s++) {
    const int64_t x = vt_ipm_shard_start(big, 1024, s);
    EXPECT(x >= prev && x - prev <= big / 1024 + 1, "shard %d of a large corpus", s);
    prev = x;
  }
  EXPECT_EQ_INT(prev, big, "the last shard ends the corpus");
  /* a round: about VT_IPM_ROUND sentences over all shards, at least one a shard */
  const int64_t round[10] = {0, 8, 4, 2, 2, 1, 1, 1, 1, 1};
  for (int32_t S = 1; S < 10; S++) EXPECT_EQ_INT(vt_ipm_round_length(S), round[S], "round");
  EXPECT_EQ_INT(vt_ipm_round_length(1000), 1, "round of 1000 shards");
}

/* One shard mixed after every round, on one process of a communicator, is the sequential
 * perceptron: the same values of every weight and accumulator, bit for bit (mixing by sums is
 * exact), though a feature's entries may be stored in another order. */
TEST(one_shard_is_sequential) {
  const char *tmpls[2] = {plain_tmpl, obs_tmpl};
  for (int t = 0; t < 2; t++) {
    job j;
    REQUIRE(job_make(&j, tmpls[t], 50, 21 + t), "corpus");
    run seq, r[1];
    run_alone(&seq, &j, 1, 1, 3, 0);
    REQUIRE(seq.st == VT_OK, "sequential: %s", seq.err);
    const int32_t cut[2] = {0, 1};
    REQUIRE(run_split(r, &j, 1, 1, cut, 3, 0, NULL), "threads");
    const char *what = t ? "one shard, bigram templates" : "one shard";
    EXPECT(r[0].st == VT_OK, "%s: %s", what, r[0].err);
    EXPECT(same_values(&seq.W, &r[0].W), "%s: the weights differ from the sequential ones", what);
    EXPECT_EQ_DBL(r[0].rep.train_accuracy, seq.rep.train_accuracy, what);
    EXPECT_EQ_INT(r[0].seen.last.mistakes, seq.seen.last.mistakes, what);
    run_free(&r[0]);
    run_free(&seq);
    job_free(&j);
  }
}

/* 2 and 3 processes (one of them without a shard) give one process's weights. */
TEST(processes_match_one) {
  const char *tmpls[2] = {plain_tmpl, obs_tmpl};
  const int32_t cuts2[2][3] = {{0, 1, 3}, {0, 3, 3}};
  const int32_t cuts3[3][4] = {{0, 1, 2, 3}, {0, 0, 2, 3}, {0, 2, 2, 3}};
  for (int k = 0; k < 2; k++) {
    job j;
    REQUIRE(job_make(&j, tmpls[k], 90, 7), "corpus");
    run alone, alone2;
    run_alone(&alone, &j, 3, 1, 4, 0);
    run_alone(&alone2, &j, 3, 2, 4, 0);
    REQUIRE(alone.st == VT_OK, "template %d: alone: %s", k, alone.err);
    EXPECT(same_weights(&alone.W, &alone2.W), "template %d: 1 and 2 threads differ", k);
    EXPECT(alone.rep.train_accuracy > 0.5, "template %d: it learns", k);
    run r[3];
    for (int c = 0; c < 2; c++) {
      REQUIRE(run_split(r, &j, 3, 2, cuts2[c], 4, 0, NULL), "threads");
      expect_split_matches(&alone, r, 2, k ? "obs bigram, 2 processes" : "2 processes");
      for (int p = 0; p < 2; p++) run_free(&r[p]);
    }
    for (int c = 0; c < 3; c++) {
      REQUIRE(run_split(r, &j, 3, 3, cuts3[c], 4, 0, NULL), "threads");
      expect_split_matches(&alone, r, 3, k ? "obs bigram, 3 processes" : "3 processes");
      for (int p = 0; p < 3; p++) run_free(&r[p]);
    }
    run_free(&alone);
    run_free(&alone2);
    job_free(&j);
  }
}

/* More shards than sentences: empty shards, a process with shards but no sentence, one with
 * no shard. */
TEST(tiny_corpus) {
  job j;
  REQUIRE(job_make(&j, plain_tmpl, 2, 5), "corpus");
  run alone, r[3];
  run_alone(&alone, &j, 5, 1, 3, 0);
  REQUIRE(alone.st == VT_OK, "alone: %s", alone.err);
  const int32_t cut[4] = {0, 2, 2, 5}; /* shards 0 and 1 are empty */
  REQUIRE(run_split(r, &j, 5, 3, cut, 3, 0, NULL), "threads");
  EXPECT_EQ_INT(r[0].part.n_sent, 0, "process 0's sentences");
  expect_split_matches(&alone, r, 3, "5 shards, 2 sentences");
  for (int p = 0; p < 3; p++) run_free(&r[p]);
  run_free(&alone);
  job_free(&j);
}

/* A stop asked on one process (process 0, which has on_epoch) stops every process together. */
TEST(stop_together) {
  job j;
  REQUIRE(job_make(&j, plain_tmpl, 60, 9), "corpus");
  run alone, r[2];
  run_alone(&alone, &j, 4, 1, 6, 2);
  REQUIRE(alone.st == VT_OK && alone.rep.epochs == 2, "alone: %s", alone.err);
  const int32_t cut[3] = {0, 3, 4};
  REQUIRE(run_split(r, &j, 4, 2, cut, 6, 2, NULL), "threads");
  expect_split_matches(&alone, r, 2, "stopped after 2 epochs");
  for (int p = 0; p < 2; p++) run_free(&r[p]);
  run_free(&alone);
  job_free(&j);
}

/* What the processes exchange are integers (weight deltas +-1, accumulator deltas +-c). */
TEST(deltas_are_integers) {
  job j;
  REQUIRE(job_make(&j, obs_tmpl, 80, 13), "corpus");
  run alone, r[3];
  spy spies[3];
  memset(spies, 0, sizeof spies);
  for (int p = 0; p < 3; p++) spies[p].look = look_integers;
  run_alone(&alone, &j, 4, 1, 3, 0);
  const int32_t cut[4] = {0, 1, 1, 4};
  REQUIRE(run_split(r, &j, 4, 3, cut, 3, 0, spies), "threads");
  expect_split_matches(&alone, r, 3, "spied");
  for (int p = 0; p < 3; p++) {
    EXPECT(spies[p].values > 1000, "process %d saw %lld values", p, (long long)spies[p].values);
    EXPECT_EQ_INT(spies[p].non_int, 0, "values that are not integers");
    EXPECT(spies[p].large_u > 0, "accumulator deltas past 1");
    run_free(&r[p]);
  }
  run_free(&alone);
  job_free(&j);
}

/* A part that is not integers, or a process that fails, fails every process (no hang). */
TEST(failures_fail_all) {
  job j;
  REQUIRE(job_make(&j, plain_tmpl, 40, 17), "corpus");
  run r[2];
  spy spies[2];
  memset(spies, 0, sizeof spies);
  for (int p = 0; p < 2; p++) spies[p].look = look_spoil;
  const int32_t cut[3] = {0, 1, 2};
  REQUIRE(run_split(r, &j, 2, 2, cut, 3, 0, spies), "threads");
  for (int p = 0; p < 2; p++) {
    EXPECT(r[p].st == VT_EFORMAT, "process %d: status %d", p, (int)r[p].st);
    EXPECT(strstr(r[p].err, "not integers") != NULL, "process %d: '%s'", p, r[p].err);
    run_free(&r[p]);
  }
  /* a span that does not match its corpus fails there, and cancels the other process */
  vt_comm_threads *g = vt_comm_threads_create(2);
  REQUIRE(g != NULL, "comm");
  const vt_tcorpus *c = &j.c;
  const int64_t mid = vt_ipm_shard_start(c->n_sent, 2, 1);
  pthread_t th[2];
  for (int p = 0; p < 2; p++) {
    memset(&r[p], 0, sizeof r[p]);
    r[p].j = &j;
    r[p].o = opts(2, 1, 3);
    vt_comm_threads_member(g, p, &r[p].comm);
    slice(c, p ? mid : 0, p ? c->n_sent : mid, &r[p].part);
    r[p].span = (vt_ipm_span){p, p + 1, p ? mid + 1 : 0, c->n_sent, c->n_tok, &r[p].comm};
    r[p].o.span = &r[p].span;
  }
  for (int p = 0; p < 2; p++) REQUIRE(pthread_create(&th[p], NULL, run_main, &r[p]) == 0, "th");
  for (int p = 0; p < 2; p++) pthread_join(th[p], NULL);
  vt_comm_threads_destroy(g);
  EXPECT(r[1].st == VT_EINVAL && strstr(r[1].err, "hold sentences"), "bad span: %d '%s'",
         (int)r[1].st, r[1].err);
  EXPECT(r[0].st == VT_ECANCELED && strstr(r[0].err, "another process"), "the other: %d '%s'",
         (int)r[0].st, r[0].err);
  for (int p = 0; p < 2; p++) run_free(&r[p]);
  job_free(&j);
}

TEST_MAIN(CASE(shard_start), CASE(one_shard_is_sequential), CASE(processes_match_one),
          CASE(tiny_corpus), CASE(stop_together), CASE(deltas_are_integers),
          CASE(failures_fail_all))
