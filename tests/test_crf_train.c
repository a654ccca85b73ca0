/* tests/test_crf_train.c: the CRF trainer's objective and gradient (engine/train/crf_grad.h) on
 * problems the tests make: the loss at w = 0 (sum of T log L), the loss against brute-force
 * enumeration of every labelling, against log-space forward-backward (vt_posteriors) at many
 * labels, extreme weights without overflow, the gradient against central finite differences,
 * the same bits for 1, 2 and 3 threads (dense transitions and their sparse form alike) and for the
 * corpus cut in two at a batch boundary and summed through a vt_train_comm, the batch rule,
 * CRFsuite's feature generation, L-BFGS / OWL-QN / SGD lowering the objective (L1 giving exact
 * zeros), and L-BFGS on two "processes" (threads over a vt_train_comm) giving the weights of one.
 */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"
#include "train/crf_data.h"
#include "train/crf_exp.h"
#include "train/crf_grad.h"
#include "train/crf_sparse.h"
#include "train/crf_train.h"
#include "train/train_comm.h"
#include "vitesse.h"

/* A random problem: n sequences of 1..maxT items over L labels and A attributes, each item with
 * 1..4 attributes of values in [0.5, 2) (or 1 when `unit`). Gold labels are random. */
static void problem_make(vt_crf_data *d, test_rng *r, int32_t L, int32_t A, int64_t n, int maxT,
                         int unit) {
  memset(d, 0, sizeof *d);
  d->L = L;
  d->n_attr = A;
  d->n_sent = n;
  d->sent_off = malloc(((size_t)n + 1) * sizeof *d->sent_off);
  int64_t cap = n * maxT;
  d->gold = malloc((size_t)cap * sizeof *d->gold);
  d->tok_off = malloc(((size_t)cap + 1) * sizeof *d->tok_off);
  d->attr = malloc((size_t)cap * 4 * sizeof *d->attr);
  d->val = malloc((size_t)cap * 4 * sizeof *d->val);
  d->sent_off[0] = 0;
  d->tok_off[0] = 0;
  int64_t tok = 0, occ = 0;
  for (int64_t s = 0; s < n; s++) {
    int T = 1 + test_int(r, maxT);
    if (T > d->max_T) d->max_T = T;
    for (int t = 0; t < T; t++, tok++) {
      d->gold[tok] = test_int(r, L);
      int k = 1 + test_int(r, 4);
      for (int i = 0; i < k; i++, occ++) {
        d->attr[occ] = test_int(r, A);
        d->val[occ] = unit ? 1.0 : 0.5 + 1.5 * test_unit(r);
      }
      d->tok_off[tok + 1] = occ;
    }
    d->sent_off[s + 1] = tok;
  }
  d->n_tok = tok;
}

/* Every feature (all states of attributes seen, all transitions). */
static void feats_all(vt_crf_feats *f, const vt_crf_data *d) {
  vt_crf_featgen g = {0, 1, 1, NULL};
  vt_crf_feats_build(f, d, &g, NULL);
}

static void weights_random(double *w, int64_t n, test_rng *r, double scale) {
  for (int64_t i = 0; i < n; i++) w[i] = scale * (2 * test_unit(r) - 1);
}

/* The score of labelling y of sequence s under w. */
static double path_score(const vt_crf_data *d, const vt_crf_feats *f, const double *w, int64_t s,
                         const int32_t *y) {
  double sc = 0;
  int64_t t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
  for (int64_t t = 0; t < T; t++) {
    for (int64_t i = d->tok_off[t0 + t]; i < d->tok_off[t0 + t + 1]; i++) {
      int64_t k = vt_crf_feats_state(f, d->attr[i], y[t]);
      if (k >= 0) sc += w[k] * d->val[i];
    }
    if (t > 0) {
      int32_t k = f->tr_id[y[t - 1] * f->L + y[t]];
      if (k >= 0) sc += w[k];
    }
  }
  return sc;
}

/* -sum log p(gold) by enumerating every labelling (in long double). */
static double brute_loss(const vt_crf_data *d, const vt_crf_feats *f, const double *w) {
  long double total = 0;
  for (int64_t s = 0; s < d->n_sent; s++) {
    int64_t t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
    int32_t y[16] = {0};
    double mx = -INFINITY;
    int64_t n_paths = 1;
    for (int64_t t = 0; t < T; t++) n_paths *= f->L;
    for (int64_t p = 0; p < n_paths; p++) {
      int64_t q = p;
      for (int64_t t = 0; t < T; t++, q /= f->L) y[t] = (int32_t)(q % f->L);
      double sc = path_score(d, f, w, s, y);
      if (sc > mx) mx = sc;
    }
    long double z = 0;
    for (int64_t p = 0; p < n_paths; p++) {
      int64_t q = p;
      for (int64_t t = 0; t < T; t++, q /= f->L) y[t] = (int32_t)(q % f->L);
      z += expl((long double)path_score(d, f, w, s, y) - mx);
    }
    double gold = path_score(d, f, w, s, d->gold + t0);
    total += (long double)mx + logl(z) - gold;
  }
  return (double)total;
}

static double eval(const vt_crf_data *d, const vt_crf_feats *f, const double *w, double *g,
                   int threads) {
  vt_crf_grad *G = NULL;
  if (vt_crf_grad_create(&G, d, f, threads, NULL) != VT_OK) return NAN;
  double l = vt_crf_grad_eval(G, w, g);
  vt_crf_grad_destroy(G);
  return l;
}

static int close_rel(double a, double b, double tol) {
  return fabs(a - b) <= tol * (1 + fabs(a) + fabs(b));
}

TEST(loss_at_zero) {
  test_rng r = {11};
  for (int rep = 0; rep < 5; rep++) {
    int32_t L = 1 + test_int(&r, 40);
    vt_crf_data d;
    problem_make(&d, &r, L, 20, 50, 12, 0);
    vt_crf_feats f;
    feats_all(&f, &d);
    double *w = calloc((size_t)f.n, sizeof *w);
    double loss = eval(&d, &f, w, NULL, 1);
    double want = (double)d.n_tok * log((double)L);
    EXPECT(close_rel(loss, want, 1e-12), "L=%d: %.17g != %.17g", L, loss, want);
    free(w);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

TEST(loss_brute_force) {
  test_rng r = {12};
  for (int rep = 0; rep < 40; rep++) {
    int32_t L = 1 + test_int(&r, 4);
    vt_crf_data d;
    problem_make(&d, &r, L, 6, 1 + test_int(&r, 8), 5, rep & 1);
    vt_crf_feats f;
    vt_crf_featgen gen = {0, rep % 3 == 0, rep % 4 == 0, NULL}; /* sparse and full feature sets */
    vt_crf_feats_build(&f, &d, &gen, NULL);
    double *w = malloc((size_t)(f.n + 1) * sizeof *w);
    weights_random(w, f.n, &r, rep < 20 ? 2.0 : 30.0);
    double got = eval(&d, &f, w, NULL, 1 + rep % 3);
    double want = brute_loss(&d, &f, w);
    EXPECT(close_rel(got, want, 1e-10), "rep %d L=%d: %.17g != %.17g", rep, L, got, want);
    free(w);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

/* The loss through vt_posteriors' log Z (log space), at many labels. */
static double posteriors_loss(const vt_crf_data *d, const vt_crf_feats *f, const double *w) {
  const int32_t L = f->L;
  double *A = calloc((size_t)L * L, sizeof *A);
  for (int32_t i = 0; i < L * L; i++)
    if (f->tr_id[i] >= 0) A[i] = w[f->tr_id[i]];
  int32_t *rank = malloc((size_t)L * sizeof *rank);
  for (int32_t y = 0; y < L; y++) rank[y] = y;
  vt_trans *tr = NULL;
  vt_arena *arena = NULL;
  vt_trans_create(&tr, L, A, NULL, NULL, rank);
  vt_arena_create(&arena, 0);
  double total = 0;
  for (int64_t s = 0; s < d->n_sent; s++) {
    int64_t t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
    double *E = calloc((size_t)(T * L), sizeof *E), *marg = malloc((size_t)(T * L) * sizeof *marg);
    for (int64_t t = 0; t < T; t++)
      for (int64_t i = d->tok_off[t0 + t]; i < d->tok_off[t0 + t + 1]; i++)
        for (int64_t q = f->st_off[d->attr[i]]; q < f->st_off[d->attr[i] + 1]; q++)
          E[t * L + f->st_label[q]] += w[q] * d->val[i];
    double logz = 0;
    vt_arena_reset(arena);
    vt_posteriors(tr, arena, E, (int32_t)T, marg, &logz);
    total += logz - path_score(d, f, w, s, d->gold + t0);
    free(E);
    free(marg);
  }
  vt_arena_destroy(arena);
  vt_trans_destroy(tr);
  free(A);
  free(rank);
  return total;
}

TEST(loss_many_labels) {
  test_rng r = {13};
  const int32_t Ls[] = {17, 64, 150, 319};
  for (int i = 0; i < 4; i++) {
    vt_crf_data d;
    problem_make(&d, &r, Ls[i], 300, 60, 30, 0);
    vt_crf_feats f;
    vt_crf_featgen gen = {0, i & 1, 0, NULL}; /* the pairs seen: sparse from 64 labels */
    vt_crf_feats_build(&f, &d, &gen, NULL);
    EXPECT(vt_crf_sparse_fits(&f) == (Ls[i] >= 64), "L=%d: sparse form %d", Ls[i],
           vt_crf_sparse_fits(&f));
    double *w = malloc((size_t)f.n * sizeof *w);
    for (int scale = 0; scale < 2; scale++) {
      weights_random(w, f.n, &r, scale ? 40.0 : 1.0); /* 40: scores far past exp's range */
      double got = eval(&d, &f, w, NULL, 2), want = posteriors_loss(&d, &f, w);
      EXPECT(close_rel(got, want, 1e-9), "L=%d scale %d: %.17g != %.17g", Ls[i], scale, got, want);
    }
    free(w);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

TEST(gradient_finite_differences) {
  test_rng r = {14};
  for (int rep = 0; rep < 10; rep++) {
    /* Even reps: every feature (dense transitions); odd: few sequences over many labels, the
     * pairs seen only (the sparse form). */
    int32_t L = rep & 1 ? 12 + test_int(&r, 8) : 2 + test_int(&r, 6);
    vt_crf_data d;
    problem_make(&d, &r, L, 8, rep & 1 ? 4 : 12, 7, 0);
    vt_crf_feats f;
    vt_crf_featgen gen = {0, !(rep & 1), !(rep & 1), NULL};
    vt_crf_feats_build(&f, &d, &gen, NULL);
    EXPECT(vt_crf_sparse_fits(&f) == (rep & 1), "rep %d: sparse form %d", rep,
           vt_crf_sparse_fits(&f));
    double *w = malloc((size_t)f.n * sizeof *w), *g = malloc((size_t)f.n * sizeof *g);
    weights_random(w, f.n, &r, 1.5);
    eval(&d, &f, w, g, 1);
    const double h = 1e-5;
    int bad = 0;
    for (int64_t k = 0; k < f.n; k++) {
      double keep = w[k];
      w[k] = keep + h;
      double up = eval(&d, &f, w, NULL, 1);
      w[k] = keep - h;
      double down = eval(&d, &f, w, NULL, 1);
      w[k] = keep;
      double fd = (up - down) / (2 * h);
      if (!(fabs(fd - g[k]) <= 1e-6 * (1 + fabs(g[k])))) {
        if (bad++ < 5) EXPECT(0, "rep %d weight %lld: %.12g vs %.12g", rep, (long long)k, g[k], fd);
      }
    }
    EXPECT(bad == 0, "rep %d: %d of %lld gradient entries off", rep, bad, (long long)f.n);
    free(w);
    free(g);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

TEST(same_bits_any_threads) {
  test_rng r = {15};
  for (int sparse = 0; sparse < 2; sparse++) {
    vt_crf_data d;
    problem_make(&d, &r, sparse ? 300 : 45, 500, sparse ? 400 : 3000, 40, 0);
    vt_crf_feats f;
    vt_crf_featgen gen = {0, 0, 0, NULL};
    vt_crf_feats_build(&f, &d, &gen, NULL);
    double *w = malloc((size_t)f.n * sizeof *w);
    double *g[3];
    double l[3];
    weights_random(w, f.n, &r, 1.0);
    for (int t = 0; t < 3; t++) {
      g[t] = malloc((size_t)f.n * sizeof *g[t]);
      l[t] = eval(&d, &f, w, g[t], t + 1);
    }
    for (int t = 1; t < 3; t++) {
      EXPECT_EQ_DBL(l[t], l[0], "loss");
      EXPECT(!memcmp(g[t], g[0], (size_t)f.n * sizeof *g[0]), "%d threads: another gradient",
             t + 1);
    }
    EXPECT(vt_crf_sparse_fits(&f) == sparse, "sparse form %d", vt_crf_sparse_fits(&f));
    for (int t = 0; t < 3; t++) free(g[t]);
    free(w);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

TEST(feature_generation) {
  /* Two sequences: attributes 0,1 with labels 0,1; CRFsuite's rules. */
  vt_crf_data d;
  memset(&d, 0, sizeof d);
  int64_t so[] = {0, 2, 3};
  int32_t gold[] = {0, 1, 1};
  int64_t to[] = {0, 2, 3, 4};
  int32_t at[] = {0, 1, 1, 0};
  double va[] = {1, 0.5, 2, 1};
  d.L = 3; /* label 2 is never seen */
  d.n_attr = 3;
  d.n_sent = 2;
  d.n_tok = 3;
  d.sent_off = so;
  d.gold = gold;
  d.tok_off = to;
  d.attr = at;
  d.val = va;
  vt_crf_feats f;
  double *freq = NULL;
  vt_crf_featgen gen = {0, 0, 0, NULL};
  REQUIRE(vt_crf_feats_build(&f, &d, &gen, &freq) == VT_OK, "build");
  /* states: (0,0) f1, (0,1) f1, (1,0) f0.5, (1,1) f2; transitions: (0,1) once. */
  EXPECT_EQ_INT(f.n_state, 4, "states");
  EXPECT_EQ_INT(f.n_trans, 1, "transitions");
  EXPECT(vt_crf_feats_state(&f, 1, 1) == 3 && freq[3] == 2.0, "(1,1) frequency 2");
  EXPECT(vt_crf_feats_state(&f, 2, 0) == -1, "attribute 2 has no feature");
  EXPECT(f.tr_id[0 * 3 + 1] == 4 && freq[4] == 1.0, "transition 0->1");
  double obs[5];
  vt_crf_observed(&d, &f, obs);
  EXPECT(obs[0] == 1 && obs[1] == 1 && obs[2] == 0.5 && obs[3] == 2 && obs[4] == 1, "observed");
  free(freq);
  vt_crf_feats_free(&f);
  vt_crf_featgen all = {0, 1, 1, NULL};
  REQUIRE(vt_crf_feats_build(&f, &d, &all, NULL) == VT_OK, "build all");
  EXPECT_EQ_INT(f.n_state, 6, "possible states: 2 attributes x 3 labels");
  EXPECT_EQ_INT(f.n_trans, 9, "possible transitions");
  vt_crf_feats_free(&f);
  vt_crf_featgen minf = {1.5, 0, 0, NULL};
  REQUIRE(vt_crf_feats_build(&f, &d, &minf, NULL) == VT_OK, "build min_freq");
  EXPECT_EQ_INT(f.n_state, 1, "min_freq 1.5 keeps (1,1) only");
  EXPECT_EQ_INT(f.n_trans, 0, "and no transition");
  vt_crf_feats_free(&f);
}

/* A learnable problem: labels follow the attribute (noisy), with a transition preference. */
static void problem_learnable(vt_crf_data *d, test_rng *r) {
  problem_make(d, r, 5, 40, 200, 10, 1);
  for (int64_t t = 0; t < d->n_tok; t++)
    if (test_unit(r) < 0.8) d->gold[t] = d->attr[d->tok_off[t]] % 5;
}

static int on_iter_count(void *ctx, const vt_iter_report *r) {
  double *last = ctx;
  if (r->iteration == 0) last[0] = r->loss;
  last[1] = r->loss;
  last[2] = r->iteration;
  last[3] = (double)r->active_features;
  return 0;
}

TEST(optimisers_lower_the_objective) {
  test_rng r = {16};
  vt_crf_data d;
  problem_learnable(&d, &r);
  vt_crf_feats f;
  vt_crf_featgen gen = {0, 0, 0, NULL};
  vt_crf_feats_build(&f, &d, &gen, NULL);
  const int algos[][2] = {{VT_TRAIN_LBFGS, 0}, {VT_TRAIN_LBFGS, 1}, {VT_TRAIN_L2SGD, 0}};
  for (int a = 0; a < 3; a++) {
    vt_train_opts o;
    vt_train_opts_init(&o);
    o.algorithm = algos[a][0];
    o.c1 = algos[a][1] ? 2.0 : 0;
    o.max_iterations = a == 2 ? 15 : 60;
    o.threads = 1;
    double seen[4] = {0};
    o.on_iteration = on_iter_count;
    o.ctx = seen;
    double *w = calloc((size_t)f.n, sizeof *w);
    vt_crf_result res;
    char err[256] = "";
    REQUIRE(vt_crf_train(&d, &f, NULL, w, &o, &res, err, sizeof err, NULL, NULL) == VT_OK, "%s",
            err);
    EXPECT(close_rel(res.initial_loss, (double)d.n_tok * log(5.0), 1e-12), "algo %d start", a);
    EXPECT(res.loss < 0.85 * res.initial_loss, "algo %d: %g -> %g", a, res.initial_loss, res.loss);
    EXPECT(seen[0] == res.initial_loss && seen[2] >= 1, "algo %d: iterations reported", a);
    int64_t zeros = 0;
    for (int64_t i = 0; i < f.n; i++) zeros += w[i] == 0.0;
    if (algos[a][1])
      EXPECT(zeros > f.n / 4, "L1: %lld of %lld weights exactly zero", (long long)zeros,
             (long long)f.n);
    else
      EXPECT(zeros == 0, "L2: %lld weights exactly zero", (long long)zeros);
    /* Continuing from the result starts at its loss. */
    vt_crf_result res2;
    o.max_iterations = 1;
    REQUIRE(vt_crf_train(&d, &f, NULL, w, &o, &res2, err, sizeof err, NULL, NULL) == VT_OK, "%s",
            err);
    if (a < 2) EXPECT(close_rel(res2.initial_loss, res.loss, 1e-12), "algo %d: continues", a);
    free(w);
  }
  vt_crf_feats_free(&f);
  vt_crf_data_free(&d);
}

TEST(sgd_sparse_transitions) {
  /* 40 labels that follow the attribute, few pairs seen: SGD through the sparse form reaches
   * about what L-BFGS reaches. */
  test_rng r = {17};
  vt_crf_data d;
  problem_make(&d, &r, 40, 80, 60, 8, 1);
  for (int64_t t = 0; t < d.n_tok; t++)
    if (test_unit(&r) < 0.9) d.gold[t] = d.attr[d.tok_off[t]] % 40;
  vt_crf_feats f;
  vt_crf_featgen gen = {0, 0, 0, NULL};
  vt_crf_feats_build(&f, &d, &gen, NULL);
  REQUIRE(vt_crf_sparse_fits(&f), "the problem should take the sparse form");
  double final[2];
  for (int a = 0; a < 2; a++) {
    vt_train_opts o;
    vt_train_opts_init(&o);
    o.algorithm = a ? VT_TRAIN_L2SGD : VT_TRAIN_LBFGS;
    o.max_iterations = a ? 30 : 100;
    o.threads = 1;
    double *w = calloc((size_t)f.n, sizeof *w);
    vt_crf_result res;
    char err[256] = "";
    REQUIRE(vt_crf_train(&d, &f, NULL, w, &o, &res, err, sizeof err, NULL, NULL) == VT_OK, "%s",
            err);
    EXPECT(res.loss < 0.8 * res.initial_loss, "algo %d: %g -> %g", a, res.initial_loss, res.loss);
    final[a] = res.loss;
    free(w);
  }
  EXPECT(final[1] < 1.05 * final[0], "l2sgd %g, lbfgs %g", final[1], final[0]);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&d);
}

/* floor(a * b / n) checked without 128-bit integers: a * b in two 64-bit words. */
static void mul_words(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
  const uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (p00 & 0xffffffffu) | mid << 32;
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

static int words_le(uint64_t ah, uint64_t al, uint64_t bh, uint64_t bl) {
  return ah < bh || (ah == bh && al <= bl);
}

TEST(batch_rule) {
  /* The count: the budget's shares, rounded up to 16 while a share keeps 1,024 tokens. */
  EXPECT_EQ_INT(vt_crf_batch_count(0, 22), 1, "empty corpus");
  EXPECT_EQ_INT(vt_crf_batch_count(211727, 22), 16, "CoNLL-2000 chunking: 7 shares, 16");
  EXPECT_EQ_INT(vt_crf_batch_count(8200, 300), 4, "8,200 tokens at 300 labels: 4, no rounding");
  EXPECT_EQ_INT(vt_crf_batch_count(100, 945), 1, "945 labels: shares of 739 tokens");
  EXPECT_EQ_INT(vt_crf_batch_count(100, 20000), 2, "the budget's floor of 64 tokens");
  EXPECT_EQ_INT(vt_crf_batch_count((int64_t)1 << 40, 1), ((int64_t)1 << 40) / 65536,
                "the budget's cap of 65,536 tokens");
  /* The id: floor(tok_before * want / n_tok), past the end the last. */
  EXPECT_EQ_INT(vt_crf_batch_of(0, 1000, 16), 0, "first");
  EXPECT_EQ_INT(vt_crf_batch_of(62, 1000, 16), 0, "62 * 16 / 1000");
  EXPECT_EQ_INT(vt_crf_batch_of(63, 1000, 16), 1, "63 * 16 / 1000");
  EXPECT_EQ_INT(vt_crf_batch_of(999, 1000, 16), 15, "last token");
  EXPECT_EQ_INT(vt_crf_batch_of(1000, 1000, 16), 15, "empty sentences at the end");
  EXPECT_EQ_INT(vt_crf_batch_of(500, 0, 16), 0, "no tokens");
  test_rng r = {19};
  for (int i = 0; i < 100000; i++) {
    const int64_t n = 1 + (int64_t)(test_next(&r) % 3000000), want = 1 + test_int(&r, 70000);
    const int64_t tb = (int64_t)(test_next(&r) % (uint64_t)n);
    EXPECT(vt_crf_batch_of(tb, n, want) == (want > 1 ? tb * want / n : 0), "%lld %lld %lld",
           (long long)tb, (long long)n, (long long)want);
  }
  /* Past int64 in the product: exact multiples, then random ones checked in two words. */
  const int64_t big = (int64_t)1 << 60, wbig = (int64_t)1 << 40;
  for (int64_t j = 1; j < 5000; j += 7) {
    EXPECT_EQ_INT(vt_crf_batch_of(j << 20, big, wbig), j, "exact multiple");
    EXPECT_EQ_INT(vt_crf_batch_of((j << 20) - 1, big, wbig), j - 1, "one below");
  }
  for (int i = 0; i < 100000; i++) {
    const int64_t n = (int64_t)(test_next(&r) >> 2) | 1; /* below 2^62 */
    const int64_t want = 1 + (int64_t)(test_next(&r) % (uint64_t)n);
    const int64_t tb = (int64_t)(test_next(&r) % (uint64_t)n);
    const int64_t q = vt_crf_batch_of(tb, n, want);
    uint64_t ph, pl, lh, ll, uh, ul;
    mul_words((uint64_t)tb, (uint64_t)want, &ph, &pl);
    mul_words((uint64_t)q, (uint64_t)n, &lh, &ll);
    mul_words((uint64_t)q + 1, (uint64_t)n, &uh, &ul);
    EXPECT(q >= 0 && q < want && words_le(lh, ll, ph, pl) && !words_le(uh, ul, ph, pl),
           "%lld * %lld / %lld: %lld", (long long)tb, (long long)want, (long long)n, (long long)q);
  }
}

/* Sequences s0..s1-1 of d as a problem of their own (the same labels and attributes). */
static void problem_slice(vt_crf_data *out, const vt_crf_data *d, int64_t s0, int64_t s1) {
  memset(out, 0, sizeof *out);
  out->L = d->L;
  out->n_attr = d->n_attr;
  out->n_sent = s1 - s0;
  const int64_t t0 = d->sent_off[s0], t1 = d->sent_off[s1];
  const int64_t o0 = d->tok_off[t0], o1 = d->tok_off[t1];
  out->n_tok = t1 - t0;
  out->sent_off = malloc(((size_t)(s1 - s0) + 1) * sizeof *out->sent_off);
  out->gold = malloc((size_t)(t1 - t0 + 1) * sizeof *out->gold);
  out->tok_off = malloc(((size_t)(t1 - t0) + 1) * sizeof *out->tok_off);
  out->attr = malloc((size_t)(o1 - o0 + 1) * sizeof *out->attr);
  out->val = malloc((size_t)(o1 - o0 + 1) * sizeof *out->val);
  for (int64_t s = s0; s <= s1; s++) out->sent_off[s - s0] = d->sent_off[s] - t0;
  for (int64_t s = s0; s < s1; s++)
    if (d->sent_off[s + 1] - d->sent_off[s] > out->max_T)
      out->max_T = (int32_t)(d->sent_off[s + 1] - d->sent_off[s]);
  for (int64_t t = t0; t <= t1; t++) out->tok_off[t - t0] = d->tok_off[t] - o0;
  memcpy(out->gold, d->gold + t0, (size_t)(t1 - t0) * sizeof *out->gold);
  memcpy(out->attr, d->attr + o0, (size_t)(o1 - o0) * sizeof *out->attr);
  memcpy(out->val, d->val + o0, (size_t)(o1 - o0) * sizeof *out->val);
}

/* The first sequence at or after the middle of d's tokens that starts a batch of the rule, and
 * the number of batches. */
static int64_t batch_cut(const vt_crf_data *d, int32_t L, int64_t *n_batches) {
  const int64_t n_tok = d->sent_off[d->n_sent], want = vt_crf_batch_count(n_tok, L);
  int64_t cut = -1, last = -1;
  *n_batches = 0;
  for (int64_t s = 0; s < d->n_sent; s++) {
    const int64_t id = vt_crf_batch_of(d->sent_off[s], n_tok, want);
    if (id != last) {
      ++*n_batches;
      if (cut < 0 && s > 0 && 2 * d->sent_off[s] >= n_tok) cut = s;
    }
    last = id;
  }
  return cut;
}

/* Two "processes" in one: the half evaluated first (B) keeps a copy of its sums and flags and
 * returns them as they are; the other (A) then adds the copy to its own, as an all-reduce over
 * the two would. */
typedef struct capture_comm {
  vt_fix128 *fix;
  int64_t n_fix, i64[8];
  int calls;
} capture_comm;

static int capture_sum_fix(void *ctx, vt_fix128 *v, int64_t n) {
  capture_comm *c = ctx;
  c->calls++;
  free(c->fix);
  c->fix = malloc((size_t)n * sizeof *v);
  c->n_fix = n;
  if (!c->fix) return -1;
  memcpy(c->fix, v, (size_t)n * sizeof *v);
  return 0;
}

static int capture_sum_i64(void *ctx, int64_t *v, int64_t n) {
  capture_comm *c = ctx;
  c->calls++;
  memcpy(c->i64, v, (size_t)n * sizeof *v);
  return 0;
}

static int add_sum_fix(void *ctx, vt_fix128 *v, int64_t n) {
  capture_comm *c = ctx;
  c->calls++;
  if (n != c->n_fix) return -1;
  for (int64_t i = 0; i < n; i++) vt_fix_add(&v[i], c->fix[i]);
  return 0;
}

static int add_sum_i64(void *ctx, int64_t *v, int64_t n) {
  capture_comm *c = ctx;
  c->calls++;
  for (int64_t i = 0; i < n; i++) v[i] += c->i64[i];
  return 0;
}

/* The loss and (g not NULL) gradient of d cut at sequence `cut`, the halves on threads_a and
 * threads_b threads; calls counts the collectives made. */
static double eval_split(const vt_crf_data *d, const vt_crf_feats *f, const double *w, double *g,
                         int64_t cut, int threads_a, int threads_b, int *calls) {
  vt_crf_data a, b;
  problem_slice(&a, d, 0, cut);
  problem_slice(&b, d, cut, d->n_sent);
  capture_comm cc;
  memset(&cc, 0, sizeof cc);
  vt_train_comm ca, cb;
  memset(&ca, 0, sizeof ca);
  memset(&cb, 0, sizeof cb);
  ca.size = cb.size = 2;
  cb.rank = 1;
  ca.ctx = cb.ctx = &cc;
  cb.sum_fix = capture_sum_fix;
  cb.sum_i64 = capture_sum_i64;
  ca.sum_fix = add_sum_fix;
  ca.sum_i64 = add_sum_i64;
  const int64_t n_tok = d->sent_off[d->n_sent];
  vt_crf_span sa = {0, n_tok, &ca}, sb = {d->sent_off[cut], n_tok, &cb};
  vt_crf_grad *Ga = NULL, *Gb = NULL;
  double *gb = g ? malloc((size_t)f->n * sizeof *gb) : NULL;
  double loss = NAN;
  if (vt_crf_grad_create(&Ga, &a, f, threads_a, &sa) == VT_OK &&
      vt_crf_grad_create(&Gb, &b, f, threads_b, &sb) == VT_OK) {
    vt_crf_grad_eval(Gb, w, gb);
    loss = vt_crf_grad_eval(Ga, w, g);
  }
  *calls = cc.calls;
  vt_crf_grad_destroy(Ga);
  vt_crf_grad_destroy(Gb);
  free(gb);
  free(cc.fix);
  vt_crf_data_free(&a);
  vt_crf_data_free(&b);
  return loss;
}

TEST(same_bits_split_over_processes) {
  test_rng r = {20};
  for (int rep = 0; rep < 4; rep++) {
    const int sparse = rep & 1;
    vt_crf_data d;
    problem_make(&d, &r, sparse ? 300 : 45, 500, sparse ? 400 : 3000, 40, rep >= 2);
    vt_crf_feats f;
    vt_crf_featgen gen = {0, 0, 0, NULL};
    vt_crf_feats_build(&f, &d, &gen, NULL);
    REQUIRE(vt_crf_sparse_fits(&f) == sparse, "sparse form %d", vt_crf_sparse_fits(&f));
    int64_t n_batches = 0;
    const int64_t cut = batch_cut(&d, f.L, &n_batches);
    REQUIRE(cut > 0 && n_batches >= 4, "rep %d: %lld batches, cut at %lld", rep,
            (long long)n_batches, (long long)cut);
    double *w = malloc((size_t)f.n * sizeof *w), *g = malloc((size_t)f.n * sizeof *g),
           *g2 = malloc((size_t)f.n * sizeof *g2);
    weights_random(w, f.n, &r, 1.0);
    const double whole = eval(&d, &f, w, g, 1);
    int calls = 0;
    for (int t = 1; t <= 3; t++) {
      memset(g2, 0, (size_t)f.n * sizeof *g2);
      const double split = eval_split(&d, &f, w, g2, cut, t, 4 - t, &calls);
      EXPECT(!memcmp(&split, &whole, sizeof whole), "rep %d threads %d: loss %.17g != %.17g", rep,
             t, split, whole);
      EXPECT(!memcmp(g2, g, (size_t)f.n * sizeof *g), "rep %d threads %d: another gradient", rep,
             t);
      EXPECT_EQ_INT(calls, 4, "one sum_fix and one sum_i64 a half");
    }
    const double split = eval_split(&d, &f, w, NULL, cut, 2, 1, &calls);
    EXPECT(!memcmp(&split, &whole, sizeof whole), "rep %d: loss alone %.17g != %.17g", rep, split,
           whole);
    /* the split is not a no-op: the halves alone give other sums */
    vt_crf_data a;
    problem_slice(&a, &d, 0, cut);
    vt_crf_grad *G = NULL;
    vt_crf_span sa = {0, d.sent_off[d.n_sent], NULL};
    REQUIRE(vt_crf_grad_create(&G, &a, &f, 1, &sa) == VT_OK, "half alone");
    EXPECT(vt_crf_grad_eval(G, w, g2) < whole, "rep %d: half A alone", rep);
    vt_crf_grad_destroy(G);
    /* a part that does not fit its span */
    vt_crf_span bad = {d.sent_off[d.n_sent] - a.n_tok + 1, d.sent_off[d.n_sent], NULL};
    EXPECT(vt_crf_grad_create(&G, &a, &f, 1, &bad) == VT_EINVAL && G == NULL, "past the end");
    vt_crf_data_free(&a);
    free(w);
    free(g);
    free(g2);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

TEST(split_agrees_on_infinite_loss) {
  /* A sequence of the second half with no path of non-zero probability (its first item must be
   * label 0, its second label 1, and 0 -> 1 scores -1000): both halves give +inf. */
  test_rng r = {21};
  vt_crf_data d;
  problem_make(&d, &r, 5, 30, 3000, 12, 1);
  const int32_t X = d.n_attr, Y = d.n_attr + 1;
  d.n_attr += 2;
  vt_crf_feats f;
  feats_all(&f, &d);
  int64_t n_batches = 0;
  const int64_t cut = batch_cut(&d, f.L, &n_batches);
  REQUIRE(cut > 0 && n_batches >= 2, "%lld batches", (long long)n_batches);
  int64_t s = cut + 3;
  while (d.sent_off[s + 1] - d.sent_off[s] < 2) s++;
  d.attr[d.tok_off[d.sent_off[s]]] = X;
  d.attr[d.tok_off[d.sent_off[s] + 1]] = Y;
  vt_crf_feats_free(&f);
  feats_all(&f, &d);
  double *w = malloc((size_t)f.n * sizeof *w), *g = malloc((size_t)f.n * sizeof *g);
  weights_random(w, f.n, &r, 0.5);
  w[vt_crf_feats_state(&f, X, 0)] = 1000;
  w[vt_crf_feats_state(&f, Y, 1)] = 1000;
  w[f.tr_id[0 * 5 + 1]] = -1000;
  int calls = 0;
  const double whole = eval(&d, &f, w, g, 2), split = eval_split(&d, &f, w, g, cut, 1, 2, &calls);
  EXPECT(isinf(whole) && whole > 0, "whole: %g", whole);
  EXPECT(isinf(split) && split > 0, "the half without the sequence: %g", split);
  free(w);
  free(g);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&d);
}

/* Two "processes" as two threads: the sums of a vt_train_comm through a shared slot and a
 * barrier. */
typedef struct pair_comm {
  pthread_barrier_t bar;
  vt_fix128 *fix[2];
  int64_t *i64[2];
} pair_comm;

typedef struct pair_end {
  pair_comm *p;
  int rank;
} pair_end;

static int pair_sum_fix(void *ctx, vt_fix128 *v, int64_t n) {
  pair_end *e = ctx;
  vt_fix128 *mine = malloc((size_t)n * sizeof *v);
  if (!mine) return -1; /* never in these tests: a real comm agrees on failure */
  memcpy(mine, v, (size_t)n * sizeof *v);
  e->p->fix[e->rank] = mine;
  pthread_barrier_wait(&e->p->bar);
  const vt_fix128 *other = e->p->fix[1 - e->rank];
  for (int64_t i = 0; i < n; i++) vt_fix_add(&v[i], other[i]);
  pthread_barrier_wait(&e->p->bar);
  free(mine);
  return 0;
}

static int pair_sum_i64(void *ctx, int64_t *v, int64_t n) {
  pair_end *e = ctx;
  int64_t *mine = malloc((size_t)n * sizeof *v);
  if (!mine) return -1;
  memcpy(mine, v, (size_t)n * sizeof *v);
  e->p->i64[e->rank] = mine;
  pthread_barrier_wait(&e->p->bar);
  const int64_t *other = e->p->i64[1 - e->rank];
  for (int64_t i = 0; i < n; i++) v[i] += other[i];
  pthread_barrier_wait(&e->p->bar);
  free(mine);
  return 0;
}

typedef struct rank_job {
  pair_end end;
  vt_train_comm comm;
  vt_crf_data part;
  vt_crf_span span;
  const vt_crf_feats *f;
  vt_train_opts o;
  double *w;
  vt_crf_result res;
  vt_status st;
  char err[256];
} rank_job;

static void *rank_run(void *arg) {
  rank_job *j = arg;
  j->st = vt_crf_train(&j->part, j->f, NULL, j->w, &j->o, &j->res, j->err, sizeof j->err, &j->span,
                       NULL);
  return NULL;
}

static int stop_at_3(void *ctx, const vt_iter_report *r) {
  (void)ctx;
  return r->iteration >= 3;
}

TEST(lbfgs_over_two_processes) {
  /* 40 labels that follow the attribute, about 20,000 items: 16 batches of the rule. */
  test_rng r = {22};
  vt_crf_data d;
  problem_make(&d, &r, 40, 80, 1000, 40, 1);
  for (int64_t t = 0; t < d.n_tok; t++)
    if (test_unit(&r) < 0.9) d.gold[t] = d.attr[d.tok_off[t]] % 40;
  vt_crf_feats f;
  vt_crf_featgen gen = {0, 0, 0, NULL};
  vt_crf_feats_build(&f, &d, &gen, NULL);
  int64_t n_batches = 0;
  const int64_t cut = batch_cut(&d, f.L, &n_batches);
  REQUIRE(cut > 0 && n_batches >= 4, "%lld batches", (long long)n_batches);
  for (int mode = 0; mode < 3; mode++) { /* L-BFGS, OWL-QN, stopped by rank 0's callback */
    vt_train_opts o;
    vt_train_opts_init(&o);
    o.algorithm = VT_TRAIN_LBFGS;
    o.c1 = mode == 1 ? 1.0 : 0;
    o.max_iterations = 15;
    o.threads = 1;
    double *w1 = calloc((size_t)f.n, sizeof *w1);
    vt_crf_result res;
    char err[256] = "";
    if (mode == 2) o.on_iteration = stop_at_3;
    REQUIRE(vt_crf_train(&d, &f, NULL, w1, &o, &res, err, sizeof err, NULL, NULL) == VT_OK, "%s",
            err);
    pair_comm pc;
    memset(&pc, 0, sizeof pc);
    pthread_barrier_init(&pc.bar, NULL, 2);
    rank_job job[2];
    pthread_t th[2];
    memset(job, 0, sizeof job);
    for (int k = 0; k < 2; k++) {
      rank_job *j = &job[k];
      j->end.p = &pc;
      j->end.rank = k;
      j->comm.rank = k;
      j->comm.size = 2;
      j->comm.ctx = &j->end;
      j->comm.sum_fix = pair_sum_fix;
      j->comm.sum_i64 = pair_sum_i64;
      problem_slice(&j->part, &d, k ? cut : 0, k ? d.n_sent : cut);
      j->span.tok_before = k ? d.sent_off[cut] : 0;
      j->span.n_tok = d.sent_off[d.n_sent];
      j->span.comm = &j->comm;
      j->f = &f;
      j->o = o;
      j->o.threads = 1 + k;
      if (k) j->o.on_iteration = NULL; /* the callback is one process's */
      j->w = calloc((size_t)f.n, sizeof *j->w);
    }
    for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, rank_run, &job[k]);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    for (int k = 0; k < 2; k++) {
      EXPECT(job[k].st == VT_OK, "mode %d rank %d: %s", mode, k, job[k].err);
      EXPECT(!memcmp(job[k].w, w1, (size_t)f.n * sizeof *w1), "mode %d rank %d: other weights",
             mode, k);
      EXPECT(job[k].res.iterations == res.iterations && job[k].res.loss == res.loss,
             "mode %d rank %d: %d iterations, loss %.17g; alone %d, %.17g", mode, k,
             job[k].res.iterations, job[k].res.loss, res.iterations, res.loss);
      free(job[k].w);
      vt_crf_data_free(&job[k].part);
    }
    if (mode == 2) EXPECT_EQ_INT(res.iterations, 3, "stopped at iteration 3");
    pthread_barrier_destroy(&pc.bar);
    free(w1);
  }
  /* Other algorithms train on one process only. */
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.algorithm = VT_TRAIN_L2SGD;
  vt_crf_span span = {0, d.sent_off[d.n_sent], NULL};
  double *w = calloc((size_t)f.n, sizeof *w);
  vt_crf_result res;
  char err[256] = "";
  EXPECT(vt_crf_train(&d, &f, NULL, w, &o, &res, err, sizeof err, &span, NULL) == VT_EINVAL,
         "l2sgd");
  EXPECT(strstr(err, "algorithm l2sgd trains on one process only") != NULL, "message: %s", err);
  free(w);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&d);
}

TEST(exp_against_libm) {
  /* The forward-backward's exp of x <= 0 within 2 ulp of libm's, and 0 where the result would
   * leave the normal range. */
  test_rng r = {18};
  double worst = 0;
  for (int i = 0; i < 2000000; i++) {
    double x = i < 1000 ? -(double)i * 0.75 : -750 * test_unit(&r) * test_unit(&r);
    if (i == 1) x = -0.0;
    if (i == 2) x = -1e-300;
    if (i == 3) x = -708.39641853226408;
    if (i == 4) x = -708.3964185322642;
    const double got = vt_crf_exp_nonpos(x), want = exp(x);
    if (want < DBL_MIN) {
      EXPECT(got == 0 || fabs(got - want) <= 4.5e-16 * want, "x=%.17g: %g", x, got);
      continue;
    }
    double rel = fabs(got - want) / want;
    if (rel > worst) worst = rel;
  }
  EXPECT(worst <= 4.5e-16, "worst relative error %.3g (2 ulp is 4.4e-16)", worst);
  EXPECT(vt_crf_exp_nonpos(0.0) == 1.0 && vt_crf_exp_nonpos(-INFINITY) == 0.0, "exp(0), exp(-inf)");
}

TEST_MAIN(CASE(loss_at_zero), CASE(loss_brute_force), CASE(loss_many_labels),
          CASE(gradient_finite_differences), CASE(same_bits_any_threads), CASE(feature_generation),
          CASE(optimisers_lower_the_objective), CASE(sgd_sparse_transitions), CASE(batch_rule),
          CASE(same_bits_split_over_processes), CASE(split_agrees_on_infinite_loss),
          CASE(lbfgs_over_two_processes), CASE(exp_against_libm))
