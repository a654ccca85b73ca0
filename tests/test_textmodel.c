/* tests/test_textmodel.c: training, model files and tagging, in process, on a corpus the test
 * writes: the averaged perceptron reaches 100% on a separable task; a saved model loads back
 * with the same labels, features and predictions; every single-byte corruption is refused or
 * (in unchecked padding) changes nothing, and every truncation is refused; tagging a batch in
 * pieces gives the same bytes as in one piece; parameter mixing with one shard is the
 * sequential perceptron and with several the same model on any thread count. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/node_mem.h"
#include "hash_flood.h"
#include "io/conll.h"
#include "models/model_file.h"
#include "sched/topo.h"
#include "test_util.h"
#include "text/batch_tag.h"
#include "text/featdict.h"
#include "text/model_replica.h"
#include "text/rowcache.h"
#include "text/strhash.h"
#include "train/train.h"
#include "train/train_batch.h"
#include "train/train_eval.h"
#include "train/train_export.h"
#include "train/train_ipm.h"

static char dir[] = "/tmp/vt_test_textmodel.XXXXXX";
static char corpus[300], model[300], scratch[300];

/* Sentences of words w0..w9 whose label is a function of the word and the previous word: the
 * templates below can separate them exactly. */
static void write_corpus(const char *path, int n, uint64_t seed) {
  static const char *const labels[] = {"NN", "VB", "DT", "JJ", "B-NP"};
  test_rng r = {seed};
  FILE *f = fopen(path, "w");
  for (int s = 0; s < n; s++) {
    int T = 1 + test_int(&r, 12), prev = 10;
    for (int t = 0; t < T; t++) {
      int w = test_int(&r, 10);
      fprintf(f, "w%d\tx%d\t%s\n", w, w % 3, labels[(w * 7 + prev * 3) % 5]);
      prev = w;
    }
    fputs(s % 3 == 2 ? "\r\n" : "\n", f);
  }
  fclose(f);
}

static const char tmpl_text[] = "U00:%x[0,0]\nU01:%x[-1,0]/%x[0,0]\nU02:%x[0,1]\n"
                                "U03:%m[0,0,\".$\"]\nB\n";

/* Trains on `corpus` with `shards` (> 1, or 1 with `mix` = 1: iterative parameter mixing on
 * `threads` threads) or `minibatch` sentences a batch (mix = 2: the mini-batch trainer even for
 * 1) and writes `model`; returns the model's token accuracy on the corpus (negative: failure,
 * -4 when the evaluation on 3 threads disagrees with the one on 1). */
static double train_with(const char *tmpl, int epochs, vt_algo algo, int32_t shards,
                         int32_t threads, int mix, int32_t minibatch) {
  char err[256];
  vt_tmplset ts;
  vt_trainset d;
  vt_tcorpus c;
  vt_weights W;
  vt_export x;
  memset(&c, 0, sizeof c);
  double acc = -1;
  if (vt_tmplset_parse(&ts, tmpl, strlen(tmpl), "t", err, sizeof err) != VT_OK) return -2;
  vt_trainset_init(&d, &ts, -1);
  vt_conll_opts o;
  vt_conll_opts_init(&o);
  vt_conll *r;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_conll_open(&r, corpus, &o, err, sizeof err);
  int32_t n;
  while (vt_conll_read(r, &b, 7, 1 << 20, &n, err, sizeof err) == VT_OK && n > 0) {
    vt_trainset_compile(&d, &c, &b, err, sizeof err);
    vt_sentbatch_clear(&b);
  }
  vt_conll_close(r);
  vt_sentbatch_free(&b);
  vt_trainset_freeze(&d, &c, 1);
  int32_t *rank = malloc(sizeof(int32_t) * (size_t)d.labels.n);
  vt_export_rank(&d, rank);
  vt_weights_init(&W, d.labels.n, d.n_weights, d.bigram);
  vt_perc_opts to = {epochs, 5, algo, NULL, NULL, NULL, shards, threads, minibatch, NULL, NULL, 0};
  vt_perc_report rep;
  vt_status st =
      mix == 1   ? vt_train_run_ipm(&W, &c, NULL, rank, ts.n_b > 0, &to, &rep, err, sizeof err)
      : mix == 2 ? vt_train_run_batch(&W, &c, NULL, rank, ts.n_b > 0, &to, &rep, err, sizeof err)
                 : vt_train_run(&W, &c, NULL, rank, ts.n_b > 0, &to, &rep, err, sizeof err);
  if (st == VT_OK) {
    /* the evaluation on 3 threads must count the same tokens as on 1 (-4 otherwise) */
    double acc3 = -1;
    vt_train_evaluate(&W, &c, rank, ts.n_b > 0, algo, 1, &acc);
    if (vt_train_evaluate(&W, &c, rank, ts.n_b > 0, algo, 3, &acc3) != VT_OK || acc3 != acc)
      acc = -4;
  }
  vt_textmodel_meta meta;
  memset(&meta, 0, sizeof meta);
  meta.label_col = -1;
  meta.epochs = epochs;
  snprintf(meta.decoder, sizeof meta.decoder, "%s", vt_algo_name(algo));
  if (vt_export_build(&x, &d, &W, tmpl, strlen(tmpl), &meta) != VT_OK ||
      vt_textmodel_write(model, &x.img, err, sizeof err) != VT_OK)
    acc = -3;
  vt_export_free(&x);
  vt_weights_free(&W);
  vt_tcorpus_free(&c);
  vt_trainset_free(&d);
  vt_tmplset_free(&ts);
  free(rank);
  return acc;
}

static double train(const char *tmpl, int epochs, vt_algo algo) {
  return train_with(tmpl, epochs, algo, 1, 1, 0, 1);
}

/* The bytes of `model` (malloc'd; NULL when unreadable). */
static char *model_bytes(long *len) {
  FILE *f = fopen(model, "rb");
  char *buf = NULL;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)*len)) && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

/* Trains as train_with and returns the model file's bytes (NULL on failure). */
static char *trained(const char *tmpl, int epochs, int32_t shards, int32_t threads, int mix,
                     long *len) {
  if (train_with(tmpl, epochs, VT_ALGO_VITERBI, shards, threads, mix, 1) < 0) return NULL;
  return model_bytes(len);
}

/* As trained, with the mini-batch trainer: batches of `minibatch` on `threads` threads. */
static char *trained_batch(const char *tmpl, vt_algo algo, int32_t minibatch, int32_t threads,
                           long *len) {
  if (train_with(tmpl, 6, algo, 1, threads, 2, minibatch) < 0) return NULL;
  return model_bytes(len);
}

static int same_bytes(const char *a, long la, const char *b, long lb) {
  return a && b && la == lb && memcmp(a, b, (size_t)la) == 0;
}

/* Tags `corpus` with model `m` in chunks of `chunk` sentences; returns the text (malloc'd). */
static char *tag_all(const vt_textmodel *m, vt_algo algo, int32_t k, int32_t chunk, size_t *len) {
  char err[256];
  vt_conll_opts o;
  vt_conll_opts_init(&o);
  vt_conll *r;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_textbuf out = {0};
  vt_arena *arena;
  vt_arena_create(&arena, 0);
  vt_decode_opts d;
  vt_decode_opts_init(&d);
  d.algo = algo;
  d.k = k;
  vt_conll_open(&r, corpus, &o, err, sizeof err);
  int32_t n;
  while (vt_conll_read(r, &b, 1000, 1 << 20, &n, err, sizeof err) == VT_OK && n > 0) {
    for (int32_t s = 0; s < b.n_sents; s += chunk) {
      int32_t e = s + chunk < b.n_sents ? s + chunk : b.n_sents;
      if (vt_text_tag_batch(m, &d, NULL, arena, NULL, &b, s, e, &out, NULL, err, sizeof err) !=
          VT_OK)
        fprintf(stderr, "tag: %s\n", err);
    }
    vt_sentbatch_clear(&b);
  }
  vt_conll_close(r);
  vt_sentbatch_free(&b);
  vt_arena_destroy(arena);
  *len = out.len;
  return out.p;
}

/* Token accuracy of tagged text: the last column against the one before. */
static double accuracy(const char *text, size_t len) {
  long tok = 0, ok = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *a = NULL, *b = NULL;
    for (const char *q = p; q < nl; q++)
      if (*q == '\t') {
        a = b;
        b = q;
      }
    if (a && b) {
      tok++;
      ok += (size_t)(b - a - 1) == (size_t)(nl - b - 1) &&
            !memcmp(a + 1, b + 1, (size_t)(nl - b - 1));
    }
    p = nl + 1;
  }
  return tok ? (double)ok / (double)tok : -1;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc(*len + 1);
  if (fread(p, 1, *len, f) != *len) *len = 0;
  fclose(f);
  return p;
}

static void write_bytes(const char *path, const char *p, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(p, 1, n, f);
  fclose(f);
}

/* What `model` holds now (the cases leave it for each other; a case run alone retrains). */
enum { MODEL_NONE, MODEL_PLAIN, MODEL_OBS_BIGRAM };
static int g_model = MODEL_NONE;
static const char obs_bigram_tmpl[] = "U00:%x[0,0]\nB01:%x[-1,0]/%x[0,0]\nB\n";

static void remove_dir(void) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) {
    fprintf(stderr, "could not remove %s\n", dir);
    _exit(1);
  }
}

/* Makes the directory and writes the corpus on the first call (removed at exit); returns 1 when
 * they are there. */
static int corpus_ready(void) {
  static int state; /* 0: not yet, 1: ready, -1: failed */
  if (state) return state > 0;
  state = -1;
  if (!mkdtemp(dir)) return 0;
  atexit(remove_dir);
  snprintf(corpus, sizeof corpus, "%s/corpus.txt", dir);
  snprintf(model, sizeof model, "%s/model.bin", dir);
  snprintf(scratch, sizeof scratch, "%s/scratch.bin", dir);
  write_corpus(corpus, 150, 3);
  state = 1;
  return 1;
}

/* Makes `model` hold `want`, trained as the case that makes it trains it; returns 1 when it does.
 */
static int model_ready(int want) {
  if (!corpus_ready()) return 0;
  if (g_model == want) return 1;
  g_model = MODEL_NONE;
  double acc;
  if (want == MODEL_PLAIN)
    acc = train(tmpl_text, 12,
                vt_algo_available(VT_ALGO_STAGGERED_COL) ? VT_ALGO_STAGGERED_COL : VT_ALGO_VITERBI);
  else
    acc = train(obs_bigram_tmpl, 40, VT_ALGO_VITERBI);
  if (acc < -1) return 0;
  g_model = want;
  return 1;
}

/* A model built in memory from the parts of a loaded one (as a converted peer model is) holds the
 * same records, hash table and transitions as the file, and tags the corpus to the same bytes,
 * with and without observation-dependent bigram templates. */
TEST(image_in_memory) {
  const int want[] = {MODEL_PLAIN, MODEL_OBS_BIGRAM};
  for (int w = 0; w < 2; w++) {
    REQUIRE(model_ready(want[w]), "model");
    char err[256];
    vt_textmodel *m = NULL, *im = NULL;
    REQUIRE(vt_textmodel_load(&m, model, err, sizeof err) == VT_OK, "load: %s", err);
    const size_t L = (size_t)m->L, LL = L * L;
    float *t = malloc((LL + 2 * L) * sizeof *t);
    REQUIRE(t != NULL, "memory");
    for (size_t i = 0; i < LL; i++) t[i] = (float)m->A[i];
    for (size_t y = 0; y < L; y++) {
      t[LL + y] = (float)m->S[y];
      t[LL + L + y] = (float)m->F[y];
    }
    vt_textmodel_image img = {m->L,        m->label_bytes, m->label_off, m->label_freq,
                              m->rank,     m->tmpl_text,   m->tmpl_len,  m->recs,
                              m->recs_len, m->n_feat,      m->key_bytes, m->obs_bigram,
                              t,           t + LL,         t + LL + L,   m->meta};
    int st = vt_textmodel_from_image(&im, &img, "in memory", err, sizeof err);
    free(t);
    EXPECT(st == VT_OK, "from image: %s", err);
    if (st == VT_OK) {
      EXPECT(im->L == m->L && im->n_feat == m->n_feat && im->key_bytes == m->key_bytes &&
                 im->obs_bigram == m->obs_bigram && im->meta.epochs == m->meta.epochs,
             "header fields");
      EXPECT(im->recs_len == m->recs_len && !memcmp(im->recs, m->recs, m->recs_len), "records");
      EXPECT(im->slot_mask == m->slot_mask &&
                 !memcmp(im->slots, m->slots, 4 * ((size_t)m->slot_mask + 1)),
             "hash table");
      EXPECT(!memcmp(im->A, m->A, LL * sizeof *m->A) && !memcmp(im->S, m->S, L * sizeof *m->S) &&
                 !memcmp(im->F, m->F, L * sizeof *m->F),
             "transitions");
      EXPECT((im->tix != NULL) == (m->tix != NULL), "template index");
      size_t la = 0, lb = 0;
      char *a = tag_all(m, VT_ALGO_VITERBI, 1, 7, &la),
           *b = tag_all(im, VT_ALGO_VITERBI, 1, 7, &lb);
      EXPECT(a && la > 0 && la == lb && !memcmp(a, b, la), "tagged bytes (%zu, %zu)", la, lb);
      free(a);
      free(b);
    }
    vt_textmodel_free(im);
    vt_textmodel_free(m);
  }
}

/* Training reaches 100% on the separable corpus; the saved model loads back with its labels,
 * metadata and features; tagging gives the same bytes whatever the chunking. */
TEST(train_and_roundtrip) {
  REQUIRE(corpus_ready(), "corpus");
  g_model = MODEL_NONE;
  vt_algo algos[] = {VT_ALGO_VITERBI, VT_ALGO_STAGGERED_COL};
  for (size_t a = 0; a < 2; a++) {
    if (!vt_algo_available(algos[a])) continue;
    double acc = train(tmpl_text, 12, algos[a]);
    EXPECT(acc == 1.0, "%s: training accuracy %g, want 1", vt_algo_name(algos[a]), acc);
    char err[256];
    vt_textmodel *m = NULL;
    int st = vt_textmodel_load(&m, model, err, sizeof err);
    EXPECT(st == VT_OK, "load: %s", err);
    if (st != VT_OK) continue;
    EXPECT_EQ_INT(m->L, 5, "labels");
    EXPECT_EQ_INT(m->meta.epochs, 12, "epochs recorded");
    EXPECT(!strcmp(m->meta.decoder, vt_algo_name(algos[a])), "decoder recorded");
    for (int32_t r = 1; r < m->L; r++)
      EXPECT(m->label_freq[m->rank[r - 1]] >= m->label_freq[m->rank[r]], "rank order");
    /* Every record is found from its own string. */
    uint64_t pos = 0;
    int32_t found = 0;
    for (uint32_t f = 0; f < m->n_feat; f++) {
      vt_feat ft;
      vt_feat_read(m->recs + pos, m->key_bytes, &ft);
      found += vt_textmodel_find(m, ft.str, ft.len) == m->recs + pos;
      pos += vt_feat_size(ft.len, ft.nnz, vt_feat_key_bytes(&ft, m->key_bytes));
    }
    EXPECT_EQ_INT(found, m->n_feat, "records found by their strings");
    EXPECT(vt_textmodel_find(m, "U00:nope", 8) == NULL, "absent feature");
    size_t len, len2, len3;
    char *out = tag_all(m, algos[a], 1, 1000, &len);
    char *out2 = tag_all(m, VT_ALGO_VITERBI, 1, 3, &len2);
    char *out3 = tag_all(m, VT_ALGO_KBEST_VITERBI, 3, 5, &len3);
    EXPECT(accuracy(out, len) == 1.0, "tagging accuracy %g", accuracy(out, len));
    EXPECT(len == len2 && !memcmp(out, out2, len), "tag output depends on chunking or decoder");
    EXPECT(len3 > 2 * len && !strncmp(out3, "# 0 ", 4), "k-best output");
    free(out);
    free(out2);
    free(out3);
    vt_textmodel_free(m);
  }
  g_model = MODEL_PLAIN;
}

/* Every single-byte corruption is refused or (in unchecked padding) changes nothing; every
 * truncation is refused; a text file and a future version are refused. */
TEST(corruption) {
  REQUIRE(model_ready(MODEL_PLAIN), "model");
  size_t size, base_len;
  char err[256];
  vt_textmodel *m = NULL;
  vt_textmodel_load(&m, model, err, sizeof err);
  char *base = tag_all(m, VT_ALGO_VITERBI, 1, 1000, &base_len);
  vt_textmodel_free(m);
  char *bytes = read_file(model, &size);
  long refused = 0, same = 0;
  /* Every byte of the header, section table and META; then every 5th (each section still gets
   * hundreds of hits; the checksums do not depend on where the damage is). */
  long tried = 0;
  for (size_t i = 0; i < size; i += i < 512 ? 1 : 5) {
    tried++;
    bytes[i] ^= 0x5A;
    write_bytes(scratch, bytes, size);
    bytes[i] ^= 0x5A;
    m = NULL;
    int st = vt_textmodel_load(&m, scratch, err, sizeof err);
    if (st != VT_OK) {
      refused++;
      EXPECT(st == VT_EFORMAT, "flip at %zu: status %d", i, st);
      EXPECT(!strncmp(err, scratch, strlen(scratch)) && !strchr(err, '\n'), "message '%s'", err);
      continue;
    }
    size_t len;
    char *out = tag_all(m, VT_ALGO_VITERBI, 1, 1000, &len);
    EXPECT(len == base_len && !memcmp(out, base, len), "flip at %zu loads and changes the output",
           i);
    same++;
    free(out);
    vt_textmodel_free(m);
  }
  EXPECT(refused > tried * 9 / 10, "only %ld of %ld corruptions refused", refused, tried);
  for (size_t n = 0; n < size; n += n < 512 || n + 64 > size ? 1 : 7) {
    write_bytes(scratch, bytes, n);
    m = NULL;
    int st = vt_textmodel_load(&m, scratch, err, sizeof err);
    EXPECT(st == VT_EFORMAT, "truncated to %zu bytes: status %d", n, st);
    vt_textmodel_free(m);
  }
  /* Not a model at all, and a future version. */
  write_bytes(scratch, "hello\n", 6);
  EXPECT(vt_textmodel_load(&m, scratch, err, sizeof err) == VT_EFORMAT &&
             strstr(err, "not a vitesse"),
         "text file: %s", err);
  bytes[8] = 9;
  write_bytes(scratch, bytes, size);
  EXPECT(vt_textmodel_load(&m, scratch, err, sizeof err) == VT_EFORMAT && strstr(err, "version 9"),
         "version: %s", err);
  free(bytes);
  free(base);
}

/* Observation-dependent bigram templates: trained and tagged with the position-dependent
 * decoders; the others are refused. */
TEST(obs_bigram) {
  REQUIRE(corpus_ready(), "corpus");
  g_model = MODEL_NONE;
  double acc = train(obs_bigram_tmpl, 40, VT_ALGO_VITERBI);
  if (acc >= -1) g_model = MODEL_OBS_BIGRAM;
  EXPECT(acc == 1.0, "obs-bigram training accuracy %g", acc);
  char err[256];
  vt_textmodel *m = NULL;
  EXPECT(vt_textmodel_load(&m, model, err, sizeof err) == VT_OK && m->obs_bigram, "load: %s", err);
  if (!m) return;
  size_t len, len2;
  char *out = tag_all(m, VT_ALGO_VITERBI, 1, 4, &len);
  char *out2 = tag_all(m, VT_ALGO_BEAM, 1, 1000, &len2);
  EXPECT(accuracy(out, len) == 1.0, "obs-bigram tagging accuracy %g", accuracy(out, len));
  EXPECT(len2 == len, "beam output length");
  vt_decode_opts d;
  vt_decode_opts_init(&d);
  d.algo = VT_ALGO_STAGGERED_COL;
  vt_sentbatch b;
  memset(&b, 0, sizeof b);
  vt_textbuf tb = {0};
  EXPECT(vt_text_tag_batch(m, &d, NULL, NULL, NULL, &b, 0, 0, &tb, NULL, err, sizeof err) ==
                 VT_EUNSUPPORTED &&
             strstr(err, "bigram"),
         "staggered-col on an obs-bigram model: %s", err);
  free(out);
  free(out2);
  vt_textmodel_free(m);
}

/* The row cache changes no bit of the emissions nor of the statistics: sentences of random
 * tokens (known and unknown words, keys too long to cache, repeated words in one sentence) get
 * the same E with a 16-entry cache (constant conflicts and evictions), a large one and none. */
TEST(rowcache) {
  REQUIRE(model_ready(MODEL_PLAIN), "model");
  char err[256];
  vt_textmodel *m = NULL;
  EXPECT(vt_textmodel_load(&m, model, err, sizeof err) == VT_OK, "load: %s", err);
  if (!m) return;
  static const char *const extra[] = {
      "zz", "w1w1", "a-much-longer-token-than-any-cache-key-can-hold-0123456789", "W3", ""};
  vt_rowcache *small = NULL, *big = NULL;
  EXPECT(vt_rowcache_create(&small, m, 0) == VT_OK && small->mask == 15, "16-entry cache");
  EXPECT(vt_rowcache_create(&big, m, (size_t)8 << 20) == VT_OK, "large cache");
  vt_arena *arena = NULL;
  vt_arena_create(&arena, 0);
  test_rng r = {77};
  const int32_t L = m->L;
  char text[64 * 40 * 2];
  uint32_t fields[2 * 40 * 2];
  double *E[3];
  for (int c = 0; c < 3; c++) E[c] = malloc((size_t)40 * (size_t)L * sizeof(double));
  int64_t mismatches = 0, stat_mismatches = 0;
  for (int s = 0; s < 3000 && small && big && arena; s++) {
    int32_t T = 1 + test_int(&r, 40);
    size_t pos = 0;
    for (int32_t t = 0; t < T; t++)
      for (int c = 0; c < 2; c++) {
        char w[80];
        int pick = test_int(&r, 14);
        if (pick < 10)
          snprintf(w, sizeof w, c ? "x%d" : "w%d", c ? pick % 3 : pick);
        else
          snprintf(w, sizeof w, "%s", extra[pick - 10]);
        size_t n = strlen(w);
        memcpy(text + pos, w, n);
        fields[2 * (t * 2 + c)] = (uint32_t)pos;
        fields[2 * (t * 2 + c) + 1] = (uint32_t)n;
        pos += n;
      }
    vt_tokens tk = {T, 2, text, fields};
    vt_tag_stats st[3];
    memset(st, 0, sizeof st);
    vt_rowcache *caches[3] = {NULL, small, big};
    for (int c = 0; c < 3; c++) {
      vt_arena_reset(arena);
      EXPECT(vt_text_emissions(m, &tk, arena, E[c], NULL, caches[c], &st[c]) == VT_OK, "E");
    }
    for (int c = 1; c < 3; c++) {
      mismatches += memcmp(E[0], E[c], (size_t)T * (size_t)L * sizeof(double)) != 0;
      stat_mismatches +=
          st[0].unknown_features != st[c].unknown_features || st[0].lookups != st[c].lookups;
    }
  }
  EXPECT_EQ_INT(mismatches, 0, "sentences whose emissions depend on the cache");
  EXPECT_EQ_INT(stat_mismatches, 0, "sentences whose statistics depend on the cache");
  EXPECT(small && small->hits > 1000 && small->misses > 1000, "the small cache hits and misses");
  EXPECT(big && big->hits > 10 * big->misses, "the large cache mostly hits");
  for (int c = 0; c < 3; c++) free(E[c]);
  vt_arena_destroy(arena);
  vt_rowcache_destroy(small);
  vt_rowcache_destroy(big);
  vt_textmodel_free(m);
}

/* A per-node replica (vt_textmodel_clone_to) tags byte for byte as the model it was copied from,
 * after that model is freed, from the heap and from node-bound memory; here for the model last
 * trained into `model` and the decoders in algos (k-best where k > 1). */
static void check_replicas(const vt_algo *algos, const int32_t *ks, int n_algos) {
  char err[700];
  vt_topo t;
  vt_node_mem nm;
  int have_topo = vt_topo_load(&t, NULL, err, sizeof err) == VT_OK;
  if (have_topo) vt_node_mem_init(&nm, t.hw, 0);
  const vt_mem *mems[2] = {&vt_mem_heap, have_topo ? &nm.mem : &vt_mem_heap};
  for (int mi = 0; mi < 2; mi++) {
    vt_textmodel *ref = NULL, *doomed = NULL, *copy = NULL;
    EXPECT(vt_textmodel_load(&ref, model, err, sizeof err) == VT_OK &&
               vt_textmodel_load(&doomed, model, err, sizeof err) == VT_OK &&
               vt_textmodel_clone_to(&copy, doomed, mems[mi]) == VT_OK,
           "load and clone: %s", err);
    vt_textmodel_free(doomed); /* the copy owes it nothing */
    for (int a = 0; a < n_algos && copy; a++) {
      size_t len, len2;
      char *want = tag_all(ref, algos[a], ks[a], 7, &len);
      char *got = tag_all(copy, algos[a], ks[a], 7, &len2);
      EXPECT(len > 0 && want != NULL, "%s: no reference output", vt_algo_name(algos[a]));
      EXPECT(len == len2 && !memcmp(want, got, len),
             "%s k=%d: the replica in memory %d tags "
             "differently",
             vt_algo_name(algos[a]), (int)ks[a], mi);
      free(want);
      free(got);
    }
    if (copy) {
      EXPECT(copy->trans && copy->trans != ref->trans && copy->file.p != ref->file.p,
             "the replica has its own transition model and file bytes");
      EXPECT(copy->tmpl.pool != ref->tmpl.pool && copy->tmpl.n == ref->tmpl.n, "own templates");
    }
    vt_textmodel_clone_free(copy, mems[mi]);
    vt_textmodel_free(ref);
  }
  if (have_topo) {
    vt_node_mem_fini(&nm);
    vt_topo_free(&t);
  }
}

/* Replicas of the plain model tag as the original: viterbi, staggered-col, kbest-viterbi. */
TEST(replicas_plain_model) {
  REQUIRE(model_ready(MODEL_PLAIN), "model");
  const vt_algo algos[] = {VT_ALGO_VITERBI, VT_ALGO_STAGGERED_COL, VT_ALGO_KBEST_VITERBI};
  const int32_t ks[] = {1, 1, 3};
  check_replicas(algos, ks, vt_algo_available(VT_ALGO_STAGGERED_COL) ? 3 : 1);
}

/* Replicas of the obs-bigram model tag as the original: viterbi, beam, kbest-viterbi. */
TEST(replicas_obs_bigram_model) {
  REQUIRE(model_ready(MODEL_OBS_BIGRAM), "model");
  const vt_algo algos[] = {VT_ALGO_VITERBI, VT_ALGO_BEAM, VT_ALGO_KBEST_VITERBI};
  const int32_t ks[] = {1, 1, 3};
  check_replicas(algos, ks, 3);
}

/* In the order the cases leave `model` for each other: nothing is retrained when all run. */
/* Iterative parameter mixing: with one shard it is the sequential perceptron, bit for bit (its
 * deltas, mixes and averaging clock are exact on integer updates); with several shards the model
 * is the same bytes on 1, 2 or 3 threads; plain and observation-dependent bigram templates. */
TEST(parameter_mixing) {
  REQUIRE(corpus_ready(), "corpus");
  g_model = MODEL_NONE;
  const char *tmpls[2] = {tmpl_text, obs_bigram_tmpl};
  for (int k = 0; k < 2; k++) {
    long l1 = 0, l2 = 0;
    char *seq = trained(tmpls[k], 6, 1, 1, 0, &l1), *one = trained(tmpls[k], 6, 1, 2, 1, &l2);
    EXPECT(same_bytes(seq, l1, one, l2), "template %d: one shard mixed differs from sequential", k);
    free(one);
    for (int32_t shards = 2; shards <= 3; shards++) {
      long la = 0;
      char *a = trained(tmpls[k], 6, shards, 1, 0, &la);
      EXPECT(a && !same_bytes(a, la, seq, l1), "template %d, %d shards: a model, not sequential's",
             k, shards);
      for (int32_t threads = 2; threads <= 3; threads++) {
        long lb = 0;
        char *b = trained(tmpls[k], 6, shards, threads, 0, &lb);
        EXPECT(same_bytes(a, la, b, lb), "template %d, %d shards: %d threads differ from 1", k,
               shards, threads);
        free(b);
      }
      free(a);
    }
    free(seq);
  }
}

/* Mini-batches: batches of one are the sequential perceptron, bit for bit; larger batches give
 * another model, the same bytes on 1, 2 or 3 threads; plain and observation-dependent bigram
 * templates, and a staggered decoder inside training. */
TEST(minibatches) {
  REQUIRE(corpus_ready(), "corpus");
  g_model = MODEL_NONE;
  const char *tmpls[3] = {tmpl_text, obs_bigram_tmpl, tmpl_text};
  const vt_algo algos[3] = {VT_ALGO_VITERBI, VT_ALGO_VITERBI, VT_ALGO_STAGGERED_COL};
  for (int k = 0; k < 3; k++) {
    long l1 = 0, l2 = 0;
    if (train_with(tmpls[k], 6, algos[k], 1, 1, 0, 1) < 0) {
      EXPECT(0, "template %d: sequential training failed", k);
      continue;
    }
    char *seq = model_bytes(&l1), *one = trained_batch(tmpls[k], algos[k], 1, 2, &l2);
    EXPECT(same_bytes(seq, l1, one, l2), "template %d: batches of one differ from sequential", k);
    free(one);
    for (int32_t mb = 4; mb <= 7; mb += 3) {
      long la = 0;
      char *a = trained_batch(tmpls[k], algos[k], mb, 1, &la);
      EXPECT(a && !same_bytes(a, la, seq, l1), "template %d, batches of %d: sequential's model", k,
             mb);
      for (int32_t threads = 2; threads <= 3; threads++) {
        long lb = 0;
        char *b = trained_batch(tmpls[k], algos[k], mb, threads, &lb);
        EXPECT(same_bytes(a, la, b, lb), "template %d, batches of %d: %d threads differ from 1", k,
               mb, threads);
        free(b);
      }
      free(a);
    }
    free(seq);
  }
}

/* The emission code's string hash (vt_strhash_padded, one masked load for the last partial word)
 * gives vt_strhash's value at every length and alignment, whatever bytes follow the string; and
 * vt_strhash itself keeps the values model files hold. */
TEST(strhash_padded) {
  EXPECT(vt_strhash("U02:the", 7) == 0x872ad0c0f89458d6ull, "vt_strhash changed: model files");
  EXPECT(vt_strhash("", 0) == 0xe220a8397b1dcdafull, "vt_strhash changed at length 0");
  test_rng r = {5};
  unsigned char buf[64 + 8];
  int64_t bad = 0;
  for (int rep = 0; rep < 20000; rep++) {
    for (size_t j = 0; j < sizeof buf; j++) buf[j] = (unsigned char)test_int(&r, 256);
    const size_t at = (size_t)test_int(&r, 8), n = (size_t)test_int(&r, 57);
    bad += vt_strhash_padded(buf + at, n) != vt_strhash(buf + at, n);
  }
  EXPECT_EQ_INT(bad, 0, "strings whose padded hash differs");
}

/* Hash flooding: 4,000 distinct 16-byte strings made to share one unkeyed hash value (the first
 * word solved from the second, step by step backwards) do share it at key 0, the hash of model
 * files; under the key of the run-time tables they spread (almost all values distinct), and a
 * feature dictionary of them gives each its own id in insertion order. */
TEST(hash_flooding) {
  const uint64_t M = 0x9FB21C651E98DF25ull, Minv = hf_inverse_odd(M),
                 target = 0x1234567890ABCDEFull;
  const uint64_t h0 = 0x9E3779B97F4A7C15ull ^ (16ull * 0xC2B2AE3D27D4EB4Full);
  EXPECT(M * Minv == 1 && hf_unmix64(vt_mix64(0xDEADBEEFull)) == 0xDEADBEEFull, "inverses");
  enum { N = 4000 };
  static unsigned char s[N][16];
  for (int i = 0; i < N; i++) {
    const uint64_t w2 = 0xA5A5A5A5ull * (uint64_t)(i + 1);
    const uint64_t h1 = (target * Minv) ^ vt_mix64(w2); /* h2 = (h1 ^ mix(w2)) * M = target */
    const uint64_t w1 = hf_unmix64((h1 * Minv) ^ h0);   /* h1 = (h0 ^ mix(w1)) * M */
    memcpy(s[i], &w1, 8);
    memcpy(s[i] + 8, &w2, 8);
  }
  int same = 0;
  for (int i = 0; i < N; i++) same += vt_strhash(s[i], 16) == vt_mix64(target);
  EXPECT_EQ_INT(same, N, "the crafted strings share the unkeyed hash");
  vt_featdict d;
  REQUIRE(vt_featdict_init(&d) == VT_OK, "init");
  EXPECT(d.key != 0 && d.key == vt_hash_key(), "the dictionary takes the process's key");
  static uint64_t h[N];
  for (int i = 0; i < N; i++) h[i] = vt_strhash_keyed(s[i], 16, d.key);
  int collide = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++) collide += (h[i] & 0xFFFFF) == (h[j] & 0xFFFFF);
  /* 4,000 random values in 2^20 slots: about 8 pairs; the unkeyed ones would make 8 million */
  EXPECT(collide < 200, "%d pairs of keyed hashes share their low 20 bits", collide);
  int32_t id = -1;
  for (int i = 0; i < N; i++) {
    EXPECT(vt_featdict_add(&d, (const char *)s[i], 16, &id) == VT_OK && id == i, "id %d: %d", i,
           id);
  }
  for (int i = 0; i < N; i += 97)
    EXPECT_EQ_INT(vt_featdict_find(&d, (const char *)s[i], 16), i, "find");
  vt_featdict_free(&d);
}

/* A model file whose features were made to share one unkeyed hash (the hash model files keep):
 * 6,000 tokens "U:" + 16 printable bytes, the middle word solved from the others, trained into a
 * model whose table holds them in one run of occupied slots; loading refuses it instead of making
 * every unknown feature probe thousands of slots. */
TEST(flooded_model_refused) {
  const uint64_t M = 0x9FB21C651E98DF25ull, Minv = hf_inverse_odd(M),
                 target = 0x0F0E0D0C0B0A0908ull;
  const uint64_t h0 = 0x9E3779B97F4A7C15ull ^ (18ull * 0xC2B2AE3D27D4EB4Full);
  const uint64_t tail = (uint64_t)'z' | (uint64_t)'z' << 8; /* bytes 16-17 of the feature */
  const uint64_t h2 = (target * Minv) ^ vt_mix64(tail ^ 0xFF51AFD7ED558CCDull);
  enum { N = 6000 };
  REQUIRE(corpus_ready(), "temporary directory");
  char path[600], model_path[600];
  snprintf(path, sizeof path, "%s/flood.txt", dir);
  snprintf(model_path, sizeof model_path, "%s/flood.model", dir);
  FILE *f = fopen(path, "w");
  REQUIRE(f != NULL, "write %s", path);
  test_rng r = {11};
  int made = 0;
  for (long trial = 0; made < N && trial < 400000000L; trial++) {
    unsigned char s[18] = {'U', ':'};
    for (int j = 2; j < 8; j++) s[j] = (unsigned char)(0x41 + test_int(&r, 26));
    uint64_t w1, w2;
    memcpy(&w1, s, 8);
    const uint64_t h1 = (h0 ^ vt_mix64(w1)) * M;
    w2 = hf_unmix64((h2 * Minv) ^ h1);
    memcpy(s + 8, &w2, 8);
    int ok = 1;
    for (int j = 8; j < 16; j++) ok &= s[j] > 0x20 && s[j] < 0x7f;
    if (!ok) continue;
    s[16] = s[17] = 'z';
    if (vt_strhash(s, 18) != vt_mix64(target)) continue; /* cannot happen: the algebra */
    fprintf(f, "%.16s %c\n\n", (const char *)s + 2, made % 2 ? 'A' : 'B');
    made++;
  }
  fclose(f);
  EXPECT_EQ_INT(made, N, "crafted tokens");
  vt_train_opts o;
  vt_train_opts_init(&o);
  o.templates = "U:%x[0,0]\n";
  o.epochs = 1;
  const char *train[1] = {path};
  REQUIRE(vt_train_tagger(&o, train, 1, NULL, 0, model_path, NULL) == VT_OK, "%s", vt_last_error());
  vt_model *m = NULL;
  EXPECT_EQ_INT(vt_model_open(&m, model_path), VT_EFORMAT, "a flooded hash table");
  EXPECT(strstr(vt_last_error(), "occupied slots (at most 1024)") != NULL, "message: %s",
         vt_last_error());
  vt_model_close(m);
  unlink(path), unlink(model_path);
}

TEST_MAIN(CASE(strhash_padded), CASE(hash_flooding), CASE(flooded_model_refused),
          CASE(image_in_memory), CASE(train_and_roundtrip), CASE(rowcache),
          CASE(replicas_plain_model), CASE(corruption), CASE(obs_bigram),
          CASE(replicas_obs_bigram_model), CASE(parameter_mixing), CASE(minibatches))
