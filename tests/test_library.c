/* tests/test_library.c: the library's public API (vitesse.h only) for models, in-memory tagging,
 * lattices and the engine: the version, one-line errors, a model opened from memory behaves as
 * the same file opened from its path, vt_tagger agrees with the engine's output for tagger and
 * joint models, the engine's decode agrees with vt_decode for any thread count, cancelling, a
 * failing sink, engines run from the caller's own threads (pthreads, an OpenMP region), and corpus
 * parts and sentence ranges (a cluster rank's share) as the whole. Its data (a toy tagging
 * corpus, a toy chunking corpus, random lattices) is made here. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "vitesse.h"

static char dir[] = "/tmp/vt_test_library.XXXXXX";

static const char *tpath(const char *name) {
  static char buf[8][4096];
  static int next;
  char *p = buf[next++ % 8];
  snprintf(p, 4096, "%s/%s", dir, name);
  return p;
}

/* ---- a toy tagging corpus: the label depends on the word and the previous word --------------- */

static const char *const WORDS[6] = {"the", "dog", "runs", "a", "cat", "sleeps"};
static const char *const TAGS[5] = {"DT", "NN", "VB", "JJ", "RB"};
enum { NSENT = 60, MAXT = 8 };

typedef struct toy {
  const char *cells[NSENT][2 * MAXT]; /* word, tag */
  const char *words[NSENT][MAXT];     /* word only */
  vt_sentence_in s[NSENT];
} toy;

static toy corpus;

static void toy_make(toy *c) {
  uint32_t r = 7;
  for (int i = 0; i < NSENT; i++) {
    r = r * 1103515245u + 12345u;
    int T = 1 + (int)(r >> 16) % MAXT, prev = 0;
    for (int t = 0; t < T; t++) {
      r = r * 1103515245u + 12345u;
      int w = (int)(r >> 16) % 6;
      c->cells[i][2 * t] = c->words[i][t] = WORDS[w];
      c->cells[i][2 * t + 1] = TAGS[(w + 2 * prev) % 5];
      prev = w;
    }
    c->s[i] = (vt_sentence_in){c->cells[i], T, 2};
  }
}

/* Writes the words of the corpus, one column, as a corpus file. */
static void words_write(const char *path) {
  FILE *f = fopen(path, "w");
  for (int i = 0; f && i < NSENT; i++) {
    for (int t = 0; t < corpus.s[i].T; t++) fprintf(f, "%s\n", corpus.words[i][t]);
    fputc('\n', f);
  }
  if (f) fclose(f);
}

/* Collects a run's output in memory. */
typedef struct membuf {
  char *p;
  size_t len, cap;
  int fail_after; /* > 0: the n-th call fails */
  int track;      /* count the calls made on `caller`'s thread and on others */
  pthread_t caller;
  int on_caller, off_caller;
} membuf;

static vt_status mem_sink(void *ctx, const char *data, size_t len) {
  membuf *b = ctx;
  if (b->fail_after > 0 && --b->fail_after == 0) return VT_EIO;
  if (b->track) {
    if (pthread_equal(pthread_self(), b->caller))
      b->on_caller++;
    else
      b->off_caller++;
  }
  if (b->len + len + 1 > b->cap) {
    size_t cap = (b->len + len + 1) * 2;
    char *p = realloc(b->p, cap);
    if (!p) return VT_ENOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, data, len);
  b->len += len;
  b->p[b->len] = '\0';
  return VT_OK;
}

static const char TMPL[] = "U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[-1,0]/%x[0,0]\nB\n";

/* Trains the toy tagger into `path`. */
static vt_status toy_train(const char *path) {
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.templates = TMPL;
  o.epochs = 4;
  return vt_train_tagger_mem(&o, corpus.s, NSENT, NULL, 0, path, NULL);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *p = NULL;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) == (size_t)n) {
    *len = (size_t)n;
    p[n] = '\0';
  } else {
    free(p);
    p = NULL;
  }
  fclose(f);
  return p;
}

TEST(version_is_one_number) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", VT_VERSION_MAJOR, VT_VERSION_MINOR, VT_VERSION_PATCH);
  EXPECT_EQ_STR(vt_version(), want, "version string");
  EXPECT_EQ_INT(vt_version_number(), VT_VERSION_NUMBER, "version number");
}

TEST(file_read_reads_whole_and_refuses_too_large) {
  FILE *f = fopen(tpath("ten.txt"), "wb");
  REQUIRE(f && fputs("0123456789", f) >= 0 && fclose(f) == 0, "cannot write ten.txt");
  char *buf = NULL;
  size_t len = 0;
  REQUIRE(vt_file_read(tpath("ten.txt"), 0, &buf, &len) == VT_OK, "%s", vt_last_error());
  EXPECT(len == 10 && !memcmp(buf, "0123456789", 10) && buf[10] == '\0', "the bytes, then NUL");
  free(buf);
  REQUIRE(vt_file_read(tpath("ten.txt"), 10, &buf, &len) == VT_OK, "at the bound");
  free(buf);
  EXPECT_EQ_INT(vt_file_read(tpath("ten.txt"), 9, &buf, &len), VT_EFORMAT, "past the bound");
  EXPECT(buf == NULL && strstr(vt_last_error(), tpath("ten.txt")), "names it: %s", vt_last_error());
  EXPECT_EQ_INT(vt_file_read(tpath("none.txt"), 0, &buf, &len), VT_EIO, "missing");
  EXPECT(strstr(vt_last_error(), "cannot open"), "says why: %s", vt_last_error());
}

TEST(errors_are_one_line_naming_the_file) {
  vt_model *m = NULL;
  EXPECT_EQ_INT(vt_model_open(&m, tpath("missing.model")), VT_EIO, "missing");
  EXPECT(strstr(vt_last_error(), tpath("missing.model")) == vt_last_error(), "names it: %s",
         vt_last_error());
  FILE *f = fopen(tpath("junk.model"), "w");
  fputs("this is not a model\n", f);
  fclose(f);
  EXPECT_EQ_INT(vt_model_open(&m, tpath("junk.model")), VT_EFORMAT, "junk");
  EXPECT(strstr(vt_last_error(), "bad magic") && !strchr(vt_last_error(), '\n'), "says why: %s",
         vt_last_error());
  EXPECT(m == NULL, "no model on failure");
  EXPECT_EQ_INT(vt_model_file_kind(tpath("junk.model")), 0, "junk kind");
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.topology = "no such topology";
  vt_engine *e = NULL;
  EXPECT_EQ_INT(vt_engine_create(&e, &eo), VT_EINVAL, "bad topology");
  EXPECT(strstr(vt_last_error(), "--topology") != NULL, "topology message: %s", vt_last_error());
}

/* Tags every sentence with `t` and checks them against `m`'s engine output `text` (the input
 * lines plus a label column; with k > 1, "# RANK SCORE" blocks). */
static void expect_engine_equals_tagger(const vt_model *m, vt_tagger *t, int32_t k,
                                        const char *text) {
  const char *p = text;
  for (int i = 0; i < NSENT; i++) {
    int32_t T = corpus.s[i].T, labels[5 * MAXT];
    double scores[5];
    vt_tag_out out;
    memset(&out, 0, sizeof out);
    out.labels = labels;
    out.scores = scores;
    REQUIRE(vt_tagger_tag(t, corpus.words[i], T, 1, &out) == VT_OK, "tag: %s", vt_last_error());
    EXPECT(out.n_paths >= 1 && out.n_paths <= k, "paths %d", out.n_paths);
    for (int32_t path = 0; path < out.n_paths; path++) {
      if (k > 1) {
        char head[64];
        int n = snprintf(head, sizeof head, "# %d %.9g\n", path, scores[path]);
        REQUIRE(!strncmp(p, head, (size_t)n), "sentence %d path %d header", i, path);
        p += n;
      }
      for (int32_t w = 0; w < T; w++) {
        char line[128];
        int n = snprintf(line, sizeof line, "%s %s\n", corpus.words[i][w],
                         vt_model_label_name(m, labels[path * T + w]));
        REQUIRE(!strncmp(p, line, (size_t)n), "sentence %d path %d token %d: want %s", i, path, w,
                line);
        p += n;
      }
      if (path + 1 < out.n_paths) p++;
    }
    REQUIRE(*p == '\n', "sentence %d ends with a blank line", i);
    p++;
  }
  EXPECT(*p == '\0', "nothing after the last sentence");
}

TEST(tagger_agrees_with_the_engine) {
  REQUIRE(toy_train(tpath("toy.model")) == VT_OK, "train: %s", vt_last_error());
  words_write(tpath("words.txt"));
  vt_model *m = NULL;
  REQUIRE(vt_model_open(&m, tpath("toy.model")) == VT_OK, "open: %s", vt_last_error());
  vt_model_info info;
  vt_model_describe(m, &info);
  EXPECT_EQ_INT(info.kind, VT_MODEL_TAGGER, "kind");
  EXPECT_EQ_INT(info.labels, 5, "labels");
  EXPECT_EQ_STR(info.templates, TMPL, "templates kept");
  EXPECT_EQ_INT(vt_model_file_kind(tpath("toy.model")), VT_MODEL_TAGGER, "file kind");
  EXPECT_EQ_INT(info.can, vt_model_kind_can(VT_MODEL_TAGGER), "what a tagger can do");
  EXPECT((info.can &
          (VT_CAN_COLUMNS | VT_CAN_MARGINALS | VT_CAN_KBEST | VT_CAN_CONSTRAIN | VT_CAN_SAVE)) ==
             (VT_CAN_COLUMNS | VT_CAN_MARGINALS | VT_CAN_KBEST | VT_CAN_CONSTRAIN | VT_CAN_SAVE),
         "a tagger: columns, marginals, k-best, constraints, saved");
  EXPECT(!(info.can & (VT_CAN_ITEMS | VT_CAN_CHUNKS | VT_CAN_SAVE_CRFSUITE)),
         "a tagger: no items, no chunks, no crf1d file");
  EXPECT(vt_model_label_name(m, 5) == NULL && vt_model_label_name(m, -1) == NULL, "range");
  const char *files[1] = {tpath("words.txt")};
  for (int32_t k = 1; k <= 3; k += 2) {
    for (int threads = 1; threads <= 3; threads++) {
      vt_engine_opts eo;
      vt_engine_opts_init(&eo);
      eo.threads = threads;
      eo.batch_tokens = 7; /* many batches: their order must not show */
      vt_engine *e = NULL;
      REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine: %s", vt_last_error());
      EXPECT_EQ_INT(vt_engine_threads(e), threads, "threads");
      vt_tag_opts to;
      vt_tag_opts_init(&to);
      vt_model_default_decoder(m, k, &to.decode);
      membuf b = {0};
      vt_run_report rep;
      EXPECT_EQ_INT(vt_engine_tag(e, m, &to, files, 1, mem_sink, &b, &rep), VT_OK, "engine tag");
      EXPECT_EQ_INT(rep.sentences, NSENT, "sentences");
      vt_tagger *t = NULL;
      REQUIRE(vt_tagger_create(&t, m, &to.decode) == VT_OK, "tagger: %s", vt_last_error());
      if (b.p) expect_engine_equals_tagger(m, t, k, b.p);
      vt_tagger_destroy(t);
      vt_engine_destroy(e);
      free(b.p);
    }
  }
  vt_model_close(m);
}

TEST(a_model_from_memory_is_the_model_from_its_file) {
  REQUIRE(toy_train(tpath("mem.model")) == VT_OK, "train: %s", vt_last_error());
  size_t len = 0;
  char *bytes = slurp(tpath("mem.model"), &len);
  REQUIRE(bytes != NULL, "read the model");
  vt_model *a = NULL, *b = NULL, *bad = NULL;
  REQUIRE(vt_model_open(&a, tpath("mem.model")) == VT_OK, "open");
  REQUIRE(vt_model_open_memory(&b, bytes, len, "bytes") == VT_OK, "open memory: %s",
          vt_last_error());
  memset(bytes, 0, len); /* copied: the caller's bytes may go */
  free(bytes);
  vt_tagger *ta = NULL, *tb = NULL;
  REQUIRE(vt_tagger_create(&ta, a, NULL) == VT_OK && vt_tagger_create(&tb, b, NULL) == VT_OK,
          "taggers");
  for (int i = 0; i < NSENT; i++) {
    int32_t la[MAXT], lb[MAXT];
    double sa, sb;
    vt_tag_out oa = {.labels = la, .scores = &sa}, ob = {.labels = lb, .scores = &sb};
    EXPECT(vt_tagger_tag(ta, corpus.words[i], corpus.s[i].T, 1, &oa) == VT_OK &&
               vt_tagger_tag(tb, corpus.words[i], corpus.s[i].T, 1, &ob) == VT_OK,
           "tag %d", i);
    EXPECT(!memcmp(la, lb, sizeof(int32_t) * (size_t)corpus.s[i].T), "labels %d", i);
    EXPECT_EQ_DBL(sa, sb, "score");
  }
  /* A truncated copy is refused with the caller's name in the message. */
  bytes = slurp(tpath("mem.model"), &len);
  EXPECT_EQ_INT(vt_model_open_memory(&bad, bytes, len / 2, "half"), VT_EFORMAT, "half");
  EXPECT(!strncmp(vt_last_error(), "half: ", 6), "named: %s", vt_last_error());
  free(bytes);
  vt_tagger_destroy(ta);
  vt_tagger_destroy(tb);
  vt_model_close(a);
  vt_model_close(b);
}

TEST(tagger_rejects_what_it_cannot_tag) {
  double A[4] = {0, 1, 2, 0};
  vt_model *m = NULL;
  vt_tagger *t = NULL;
  REQUIRE(vt_model_open_trans(&m, 2, A, NULL, NULL, NULL) == VT_OK, "trans model");
  EXPECT_EQ_STR(vt_model_label_name(m, 1), "1", "numbered labels");
  EXPECT(vt_model_trans(m) != NULL, "its transitions");
  vt_model_info ti;
  vt_model_describe(m, &ti);
  EXPECT_EQ_INT(ti.can, VT_CAN_KBEST, "transitions: decoded, not tagged, saved or opened");
  EXPECT_EQ_INT(vt_model_kind_can((vt_model_kind)0), 0, "no kind, nothing");
  EXPECT_EQ_INT(vt_tagger_create(&t, m, NULL), VT_EUNSUPPORTED, "nothing to tag with");
  vt_model_close(m);
  REQUIRE(toy_train(tpath("cols.model")) == VT_OK, "train");
  REQUIRE(vt_model_open(&m, tpath("cols.model")) == VT_OK, "open");
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  o.algo = VT_ALGO_STAGGERED;
  o.k = 2;
  EXPECT_EQ_INT(vt_tagger_create(&t, m, &o), VT_EINVAL, "1-best decoder with k = 2");
  REQUIRE(vt_tagger_create(&t, m, NULL) == VT_OK, "tagger");
  int32_t lab[2];
  double sc;
  vt_tag_out out = {.labels = lab, .scores = &sc};
  const char *none[1] = {"x"};
  EXPECT_EQ_INT(vt_tagger_tag(t, none, 0, 1, &out), VT_OK, "T = 0");
  EXPECT_EQ_INT(out.n_paths, 1, "the empty path");
  EXPECT_EQ_INT(vt_tagger_tag(t, none, -1, 1, &out), VT_EINVAL, "T < 0");
  vt_tagger_destroy(t);
  vt_model_close(m);
}

/* ---- joint label-chunk models -----------------------------------------------------------------
 */

/* A toy chunking corpus (word POS chunk): determiners open noun phrases, nouns continue them. */
enum { NCHUNK = 80 };
static const char *chunk_cells[NCHUNK][3 * 8];
static vt_sentence_in chunk_sents[NCHUNK];

static void chunks_make(void) {
  uint32_t r = 3;
  for (int i = 0; i < NCHUNK; i++) {
    r = r * 1103515245u + 12345u;
    int T = 2 + (int)(r >> 16) % 6, inside = 0;
    for (int t = 0; t < T; t++) {
      r = r * 1103515245u + 12345u;
      int w = (int)(r >> 16) % 6;
      const char *chunk = w == 0 || w == 3 ? "B-NP" : (w == 1 || w == 4) && inside ? "I-NP" : "O";
      inside = chunk[0] != 'O';
      chunk_cells[i][3 * t] = WORDS[w];
      chunk_cells[i][3 * t + 1] = TAGS[w % 5];
      chunk_cells[i][3 * t + 2] = chunk;
    }
    chunk_sents[i] = (vt_sentence_in){chunk_cells[i], T, 3};
  }
}

TEST(joint_training_from_memory_is_training_from_a_file) {
  chunks_make();
  FILE *f = fopen(tpath("chunks.txt"), "w");
  REQUIRE(f != NULL, "corpus");
  for (int i = 0; i < NCHUNK; i++) {
    for (int t = 0; t < chunk_sents[i].T; t++)
      fprintf(f, "%s\t%s\t%s\n", chunk_cells[i][3 * t], chunk_cells[i][3 * t + 1],
              chunk_cells[i][3 * t + 2]);
    fputc('\n', f);
  }
  fclose(f);
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.epochs = 3;
  vt_train_report ra, rb;
  REQUIRE(vt_train_joint(&o, tpath("chunks.txt"), NULL, tpath("joint.model"), &ra) == VT_OK,
          "train joint: %s", vt_last_error());
  REQUIRE(vt_train_joint_mem(&o, chunk_sents, NCHUNK, NULL, 0, tpath("joint_mem.model"), &rb) ==
              VT_OK,
          "train joint in memory: %s", vt_last_error());
  EXPECT_EQ_INT(ra.sentences, NCHUNK, "sentences");
  EXPECT_EQ_INT(rb.sentences, NCHUNK, "sentences in memory");
  size_t la = 0, lb = 0;
  char *a = slurp(tpath("joint.model"), &la), *b = slurp(tpath("joint_mem.model"), &lb);
  EXPECT(a && b && la == lb && !memcmp(a, b, la), "the same model file, byte for byte");
  free(a);
  free(b);
  vt_sentence_in bad = {chunk_cells[0], 2, 1}; /* no POS column */
  EXPECT(vt_train_joint_mem(&o, &bad, 1, NULL, 0, tpath("bad.model"), NULL) != VT_OK,
         "a sentence without its columns is refused");
  EXPECT(!strncmp(vt_last_error(), "train:1:", 8), "named as the first sentence: %s",
         vt_last_error());
}

/* The joint model of the toy chunking corpus (made here when this case runs alone). */
static vt_status joint_model(void) {
  if (access(tpath("joint.model"), R_OK) == 0) return VT_OK;
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.epochs = 3;
  chunks_make();
  return vt_train_joint_mem(&o, chunk_sents, NCHUNK, NULL, 0, tpath("joint.model"), NULL);
}

TEST(joint_tagger_agrees_with_the_engine) {
  REQUIRE(joint_model() == VT_OK, "the joint model: %s", vt_last_error());
  vt_model *m = NULL;
  REQUIRE(vt_model_open(&m, tpath("joint.model")) == VT_OK, "open: %s", vt_last_error());
  vt_model_info info;
  vt_model_describe(m, &info);
  EXPECT_EQ_INT(info.kind, VT_MODEL_JOINT_CHUNK, "kind");
  EXPECT((info.can & (VT_CAN_COLUMNS | VT_CAN_CHUNKS | VT_CAN_OPEN_MEMORY)) ==
             (VT_CAN_COLUMNS | VT_CAN_CHUNKS | VT_CAN_OPEN_MEMORY),
         "a joint model: columns in, chunks out, opens from its bytes");
  EXPECT(!(info.can & (VT_CAN_MARGINALS | VT_CAN_KBEST | VT_CAN_SAVE | VT_CAN_ITEMS)),
         "a joint model: one 1-best decoder, no writer");
  EXPECT_EQ_INT(info.chunk_labels, 3, "O, B-NP, I-NP");
  EXPECT_EQ_STR(vt_model_chunk_name(m, 1), "B-NP", "B");
  EXPECT_EQ_STR(vt_model_chunk_name(m, 2), "I-NP", "I");
  vt_engine *e = NULL;
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = 2;
  eo.batch_tokens = 5;
  REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine");
  words_write(tpath("jwords.txt"));
  const char *files[1] = {tpath("jwords.txt")};
  membuf b = {0};
  REQUIRE(vt_engine_tag(e, m, NULL, files, 1, mem_sink, &b, NULL) == VT_OK, "tag: %s",
          vt_last_error());
  vt_tagger *t = NULL;
  REQUIRE(vt_tagger_create(&t, m, NULL) == VT_OK, "tagger");
  const char *p = b.p;
  for (int i = 0; i < NSENT && p; i++) {
    int32_t T = corpus.s[i].T, pos[MAXT], chunks[MAXT];
    double score;
    vt_tag_out out = {.labels = pos, .scores = &score, .chunks = chunks};
    REQUIRE(vt_tagger_tag(t, corpus.words[i], T, 1, &out) == VT_OK, "tag %d", i);
    EXPECT_EQ_INT(out.n_paths, 1, "one structure");
    for (int32_t w = 0; w < T; w++) {
      char line[128];
      int n = snprintf(line, sizeof line, "%s %s %s\n", corpus.words[i][w],
                       vt_model_label_name(m, pos[w]), vt_model_chunk_name(m, chunks[w]));
      REQUIRE(!strncmp(p, line, (size_t)n), "sentence %d token %d: want %s", i, w, line);
      p += n;
    }
    REQUIRE(*p == '\n', "blank line");
    p++;
  }
  free(b.p);
  vt_tagger_destroy(t);
  vt_engine_destroy(e);
  vt_model_close(m);
}

/* ---- lattices and the engine's decode ---------------------------------------------------------
 */

/* Random lattices with ties and -inf (E is kept by the set), their model, and in `ref` the lines
 * vt_decode gives them with `o` (iter-viterbi-astar, k = 3). */
enum { DL = 9, DS = 40 };
typedef struct dec_case {
  double *E, A[DL * DL];
  int64_t lengths[DS];
  vt_lattices *lat;
  vt_trans *tr;
  vt_decode_opts o;
  membuf ref;
} dec_case;

static int dec_case_make(dec_case *d) {
  int64_t rows = 0;
  uint32_t r = 11;
  vt_arena *ar = NULL;
  memset(d, 0, sizeof *d);
  for (int s = 0; s < DS; s++) {
    r = r * 1103515245u + 12345u;
    d->lengths[s] = s % 13 == 0 ? 0 : 1 + (int64_t)((r >> 16) % 12);
    rows += d->lengths[s];
  }
  d->E = malloc((size_t)rows * DL * sizeof *d->E);
  if (!d->E) return -1;
  for (int64_t i = 0; i < rows * DL; i++) {
    r = r * 1103515245u + 12345u;
    d->E[i] = (r >> 16) % 17 == 0 ? -INFINITY : (double)((r >> 16) % 9) - 4.0;
  }
  for (int i = 0; i < DL * DL; i++) d->A[i] = (double)((i * 7) % 5) - 2.0;
  if (vt_lattices_wrap(&d->lat, d->E, 1, DL, d->lengths, DS) != VT_OK ||
      vt_trans_create(&d->tr, DL, d->A, NULL, NULL, NULL) != VT_OK ||
      vt_arena_create(&ar, 0) != VT_OK)
    return -1;
  vt_decode_opts_init(&d->o);
  d->o.algo = VT_ALGO_ITER_VITERBI_ASTAR;
  d->o.k = 3;
  for (int s = 0; s < DS; s++) {
    int32_t T, np = 0, lab[3 * 16];
    double sc[3];
    const double *rows_s = vt_lattices_rows(d->lat, s, &T);
    if (vt_decode(d->tr, &d->o, ar, rows_s, T, lab, sc, &np, NULL) != VT_OK) return -1;
    vt_arena_reset(ar);
    for (int p = 0; p < (np ? np : 1); p++) {
      char line[512];
      int n = snprintf(line, sizeof line, "%d\t%d\t%.9g\t", s, p, np ? sc[p] : -INFINITY);
      for (int t = 0; np && t < T; t++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%d", t ? " " : "", lab[p * T + t]);
      line[n++] = '\n';
      mem_sink(&d->ref, line, (size_t)n);
    }
  }
  vt_arena_destroy(ar);
  return 0;
}

static void dec_case_free(dec_case *d) {
  free(d->ref.p);
  vt_trans_destroy(d->tr);
  vt_lattices_close(d->lat);
  free(d->E);
}

TEST(engine_decode_agrees_with_vt_decode) {
  dec_case d;
  REQUIRE(dec_case_make(&d) == 0, "lattices, model and reference");
  const int S = DS;
  vt_lattices *lat = d.lat;
  vt_trans *tr = d.tr;
  vt_decode_opts o = d.o;
  membuf ref = d.ref;
  EXPECT_EQ_INT(vt_lattices_sentences(lat), S, "sentences");
  EXPECT_EQ_INT(vt_lattices_labels(lat), DL, "labels");
  /* 1 to 3 workers, the sink on the calling thread, then on the workers (sink_any_thread). */
  for (int run = 0; run < 6; run++) {
    const int threads = 1 + run % 3, any = run / 3;
    vt_engine_opts eo;
    vt_engine_opts_init(&eo);
    eo.threads = threads;
    eo.batch_tokens = 9;
    eo.sink_any_thread = any;
    vt_engine *e = NULL;
    REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine");
    membuf b = {0};
    b.track = 1;
    b.caller = pthread_self();
    vt_run_report rep;
    EXPECT_EQ_INT(vt_engine_decode(e, tr, &o, lat, mem_sink, &b, &rep), VT_OK, "run");
    EXPECT(b.p && ref.p && !strcmp(b.p, ref.p), "%d threads: the engine's lines are vt_decode's",
           threads);
    if (any && threads > 1)
      EXPECT(b.on_caller == 0 && b.off_caller > 0, "sink_any_thread: %d calls on the caller",
             b.on_caller);
    else if (any) /* one worker, mapped lattices: the calling thread works and writes */
      EXPECT(b.off_caller == 0 && b.on_caller > 0, "one worker: %d calls elsewhere", b.off_caller);
    else
      EXPECT(b.off_caller == 0 && b.on_caller > 0, "the sink on the caller: %d calls elsewhere",
             b.off_caller);
    EXPECT_EQ_INT(rep.sentences, S, "sentences written");
    /* A cancel asked before the run stops it; the next run is whole again. */
    vt_engine_cancel(e);
    membuf c = {0};
    EXPECT_EQ_INT(vt_engine_decode(e, tr, &o, lat, mem_sink, &c, &rep), VT_ECANCELED, "cancel");
    EXPECT(rep.sentences < S, "canceled before the end");
    free(c.p);
    memset(&c, 0, sizeof c);
    EXPECT_EQ_INT(vt_engine_decode(e, tr, &o, lat, mem_sink, &c, &rep), VT_OK, "after cancel");
    EXPECT(c.p && !strcmp(c.p, ref.p), "whole again");
    free(c.p);
    /* A sink that fails stops the run with its status. */
    memset(&c, 0, sizeof c);
    c.fail_after = 2;
    EXPECT_EQ_INT(vt_engine_decode(e, tr, &o, lat, mem_sink, &c, &rep), VT_EIO, "sink fails");
    free(c.p);
    free(b.p);
    vt_engine_destroy(e);
  }
  dec_case_free(&d);
}

/* One engine run of `threads` workers on the caller's thread; 0 when its lines are d->ref's and
 * the report counts worker CPU time. */
static int decode_on_this_thread(const dec_case *d, int threads) {
  vt_engine_opts eo;
  vt_engine *e = NULL;
  membuf b = {0};
  vt_run_report rep;
  int bad = 1;
  vt_engine_opts_init(&eo);
  eo.threads = threads;
  eo.bind = VT_BIND_NONE; /* several engines at once: nobody's workers pinned onto others' */
  eo.batch_tokens = 7;
  if (vt_engine_create(&e, &eo) != VT_OK) goto done;
  if (vt_engine_decode(e, d->tr, &d->o, d->lat, mem_sink, &b, &rep) != VT_OK) goto done;
  bad = !(b.p && !strcmp(b.p, d->ref.p) && rep.sentences == DS && rep.worker_cpu_seconds > 0 &&
          rep.serial_cpu_seconds >= 0);
done:
  free(b.p);
  vt_engine_destroy(e);
  return bad;
}

typedef struct caller {
  const dec_case *d;
  int threads, bad;
} caller;

static void *caller_main(void *arg) {
  caller *c = arg;
  c->bad = decode_on_this_thread(c->d, c->threads);
  return NULL;
}

TEST(engine_runs_from_the_callers_own_threads) {
  dec_case d;
  REQUIRE(dec_case_make(&d) == 0, "lattices, model and reference");
  /* Two pthreads of the caller's, each with its own engine, at once. */
  pthread_t th[2];
  caller c[2] = {{&d, 2, 1}, {&d, 3, 1}};
  for (int i = 0; i < 2; i++)
    REQUIRE(pthread_create(&th[i], NULL, caller_main, &c[i]) == 0, "thread");
  for (int i = 0; i < 2; i++) {
    pthread_join(th[i], NULL);
    EXPECT(!c[i].bad, "caller thread %d: the engine's lines are vt_decode's", i);
  }
  /* Inside the caller's own parallel region: without nested parallelism each engine's team is
   * the calling thread alone, which then works the batches itself. */
  int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
  bad += decode_on_this_thread(&d, 2);
  EXPECT_EQ_INT(bad, 0, "engines inside a parallel region");
  dec_case_free(&d);
}

TEST(synthetic_lattices_round_trip_through_files) {
  vt_lattices *a = NULL, *b = NULL;
  vt_trans *ta = NULL, *tb = NULL;
  REQUIRE(vt_lattices_synth(&a, 12, 30, 6.0, 5) == VT_OK, "synth");
  REQUIRE(vt_lattices_save(a, dir) == VT_OK, "save: %s", vt_last_error());
  REQUIRE(vt_lattices_open(&b, tpath("E.npy"), tpath("N.npy")) == VT_OK, "open: %s",
          vt_last_error());
  REQUIRE(vt_lattices_synth_trans(a, &ta) == VT_OK, "synth trans");
  REQUIRE(vt_trans_load(&tb, tpath("A.npy"), tpath("S.npy"), tpath("F.npy"), tpath("R.npy"), b) ==
              VT_OK,
          "load trans: %s", vt_last_error());
  EXPECT_EQ_INT(vt_lattices_sentences(b), 30, "sentences");
  EXPECT_EQ_INT(vt_lattices_is_f64(b), 0, "float32");
  vt_arena *ar = NULL;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  for (int64_t s = 0; s < 30; s++) {
    int32_t Ta, Tb, la[64], lb[64], na = 0, nb = 0;
    double sa = 0, sb = 0;
    const float *ea = vt_lattices_rows(a, s, &Ta), *eb = vt_lattices_rows(b, s, &Tb);
    REQUIRE(Ta == Tb && Ta <= 64, "lengths");
    EXPECT(!memcmp(ea, eb, (size_t)Ta * 12 * sizeof(float)), "rows of %lld", (long long)s);
    EXPECT(vt_decode_f32(ta, &o, ar, ea, Ta, la, &sa, &na, NULL) == VT_OK &&
               vt_decode_f32(tb, &o, ar, eb, Tb, lb, &sb, &nb, NULL) == VT_OK,
           "decode");
    EXPECT_EQ_DBL(sa, sb, "same score under both transition models");
    vt_arena_reset(ar);
  }
  vt_arena_destroy(ar);
  vt_trans_destroy(ta);
  vt_trans_destroy(tb);
  vt_lattices_close(a);
  vt_lattices_close(b);
}

/* ---- progress: input bytes for an ETA -------------------------------------------------------- */

typedef struct progress_log {
  int calls, finals, monotone;
  vt_progress last;
} progress_log;

static void progress_record(void *ctx, const vt_progress *p) {
  progress_log *g = ctx;
  if (g->calls && p->bytes_read < g->last.bytes_read) g->monotone = 0;
  g->calls++;
  g->finals += p->final;
  g->last = *p;
}

/* Tags `files` (NULL: standard input) with a progress callback on every batch; *g gets the log. */
static void tag_with_progress(vt_model *m, const char *const *files, int n, progress_log *g) {
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = 2;
  eo.batch_tokens = 3;
  eo.progress = progress_record;
  eo.progress_ctx = g;
  memset(g, 0, sizeof *g);
  g->monotone = 1;
  vt_engine *e = NULL;
  REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine: %s", vt_last_error());
  membuf b = {0};
  vt_status st = vt_engine_tag(e, m, NULL, files, n, mem_sink, &b, NULL);
  EXPECT(st == VT_OK, "tag: %s", vt_last_error());
  free(b.p);
  vt_engine_destroy(e);
}

TEST(progress_counts_input_bytes) {
  REQUIRE(toy_train(tpath("ptoy.model")) == VT_OK, "train: %s", vt_last_error());
  words_write(tpath("pwords.txt"));
  size_t len = 0;
  char *text = slurp(tpath("pwords.txt"), &len);
  REQUIRE(text && len > 0, "words file");
  vt_model *m = NULL;
  REQUIRE(vt_model_open(&m, tpath("ptoy.model")) == VT_OK, "open: %s", vt_last_error());
  /* Two regular files: the total is both sizes; at the end all of it was read. */
  const char *files[2] = {tpath("pwords.txt"), tpath("pwords.txt")};
  progress_log g;
  tag_with_progress(m, files, 2, &g);
  EXPECT_EQ_INT(g.finals, 1, "one final call");
  EXPECT(g.monotone, "bytes read never go back");
  EXPECT_EQ_INT(g.last.bytes_total, 2 * (int64_t)len, "total: both files");
  EXPECT_EQ_INT(g.last.bytes_read, 2 * (int64_t)len, "read: both files at the end");
  EXPECT_EQ_INT(g.last.items, 2 * NSENT, "sentences");
  /* Standard input from a pipe: no total, bytes still counted. */
  int saved = dup(0), fds[2];
  REQUIRE(saved >= 0 && pipe(fds) == 0, "pipe");
  REQUIRE(len < 65536 && write(fds[1], text, len) == (ssize_t)len, "fill the pipe");
  close(fds[1]);
  REQUIRE(dup2(fds[0], 0) == 0, "stdin");
  close(fds[0]);
  tag_with_progress(m, NULL, 0, &g);
  REQUIRE(dup2(saved, 0) == 0, "restore stdin");
  close(saved);
  EXPECT_EQ_INT(g.last.bytes_total, 0, "a pipe has no total");
  EXPECT_EQ_INT(g.last.bytes_read, (int64_t)len, "read from the pipe");
  EXPECT_EQ_INT(g.last.items, NSENT, "sentences from the pipe");
  free(text);
  vt_model_close(m);
}

/* ---- a cluster rank's share: corpus parts and sentence ranges ---------------------------------
 */

/* Tagging the corpus cut after blank lines into parts (vt_engine_tag_part, each told how many
 * lines come before it) gives the bytes of tagging the file, and a bad line in a part is named
 * with its line number in the whole corpus. */
TEST(corpus_parts_tag_as_the_whole_file) {
  REQUIRE(toy_train(tpath("part.model")) == VT_OK, "train: %s", vt_last_error());
  vt_model *m = NULL;
  REQUIRE(vt_model_open(&m, tpath("part.model")) == VT_OK, "open: %s", vt_last_error());
  vt_engine *e = NULL;
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = 2;
  eo.batch_tokens = 7;
  REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine");
  words_write(tpath("pwords.txt"));
  const char *files[1] = {tpath("pwords.txt")};
  membuf ref = {0};
  REQUIRE(vt_engine_tag(e, m, NULL, files, 1, mem_sink, &ref, NULL) == VT_OK, "tag: %s",
          vt_last_error());
  size_t len = 0;
  char *text = slurp(tpath("pwords.txt"), &len);
  REQUIRE(text != NULL, "read back");
  for (int every = 1; every <= 7; every += 3) { /* cut after every 1st, 4th, 7th blank line */
    membuf out = {0};
    size_t at = 0, blanks = 0;
    int64_t lines = 0, parts = 0;
    for (size_t i = 0; i <= len; i++) {
      int cut =
          i == len || (text[i] == '\n' && i > 0 && text[i - 1] == '\n' && ++blanks % every == 0);
      if (!cut) continue;
      size_t end = i < len ? i + 1 : len;
      vt_corpus_part part = {text + at, end - at, files[0], lines, {0}};
      vt_run_report rep;
      EXPECT_EQ_INT(vt_engine_tag_part(e, m, NULL, &part, mem_sink, &out, &rep), VT_OK, "part");
      for (size_t j = at; j < end; j++) lines += text[j] == '\n';
      at = end;
      parts++;
    }
    EXPECT(parts > 1, "cut into parts");
    EXPECT(out.p && ref.p && out.len == ref.len && !memcmp(out.p, ref.p, ref.len),
           "parts of every %d sentences: the file's bytes", every);
    free(out.p);
  }
  /* A ragged line, the 4th of a part after 41 lines: reported as line 45 of the corpus. */
  static const char bad[] = "the\n\ndog\ncat x\n\n";
  vt_corpus_part part = {bad, sizeof bad - 1, "corpus.txt", 41, {0}};
  membuf out = {0};
  EXPECT_EQ_INT(vt_engine_tag_part(e, m, NULL, &part, mem_sink, &out, NULL), VT_EFORMAT, "ragged");
  EXPECT(strstr(vt_last_error(), "corpus.txt:45:") != NULL, "line in the corpus: %s",
         vt_last_error());
  vt_corpus_part empty = {NULL, 0, NULL, 0, {0}};
  EXPECT_EQ_INT(vt_engine_tag_part(e, m, NULL, &empty, mem_sink, &out, NULL), VT_OK, "empty part");
  EXPECT_EQ_INT(vt_engine_tag_part(e, m, NULL, NULL, mem_sink, &out, NULL), VT_EINVAL, "no part");
  free(out.p);
  free(text);
  free(ref.p);
  vt_engine_destroy(e);
  vt_model_close(m);
}

/* The marks of a vt_engine_decode_from run: each place and the outputs' lengths there. */
typedef struct decode_marks {
  const membuf *lines_buf, *post_buf;
  int n;
  int64_t sent[64], lines[64], post[64];
} decode_marks;

static void decode_mark(void *ctx, const vt_corpus_pos *after) {
  decode_marks *dm = ctx;
  if (dm->n == 64) return;
  dm->sent[dm->n] = after->sentences;
  dm->lines[dm->n] = (int64_t)dm->lines_buf->len;
  dm->post[dm->n++] = (int64_t)dm->post_buf->len;
}

/* Decoding sentence ranges one after the other gives the lines of decoding the whole set, and
 * with a posteriors sink the .npy bytes (the header comes with the range starting at 0); so does
 * decoding from the place of a mark on. */
TEST(sentence_ranges_decode_as_the_whole_set) {
  vt_lattices *lat = NULL;
  vt_trans *tr = NULL;
  vt_engine *e = NULL;
  REQUIRE(vt_lattices_synth(&lat, 7, 50, 6.0, 3) == VT_OK, "synth");
  REQUIRE(vt_lattices_synth_trans(lat, &tr) == VT_OK, "trans");
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = 2;
  eo.batch_tokens = 9;
  REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine");
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  o.k = 2;
  o.algo = VT_ALGO_KBEST_VITERBI;
  membuf ref = {0}, refp = {0}, out = {0}, outp = {0};
  vt_conf_opts c;
  vt_conf_opts_init(&c);
  c.logz = 1;
  c.post_sink = mem_sink;
  c.post_ctx = &refp;
  REQUIRE(vt_engine_decode_conf(e, tr, &o, &c, lat, mem_sink, &ref, NULL) == VT_OK, "whole");
  c.post_ctx = &outp;
  static const int64_t cut[] = {0, 17, 17, 49, 50};
  for (int i = 0; i + 1 < 5; i++) {
    vt_status st = vt_engine_decode_range(e, tr, &o, &c, lat, cut[i], cut[i + 1] - cut[i], mem_sink,
                                          &out, NULL);
    EXPECT(st == VT_OK, "range %d: %s", i, vt_strerror(st));
  }
  EXPECT(out.p && out.len == ref.len && !memcmp(out.p, ref.p, ref.len), "the whole set's lines");
  EXPECT(outp.p && outp.len == refp.len && !memcmp(outp.p, refp.p, refp.len),
         "the whole set's marginals, header first");
  /* vt_engine_decode_from: a mark after every batch; a run from a mark's place, the outputs cut
   * to their lengths there, ends as the whole run's bytes. */
  decode_marks dm = {&out, &outp, 0, {0}, {0}, {0}};
  out.len = outp.len = 0;
  EXPECT_EQ_INT(
      vt_engine_decode_from(e, tr, &o, &c, lat, 0, decode_mark, &dm, mem_sink, &out, NULL), VT_OK,
      "from the start");
  EXPECT(out.len == ref.len && !memcmp(out.p, ref.p, ref.len), "from 0: the whole set's lines");
  EXPECT(dm.n > 2 && dm.sent[dm.n - 1] == 50, "marks: %d, the last after %lld", dm.n,
         dm.n ? (long long)dm.sent[dm.n - 1] : -1LL);
  for (int i = 1; i < dm.n; i++) EXPECT(dm.sent[i] > dm.sent[i - 1], "mark %d goes forward", i);
  const int mid = dm.n / 2;
  out.len = (size_t)dm.lines[mid];
  outp.len = (size_t)dm.post[mid];
  EXPECT_EQ_INT(
      vt_engine_decode_from(e, tr, &o, &c, lat, dm.sent[mid], NULL, NULL, mem_sink, &out, NULL),
      VT_OK, "from a mark");
  EXPECT(out.len == ref.len && !memcmp(out.p, ref.p, ref.len), "from a mark: the lines");
  EXPECT(outp.len == refp.len && !memcmp(outp.p, refp.p, refp.len), "from a mark: marginals");
  EXPECT_EQ_INT(vt_engine_decode_from(e, tr, &o, &c, lat, 51, NULL, NULL, mem_sink, &out, NULL),
                VT_EINVAL, "from past the end");
  EXPECT_EQ_INT(vt_engine_decode_range(e, tr, &o, NULL, lat, 40, 11, mem_sink, &out, NULL),
                VT_EINVAL, "past the end");
  EXPECT_EQ_INT(vt_engine_decode_range(e, tr, &o, NULL, lat, -1, 2, mem_sink, &out, NULL),
                VT_EINVAL, "before the start");
  free(ref.p);
  free(refp.p);
  free(out.p);
  free(outp.p);
  vt_engine_destroy(e);
  vt_trans_destroy(tr);
  vt_lattices_close(lat);
}

static void cleanup(void) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static int setup(void) {
  if (!mkdtemp(dir)) return -1;
  atexit(cleanup);
  toy_make(&corpus);
  return 0;
}

int main(int argc, char **argv) {
  static const test_case cases[] = {CASE(version_is_one_number),
                                    CASE(file_read_reads_whole_and_refuses_too_large),
                                    CASE(errors_are_one_line_naming_the_file),
                                    CASE(tagger_agrees_with_the_engine),
                                    CASE(a_model_from_memory_is_the_model_from_its_file),
                                    CASE(tagger_rejects_what_it_cannot_tag),
                                    CASE(joint_training_from_memory_is_training_from_a_file),
                                    CASE(joint_tagger_agrees_with_the_engine),
                                    CASE(engine_decode_agrees_with_vt_decode),
                                    CASE(engine_runs_from_the_callers_own_threads),
                                    CASE(synthetic_lattices_round_trip_through_files),
                                    CASE(progress_counts_input_bytes),
                                    CASE(corpus_parts_tag_as_the_whole_file),
                                    CASE(sentence_ranges_decode_as_the_whole_set)};
  if (setup() != 0) return 1;
  return test_run(argc, argv, cases, (int)(sizeof cases / sizeof cases[0]));
}
