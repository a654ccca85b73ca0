/* tests/test_train_api.c: the public training API (vitesse.h, "training") through the public
 * header only: a tagger trained from sentences held in memory learns a toy language epoch after
 * epoch, the same sentences as a corpus file give the same model file byte for byte, bad
 * templates and bad sentences fail with their one-line message, an epoch callback stops
 * training early, the joint trainer runs and rejects a bad chunk-type list, and a model path
 * that cannot be written fails before the first epoch; with shards (parameter mixing) both
 * trainers write the same model for 1, 2 or 3 threads, and bad shard or thread counts fail. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "vitesse.h"

static const char *const WORDS[8] = {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"};
static const char *const LABELS[7] = {"NN", "VB", "DT", "JJ", "B-NP", "I-NP", "O"};
static const char TMPL[] = "# toy\nU00:%x[0,0]\nU01:%x[-1,0]/%x[0,0]\nB\n";

enum { NSENT = 200, MAXT = 9 };

/* A toy corpus: every token is (word, label), the label a function of the word and of the
 * previous word, so that template U01 separates it exactly. */
typedef struct toy {
  const char *cells[NSENT][MAXT * 2];
  vt_sentence_in s[NSENT];
  int64_t tokens;
} toy;

static void toy_make(toy *c, uint32_t seed) {
  uint32_t r = seed;
  c->tokens = 0;
  for (int i = 0; i < NSENT; i++) {
    r = r * 1103515245u + 12345u;
    int T = 1 + (int)(r >> 16) % MAXT, prev = 9;
    for (int t = 0; t < T; t++) {
      r = r * 1103515245u + 12345u;
      int w = (int)(r >> 16) % 8;
      c->cells[i][2 * t] = WORDS[w];
      c->cells[i][2 * t + 1] = LABELS[(w * 5 + prev * 3) % 7];
      prev = w;
    }
    c->s[i].cells = c->cells[i];
    c->s[i].T = T;
    c->s[i].ncols = 2;
    c->tokens += T;
  }
}

/* Writes `c` as a tab-separated corpus file. 0 on success. */
static int toy_write(const toy *c, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  for (int i = 0; i < NSENT; i++) {
    for (int t = 0; t < c->s[i].T; t++)
      fprintf(f, "%s\t%s\n", c->cells[i][2 * t], c->cells[i][2 * t + 1]);
    fputc('\n', f);
  }
  return fclose(f);
}

/* Reads a whole file; NULL when it cannot. */
static char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)*len + 1)) && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

static char dir[256];
static const char *const SCRATCH[] = {"mem.bin", "train.txt", "dev.txt",   "a.bin", "b.bin",
                                      "bad.bin", "early.bin", "chunk.txt", "j.bin", "j2.bin",
                                      "s1.bin",  "s2.bin",    "s3.bin"};

/* Removes the scratch directory and what the cases wrote into it. */
static void scratch_remove(void) {
  char p[512];
  for (size_t i = 0; i < sizeof SCRATCH / sizeof SCRATCH[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, SCRATCH[i]);
    unlink(p);
  }
  rmdir(dir);
}

/* dir/name into a static buffer (one of four, so that a call may use several); the scratch
 * directory is made on first use (any case may run alone) and removed at exit. */
static const char *path_in(const char *name) {
  static char buf[4][512];
  static int k;
  if (!dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/vt_train_api.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
      perror(dir);
      exit(1);
    }
    atexit(scratch_remove);
  }
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

/* What the epoch callback saw. */
typedef struct seen {
  int calls, starts;
  int stop_at; /* return nonzero at this epoch (0: never) */
  double acc[32], dev[32];
  int64_t sentences;
} seen;

static int on_epoch(void *ctx, const vt_epoch_report *r) {
  seen *s = ctx;
  if (s->calls < 32) {
    s->acc[s->calls] = r->train_accuracy;
    s->dev[s->calls] = r->dev_accuracy;
  }
  s->calls++;
  s->sentences = r->sentences;
  return s->stop_at && r->epoch == s->stop_at;
}

static void on_start(void *ctx, const vt_train_report *r) {
  seen *s = ctx;
  s->starts++;
  (void)r;
}

static void opts_toy(vt_train_opts *o, seen *s) {
  vt_train_opts_init(o);
  o->templates = TMPL;
  o->templates_name = "toy.tmpl";
  o->epochs = 8;
  o->seed = 3;
  o->decoder = VT_ALGO_VITERBI;
  o->decoder_set = 1;
  o->on_epoch = on_epoch;
  o->on_start = on_start;
  o->ctx = s;
}

static int file_exists(const char *p) { return access(p, F_OK) == 0; }

TEST(memory_training_learns) {
  static toy c, dev;
  toy_make(&c, 7);
  toy_make(&dev, 11);
  seen s = {0};
  vt_train_opts o;
  opts_toy(&o, &s);
  vt_train_report rep;
  vt_status st = vt_train_tagger_mem(&o, c.s, NSENT, dev.s, NSENT, path_in("mem.bin"), &rep);
  REQUIRE(st == VT_OK, "train: %s (%s)", vt_strerror(st), vt_last_error());
  EXPECT_EQ_INT(s.starts, 1, "on_start calls");
  EXPECT_EQ_INT(s.calls, 8, "epochs seen");
  EXPECT_EQ_INT(rep.epochs, 8, "epochs done");
  EXPECT_EQ_INT(s.sentences, NSENT, "epoch report sentences");
  EXPECT_EQ_INT(rep.sentences, NSENT, "sentences");
  EXPECT_EQ_INT(rep.tokens, c.tokens, "tokens");
  EXPECT_EQ_INT(rep.labels, 7, "labels");
  EXPECT_EQ_INT(rep.templates, 2, "templates");
  EXPECT_EQ_INT(rep.decoder, VT_ALGO_VITERBI, "decoder");
  EXPECT_EQ_INT(rep.input_ok, 1, "input ok");
  EXPECT(rep.model_features > 0 && rep.model_bytes > 0, "model figures %lld %llu",
         (long long)rep.model_features, (unsigned long long)rep.model_bytes);
  EXPECT(s.acc[0] < s.acc[7], "accuracy rises: %g -> %g", s.acc[0], s.acc[7]);
  EXPECT(s.acc[7] >= 0.99, "last epoch's training accuracy %g", s.acc[7]);
  EXPECT(s.dev[7] >= 0.99 && s.dev[7] <= 1.0, "dev accuracy %g", s.dev[7]);
  EXPECT(rep.dev_accuracy == s.dev[7], "report's dev accuracy %g", rep.dev_accuracy);
  EXPECT(file_exists(path_in("mem.bin")), "model written");
}

TEST(file_and_memory_give_the_same_model) {
  static toy c, dev;
  toy_make(&c, 7);
  toy_make(&dev, 11);
  REQUIRE(toy_write(&c, path_in("train.txt")) == 0, "write corpus");
  REQUIRE(toy_write(&dev, path_in("dev.txt")) == 0, "write dev");
  seen s1 = {0}, s2 = {0};
  vt_train_opts o;
  opts_toy(&o, &s1);
  o.epochs = 4;
  o.decoder_set = 0; /* the default decoder */
  REQUIRE(vt_train_tagger_mem(&o, c.s, NSENT, dev.s, NSENT, path_in("a.bin"), NULL) == VT_OK,
          "memory: %s", vt_last_error());
  opts_toy(&o, &s2);
  o.epochs = 4;
  o.decoder_set = 0;
  const char *train[1] = {path_in("train.txt")}, *devf[1] = {path_in("dev.txt")};
  REQUIRE(vt_train_tagger(&o, train, 1, devf, 1, path_in("b.bin"), NULL) == VT_OK, "file: %s",
          vt_last_error());
  EXPECT_EQ_INT(s1.calls, 4, "memory epochs");
  EXPECT_EQ_INT(s2.calls, 4, "file epochs");
  for (int e = 0; e < 4; e++) {
    EXPECT(s1.acc[e] == s2.acc[e], "epoch %d accuracy %g vs %g", e + 1, s1.acc[e], s2.acc[e]);
    EXPECT(s1.dev[e] == s2.dev[e], "epoch %d dev accuracy %g vs %g", e + 1, s1.dev[e], s2.dev[e]);
  }
  long la = -1, lb = -2;
  char *a = slurp(path_in("a.bin"), &la), *b = slurp(path_in("b.bin"), &lb);
  EXPECT(a && b, "both models read");
  EXPECT(la > 0 && la == lb && a && b && memcmp(a, b, (size_t)la) == 0,
         "model files differ (%ld vs %ld bytes)", la, lb);
  free(a);
  free(b);
}

TEST(bad_templates_fail_with_their_message) {
  static toy c;
  toy_make(&c, 7);
  seen s = {0};
  vt_train_opts o;
  opts_toy(&o, &s);
  o.templates = "U00:%x[0,0]\nU01:%x[0,0\n";
  vt_train_report rep;
  vt_status st = vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("bad.bin"), &rep);
  EXPECT_EQ_INT(st, VT_EFORMAT, "status");
  EXPECT(strncmp(vt_last_error(), "toy.tmpl:2: ", 12) == 0, "message '%s'", vt_last_error());
  EXPECT(strstr(vt_last_error(), "malformed macro") != NULL, "message '%s'", vt_last_error());
  EXPECT_EQ_INT(rep.input_ok, 0, "input not ok");
  EXPECT_EQ_INT(s.calls + s.starts, 0, "no callback");
  EXPECT(!file_exists(path_in("bad.bin")), "no model file left");

  o.templates_name = NULL;
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("bad.bin"), NULL), VT_EFORMAT,
                "unnamed");
  EXPECT(strncmp(vt_last_error(), "templates:2: ", 13) == 0, "message '%s'", vt_last_error());

  o.templates = NULL;
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("bad.bin"), NULL), VT_EINVAL,
                "no templates");
  EXPECT(vt_last_error()[0] != 0, "a message");
}

TEST(bad_sentences_name_their_line) {
  static const char *const good[4] = {"w1", "NN", "w2", "VB"}, *const one_col[2] = {"w1", "x"};
  vt_sentence_in s[3] = {{good, 2, 2}, {good, 2, 2}, {one_col, 2, 1}};
  vt_train_opts o;
  seen sn = {0};
  opts_toy(&o, &sn);
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, s, 3, NULL, 0, path_in("bad.bin"), NULL), VT_EFORMAT,
                "template reads the label column");
  /* sentences 1 and 2 take lines 1-2 and 4-5, a blank line after each: the third starts at 7 */
  EXPECT_EQ_STR(vt_last_error(), "train:7: a template reads column 0, the label column", "message");
  o.reader.max_tokens = 1;
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, s, 3, NULL, 0, path_in("bad.bin"), NULL), VT_EFORMAT,
                "too long");
  EXPECT_EQ_STR(vt_last_error(), "train:2: sentence longer than 1 tokens (--max-tokens)",
                "message");
  vt_train_opts_init(&o);
  o.templates = TMPL;
  vt_sentence_in empty = {NULL, 0, 0};
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, &empty, 1, NULL, 0, path_in("bad.bin"), NULL), VT_EFORMAT,
                "nothing to train on");
  EXPECT_EQ_STR(vt_last_error(), "train: no sentence to train on", "message");
  EXPECT(!file_exists(path_in("bad.bin")), "no model file left");
}

TEST(callback_stops_early) {
  static toy c;
  toy_make(&c, 7);
  seen s = {0};
  s.stop_at = 2;
  vt_train_opts o;
  opts_toy(&o, &s);
  vt_train_report rep;
  vt_status st = vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("early.bin"), &rep);
  EXPECT_EQ_INT(st, VT_OK, "status");
  EXPECT_EQ_INT(s.calls, 2, "callback calls");
  EXPECT_EQ_INT(rep.epochs, 2, "epochs done");
  EXPECT(s.dev[0] == -1, "no dev: %g", s.dev[0]);
  EXPECT(file_exists(path_in("early.bin")), "model written with the epochs done");
}

static int joint_epoch(void *ctx, const vt_epoch_report *r) {
  seen *s = ctx;
  if (s->calls < 32) s->dev[s->calls] = r->dev_f1;
  s->calls++;
  return 0;
}

TEST(joint_trains_and_checks_types) {
  static const char corpus[] = "the DT B-NP\ncat NN I-NP\nsat VBD B-VP\non IN B-PP\nthe DT B-NP\n"
                               "mat NN I-NP\n. . O\n\na DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n";
  FILE *f = fopen(path_in("chunk.txt"), "w");
  REQUIRE(f && fputs(corpus, f) >= 0 && fclose(f) == 0, "write corpus");
  seen s = {0};
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.epochs = 5;
  o.seed = 0;
  o.on_epoch = joint_epoch;
  o.ctx = &s;
  vt_train_report rep;
  vt_status st =
      vt_train_joint(&o, path_in("chunk.txt"), path_in("chunk.txt"), path_in("j.bin"), &rep);
  REQUIRE(st == VT_OK, "joint: %s", vt_last_error());
  EXPECT_EQ_INT(s.calls, 5, "epochs seen");
  EXPECT_EQ_INT(rep.epochs, 5, "epochs done");
  EXPECT_EQ_INT(rep.sentences, 2, "sentences");
  EXPECT_EQ_INT(rep.tokens, 10, "tokens");
  EXPECT(s.dev[4] >= 0 && s.dev[4] <= 100, "test F1 %g", s.dev[4]);
  EXPECT(file_exists(path_in("j.bin")), "model written");

  o.chunk_types = "NP,,VP";
  EXPECT_EQ_INT(vt_train_joint(&o, path_in("chunk.txt"), NULL, path_in("j2.bin"), &rep), VT_EINVAL,
                "bad types");
  EXPECT_EQ_STR(vt_last_error(), "--chunk-types: bad type list 'NP,,VP'", "message");
  EXPECT_EQ_INT(rep.input_ok, 0, "input not ok");
  o.chunk_types = NULL;
  EXPECT_EQ_INT(vt_train_joint(&o, path_in("nothere.txt"), NULL, path_in("j2.bin"), &rep), VT_EIO,
                "missing corpus");
  EXPECT(strstr(vt_last_error(), "nothere.txt") != NULL, "message '%s'", vt_last_error());
  EXPECT(!file_exists(path_in("j2.bin")), "no model file left");
}

/* Whether files a and b (scratch names) hold the same bytes. */
static int same_file(const char *a, const char *b) {
  long la = -1, lb = -2;
  char *x = slurp(path_in(a), &la), *y = slurp(path_in(b), &lb);
  int same = x && y && la == lb && memcmp(x, y, (size_t)la) == 0;
  free(x);
  free(y);
  return same;
}

TEST(shards_give_one_model_for_any_threads) {
  static toy c, dev;
  toy_make(&c, 7);
  toy_make(&dev, 11);
  vt_train_opts o;
  seen s[3] = {{0}};
  const char *out[3] = {"s1.bin", "s2.bin", "s3.bin"};
  for (int32_t shards = 2; shards <= 3; shards++) {
    for (int32_t threads = 1; threads <= 3; threads++) {
      opts_toy(&o, &s[threads - 1]);
      o.epochs = 4;
      o.shards = shards;
      o.threads = threads;
      vt_status st =
          vt_train_tagger_mem(&o, c.s, NSENT, dev.s, NSENT, path_in(out[threads - 1]), NULL);
      REQUIRE(st == VT_OK, "%d shards, %d threads: %s", shards, threads, vt_last_error());
    }
    EXPECT(same_file("s1.bin", "s2.bin") && same_file("s1.bin", "s3.bin"),
           "tagger, %d shards: models differ between 1, 2 and 3 threads", shards);
    EXPECT(s[0].dev[3] == s[1].dev[3] && s[0].dev[3] == s[2].dev[3] && s[0].dev[3] >= 0.9,
           "dev accuracy %g %g %g", s[0].dev[3], s[1].dev[3], s[2].dev[3]);
    memset(s, 0, sizeof s);
  }
  /* shards 0 and 1 are the sequential perceptron, whatever the threads */
  opts_toy(&o, &s[0]);
  o.epochs = 4;
  REQUIRE(vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("s1.bin"), NULL) == VT_OK, "seq");
  o.shards = 0;
  o.threads = 3;
  REQUIRE(vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("s2.bin"), NULL) == VT_OK, "0");
  EXPECT(same_file("s1.bin", "s2.bin"), "shards 0 differs from the default (1)");

  static const char corpus[] = "the DT B-NP\ncat NN I-NP\nsat VBD B-VP\non IN B-PP\nthe DT B-NP\n"
                               "mat NN I-NP\n. . O\n\na DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n"
                               "dogs NNS B-NP\nbark VBP B-VP\n\nthe DT B-NP\nbig JJ I-NP\n"
                               "cat NN I-NP\n\n";
  FILE *f = fopen(path_in("chunk.txt"), "w");
  REQUIRE(f && fputs(corpus, f) >= 0 && fclose(f) == 0, "write corpus");
  for (int32_t threads = 1; threads <= 3; threads++) {
    vt_train_opts_init(&o);
    o.epochs = 4;
    o.seed = 2;
    o.shards = 3;
    o.threads = threads;
    REQUIRE(vt_train_joint(&o, path_in("chunk.txt"), NULL, path_in(out[threads - 1]), NULL) ==
                VT_OK,
            "joint, %d threads: %s", threads, vt_last_error());
  }
  EXPECT(same_file("s1.bin", "s2.bin") && same_file("s1.bin", "s3.bin"),
         "joint: models differ between 1, 2 and 3 threads");

  opts_toy(&o, &s[0]);
  o.shards = -1;
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("bad.bin"), NULL), VT_EINVAL,
                "negative shards");
  EXPECT(strstr(vt_last_error(), "shards") != NULL, "message '%s'", vt_last_error());
  o.shards = VT_TRAIN_SHARDS_MAX + 1;
  EXPECT_EQ_INT(vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, path_in("bad.bin"), NULL), VT_EINVAL,
                "too many shards");
  vt_train_opts_init(&o);
  o.threads = -2;
  EXPECT_EQ_INT(vt_train_joint(&o, path_in("chunk.txt"), NULL, path_in("bad.bin"), NULL), VT_EINVAL,
                "joint: negative threads");
  EXPECT(!file_exists(path_in("bad.bin")), "no model file left");
}

TEST(unwritable_model_path_fails_before_training) {
  static toy c;
  toy_make(&c, 7);
  seen s = {0};
  vt_train_opts o;
  opts_toy(&o, &s);
  vt_train_report rep;
  const char *bad = path_in("nodir/m.bin");
  vt_status st = vt_train_tagger_mem(&o, c.s, NSENT, NULL, 0, bad, &rep);
  EXPECT_EQ_INT(st, VT_EIO, "tagger status");
  EXPECT_EQ_INT(s.calls, 0, "tagger: no epoch ran");
  EXPECT_EQ_INT(rep.epochs, 0, "tagger: epochs done");
  EXPECT(strstr(vt_last_error(), "nodir/m.bin: ") != NULL, "message '%s'", vt_last_error());

  static const char corpus[] = "the DT B-NP\ncat NN I-NP\nsat VBD B-VP\n\n";
  FILE *f = fopen(path_in("chunk.txt"), "w");
  REQUIRE(f && fputs(corpus, f) >= 0 && fclose(f) == 0, "write corpus");
  seen js = {0};
  vt_train_opts_init(&o);
  o.epochs = 5;
  o.on_epoch = joint_epoch;
  o.ctx = &js;
  st = vt_train_joint(&o, path_in("chunk.txt"), NULL, bad, &rep);
  EXPECT_EQ_INT(st, VT_EIO, "joint status");
  EXPECT_EQ_INT(js.calls, 0, "joint: no epoch ran");
  EXPECT(strstr(vt_last_error(), "nodir/m.bin: ") != NULL, "message '%s'", vt_last_error());
  /* A directory is no model path either. */
  st = vt_train_joint(&o, path_in("chunk.txt"), NULL, dir, &rep);
  EXPECT_EQ_INT(st, VT_EIO, "directory: status");
  EXPECT_EQ_INT(js.calls, 0, "directory: no epoch ran");
  EXPECT(strstr(vt_last_error(), "is a directory") != NULL, "message '%s'", vt_last_error());
}

TEST_MAIN(CASE(memory_training_learns), CASE(file_and_memory_give_the_same_model),
          CASE(bad_templates_fail_with_their_message), CASE(bad_sentences_name_their_line),
          CASE(callback_stops_early), CASE(joint_trains_and_checks_types),
          CASE(unwritable_model_path_fails_before_training),
          CASE(shards_give_one_model_for_any_threads))
