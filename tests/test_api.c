/* tests/test_api.c: the public API's contracts: empty sentences, option checks, status strings,
 * transition-model validation, float emissions, and an arena that stops allocating once warm. */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "vitesse.h"

static const double A[9] = {0, 1, -INFINITY, 2, 0, 1, 1, 1, 0}, S[3] = {0, 1, 2};

/* The model of every case: 3 labels, one forbidden transition; and a 4 KiB arena. */
typedef struct fixture {
  vt_arena *ar;
  vt_trans *tr;
} fixture;

static int fixture_make(fixture *f) {
  f->ar = NULL;
  f->tr = NULL;
  EXPECT_EQ_INT(vt_arena_create(&f->ar, 4096), VT_OK, "arena");
  EXPECT_EQ_INT(vt_trans_create(&f->tr, 3, A, S, NULL, NULL), VT_OK, "trans");
  if (!f->ar || !f->tr) return 0;
  EXPECT_EQ_INT(vt_trans_labels(f->tr), 3, "labels");
  return 1;
}

static void fixture_free(fixture *f) {
  vt_trans_destroy(f->tr);
  vt_arena_destroy(f->ar);
}

/* Transition-model validation. */
TEST(trans_validation) {
  vt_trans *bad = NULL;
  int32_t rank_dup[3] = {0, 1, 1}, rank_out[3] = {0, 1, 3}, rank_ok[3] = {2, 0, 1};
  double Anan[9] = {0, NAN, 0, 0, 0, 0, 0, 0, 0}, Ainf[9] = {0, 0, 0, 0, INFINITY, 0, 0, 0, 0};
  EXPECT_EQ_INT(vt_trans_create(&bad, 3, A, NULL, NULL, rank_dup), VT_EINVAL, "rank dup");
  EXPECT_EQ_INT(vt_trans_create(&bad, 3, A, NULL, NULL, rank_out), VT_EINVAL, "rank range");
  EXPECT_EQ_INT(vt_trans_create(&bad, 3, Anan, NULL, NULL, NULL), VT_EFORMAT, "NaN");
  EXPECT_EQ_INT(vt_trans_create(&bad, 3, Ainf, NULL, NULL, NULL), VT_EFORMAT, "+inf");
  EXPECT_EQ_INT(vt_trans_create(&bad, 0, A, NULL, NULL, NULL), VT_EINVAL, "L=0");
  EXPECT_EQ_INT(vt_trans_create(&bad, 3, A, NULL, NULL, rank_ok), VT_OK, "rank ok");
  vt_trans_destroy(bad);
}

/* T = 0: one empty path of score 0, for every algorithm; algorithm names round-trip. */
TEST(empty_sentence_every_algo) {
  fixture f;
  if (!fixture_make(&f)) return;
  int32_t labels[64];
  double scores[8];
  int32_t n;
  vt_decode_opts o;
  for (int a = 0; a < VT_ALGO_COUNT_; a++) {
    if (!vt_algo_available((vt_algo)a)) {
      vt_algo back;
      EXPECT_EQ_INT(vt_algo_parse(vt_algo_name((vt_algo)a), &back), VT_EUNSUPPORTED, "pending");
      continue;
    }
    vt_decode_opts_init(&o);
    o.algo = (vt_algo)a;
    EXPECT_EQ_INT(vt_decode(f.tr, &o, f.ar, NULL, 0, labels, scores, &n, NULL), VT_OK, "T=0");
    EXPECT_EQ_INT(n, 1, vt_algo_name((vt_algo)a));
    EXPECT_EQ_DBL(scores[0], 0.0, "T=0 score");
    vt_algo back;
    EXPECT_EQ_INT(vt_algo_parse(vt_algo_name((vt_algo)a), &back), VT_OK, "parse");
    EXPECT_EQ_INT(back, a, "name round trip");
  }
  vt_algo dummy;
  EXPECT_EQ_INT(vt_algo_parse("nope", &dummy), VT_EINVAL, "unknown algo");
  fixture_free(&f);
}

/* Option checks. */
TEST(option_checks) {
  fixture f;
  if (!fixture_make(&f)) return;
  vt_decode_opts o;
  int32_t labels[64];
  double scores[8];
  int32_t n;
  vt_trans *tr = f.tr;
  vt_arena *ar = f.ar;
  double E[6] = {0, 1, 2, 3, 4, 5};
  vt_decode_opts_init(&o);
  o.k = 2;
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, 2, labels, scores, &n, NULL), VT_EINVAL, "1-best k=2");
  o.k = 0;
  o.algo = VT_ALGO_KBEST_VITERBI;
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, 2, labels, scores, &n, NULL), VT_EINVAL, "k=0");
  vt_decode_opts_init(&o);
  o.algo = VT_ALGO_BEAM;
  o.beam = 0;
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, 2, labels, scores, &n, NULL), VT_EINVAL, "beam=0");
  vt_decode_opts_init(&o);
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, -1, labels, scores, &n, NULL), VT_EINVAL, "T<0");
  vt_decode_opts_init(&o);
  EXPECT(o.budget == 0, "the default budget is 0 (the library's)");
  o.algo = VT_ALGO_STAGGERED;
  o.budget = NAN;
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, 2, labels, scores, &n, NULL), VT_EINVAL, "budget NaN");
  /* A tiny budget: the search hands the sentence to viterbi, which gives its path. */
  o.budget = 1e-12;
  vt_decode_stats ds = {0};
  EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, 2, labels, scores, &n, &ds), VT_OK, "tiny budget");
  EXPECT_EQ_INT((int)ds.budget_fallbacks, 1, "one sentence fell back");
  EXPECT_EQ_INT(n, 1, "one path");
  fixture_free(&f);
}

/* Float emissions give the same answer as their double conversion. */
TEST(f32_matches_f64) {
  fixture f;
  if (!fixture_make(&f)) return;
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  vt_trans *tr = f.tr;
  vt_arena *ar = f.ar;
  float Ef[6] = {0.5f, -1.25f, 2, 3, -4.5f, 5};
  double Ed[6];
  for (int i = 0; i < 6; i++) Ed[i] = Ef[i];
  int32_t l1[2], l2[2];
  double s1, s2;
  int32_t n1, n2;
  vt_decode_f32(tr, &o, ar, Ef, 2, l1, &s1, &n1, NULL);
  vt_decode(tr, &o, ar, Ed, 2, l2, &s2, &n2, NULL);
  EXPECT(n1 == 1 && n2 == 1 && s1 == s2 && l1[0] == l2[0] && l1[1] == l2[1], "f32 vs f64");
  EXPECT_EQ_DBL(s1, vt_path_score(tr, Ed, 2, l1), "path score");
  fixture_free(&f);
}

/* Status strings exist and differ. */
TEST(status_strings) {
  EXPECT(strcmp(vt_strerror(VT_ENOMEM), vt_strerror(VT_EFORMAT)) != 0, "strerror");
  EXPECT(strcmp(vt_strerror(12345), "unknown status") == 0, "strerror unknown");
}

/* A steady workload stops taking blocks from the heap: after a warm-up round of the largest
 * sentence, decoding many sentences takes no new block. */
TEST(arena_steady_state) {
  fixture f;
  if (!fixture_make(&f)) return;
  vt_decode_opts o;
  int32_t n;
  vt_trans *tr = f.tr;
  vt_arena *ar = f.ar;
  const int T = 400;
  double *Ebig = malloc(sizeof(double) * T * 3);
  int32_t *lab = malloc(sizeof(int32_t) * T * 4);
  double sc[4];
  for (int i = 0; i < T * 3; i++) Ebig[i] = (double)((i * 7919) % 13) - 6;
  vt_decode_opts_init(&o);
  o.algo = VT_ALGO_KBEST_VITERBI;
  o.k = 4;
  vt_decode(tr, &o, ar, Ebig, T, lab, sc, &n, NULL);
  vt_arena_reset(ar);
  uint64_t blocks = vt_arena_block_allocs(ar);
  for (int rep = 0; rep < 1000; rep++) {
    vt_decode(tr, &o, ar, Ebig, 1 + rep % T, lab, sc, &n, NULL);
    vt_arena_reset(ar);
  }
  EXPECT_EQ_INT(vt_arena_block_allocs(ar), blocks, "arena blocks in steady state");
  EXPECT(vt_arena_high_water(ar) > 0, "high water");
  free(Ebig);
  free(lab);
  fixture_free(&f);
}

/* Large requests and alignment. */
TEST(arena_large_aligned) {
  fixture f;
  if (!fixture_make(&f)) return;
  vt_arena *ar = f.ar;
  for (int i = 0; i < 10; i++) {
    void *p = vt_arena_alloc(ar, (size_t)1 << (10 + i * 2));
    EXPECT(p && ((uintptr_t)p % 64) == 0, "aligned large alloc %d", i);
  }
  vt_arena_reset(ar);
  fixture_free(&f);
}

TEST_MAIN(CASE(trans_validation), CASE(empty_sentence_every_algo), CASE(option_checks),
          CASE(f32_matches_f64), CASE(status_strings), CASE(arena_steady_state),
          CASE(arena_large_aligned))
