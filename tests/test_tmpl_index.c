/* tests/test_tmpl_index.c: the index of features by cell values (engine/text/tmpl_index.h) finds
 * exactly the features the feature strings find. Models are built here (engine/models/
 * peer_build.h) from the expansions of their own templates over random sentences whose tokens
 * hold the templates' separators (so one string reads several ways), sentinels, empty fields and
 * long tokens; CRF++'s and Wapiti's dialects (absolute rows, `*` bigrams, `_x-#`), three-cell
 * templates, a bias, lower-casing, regexes (%m, %t, also on sentinels) and adjacent macros (past
 * a number of ways to read a string, left to the strings). Emissions, the
 * unknown-feature counts and the observation-bigram deltas of other random sentences are the same
 * bits with the index as without it, and with the index and a row cache. */
#include <string.h>

#include "alloc/arena.h"
#include "models/peer_build.h"
#include "test_util.h"
#include "text/batch_tag.h"
#include "text/featdict.h"
#include "text/rowcache.h"
#include "text/template.h"
#include "text/tmpl_index.h"

enum { L = 12, MAXT = 8, NSENT = 400 }; /* 12 labels: records dense and sparse */

static const char *const VOCAB[] = {"a",
                                    "b",
                                    "a/b",
                                    "b/a",
                                    "/",
                                    "",
                                    "//",
                                    "_B-1",
                                    "_x-1",
                                    "x",
                                    "U00:a",
                                    "a%b",
                                    "a-much-longer-token-than-sixteen"};

/* A sentence of T tokens, one column. */
typedef struct sent {
  char base[MAXT * 40];
  uint32_t fields[2 * MAXT];
  vt_tokens tk;
} sent;

static void sent_random(sent *s, test_rng *r) {
  const int T = 1 + test_int(r, MAXT);
  size_t n = 0;
  for (int t = 0; t < T; t++) {
    const char *w = VOCAB[test_int(r, (int)(sizeof VOCAB / sizeof *VOCAB))];
    const size_t len = strlen(w);
    memcpy(s->base + n, w, len);
    s->fields[2 * t] = (uint32_t)n;
    s->fields[2 * t + 1] = (uint32_t)len;
    n += len;
  }
  s->tk.T = T;
  s->tk.ncols = 1;
  s->tk.base = s->base;
  s->tk.fields = s->fields;
}

/* A model over `tmpl` (template lines, newline-separated) whose features are the expansions of
 * its templates over NSENT random sentences, each kept with probability 3/4, with random
 * weights: half the features a weight or two (sparse records), the others most labels (dense). */
static vt_textmodel *model_make(const char *tmpl, uint32_t origin, test_rng *r) {
  vt_tmplset ts;
  char err[256];
  vt_featdict d;
  vt_peer_build b;
  vt_textmodel *m = NULL;
  int32_t *kind = NULL; /* per feature: 1 bigram */
  if (vt_tmplset_parse(&ts, tmpl, strlen(tmpl), "t", err, sizeof err) != VT_OK) {
    EXPECT(0, "templates: %s", err);
    return NULL;
  }
  if (vt_featdict_init(&d) != VT_OK) {
    EXPECT(0, "out of memory");
    vt_tmplset_free(&ts);
    return NULL;
  }
  kind = calloc(1 << 16, sizeof *kind);
  for (int i = 0; i < NSENT; i++) {
    sent s;
    sent_random(&s, r);
    for (int32_t t = 0; t < s.tk.T; t++)
      for (int32_t k = 0; k < ts.n; k++) {
        if (ts.t[k].bigram && t == 0) continue;
        char buf[1024];
        size_t n = vt_tmpl_expand(&ts, k, &s.tk, t, buf);
        int32_t id;
        if (vt_featdict_add(&d, buf, n, &id) == VT_OK && id < (1 << 16)) kind[id] = ts.t[k].bigram;
      }
  }
  EXPECT(vt_peer_build_init(&b, L, 1.0, "t", err, sizeof err) == VT_OK, "init: %s", err);
  b.origin = origin;
  for (int y = 0; y < L; y++) vt_peer_build_label(&b, &"ABCDEFGHIJKL"[y], 1);
  for (const char *p = tmpl; *p;) {
    const char *e = strchr(p, '\n');
    vt_peer_build_template(&b, p, (size_t)(e - p));
    p = e + 1;
  }
  EXPECT(vt_peer_build_templates_end(&b, "t", err, sizeof err) == VT_OK, "%s", err);
  for (int32_t id = 0; id < d.n && id < (1 << 16); id++) {
    if (test_int(r, 4) == 0) continue; /* unknown to the model */
    double w[L * L];
    const int sparse = test_int(r, 2); /* a weight or two: a sparse record, else a dense one */
    for (int i = 0; i < L * L; i++)
      w[i] = (sparse ? test_int(r, L) != 0 : test_int(r, 3) == 0) ? 0.0 : test_unit(r) - 0.5;
    size_t n;
    const char *s = vt_featdict_str(&d, id, &n);
    EXPECT(vt_peer_build_feature(&b, s, n, kind[id], w) == VT_OK, "feature");
  }
  double A[L * L];
  for (int i = 0; i < L * L; i++) A[i] = test_unit(r) - 0.5;
  vt_peer_build_trans(&b, A);
  EXPECT(vt_peer_build_finish(&b, "t", &m, err, sizeof err) == VT_OK, "finish: %s", err);
  vt_peer_build_free(&b);
  vt_featdict_free(&d);
  vt_tmplset_free(&ts);
  free(kind);
  return m;
}

/* Positions whose edges came as the index's matrices, over every compare() so far. */
static int64_t mats;

/* Position t's edge scores of lat: its own matrix, or A plus its deltas in their order. */
static void edges(const vt_obs_lattice *lat, int32_t t, double *M) {
  if (lat->Mt) {
    memcpy(M, lat->Mt[t], (size_t)L * L * sizeof *M);
    return;
  }
  memcpy(M, lat->A, (size_t)L * L * sizeof *M);
  for (int64_t d = lat->doff[t]; d < lat->doff[t + 1]; d++) M[lat->dkey[d]] += lat->dval[d];
}

/* Emissions (and, for obs-bigram models, the lattice deltas) of NSENT random sentences with
 * the model's index and without it, and with the index and a 16-entry row cache (hits skip the
 * local templates' texts): the same bits and counts. Returns the mismatches. */
static int64_t compare(vt_textmodel *m, test_rng *r) {
  vt_arena *a1 = NULL, *a2 = NULL;
  vt_rowcache *cache = NULL;
  vt_arena_create(&a1, 0);
  vt_arena_create(&a2, 0);
  vt_rowcache_create(&cache, m, 0);
  int64_t bad = 0;
  double E1[MAXT * L], E2[MAXT * L], E3[MAXT * L];
  for (int i = 0; i < NSENT && a1 && a2; i++) {
    sent s;
    sent_random(&s, r);
    vt_arena_reset(a1);
    vt_arena_reset(a2);
    vt_obs_lattice l1, l2;
    vt_tag_stats s1, s2;
    memset(&s1, 0, sizeof s1);
    memset(&s2, 0, sizeof s2);
    vt_status st1 = vt_text_emissions(m, &s.tk, a1, E1, m->obs_bigram ? &l1 : NULL, NULL, &s1);
    struct vt_tmpl_index *x = m->tix;
    m->tix = NULL; /* the strings alone */
    vt_status st2 = vt_text_emissions(m, &s.tk, a2, E2, m->obs_bigram ? &l2 : NULL, NULL, &s2);
    m->tix = x;
    const size_t TL = (size_t)s.tk.T * L;
    bad += st1 != VT_OK || st2 != VT_OK || memcmp(E1, E2, TL * sizeof *E1) != 0 ||
           s1.unknown_features != s2.unknown_features || s1.lookups != s2.lookups;
    if (m->obs_bigram && st1 == VT_OK && st2 == VT_OK && !l1.Mt) {
      const int64_t nd = l1.doff[s.tk.T];
      bad += memcmp(l1.doff, l2.doff, ((size_t)s.tk.T + 1) * sizeof *l1.doff) != 0 ||
             memcmp(l1.dkey, l2.dkey, (size_t)nd * sizeof *l1.dkey) != 0 ||
             memcmp(l1.dval, l2.dval, (size_t)nd * sizeof *l1.dval) != 0;
    }
    if (m->obs_bigram && st1 == VT_OK && st2 == VT_OK) /* the edges, however each is held */
      for (int32_t t = 1; t < s.tk.T; t++) {
        double M1[L * L], M2[L * L];
        edges(&l1, t, M1);
        edges(&l2, t, M2);
        bad += memcmp(M1, M2, sizeof M1) != 0;
        mats += l1.Mt != NULL;
      }
    vt_tag_stats s3; /* the index and the cache (after the lattices are compared: a1 is reset) */
    memset(&s3, 0, sizeof s3);
    vt_arena_reset(a1);
    bad += vt_text_emissions(m, &s.tk, a1, E3, NULL, cache, &s3) != VT_OK ||
           memcmp(E3, E2, TL * sizeof *E1) != 0 || s3.unknown_features != s2.unknown_features;
  }
  EXPECT(!cache || m->tmpl.n_local == 0 || cache->hits > 100, "the row cache hits");
  vt_rowcache_destroy(cache);
  vt_arena_destroy(a1);
  vt_arena_destroy(a2);
  return bad;
}

/* CRF++'s dialect, templates the index finds and ones it leaves to the strings. */
TEST(crfpp_mixed) {
  test_rng r = {11};
  vt_textmodel *m = model_make("U00:%x[-1,0]/%x[0,0]\n"
                               "U01:%x[-2,0]\n"
                               "U02:%x[-1,0]/%x[0,0]/%x[1,0]\n"
                               "U03:%x[0,0]%x[1,0]\n"
                               "U04:bias\n"
                               "U05:%m[0,0,\".$\"]\n"
                               "U06:%x[1,0]/x\n"
                               "U07:%x[-9,0]/%x[40,0]\n"
                               "B\n"
                               "B08:%x[0,0]/%x[-1,0]\n"
                               "U09:%x[0,0]%x[1,0]%x[2,0]%x[3,0]\n",
                               VT_ORIGIN_CRFPP, &r);
  REQUIRE(m && m->tix, "a model with an index");
  const vt_tmpl_index *x = m->tix;
  EXPECT(x->fast[0] && x->fast[1] && x->fast[2] && x->fast[4] && x->fast[6] && x->fast[7],
         "the plain templates and the bias are found through the index");
  EXPECT(x->fast[5], "the regex template too: its texts are looked up");
  EXPECT(!x->fast[9] && !x->all_fast,
         "four adjacent macros over long tokens read too many ways: strings");
  EXPECT(m->obs_bigram && x->fast[8], "the bigram template is found through the index");
  EXPECT(!x->obs_mats, "a bigram of two cells: the edges as deltas");
  EXPECT(x->dpos && x->dpos[1] >= 0 && x->dpos[5] >= 0 && x->dpos[6] >= 0,
         "the one-cell templates (a field, a regex, a field and a literal) are direct");
  EXPECT(x->dpos && x->dpos[0] < 0 && x->dpos[2] < 0 && x->dpos[4] < 0 && x->dpos[8] < 0,
         "two and three cells, the bias and the bigram go through the table");
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose features differ with the index");
  vt_textmodel_free(m);
}

/* Every unigram template through the index (the emission fast path: records added where the
 * index finds them). */
TEST(crfpp_all_fast) {
  test_rng r = {12};
  vt_textmodel *m = model_make("U00:%x[-1,0]/%x[0,0]\n"
                               "U01:%x[-2,0]\n"
                               "U02:%x[-1,0]/%x[0,0]/%x[1,0]\n"
                               "U04:bias\n"
                               "U06:%x[1,0]/x\n"
                               "U07:%X[-1,0]/%t[1,0,\"^\\l\"]/%m[-1,0,\"/.?$\"]\n"
                               "U08:%m[0,0,\"^.?.?\"]%m[0,0,\"a*$\"]\n"
                               "U09:%x[-2,0]=%x[-1,0]=%x[0,0]=%x[1,0]\n"
                               "B\n",
                               VT_ORIGIN_CRFPP, &r);
  REQUIRE(m && m->tix, "a model with an index");
  EXPECT(m->tix->all_fast && m->tix->local_fast, "all fast");
  EXPECT(m->tix->ncell[2] == 3 && m->tix->ncell[7] == 4 && m->tix->tails_len > 0,
         "three cells (a tail id in the entry) and four (tail ids in their own array)");
  uint32_t n_dense = 0, n_sparse = 0;
  for (uint64_t pos = 0, f = 0; f < m->n_feat; f++) {
    vt_feat ft;
    vt_feat_read(m->recs + pos, m->key_bytes, &ft);
    n_dense += ft.dense;
    n_sparse += !ft.dense;
    pos += vt_feat_size(ft.len, ft.nnz, vt_feat_key_bytes(&ft, m->key_bytes));
  }
  EXPECT(n_dense > 100 && n_sparse > 100, "dense (%u) and sparse (%u) records", n_dense, n_sparse);
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose emissions differ with the index");
  vt_textmodel_free(m);
}

/* Wapiti's dialect: absolute rows, `*` (a unigram and a bigram over one text), `_x-#`. */
TEST(wapiti) {
  test_rng r = {13};
  vt_textmodel *m = model_make("u00:%x[@1,0]/%x[@-1,0]\n"
                               "*01:%x[-5,0]\n"
                               "u02:%x[ 1,0]/%x[0,0]\n"
                               "u03:%X[0,0]\n"
                               "b\n",
                               VT_ORIGIN_WAPITI, &r);
  REQUIRE(m && m->tix && m->tmpl.wapiti, "a Wapiti model with an index");
  EXPECT(m->tix->all_fast, "every unigram template, %%X too, through the index");
  /* templates: u00, *01 as a unigram and a bigram, u02, u03 */
  EXPECT(m->tix->dpos && m->tix->dpos[1] >= 0 && m->tix->dpos[4] >= 0 && m->tix->dpos[0] < 0 &&
             m->tix->dpos[2] < 0,
         "the one-cell unigrams are direct; the two-cell one and the bigram are not");
  EXPECT(m->obs_bigram, "the `*` template has a bigram");
  EXPECT(m->tix->obs_mats && m->tix->obs_k == 2,
         "one bigram of one cell beside `b`: the edges of each value as one matrix");
  const int64_t mats0 = mats;
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose features differ with the index");
  EXPECT(mats > mats0 + 100, "the matrices served the positions (%lld)", (long long)(mats - mats0));
  vt_textmodel_free(m);
}

/* Templates of two to four cells over few values (a token's first byte, whether it holds an
 * 'a'; '|' between them, which no token holds) are grids: found by their cells' local ids,
 * without the table. One over every token's text, one far away and the bigram are not. */
TEST(grids) {
  test_rng r = {15};
  vt_textmodel *m = model_make("U00:%m[-1,0,\"^.?\"]|%m[0,0,\"^.?\"]\n"
                               "U01:%m[-1,0,\"^.?\"]|%m[0,0,\"^.?\"]|%m[1,0,\"^.?\"]\n"
                               "U02:%t[-2,0,\"a\"]|%t[-1,0,\"a\"]|%t[0,0,\"a\"]|%t[1,0,\"a\"]\n"
                               "U03:%x[0,0]\n"
                               "U04:%t[0,0,\"a\"]|%m[1,0,\"^.?\"]\n"
                               "U05:%m[-9,0,\"^.?\"]|%m[40,0,\"^.?\"]\n"
                               "U06:%x[-1,0]/%x[0,0]/%x[1,0]\n"
                               "B\n"
                               "B07:%t[-1,0,\"a\"]|%t[0,0,\"a\"]\n",
                               VT_ORIGIN_CRFPP, &r);
  REQUIRE(m && m->tix, "a model with an index");
  const vt_tmpl_index *x = m->tix;
  EXPECT(x->all_fast && m->obs_bigram, "every template through the index, a bigram of cells");
  EXPECT(vt_tix_grid(x, 0) && vt_tix_grid(x, 1) && vt_tix_grid(x, 2) && vt_tix_grid(x, 4),
         "two, three and four cells of few values, of one slot or two: grids");
  EXPECT(!vt_tix_grid(x, 3) && vt_tix_direct(x, 3), "one cell: direct, not a grid");
  EXPECT(!vt_tix_grid(x, 5), "cells past the sentinels kept beside the tokens: the table");
  EXPECT(!vt_tix_grid(x, 6), "three cells of every text: too sparse a grid, the table");
  int bigrams = 0;
  for (int32_t k = 0; k < m->tmpl.n; k++)
    if (m->tmpl.t[k].bigram) bigrams += 1 + vt_tix_grid(x, k);
  EXPECT(bigrams == 1, "the bigram of two cells of few values: the table");
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose emissions differ with the grids");
  vt_textmodel_free(m);
}

/* A grid cell spans the values its own template's records hold, not every value of its slot:
 * U00's first cell holds 'a' and 'b' only, while U01 gives the same slot every first byte; a
 * token that starts with another byte has a local id past U00's span, and U00 has no feature
 * there. */
TEST(grid_spans) {
  static const char *const FIRST[] = {"a", "b", "/", "", "_", "x", "U"};
  enum { NF = sizeof FIRST / sizeof *FIRST };
  char err[256];
  vt_peer_build b;
  vt_textmodel *m = NULL;
  test_rng r = {16};
  EXPECT(vt_peer_build_init(&b, L, 1.0, "t", err, sizeof err) == VT_OK, "init: %s", err);
  b.origin = VT_ORIGIN_CRFPP;
  for (int y = 0; y < L; y++) vt_peer_build_label(&b, &"ABCDEFGHIJKL"[y], 1);
  static const char *const TMPL[] = {"U00:%m[0,0,\"^.?\"]|%t[0,0,\"a\"]",
                                     "U01:%m[-1,0,\"^.?\"]|%m[0,0,\"^.?\"]", "B"};
  for (int k = 0; k < 3; k++) vt_peer_build_template(&b, TMPL[k], strlen(TMPL[k]));
  EXPECT(vt_peer_build_templates_end(&b, "t", err, sizeof err) == VT_OK, "%s", err);
  double w[L];
  char f[64];
  for (int i = 0; i < 2; i++) {
    for (int y = 0; y < L; y++) w[y] = test_unit(&r) - 0.5;
    const int n = snprintf(f, sizeof f, "U00:%s|%s", FIRST[i], i ? "false" : "true");
    EXPECT(vt_peer_build_feature(&b, f, (size_t)n, 0, w) == VT_OK, "feature");
  }
  for (int i = 0; i < NF; i++)
    for (int j = 0; j < NF; j++) {
      for (int y = 0; y < L; y++) w[y] = test_unit(&r) - 0.5;
      const int n = snprintf(f, sizeof f, "U01:%s|%s", FIRST[i], FIRST[j]);
      EXPECT(vt_peer_build_feature(&b, f, (size_t)n, 0, w) == VT_OK, "feature");
    }
  double A[L * L];
  for (int i = 0; i < L * L; i++) A[i] = test_unit(&r) - 0.5;
  vt_peer_build_trans(&b, A);
  EXPECT(vt_peer_build_finish(&b, "t", &m, err, sizeof err) == VT_OK, "finish: %s", err);
  vt_peer_build_free(&b);
  REQUIRE(m && m->tix, "a model with an index");
  const vt_tmpl_index *x = m->tix;
  REQUIRE(vt_tix_grid(x, 0) && vt_tix_grid(x, 1), "both templates are grids");
  EXPECT(x->gdim[x->cell0[0]] == 2 && x->gdim[x->cell0[1]] == NF,
         "U00's first cell spans its two values, U01's every first byte");
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose emissions differ with the grids");
  vt_textmodel_free(m);
}

/* CRF++'s bigram templates: one of one cell beside the label bigram. Each position's edges are
 * the matrix of its cell's value: A plus the deltas of its record, the same bits as the deltas
 * the strings find; a second bigram template of one cell leaves the edges to the deltas. */
TEST(obs_matrices) {
  test_rng r = {17};
  vt_textmodel *m = model_make("U00:%x[0,0]\n"
                               "B01:%x[-1,0]\n"
                               "B\n",
                               VT_ORIGIN_CRFPP, &r);
  REQUIRE(m && m->tix && m->obs_bigram, "a model with an index and a bigram template");
  const vt_tmpl_index *x = m->tix;
  EXPECT(x->obs_mats && x->obs_k == 1 && x->obs_n > 5,
         "the bigram of one cell picks a matrix (%d values)", x->obs_n);
  const int64_t mats0 = mats;
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose edges differ with the matrices");
  EXPECT(mats > mats0 + 100, "the matrices served the positions (%lld)", (long long)(mats - mats0));
  vt_textmodel_free(m);
  m = model_make("U00:%x[0,0]\nB01:%x[-1,0]\nB02:%x[0,0]\n", VT_ORIGIN_CRFPP, &r);
  REQUIRE(m && m->tix && m->obs_bigram, "a model with two bigram templates");
  EXPECT(!m->tix->obs_mats, "two bigram templates: the deltas");
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose edges differ with the index");
  vt_textmodel_free(m);
}

/* A model whose index would take work out of proportion to its size (2,000 templates whose
 * literal before the first macro is one letter, each tried on every record) loads without one,
 * and tags as the strings say. */
TEST(work_bound) {
  enum { NT = 2000 };
  char err[256];
  vt_peer_build b;
  vt_textmodel *m = NULL;
  EXPECT(vt_peer_build_init(&b, L, 1.0, "t", err, sizeof err) == VT_OK, "init: %s", err);
  b.origin = VT_ORIGIN_CRFPP;
  for (int y = 0; y < L; y++) vt_peer_build_label(&b, &"ABCDEFGHIJKL"[y], 1);
  for (int k = 0; k < NT; k++) {
    char line[32];
    vt_peer_build_template(&b, line, (size_t)snprintf(line, sizeof line, "U%%x[-1,0]/%04d", k));
  }
  EXPECT(vt_peer_build_templates_end(&b, "t", err, sizeof err) == VT_OK, "%s", err);
  for (int f = 0; f < 300; f++) {
    char s[32];
    const double w[L] = {0.5, -0.25, 0.125};
    const int n = snprintf(s, sizeof s, "U%s/%04d", VOCAB[f % 5], f % NT);
    EXPECT(vt_peer_build_feature(&b, s, (size_t)n, 0, w) == VT_OK, "feature");
  }
  EXPECT(vt_peer_build_finish(&b, "t", &m, err, sizeof err) == VT_OK, "finish: %s", err);
  vt_peer_build_free(&b);
  REQUIRE(m != NULL, "a model");
  EXPECT(m->tix == NULL, "no index past the work bound");
  test_rng r = {14};
  EXPECT_EQ_INT(compare(m, &r), 0, "sentences whose emissions differ");
  vt_textmodel_free(m);
}

TEST_MAIN(CASE(crfpp_mixed), CASE(crfpp_all_fast), CASE(wapiti), CASE(grids), CASE(grid_spans),
          CASE(obs_matrices), CASE(work_bound))
