/* tests/test_chunk_model.c: the joint label-chunk model around its decoder: token types (Table
 * 5), POS collapsing (Table 3), gold structures from a BIO column (O runs, length cuts), part
 * scores that agree with feature sums, training that fits a separable toy corpus (both
 * updates), parameter mixing (one shard = sequential, any thread count = the same weights),
 * conlleval figures, and the model file: round trip, corrupted and truncated files
 * refused. Makes its own small corpus; nothing from ../shared. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk/chunk_corpus_file.h"
#include "chunk/chunk_tag.h"
#include "models/chunk_model_file.h"
#include "test_util.h"
#include "train/chunk_train.h"

TEST(token_types) {
  static const struct {
    const char *s;
    int type;
  } cases[] = {{"Confidence", VT_TTYPE_CAPITAL},
               {"A", VT_TTYPE_CAP_ONE},
               {"IBM", VT_TTYPE_CAP_ALL},
               {"McDonald", VT_TTYPE_CAP_MIX},
               {"McD", VT_TTYPE_CAP_MIX},
               {"1990s", VT_TTYPE_NUMBER},
               {"3.5", VT_TTYPE_NUMBER},
               {"A1", VT_TTYPE_NUMBER},
               {"the", VT_TTYPE_NONE},
               {",", VT_TTYPE_NONE},
               {"U.K.", VT_TTYPE_NONE},
               {"iPod", VT_TTYPE_NONE},
               {"", VT_TTYPE_NONE}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    EXPECT_EQ_INT(vt_chunk_token_type(cases[i].s, strlen(cases[i].s)), cases[i].type, cases[i].s);
  }
  static const char *const col[][2] = {{"NN", "NOUN"},    {"NNPS", "NOUN"}, {"VBZ", "VERB"},
                                       {"VB", "VERB"},    {"JJS", "JADJ"},  {"RBR", "RBP"},
                                       {"PRP$", "OTHER"}, {"WRB", "OTHER"}, {"CD", "OTHER"},
                                       {".", "OTHER"},    {"MD", "OTHER"}};
  for (size_t i = 0; i < sizeof col / sizeof col[0]; i++) {
    size_t n;
    const char *o = vt_chunk_pos_collapse(VT_COLLAPSE_PAPER, col[i][0], strlen(col[i][0]), &n);
    EXPECT(n == strlen(col[i][1]) && !memcmp(o, col[i][1], n), "%s -> %.*s", col[i][0], (int)n, o);
    o = vt_chunk_pos_collapse(VT_COLLAPSE_NONE, col[i][0], strlen(col[i][0]), &n);
    EXPECT(o == col[i][0] && n == strlen(col[i][0]), "none keeps %s", col[i][0]);
  }
}

/* A toy corpus: determiners and adjectives open NP chunks, verbs and prepositions are outside,
 * nouns end chunks; words fix the tags, so it is separable. */
static const char *const TOY =
    "the DT B-NP\nbig JJ I-NP\ncat NN I-NP\nsat VBD B-VP\non IN B-PP\nthe DT B-NP\nmat NN I-NP\n"
    ". . O\n\n"
    "a DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n"
    "dogs NNS B-NP\ncats NNS B-NP\nsat VBD B-VP\nquickly RB B-ADVP\n\n"
    "John NNP B-NP\nsaw VBD B-VP\nthe DT B-NP\nsmall JJ I-NP\nred JJ I-NP\nbig JJ I-NP\n"
    "dog NN I-NP\nin IN B-PP\n1990 CD B-NP\n. . O\n";

static char *write_temp(const char *text, size_t len) {
  char *path = strdup("/tmp/vt_chunk_test_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
    fprintf(stderr, "cannot write a temp file\n");
    exit(1);
  }
  close(fd);
  return path;
}

static void read_toy(vt_chunk_model *m, vt_chunk_corpus *cp, const char *path, int32_t W) {
  char err[256];
  vt_chunk_read_opts o;
  vt_chunk_read_opts_init(&o);
  o.grow = 1;
  o.max_chunk = W;
  int32_t id;
  vt_featdict_add(&m->chunk_names, "NP", 2, &id);
  m->c = m->chunk_names.n;
  vt_status st = vt_chunk_corpus_read(cp, m, path, NULL, &o, err, sizeof err);
  EXPECT_EQ_INT(st, VT_OK, err);
}

static char *g_toy;

static void toy_remove(void) {
  unlink(g_toy);
  free(g_toy);
}

/* The toy corpus file, written on the first call and removed at exit. */
static const char *toy_path(void) {
  if (!g_toy) {
    g_toy = write_temp(TOY, strlen(TOY));
    if (g_toy) atexit(toy_remove);
  }
  return g_toy;
}

/* Gold structures from the BIO column: O runs, chunks cut at the length bound. */
TEST(gold_structures) {
  const char *path = toy_path();
  REQUIRE(path != NULL, "toy corpus");
  vt_chunk_model m;
  vt_chunk_corpus cp = {0};
  vt_chunk_model_init(&m);
  m.collapse = VT_COLLAPSE_PAPER;
  read_toy(&m, &cp, path, 2);
  EXPECT_EQ_INT(cp.n_sent, 4, "sentences");
  EXPECT_EQ_INT(m.p, 5, "collapsed POS tags seen: OTHER JADJ NOUN VERB RBP");
  /* Sentence 1: [the big | cat] cut at 2, [sat on] O run, [the mat] NP, [.] O. */
  static const uint8_t beg1[8] = {1, 0, 1, 1, 0, 1, 0, 1};
  static const int32_t tag1[8] = {1, 1, 1, 0, 0, 1, 1, 0};
  static const uint8_t bio1[8] = {1, 0, 0, 0, 0, 1, 0, 0};
  EXPECT(!memcmp(cp.begin, beg1, 8) && !memcmp(cp.ctag, tag1, sizeof tag1) &&
             !memcmp(cp.bio, bio1, 8),
         "sentence 1 structure");
  /* Sentence 3: two adjacent NP chunks, then an O run of two. */
  const int64_t o3 = cp.off[2];
  EXPECT(cp.begin[o3] && cp.begin[o3 + 1] && cp.begin[o3 + 2] && !cp.begin[o3 + 3],
         "adjacent chunks");
  EXPECT_EQ_INT(cp.cut, 3, "NP chunks cut by W = 2");
  vt_chunk_corpus_free(&cp);
  vt_chunk_model_free(&m);
}

/* Lattice scores against feature sums, with integer weights so that sums are exact. */
TEST(scores_are_feature_sums) {
  const char *path = toy_path();
  REQUIRE(path != NULL, "toy corpus");
  vt_chunk_model m;
  vt_chunk_corpus cp = {0};
  vt_chunk_model_init(&m);
  read_toy(&m, &cp, path, 0);
  EXPECT_EQ_INT(vt_chunk_features_build(&m, &cp, VT_CFEAT_OBSERVED), VT_OK, "features");
  test_rng rng = {99};
  for (int64_t e = 0; e < m.n_feat; e++) m.w[e] = (double)(test_int(&rng, 9) - 4);
  vt_arena *ar;
  vt_arena_create(&ar, 0);
  int64_t ids[16 * 16];
  for (int64_t s = 0; s < cp.n_sent; s++) {
    vt_chunk_x x;
    vt_chunk_corpus_x(&cp, s, &x);
    const int64_t o = cp.off[s];
    vt_chunk_lattice lat;
    EXPECT_EQ_INT(vt_chunk_lattice_build(&m, m.w, &x, 0, ar, &lat), VT_OK, "lattice");
    int64_t nf = vt_chunk_feats(&m, &x, cp.pos + o, cp.ctag + o, cp.begin + o, 0xFFFF, ids);
    double sum = 0;
    for (int64_t i = 0; i < nf; i++) sum += m.w[ids[i]];
    EXPECT_EQ_DBL(vt_chunk_score(&lat, cp.pos + o, cp.ctag + o, cp.begin + o), sum, "gold");
    /* Every gold feature exists in OBSERVED mode: 5 + 5 per chunk start... count them. */
    int64_t chunks = 0, inner = 0;
    for (int32_t t = 0; t < x.n; t++) chunks += cp.begin[o + t], inner += !cp.begin[o + t];
    EXPECT_EQ_INT(nf, 5 * x.n + 3 * inner + 5 * chunks + 3 * (chunks - 1), "feature count");
    vt_arena_reset(ar);
  }
  vt_arena_destroy(ar);
  vt_chunk_corpus_free(&cp);
  vt_chunk_model_free(&m);
}

static int count_epochs(void *ctx, const vt_chunk_model *m, const vt_chunk_epoch *ep) {
  ((int64_t *)ctx)[0] = ep->epoch;
  ((int64_t *)ctx)[1] = ep->mistakes;
  return 0;
}

/* Tags cp with m; returns the percentage of sentences entirely right (POS, tags, structure). */
static double exact_sentences(const vt_chunk_model *m, const vt_chunk_corpus *cp) {
  vt_arena *ar;
  vt_arena_create(&ar, 0);
  int32_t pos[64], ctag[64];
  uint8_t begin[64];
  int64_t ok = 0;
  for (int64_t s = 0; s < cp->n_sent; s++) {
    vt_chunk_x x;
    vt_chunk_corpus_x(cp, s, &x);
    vt_chunk_out out = {pos, ctag, begin, 0};
    vt_chunk_tag_sentence(m, &x, m->max_chunk, ar, &out, NULL);
    vt_arena_reset(ar);
    const int64_t o = cp->off[s];
    ok += !memcmp(pos, cp->pos + o, sizeof(int32_t) * (size_t)x.n) &&
          !memcmp(ctag, cp->ctag + o, sizeof(int32_t) * (size_t)x.n) &&
          !memcmp(begin, cp->begin + o, (size_t)x.n);
  }
  vt_arena_destroy(ar);
  return 100.0 * (double)ok / (double)cp->n_sent;
}

static void train_toy(vt_chunk_model *m, vt_chunk_corpus *cp, const char *path, int margin,
                      int features) {
  vt_chunk_model_init(m);
  read_toy(m, cp, path, 0);
  EXPECT_EQ_INT(vt_chunk_features_build(m, cp, features), VT_OK, "features");
  vt_chunk_train_opts o;
  vt_chunk_train_opts_init(&o);
  o.margin = margin;
  o.epochs = 40; /* the average must forget the first, wrong weights */
  int64_t last[2] = {0, -1};
  o.on_epoch = count_epochs;
  o.ctx = last;
  EXPECT_EQ_INT(vt_chunk_train(m, cp, &o), VT_OK, "train");
  EXPECT_EQ_INT(last[0], 40, "epochs reported");
  /* Separable data: the perceptron converges (Collins 2002, theorem 1) */
  EXPECT_EQ_INT(last[1], 0, "mistakes in the last epoch");
}

/* Training fits the separable toy corpus (both updates, both feature sets); the parts loss. */
TEST(training) {
  const char *path = toy_path();
  REQUIRE(path != NULL, "toy corpus");
  for (int margin = 0; margin <= 1; margin++)
    for (int features = 0; features <= 1; features++) {
      vt_chunk_model m;
      vt_chunk_corpus cp = {0};
      train_toy(&m, &cp, path, margin, features);
      /* The averaged weights need not separate the data (they keep a trace of the early
       * mistakes; here one POS tag of 25 can stay wrong) but come close. */
      double ok = exact_sentences(&m, &cp);
      EXPECT(ok >= 75.0, "margin %d features %d: %.1f%% of toy sentences right", margin, features,
             ok);
      vt_chunk_corpus_free(&cp);
      vt_chunk_model_free(&m);
    }
  /* The parts loss: identical structures lose nothing; one POS tag wrong inside a chunk of
   * three loses its node and both transitions. */
  int32_t gp[3] = {0, 1, 2}, pp[3] = {0, 2, 2}, gt[3] = {1, 1, 1};
  uint8_t gb[3] = {1, 0, 0};
  EXPECT_EQ_INT(vt_chunk_parts_loss(3, gp, gt, gb, gp, gt, gb), 0, "no loss");
  EXPECT_EQ_INT(vt_chunk_parts_loss(3, gp, gt, gb, pp, gt, gb), 3, "one POS tag");
  uint8_t pb[3] = {1, 0, 1}; /* cut before token 2: 2 chunk nodes, 1 transition */
  EXPECT_EQ_INT(vt_chunk_parts_loss(3, gp, gt, gb, gp, gt, pb), 3, "one cut");
}

/* Trains the toy corpus 6 epochs (shuffled) with the given update and parameter-mixing
 * setting; returns the averaged weights (malloc'd) and their count in *n. */
static double *mixed_weights(int margin, int32_t shards, int32_t threads, int mix_one, int64_t *n) {
  vt_chunk_model m;
  vt_chunk_corpus cp = {0};
  vt_chunk_model_init(&m);
  read_toy(&m, &cp, toy_path(), 0);
  EXPECT_EQ_INT(vt_chunk_features_build(&m, &cp, VT_CFEAT_ALL), VT_OK, "features");
  vt_chunk_train_opts o;
  vt_chunk_train_opts_init(&o);
  o.margin = margin;
  o.epochs = 6;
  o.seed = 9;
  o.shards = shards;
  o.threads = threads;
  o.mix_one = mix_one;
  EXPECT_EQ_INT(vt_chunk_train(&m, &cp, &o), VT_OK, "train");
  double *w = malloc((size_t)m.n_feat * sizeof *w + 1);
  if (w) memcpy(w, m.w, (size_t)m.n_feat * sizeof *w);
  *n = m.n_feat;
  vt_chunk_corpus_free(&cp);
  vt_chunk_model_free(&m);
  return w;
}

static int same_weights(const double *a, int64_t na, const double *b, int64_t nb) {
  return a && b && na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0;
}

/* Parameter mixing: one shard with the perceptron update gives the sequential weights bit for
 * bit; several shards give the same weights on 1, 2 or 3 threads (both updates). */
TEST(parameter_mixing) {
  int64_t ns = 0, n1 = 0;
  double *seq = mixed_weights(0, 1, 1, 0, &ns), *one = mixed_weights(0, 1, 2, 1, &n1);
  EXPECT(same_weights(seq, ns, one, n1), "one shard mixed differs from sequential");
  free(one);
  for (int margin = 0; margin <= 1; margin++)
    for (int32_t shards = 2; shards <= 3; shards++) {
      int64_t na = 0;
      double *a = mixed_weights(margin, shards, 1, 0, &na);
      EXPECT(a && !(margin == 0 && same_weights(a, na, seq, ns)),
             "%d shards: mixed weights, not sequential's", shards);
      for (int32_t threads = 2; threads <= 3; threads++) {
        int64_t nb = 0;
        double *b = mixed_weights(margin, shards, threads, 0, &nb);
        EXPECT(same_weights(a, na, b, nb), "margin %d, %d shards: %d threads differ from 1", margin,
               shards, threads);
        free(b);
      }
      free(a);
    }
  free(seq);
}

TEST(eval) {
  /* gold:  B-NP I-NP O B-NP B-NP I-NP ;  pred: B-NP I-NP O B-NP I-NP I-NP, POS one wrong */
  int32_t gpos[6] = {0, 1, 2, 1, 0, 1}, ppos[6] = {0, 1, 2, 1, 0, 0};
  int32_t gtag[6] = {1, 1, 0, 1, 1, 1}, ptag[6] = {1, 1, 0, 1, 1, 1};
  uint8_t gbeg[6] = {1, 0, 1, 1, 1, 0}, pbeg[6] = {1, 0, 1, 1, 0, 0};
  vt_chunk_eval ev = {0};
  vt_chunk_eval_add(&ev, 6, gpos, gtag, gbeg, ppos, ptag, pbeg);
  double p, r, f1 = vt_chunk_eval_f1(&ev, &p, &r);
  EXPECT_EQ_INT(ev.gold, 3, "gold chunks");
  EXPECT_EQ_INT(ev.pred, 2, "predicted chunks");
  EXPECT_EQ_INT(ev.match, 1, "matching chunks");
  EXPECT(fabs(f1 - 40.0) < 1e-9 && fabs(p - 50.0) < 1e-9, "F1 %.3f P %.3f", f1, p);
  EXPECT(fabs(vt_chunk_eval_pos_acc(&ev) - 500.0 / 6) < 1e-9, "POS accuracy");
  EXPECT(fabs(vt_chunk_eval_tag_acc(&ev) - 500.0 / 6) < 1e-9, "tag accuracy (token 4: B vs I)");
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *b = malloc(1 << 20);
  *len = f ? fread(b, 1, 1 << 20, f) : 0;
  if (f) fclose(f);
  return b;
}

/* Round trip; truncated and corrupted files refused; a missing file. */
TEST(model_file) {
  const char *toy = toy_path();
  REQUIRE(toy != NULL, "toy corpus");
  vt_chunk_model m, back;
  vt_chunk_corpus cp = {0};
  train_toy(&m, &cp, toy, 1, VT_CFEAT_ALL);
  m.max_chunk = 5;
  char err[256], *path = write_temp("", 0);
  EXPECT_EQ_INT(vt_chunk_model_write(path, &m, err, sizeof err), VT_OK, err);
  memset(&back, 0, sizeof back);
  EXPECT_EQ_INT(vt_chunk_model_load(&back, path, err, sizeof err), VT_OK, err);
  EXPECT(vt_model_file_kind(path) == VT_MODEL_JOINT_CHUNK &&
             vt_model_file_kind(toy) != VT_MODEL_JOINT_CHUNK,
         "sniff");
  EXPECT(back.c == m.c && back.p == m.p && back.collapse == m.collapse && back.max_chunk == 5 &&
             back.n_rows == m.n_rows && back.n_feat == m.n_feat && back.words.n == m.words.n,
         "model fields");
  EXPECT(!memcmp(back.rowptr, m.rowptr, sizeof(int64_t) * (size_t)(m.n_rows + 1)) &&
             !memcmp(back.outs, m.outs, sizeof(int32_t) * (size_t)m.n_feat) &&
             !memcmp(back.w, m.w, sizeof(double) * (size_t)m.n_feat),
         "feature table");
  EXPECT(exact_sentences(&back, &cp) == exact_sentences(&m, &cp), "loaded model tags alike");
  size_t len;
  unsigned char *img = slurp(path, &len);
  /* Truncated at many lengths, and one byte flipped at many places: always refused. */
  int refused = 0, tries = 0;
  for (size_t cut = 0; cut < len; cut += 1 + len / 97, tries++) {
    FILE *f = fopen(path, "wb");
    fwrite(img, 1, cut, f);
    fclose(f);
    refused += vt_chunk_model_load(&back, path, err, sizeof err) == VT_EFORMAT;
  }
  for (size_t at = 0; at < len; at += 1 + len / 211, tries++) {
    img[at] ^= 0x5A;
    FILE *f = fopen(path, "wb");
    fwrite(img, 1, len, f);
    fclose(f);
    img[at] ^= 0x5A;
    int st = vt_chunk_model_load(&back, path, err, sizeof err);
    /* a flip inside the zero padding between sections changes nothing that is read */
    refused += st == VT_EFORMAT || st == VT_OK;
    if (st == VT_OK)
      EXPECT(exact_sentences(&back, &cp) == exact_sentences(&m, &cp), "padding flip at %zu", at);
  }
  EXPECT_EQ_INT(refused, tries, "damaged models refused");
  EXPECT(strstr(err, path) != NULL, "message names the file: %s", err);
  unlink(path);
  EXPECT_EQ_INT(vt_chunk_model_load(&back, path, err, sizeof err), VT_EIO, "missing file");
  free(img);
  free(path);
  vt_chunk_model_free(&back);
  vt_chunk_corpus_free(&cp);
  vt_chunk_model_free(&m);
}

TEST_MAIN(CASE(token_types), CASE(gold_structures), CASE(scores_are_feature_sums), CASE(training),
          CASE(parameter_mixing), CASE(eval), CASE(model_file))
