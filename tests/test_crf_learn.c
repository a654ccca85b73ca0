/* tests/test_crf_learn.c: crf_learn's pieces on data the tests make: CRF++'s objective (L2 and
 * L1) against brute-force enumeration of every labelling and its gradient against central finite
 * differences; the training error counts against the brute-force best labelling; the double-array
 * trie (every key found with its value, other strings not, refused input); a CRF++ model image
 * written as the binary file and read back by vitesse's own CRF++ reader (every weight, as a
 * float, where the image put it); the text model written, read back and written again (the same
 * bytes); and training lowering the objective at every accepted step. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "models/crfpp_trie.h"
#include "models/crfpp_write.h"
#include "models/peer_crfpp.h"
#include "test_util.h"
#include "text/textmodel.h"
#include "train/crf_report.h"
#include "train/crfpp_train.h"
#include "vitesse.h"

/* A random problem: n sequences of 1..maxT items, L labels, A attributes, 1..3 attributes an
 * item (value 1, as templates give), random gold labels (so training lowers the objective only
 * so far). */
static void problem_make(vt_crf_data *d, test_rng *r, int32_t L, int32_t A, int64_t n, int maxT) {
  memset(d, 0, sizeof *d);
  d->L = L;
  d->n_attr = A;
  d->n_sent = n;
  const int64_t cap = n * maxT;
  d->sent_off = malloc(((size_t)n + 1) * sizeof *d->sent_off);
  d->gold = malloc((size_t)cap * sizeof *d->gold);
  d->tok_off = malloc(((size_t)cap + 1) * sizeof *d->tok_off);
  d->attr = malloc((size_t)cap * 3 * sizeof *d->attr);
  d->sent_off[0] = d->tok_off[0] = 0;
  int64_t tok = 0, occ = 0;
  for (int64_t s = 0; s < n; s++) {
    const int T = 1 + test_int(r, maxT);
    if (T > d->max_T) d->max_T = T;
    for (int t = 0; t < T; t++, tok++) {
      d->gold[tok] = test_int(r, L);
      const int k = 1 + test_int(r, 3);
      for (int i = 0; i < k; i++) d->attr[occ++] = test_int(r, A);
      d->tok_off[tok + 1] = occ;
    }
    d->sent_off[s + 1] = tok;
  }
  d->n_tok = tok;
}

/* The score of labelling y of sequence s (CRF++'s layout: state a * L + y, transitions after). */
static double path_score(const vt_crf_data *d, const vt_crf_feats *f, const double *w, int64_t s,
                         const int32_t *y) {
  double sc = 0;
  const int64_t t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
  for (int64_t t = 0; t < T; t++) {
    for (int64_t i = d->tok_off[t0 + t]; i < d->tok_off[t0 + t + 1]; i++)
      sc += w[(int64_t)d->attr[i] * f->L + y[t]];
    if (t > 0 && f->n_trans) sc += w[f->n_state + y[t - 1] * f->L + y[t]];
  }
  return sc;
}

/* CRF++'s objective by enumeration (long double), and the token and sentence errors of the best
 * labelling (first best in the enumeration order that makes ties go to the lowest labels). */
static double brute(const vt_crf_data *d, const vt_crf_feats *f, const double *w, double C, int l1,
                    int64_t *tok_err, int64_t *sent_err) {
  long double total = 0;
  *tok_err = *sent_err = 0;
  for (int64_t s = 0; s < d->n_sent; s++) {
    const int64_t t0 = d->sent_off[s], T = d->sent_off[s + 1] - t0;
    int32_t y[8] = {0}, best[8] = {0};
    double mx = -INFINITY;
    do {
      const double sc = path_score(d, f, w, s, y);
      if (sc > mx) {
        mx = sc;
        memcpy(best, y, sizeof y);
      }
    } while (test_next_labelling(y, T, f->L));
    long double z = 0;
    memset(y, 0, sizeof y);
    do z += expl((long double)path_score(d, f, w, s, y) - mx);
    while (test_next_labelling(y, T, f->L));
    total += (long double)mx + logl(z) - path_score(d, f, w, s, d->gold + t0);
    int64_t wrong = 0;
    for (int64_t t = 0; t < T; t++) wrong += best[t] != d->gold[t0 + t];
    *tok_err += wrong;
    *sent_err += wrong > 0;
  }
  long double reg = 0;
  for (int64_t i = 0; i < f->n; i++)
    reg += l1 ? fabsl((long double)w[i]) : (long double)w[i] * w[i];
  return (double)(total + (l1 ? reg / C : reg / (2 * C)));
}

static int close_rel(double a, double b, double tol) {
  return fabs(a - b) <= tol * (1 + fabs(a) + fabs(b));
}

TEST(objective_against_brute_force) {
  test_rng r = {5};
  for (int rep = 0; rep < 12; rep++) {
    const int32_t L = 2 + test_int(&r, 3);
    vt_crf_data d;
    problem_make(&d, &r, L, 6, 8, 5);
    vt_crf_feats f;
    REQUIRE(vt_crfpp_feats(&f, d.n_attr, L, rep % 3 != 0) == VT_OK, "feats");
    EXPECT_EQ_INT(f.n, (int64_t)6 * L + (rep % 3 != 0 ? L * L : 0), "every label, every pair");
    double *w = malloc((size_t)f.n * sizeof *w);
    for (int64_t i = 0; i < f.n; i++) w[i] = 2 * test_unit(&r) - 1;
    vt_crf_grad *G = NULL;
    REQUIRE(vt_crf_grad_create(&G, &d, &f, 1, NULL) == VT_OK, "grad");
    const double C = 0.25 + 3 * test_unit(&r);
    for (int l1 = 0; l1 < 2; l1++) {
      int64_t te, se, bte, bse;
      const double got = vt_crfpp_objective(G, &f, w, NULL, C, l1);
      const double want = brute(&d, &f, w, C, l1, &bte, &bse);
      EXPECT(close_rel(got, want, 1e-12), "rep %d l1 %d: %.17g vs brute %.17g", rep, l1, got, want);
      vt_crf_errors(&d, &f, w, 1 + rep % 2, &te, &se);
      EXPECT_EQ_INT(te, bte, "token errors");
      EXPECT_EQ_INT(se, bse, "sentence errors");
    }
    vt_crf_grad_destroy(G);
    free(w);
    vt_crf_feats_free(&f);
    vt_crf_data_free(&d);
  }
}

TEST(gradient_against_finite_differences) {
  test_rng r = {17};
  vt_crf_data d;
  problem_make(&d, &r, 3, 5, 10, 6);
  vt_crf_feats f;
  REQUIRE(vt_crfpp_feats(&f, d.n_attr, 3, 1) == VT_OK, "feats");
  double *w = malloc((size_t)f.n * sizeof *w), *g = malloc((size_t)f.n * sizeof *g);
  for (int64_t i = 0; i < f.n; i++) w[i] = test_unit(&r) - 0.5;
  vt_crf_grad *G = NULL;
  REQUIRE(vt_crf_grad_create(&G, &d, &f, 2, NULL) == VT_OK, "grad");
  const double C = 0.7;
  vt_crfpp_objective(G, &f, w, g, C, 0);
  double worst = 0;
  for (int64_t i = 0; i < f.n; i++) {
    const double h = 1e-5, keep = w[i];
    w[i] = keep + h;
    const double up = vt_crfpp_objective(G, &f, w, NULL, C, 0);
    w[i] = keep - h;
    const double down = vt_crfpp_objective(G, &f, w, NULL, C, 0);
    w[i] = keep;
    const double fd = (up - down) / (2 * h), e = fabs(fd - g[i]) / (1 + fabs(fd));
    if (e > worst) worst = e;
  }
  EXPECT(worst < 1e-7, "worst relative gradient error %.3g", worst);
  /* L1: g is the smooth part's gradient (OWL-QN adds the rest): the L2 one less w / C */
  double *g1 = malloc((size_t)f.n * sizeof *g1);
  vt_crfpp_objective(G, &f, w, g1, C, 1);
  for (int64_t i = 0; i < f.n; i++)
    EXPECT(close_rel(g1[i], g[i] - w[i] / C, 1e-12), "L1 gradient %lld", (long long)i);
  free(g1);
  vt_crf_grad_destroy(G);
  free(w);
  free(g);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&d);
}

static int str_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

TEST(trie_finds_every_key) {
  test_rng r = {3};
  enum { N = 3000 };
  char **keys = malloc(N * sizeof *keys);
  size_t *lens = malloc(N * sizeof *lens);
  int32_t *vals = malloc(N * sizeof *vals);
  int n = 0;
  for (int i = 0; i < N; i++) { /* short keys over a few bytes (shared prefixes, prefix keys) */
    char buf[16];
    const int len = test_int(&r, 9);
    for (int k = 0; k < len; k++) buf[k] = "ab:U\xff\x01"[test_int(&r, 6)];
    buf[len] = '\0';
    keys[n++] = strdup(buf);
  }
  qsort(keys, (size_t)n, sizeof *keys, str_cmp); /* strcmp: unsigned bytes, as the trie */
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || strcmp(keys[m - 1], keys[i]))
      keys[m++] = keys[i];
    else
      free(keys[i]);
  for (int i = 0; i < m; i++) {
    lens[i] = strlen(keys[i]);
    vals[i] = 7 * i + 1;
  }
  vt_crfpp_unit *u = NULL;
  size_t nu = 0;
  REQUIRE(vt_crfpp_trie_build((const char *const *)keys, lens, vals, (size_t)m, &u, &nu) == VT_OK,
          "build");
  for (int i = 0; i < m; i++)
    EXPECT_EQ_INT(vt_crfpp_trie_find(u, nu, keys[i], lens[i]), vals[i], keys[i]);
  int misses = 0;
  for (int i = 0; i < 2000; i++) { /* strings over other bytes too: absent unless generated */
    char buf[16];
    const int len = 1 + test_int(&r, 9);
    for (int k = 0; k < len; k++) buf[k] = "ab:Uz\xff\x01"[test_int(&r, 7)];
    buf[len] = '\0';
    char *key = buf;
    const int present = bsearch(&key, keys, (size_t)m, sizeof *keys, str_cmp) != NULL;
    const int32_t v = vt_crfpp_trie_find(u, nu, buf, (size_t)len);
    EXPECT(present ? v >= 0 : v == -1, "'%s': %d", buf, v);
    misses += !present;
  }
  EXPECT(misses > 100, "the absent strings are tried (%d)", misses);
  /* every base + 256 lies inside: a search for any byte stays in bounds */
  for (size_t p = 0; p < nu; p++)
    if (u[p].base > 0) EXPECT((size_t)u[p].base + 256 < nu, "base %d past the array", u[p].base);
  free(u);
  /* unsorted, repeated, NUL-holding keys: refused */
  const char *bad[2] = {"b", "a"};
  size_t bl[2] = {1, 1};
  int32_t bv[2] = {0, 1};
  EXPECT_EQ_INT(vt_crfpp_trie_build(bad, bl, bv, 2, &u, &nu), VT_EINVAL, "unsorted");
  const char *rep[2] = {"a", "a"};
  EXPECT_EQ_INT(vt_crfpp_trie_build(rep, bl, bv, 2, &u, &nu), VT_EINVAL, "repeated");
  const char *nul[1] = {"a\0b"};
  size_t nl[1] = {3};
  EXPECT_EQ_INT(vt_crfpp_trie_build(nul, nl, bv, 1, &u, &nu), VT_EINVAL, "NUL");
  for (int i = 0; i < m; i++) free(keys[i]);
  free(keys);
  free(lens);
  free(vals);
}

/* A small image: 3 labels, xsize 2, two unigram templates and B, keys sorted, weights k / 8
 * (floats exactly). */
static void image_make(vt_crfpp_image *img, char **keys, size_t *lens, int32_t *ids, double *w) {
  static char *labels[3] = {"B-NP", "I-NP", "O"};
  static char *tmpl[3] = {"U00:%x[0,0]", "U01:%x[-1,1]/%x[0,1]", "B"};
  static const char *k[5] = {"B", "U00:cat", "U00:the", "U01:DT/NN", "U01:_B-1/DT"};
  memset(img, 0, sizeof *img);
  img->xsize = 2;
  img->cost_factor = 1;
  img->L = 3;
  img->labels = labels;
  img->n_tmpl = 3;
  img->tmpl = tmpl;
  img->n_keys = 5;
  int32_t next = 0;
  for (int i = 0; i < 5; i++) {
    keys[i] = (char *)k[i];
    lens[i] = strlen(k[i]);
    ids[i] = next;
    next += k[i][0] == 'B' ? 9 : 3;
  }
  img->keys = keys;
  img->key_lens = lens;
  img->ids = ids;
  img->maxid = (uint32_t)next;
  for (int32_t i = 0; i < next; i++) w[i] = (double)(i - 10) / 8;
  img->w = w;
}

TEST(binary_model_read_back) {
  char *keys[5];
  size_t lens[5];
  int32_t ids[5];
  double w[32];
  vt_crfpp_image img;
  image_make(&img, keys, lens, ids, w);
  char *buf = NULL, err[512];
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  REQUIRE(f != NULL, "memstream");
  EXPECT_EQ_INT(vt_crfpp_write_binary(f, &img, err, sizeof err), VT_OK, err);
  fclose(f);
  EXPECT_EQ_INT(size % 4, 0, "weights aligned");
  vt_textmodel *m = NULL;
  REQUIRE(vt_peer_crfpp_load(&m, buf, size, "mem", 0, err, sizeof err) == VT_OK, "%s", err);
  EXPECT_EQ_INT(m->L, 3, "labels");
  for (int32_t y = 0; y < 3; y++) {
    size_t l;
    const char *s = vt_textmodel_label(m, y, &l);
    EXPECT(l == strlen(img.labels[y]) && !memcmp(s, img.labels[y], l), "label %d", y);
  }
  for (int i = 1; i < 5; i++) { /* unigram keys: their L weights by label */
    const uint8_t *rec = vt_textmodel_find(m, keys[i], lens[i]);
    REQUIRE(rec != NULL, "feature %s not found", keys[i]);
    vt_feat ft;
    vt_feat_read(rec, m->key_bytes, &ft);
    float got[3] = {0, 0, 0};
    for (uint32_t j = 0; j < ft.nnz; j++) {
      int32_t y = ft.dense            ? (int32_t)j
                  : m->key_bytes == 2 ? ((const uint16_t *)ft.keys)[j]
                                      : (int32_t)((const uint32_t *)ft.keys)[j];
      got[y] = ft.vals[j];
    }
    for (int32_t y = 0; y < 3; y++) EXPECT_EQ_DBL((double)got[y], w[ids[i] + y], keys[i]);
  }
  for (int i = 0; i < 9; i++) /* the plain B: the transition matrix, previous label major */
    EXPECT_EQ_DBL(m->A[i], w[ids[0] + i], "transition");
  EXPECT(vt_textmodel_find(m, "U00:dog", 7) == NULL, "an absent key");
  vt_textmodel_free(m);
  free(buf);
}

TEST(text_model_round_trip) {
  char *keys[5];
  size_t lens[5];
  int32_t ids[5];
  double w[32];
  vt_crfpp_image img, back;
  image_make(&img, keys, lens, ids, w);
  char *a = NULL, *b = NULL, *bin1 = NULL, *bin2 = NULL, err[512];
  size_t na = 0, nb = 0, n1 = 0, n2 = 0;
  FILE *f = open_memstream(&a, &na);
  EXPECT_EQ_INT(vt_crfpp_write_text(f, &img, err, sizeof err), VT_OK, err);
  fclose(f);
  REQUIRE(vt_crfpp_read_text(&back, a, na, "mem", err, sizeof err) == VT_OK, "%s", err);
  f = open_memstream(&b, &nb);
  EXPECT_EQ_INT(vt_crfpp_write_text(f, &back, err, sizeof err), VT_OK, err);
  fclose(f);
  EXPECT(na == nb && !memcmp(a, b, na), "the text model written again differs");
  f = open_memstream(&bin1, &n1);
  vt_crfpp_write_binary(f, &img, err, sizeof err);
  fclose(f);
  f = open_memstream(&bin2, &n2);
  vt_crfpp_write_binary(f, &back, err, sizeof err);
  fclose(f);
  EXPECT(n1 == n2 && !memcmp(bin1, bin2, n1), "-C of the text model is not the binary model");
  /* damaged text models: one line, refused */
  const char *cut[] = {
      "version: 100\n",
      "version: 200\ncost-factor: 1\nmaxid: 3\nxsize: 1\n\nA\n\nU\n\n0 U\n\n1\n2\n3\n",
      "version: 100\ncost-factor: 1\nmaxid: 3\nxsize: 1\n\nA\n\nU\n\n0 U\n\n1\nx\n3\n",
      "version: 100\ncost-factor: 1\nmaxid: 3\nxsize: 1\n\nA\n\nU\n\n3 U\n\n1\n2\n3\n"};
  for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
    vt_crfpp_image x;
    EXPECT_EQ_INT(vt_crfpp_read_text(&x, cut[i], strlen(cut[i]), "bad", err, sizeof err),
                  VT_EFORMAT, cut[i]);
    EXPECT(!strchr(err, '\n') && !strncmp(err, "bad", 3), "one line naming the file: %s", err);
  }
  vt_crfpp_image_free(&back);
  free(a);
  free(b);
  free(bin1);
  free(bin2);
}

/* Records the objective of every evaluation. */
static int record(void *ctx, const vt_crfpp_iteration *it) {
  double *objs = ctx;
  objs[it->iter] = it->obj;
  return 0;
}

TEST(training_lowers_the_objective) {
  test_rng r = {23};
  vt_crf_data d;
  problem_make(&d, &r, 4, 12, 40, 7);
  for (int l1 = 0; l1 < 2; l1++) {
    vt_crf_feats f;
    REQUIRE(vt_crfpp_feats(&f, d.n_attr, 4, 1) == VT_OK, "feats");
    double *w = calloc((size_t)f.n, sizeof *w), objs[64];
    vt_crfpp_learn_opts o;
    vt_crfpp_learn_opts_init(&o);
    o.maxiter = 40;
    o.threads = 1;
    o.algorithm = l1 ? VT_CRFPP_L1 : VT_CRFPP_L2;
    o.on_iteration = record;
    o.ctx = objs;
    vt_crfpp_learn_report rep;
    memset(&rep, 0, sizeof rep);
    char err[512];
    REQUIRE(vt_crfpp_train(&d, &f, w, &o, &rep, err, sizeof err) == VT_OK, "%s", err);
    EXPECT(rep.iterations > 3 && rep.iterations <= 40, "%d evaluations", rep.iterations);
    double lowest = objs[0];
    for (int i = 1; i < rep.iterations; i++) lowest = objs[i] < lowest ? objs[i] : lowest;
    EXPECT(lowest < 0.95 * objs[0], "l1 %d: %.6g from %.6g", l1, lowest, objs[0]);
    vt_crf_grad *G = NULL;
    REQUIRE(vt_crf_grad_create(&G, &d, &f, 1, NULL) == VT_OK, "grad");
    const double at_w = vt_crfpp_objective(G, &f, w, NULL, 1, l1);
    EXPECT(at_w < 0.95 * objs[0], "the weights returned are trained: %.6g", at_w);
    int64_t zeros = 0;
    for (int64_t i = 0; i < f.n; i++) zeros += w[i] == 0;
    if (l1) EXPECT(zeros > 0, "L1 gives exact zeros");
    vt_crf_grad_destroy(G);
    free(w);
    vt_crf_feats_free(&f);
  }
  vt_crf_data_free(&d);
}

TEST_MAIN(CASE(objective_against_brute_force), CASE(gradient_against_finite_differences),
          CASE(trie_finds_every_key), CASE(binary_model_read_back), CASE(text_model_round_trip),
          CASE(training_lowers_the_objective))
