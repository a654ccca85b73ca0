/* tests/test_chunk_decode.c: the label-chunk decoders against brute-force enumeration of every
 * label-chunk structure (n <= 6 tokens, 1-3 chunk tags, 2-4 POS tags, every chunk-length bound),
 * on random part scores: reals, small integers (many ties) and -inf patterns (some sentences
 * with no finite structure), with chunk nodes as a full span table or as start + end scores.
 * Each decoder (every SIMD level, vectorised over chunk starts or over POS tags, and the printed
 * Algorithm 3.1) must return the enumeration's best score exactly, and a valid structure whose
 * recomputed score is that score. On larger lattices every SIMD level of both vectorisations
 * must return the scalar level's structure, bit for bit, and the reference its score. */
#include <string.h>

#include "chunk/chunk_decode.h"
#include "test_util.h"

#define MAXN 6

typedef struct bf_state {
  const vt_chunk_lattice *lat;
  double best;
  long long count;
} bf_state;

static double bf_span(const vt_chunk_lattice *lat, int q, int r, int C) {
  if (lat->chunk_span) return lat->chunk_span[(r * lat->c + C) * lat->W + (q - r + lat->W - 1)];
  return lat->chunk_left[q * lat->c + C] + lat->chunk_right[r * lat->c + C];
}

/* Enumerates every structure: token t joins the open chunk [q, t-1] (tag C, POS path score
 * `inner`, last POS `prev`) or starts a new one; `total` is the score before the open chunk. */
static void bf_walk(bf_state *s, int t, int q, int C, int prev, double total, double inner) {
  const vt_chunk_lattice *lat = s->lat;
  const int n = lat->n, c = lat->c, p = lat->p;
  if (t == n) {
    double v = (total + inner) + bf_span(lat, q, n - 1, C);
    if (v > s->best) s->best = v;
    s->count++;
    return;
  }
  if (t - q < lat->W) /* continue the chunk */
    for (int P = 0; P < p; P++) {
      double in = (inner + lat->pos_trans[((t * c + C) * p + prev) * p + P]) +
                  lat->pos_node[(t * c + C) * p + P];
      bf_walk(s, t + 1, q, C, P, total, in);
    }
  double closed = (total + inner) + bf_span(lat, q, t - 1, C);
  for (int D = 0; D < c; D++) /* close it, start a chunk tagged D at t */
    for (int P = 0; P < p; P++)
      bf_walk(s, t + 1, t, D, P, closed + lat->chunk_trans[(t * c + C) * c + D],
              lat->pos_node[(t * c + D) * p + P]);
}

static double bf_best(const vt_chunk_lattice *lat, long long *count) {
  bf_state s = {lat, -INFINITY, 0};
  const int c = lat->c, p = lat->p;
  for (int C = 0; C < c; C++)
    for (int P = 0; P < p; P++) bf_walk(&s, 1, 0, C, P, 0.0, lat->pos_node[C * p + P]);
  *count = s.count;
  return s.best;
}

typedef struct lat_buf {
  double *node, *trans, *ctrans, *span, *left, *right;
} lat_buf;

static void lat_fill(vt_chunk_lattice *lat, lat_buf *b, test_rng *rng, int n, int c, int p, int W,
                     score_mode mode, int full_span) {
  lat->n = n;
  lat->c = c;
  lat->p = p;
  lat->W = W;
  b->node = realloc(b->node, sizeof(double) * (size_t)(n * c * p + 1));
  b->trans = realloc(b->trans, sizeof(double) * (size_t)(n * c * p * p + 1));
  b->ctrans = realloc(b->ctrans, sizeof(double) * (size_t)(n * c * c + 1));
  b->span = realloc(b->span, sizeof(double) * (size_t)(n * c * W + 1));
  b->left = realloc(b->left, sizeof(double) * (size_t)(n * c + 1));
  b->right = realloc(b->right, sizeof(double) * (size_t)(n * c + 1));
  for (int i = 0; i < n * c * p; i++) b->node[i] = test_score(rng, mode);
  for (int i = 0; i < n * c * p * p; i++) b->trans[i] = test_score(rng, mode);
  for (int i = 0; i < n * c * c; i++) b->ctrans[i] = test_score(rng, mode);
  for (int i = 0; i < n * c * W; i++) b->span[i] = test_score(rng, mode);
  for (int i = 0; i < n * c; i++) {
    b->left[i] = test_score(rng, mode);
    b->right[i] = test_score(rng, mode);
  }
  lat->pos_node = b->node;
  lat->pos_trans = b->trans;
  lat->chunk_trans = b->ctrans;
  lat->chunk_span = full_span ? b->span : NULL;
  lat->chunk_left = b->left;
  lat->chunk_right = b->right;
}

typedef struct out_buf {
  int32_t pos[512], ctag[512];
  uint8_t begin[512];
  vt_chunk_out o;
} out_buf;

static void out_init(out_buf *b) {
  memset(b, 0, sizeof *b);
  b->o.pos = b->pos;
  b->o.ctag = b->ctag;
  b->o.begin = b->begin;
}

/* Decodes with `level` (the reference when level < 0; vectorised over POS tags at level - 10
 * when level >= 10) and checks score `want`. */
static void check_one(const char *ctx, const vt_chunk_lattice *lat, int level, double want,
                      vt_arena *ar, out_buf *ob) {
  char msg[256];
  out_init(ob);
  vt_status st = level < 0     ? vt_chunk_decode_ref(lat, ar, &ob->o)
                 : level >= 10 ? vt_chunk_decode_tags(lat, (vt_simd)(level - 10), ar, &ob->o)
                               : vt_chunk_decode_level(lat, (vt_simd)level, ar, &ob->o, NULL);
  vt_arena_reset(ar);
  snprintf(msg, sizeof msg, "%s level %d n %d c %d p %d W %d", ctx, level, lat->n, lat->c, lat->p,
           lat->W);
  EXPECT_EQ_INT(st, VT_OK, msg);
  EXPECT_EQ_DBL(ob->o.score, want, msg);
  if (want == -INFINITY || lat->n == 0) return;
  double re = vt_chunk_score(lat, ob->pos, ob->ctag, ob->begin);
  EXPECT_EQ_DBL(re, want, msg);
}

/* `cases` random lattices against brute force; with `check` 0, only draws them from rng (so a
 * later case continues the same stream). */
static void brute_force(test_rng *rng, vt_arena *ar, int cases, int check) {
  lat_buf b = {0};
  out_buf ob;
  vt_chunk_lattice lat;
  long long structures = 0;
  for (int i = 0; i < cases; i++) {
    int n = 1 + test_int(rng, MAXN), c = 1 + test_int(rng, 3), p = 2 + test_int(rng, 3);
    if (i % 50 == 0) n = MAXN, c = 2 + (i / 50) % 2, p = 4; /* the largest shapes, regularly */
    int W = 1 + test_int(rng, n);
    if (i % 3 == 0) W = n; /* no bound */
    score_mode mode = (score_mode)(i % 3);
    lat_fill(&lat, &b, rng, n, c, p, W, mode, i % 2);
    if (!check) continue;
    long long count;
    double want = bf_best(&lat, &count);
    structures += count;
    char ctx[64];
    snprintf(ctx, sizeof ctx, "bf case %d mode %d span %d", i, (int)mode, i % 2);
    for (int level = -1; level <= VT_SIMD_AVX512; level++) {
      if (level >= 0 && !vt_simd_supported((vt_simd)level)) continue;
      check_one(ctx, &lat, level, want, ar, &ob);
      if (level >= 0) check_one(ctx, &lat, 10 + level, want, ar, &ob);
    }
  }
  if (check) printf("brute force: %d lattices, %lld structures enumerated\n", cases, structures);
  free(b.node), free(b.trans), free(b.ctrans), free(b.span), free(b.left), free(b.right);
}

/* The empty sentence, and a lattice where every structure is -inf. */
TEST(edges) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  out_buf ob;
  vt_chunk_lattice lat = {0};
  lat.c = 2;
  lat.p = 3;
  out_init(&ob);
  EXPECT_EQ_INT(vt_chunk_decode(&lat, ar, &ob.o, NULL), VT_OK, "n = 0");
  EXPECT_EQ_DBL(ob.o.score, 0.0, "n = 0 score");
  EXPECT_EQ_DBL(vt_chunk_score(&lat, ob.pos, ob.ctag, ob.begin), 0.0, "n = 0 rescore");
  lat.W = 0;
  lat.n = 3;
  EXPECT_EQ_INT(vt_chunk_decode(&lat, ar, &ob.o, NULL), VT_EINVAL, "W = 0");
  lat_buf b = {0};
  test_rng rng = {7};
  lat_fill(&lat, &b, &rng, 4, 2, 3, 4, SCORE_INT, 0);
  for (int i = 0; i < 4 * 2 * 3; i++) b.node[i] = -INFINITY;
  check_one("all -inf", &lat, VT_SIMD_SCALAR, -INFINITY, ar, &ob);
  for (int t = 0; t < 4; t++) EXPECT(ob.begin[0] == 1 && ob.ctag[t] < 2, "valid structure");
  /* A structure that is not one: NaN. */
  lat_fill(&lat, &b, &rng, 4, 2, 3, 2, SCORE_INT, 1);
  int32_t pos[4] = {0, 1, 2, 0}, ctag[4] = {0, 0, 0, 1};
  uint8_t begin[4] = {1, 0, 0, 1};
  EXPECT(isnan(vt_chunk_score(&lat, pos, ctag, begin)), "chunk longer than W");
  begin[1] = 1;
  EXPECT(!isnan(vt_chunk_score(&lat, pos, ctag, begin)), "valid");
  ctag[1] = 1;
  EXPECT(isnan(vt_chunk_score(&lat, pos, ctag, begin)), "tag change inside a chunk");
  free(b.node), free(b.trans), free(b.ctrans), free(b.span), free(b.left), free(b.right);
  vt_arena_destroy(ar);
}

/* Larger lattices: every level returns the scalar level's structure, bit for bit; the printed
 * algorithm returns the same score. */
static void levels(test_rng *rng, vt_arena *ar, int cases) {
  lat_buf b = {0};
  static out_buf ref, got;
  vt_chunk_lattice lat;
  for (int i = 0; i < cases; i++) {
    int n = 1 + test_int(rng, 120), c = 1 + test_int(rng, 4), p = 1 + test_int(rng, 12);
    if (i % 10 == 0) p = 45;
    int W = i % 2 ? n : 1 + test_int(rng, n);
    lat_fill(&lat, &b, rng, n, c, p, W, (score_mode)(i % 3), i % 4 < 2);
    out_init(&ref);
    EXPECT_EQ_INT(vt_chunk_decode_level(&lat, VT_SIMD_SCALAR, ar, &ref.o, NULL), VT_OK, "scalar");
    vt_arena_reset(ar);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "levels case %d n %d c %d p %d W %d", i, n, c, p, W);
    for (int level = VT_SIMD_AVX2; level <= 10 + VT_SIMD_AVX512; level++) {
      if ((level > VT_SIMD_AVX512 && level < 10) || !vt_simd_supported((vt_simd)(level % 10)))
        continue;
      out_init(&got);
      vt_status st = level >= 10 ? vt_chunk_decode_tags(&lat, (vt_simd)(level - 10), ar, &got.o)
                                 : vt_chunk_decode_level(&lat, (vt_simd)level, ar, &got.o, NULL);
      EXPECT_EQ_INT(st, VT_OK, ctx);
      vt_arena_reset(ar);
      EXPECT(memcmp(&got.o.score, &ref.o.score, sizeof(double)) == 0, "%s: score %.17g vs %.17g",
             ctx, got.o.score, ref.o.score);
      EXPECT(!memcmp(got.pos, ref.pos, sizeof(int32_t) * (size_t)n) &&
                 !memcmp(got.ctag, ref.ctag, sizeof(int32_t) * (size_t)n) &&
                 !memcmp(got.begin, ref.begin, (size_t)n),
             "%s: structures differ", ctx);
    }
    if (n <= 60) check_one(ctx, &lat, -1, ref.o.score, ar, &got);
    if (ref.o.score != -INFINITY) {
      EXPECT_EQ_DBL(vt_chunk_score(&lat, ref.pos, ref.ctag, ref.begin), ref.o.score, ctx);
    }
  }
  free(b.node), free(b.trans), free(b.ctrans), free(b.span), free(b.left), free(b.right);
}

/* Every decoder and level returns the enumeration's best score and a structure scoring it. */
TEST(brute_force_small) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng rng = {20060717};
  brute_force(&rng, ar, 400, 1);
  vt_arena_destroy(ar);
}

/* Larger lattices, drawn after brute_force_small's from the same stream. */
TEST(levels_bit_identical) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng rng = {20060717};
  brute_force(&rng, ar, 400, 0);
  levels(&rng, ar, 300);
  vt_arena_destroy(ar);
}

TEST_MAIN(CASE(edges), CASE(brute_force_small), CASE(levels_bit_identical))
