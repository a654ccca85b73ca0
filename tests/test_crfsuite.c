/* tests/test_crfsuite.c: CRFsuite crf1d models. The tests write small crf1d files
 * themselves (tests/crf1d_write.h), tag item lines through the library, and check against a
 * brute-force scorer written here: every path's score, the k best, CRFsuite's tie rule (lowest
 * previous label, then lowest final label), attribute values, escapes, log Z and marginals; the
 * native conversion round trip; detection by content; damaged models and bad item lines (the
 * library, and the CLI: one line, exit 2, no output file). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc/arena.h"
#include "crf1d_write.h"
#include "harness.h"
#include "hash_flood.h"
#include "models/crfsuite_file.h"
#include "test_util.h"
#include "text/crfs.h"
#include "text/crfs_rows.h"
#include "text/strhash.h"
#include "vitesse.h"

#define MAXL 4
#define MAXA 8
#define MAXT 5
#define MAXF 64

/* Attribute names: CRFsuite's escapes are needed for ':' and '\'. */
static const char *const ATTR_NAMES[MAXA] = {"w=the", "a:b",   "c\\d",   "x",
                                             ":",     "e\\:f", "pos=NN", "long_attribute_name"};
static const char *const LABEL_NAMES[MAXL] = {"B-NP", "I-NP", "O", "B-VP"};

typedef struct model {
  uint32_t L, A, nf;
  crf1d_feat f[MAXF];
  double trans[MAXL * MAXL];
} model;

static void model_random(model *m, test_rng *r, int ints) {
  memset(m, 0, sizeof *m);
  m->L = 1 + (uint32_t)test_int(r, MAXL);
  m->A = 1 + (uint32_t)test_int(r, MAXA);
  for (uint32_t a = 0; a < m->A; a++)
    for (uint32_t y = 0; y < m->L; y++)
      if (test_int(r, 10) < 6 && m->nf < MAXF)
        m->f[m->nf++] = (crf1d_feat){0, a, y, ints ? test_int(r, 5) - 2 : 6 * test_unit(r) - 3};
  for (uint32_t i = 0; i < m->L; i++)
    for (uint32_t j = 0; j < m->L; j++)
      if (test_int(r, 10) < 7 && m->nf < MAXF) {
        double w = ints ? test_int(r, 5) - 2 : 4 * test_unit(r) - 2;
        m->f[m->nf++] = (crf1d_feat){1, i, j, w};
        m->trans[i * m->L + j] = w;
      }
  for (uint32_t i = m->nf; i > 1; i--) { /* CRFsuite orders features its own way: any order */
    uint32_t j = (uint32_t)test_int(r, (int)i);
    crf1d_feat t = m->f[i - 1];
    m->f[i - 1] = m->f[j];
    m->f[j] = t;
  }
  for (uint32_t i = 0; i < m->nf; i++) /* transitions: the last feature of a pair wins */
    if (m->f[i].type == 1) m->trans[m->f[i].src * m->L + m->f[i].dst] = m->f[i].w;
}

static void model_bytes(const model *m, crf1d_buf *b) {
  crf1d_build(b, LABEL_NAMES, m->L, ATTR_NAMES, m->A, m->f, m->nf);
}

/* Appends `s` to line with CRFsuite's escapes (a backslash before anything but ':' or '\' may
 * stay bare: `raw` keeps it so). */
static void escape_put(char *line, const char *s, int raw) {
  char *p = line + strlen(line);
  for (; *s; s++) {
    if (*s == ':' || (*s == '\\' && (!raw || s[1] == ':' || s[1] == '\\' || !s[1]))) *p++ = '\\';
    *p++ = *s;
  }
  *p = '\0';
}

/* A random item line over m's attributes (and unknown ones) and its emission row, summed as
 * CRFsuite does: attributes in line order, each one's state features in file order. */
static void item_random(const model *m, test_rng *r, char *line, double *row) {
  static const char *const VALUES[] = {"", ":", ":0.5", ":-2", ":1e0", ":3", ":0.25"};
  static const double VALUE_OF[] = {1, 1, 0.5, -2, 1, 3, 0.25};
  for (uint32_t y = 0; y < m->L; y++) row[y] = 0;
  sprintf(line, "%s", test_int(r, 4) ? LABEL_NAMES[test_int(r, (int)m->L)] : "unseen-label");
  int n = test_int(r, 5);
  for (int i = 0; i < n; i++) {
    strcat(line, test_int(r, 5) ? "\t" : "\t\t");
    if (test_int(r, 6) == 0) {
      strcat(line, "unknown\\:attr:2");
      continue;
    }
    uint32_t a = (uint32_t)test_int(r, MAXA);
    int v = test_int(r, 7);
    escape_put(line, ATTR_NAMES[a], test_int(r, 2));
    strcat(line, VALUES[v]);
    if (a >= m->A) continue; /* not in this model: dropped */
    for (uint32_t f = 0; f < m->nf; f++)
      if (m->f[f].type == 0 && m->f[f].src == a) row[m->f[f].dst] += m->f[f].w * VALUE_OF[v];
  }
}

/* Every path of T items by brute force: scores[] in path-number order (label of item t = digit
 * t in base L, item 0 the most significant). */
static int64_t all_paths(const model *m, const double *E, int T, double *scores) {
  int64_t n = 1;
  for (int t = 0; t < T; t++) n *= m->L;
  for (int64_t p = 0; p < n; p++) {
    int32_t y[MAXT];
    int64_t q = p;
    for (int t = T - 1; t >= 0; t--) y[t] = (int32_t)(q % m->L), q /= m->L;
    double s = E[y[0]];
    for (int t = 1; t < T; t++) s = (s + m->trans[y[t - 1] * m->L + y[t]]) + E[t * m->L + y[t]];
    scores[p] = s;
  }
  return n;
}

/* CRFsuite's Viterbi (crf1d_context.c): strict '<' over previous labels 0..L-1 and over the
 * final labels, so the lowest label wins each tie. */
static double crfsuite_viterbi(const model *m, const double *E, int T, int32_t *y) {
  double sc[MAXT][MAXL];
  int bp[MAXT][MAXL];
  int L = (int)m->L;
  for (int j = 0; j < L; j++) sc[0][j] = E[j];
  for (int t = 1; t < T; t++)
    for (int j = 0; j < L; j++) {
      double best = -INFINITY;
      int arg = 0;
      for (int i = 0; i < L; i++) {
        double s = sc[t - 1][i] + m->trans[i * L + j];
        if (best < s) best = s, arg = i;
      }
      sc[t][j] = best + E[t * L + j];
      bp[t][j] = arg;
    }
  double best = -INFINITY;
  int arg = 0;
  for (int j = 0; j < L; j++)
    if (best < sc[T - 1][j]) best = sc[T - 1][j], arg = j;
  y[T - 1] = arg;
  for (int t = T - 1; t > 0; t--) y[t - 1] = bp[t][y[t]];
  return best;
}

static int write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(p, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static char *tmp_path(const char *name) {
  static char buf[16][512];
  static int i;
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char *p = buf[i++ % 16];
  snprintf(p, 512, "%s/vt_crfs_%d_%s", dir, (int)getpid(), name);
  return p;
}

/* Tags random sequences of model m with `tg` and checks them against brute force. */
static void check_sequences(const model *m, vt_tagger *tg, const vt_decode_opts *o, test_rng *r,
                            int n_seq, int viterbi_rule) {
  char lines[MAXT][1024];
  const char *items[MAXT];
  double E[MAXT * MAXL], all[1024], marg[MAXT * MAXL];
  int32_t labels[16 * MAXT], yref[MAXT];
  double scores[16];
  for (int s = 0; s < n_seq; s++) {
    int T = 1 + test_int(r, MAXT);
    for (int t = 0; t < T; t++) {
      item_random(m, r, lines[t], E + t * (int)m->L);
      items[t] = lines[t];
    }
    int64_t n = all_paths(m, E, T, all);
    double ref = crfsuite_viterbi(m, E, T, yref);
    vt_tag_out out;
    memset(&out, 0, sizeof out);
    out.labels = labels;
    out.scores = scores;
    out.marg = viterbi_rule ? marg : NULL;
    out.path = yref; /* CRFsuite's Viterbi path, scored on the tagger's own scores */
    REQUIRE(vt_tagger_tag_items(tg, items, T, &out) == VT_OK, "%s", vt_last_error());
    double yref_score = E[yref[0]];
    for (int t = 1; t < T; t++)
      yref_score =
          (yref_score + m->trans[yref[t - 1] * (int)m->L + yref[t]]) + E[t * (int)m->L + yref[t]];
    EXPECT_EQ_DBL(out.path_score, yref_score, "the score of a given path");
    EXPECT_EQ_DBL(out.path_score, ref, "the score of CRFsuite's Viterbi path");
    qsort(all, (size_t)n, sizeof *all, test_cmp_desc);
    int64_t want = n < o->k ? n : o->k;
    REQUIRE(out.n_paths == want, "%s: %d paths, %lld expected", vt_algo_name(o->algo), out.n_paths,
            (long long)want);
    for (int p = 0; p < out.n_paths; p++) {
      EXPECT_EQ_DBL(scores[p], all[p], "k-best score");
      const int32_t *y = labels + p * T;
      double sc = E[y[0]];
      for (int t = 1; t < T; t++)
        sc = (sc + m->trans[y[t - 1] * (int)m->L + y[t]]) + E[t * (int)m->L + y[t]];
      EXPECT_EQ_DBL(sc, scores[p], "the path scores its score");
      for (int q = 0; q < p; q++)
        EXPECT(memcmp(y, labels + q * T, (size_t)T * 4) != 0, "paths %d and %d are equal", p, q);
    }
    EXPECT_EQ_DBL(scores[0], ref, "CRFsuite's Viterbi score");
    if (viterbi_rule) {
      for (int t = 0; t < T; t++) EXPECT_EQ_INT(labels[t], yref[t], "CRFsuite's tie rule");
      double mx = all[0], z = 0;
      for (int64_t p = 0; p < n; p++) z += exp(all[p] - mx);
      z = mx + log(z);
      EXPECT(fabs(out.logz - z) < 1e-9, "log Z %.17g, brute force %.17g", out.logz, z);
      all_paths(m, E, T, all); /* marginals: path-number order again */
      for (int t = 0; t < T; t++)
        for (uint32_t y = 0; y < m->L; y++) {
          double pm = 0;
          for (int64_t p = 0; p < n; p++) {
            int64_t q = p;
            for (int u = T - 1; u > t; u--) q /= m->L;
            if ((uint32_t)(q % m->L) == y) pm += exp(all[p] - z);
          }
          EXPECT(fabs(marg[t * (int)m->L + (int)y] - pm) < 1e-9, "marginal %d %u", t, y);
        }
    }
  }
}

TEST(brute_force) {
  test_rng r = {14};
  const vt_algo one[] = {VT_ALGO_VITERBI, VT_ALGO_VITERBI_SCALAR, VT_ALGO_STAGGERED,
                         VT_ALGO_ITER_ASTAR, VT_ALGO_CARPEDIEM};
  const vt_algo many[] = {VT_ALGO_KBEST_VITERBI, VT_ALGO_VITERBI_ASTAR, VT_ALGO_ASTAR,
                          VT_ALGO_ITER_VITERBI_ASTAR};
  const char *path = tmp_path("bf.model");
  for (int round = 0; round < 60; round++) {
    model m;
    crf1d_buf b;
    model_random(&m, &r, round % 2);
    model_bytes(&m, &b);
    REQUIRE(crf1d_save(&b, path) == 0, "cannot write %s", path);
    free(b.p);
    vt_model *vm = NULL;
    REQUIRE(vt_model_open(&vm, path) == VT_OK, "%s", vt_last_error());
    vt_model_info info;
    vt_model_describe(vm, &info);
    EXPECT_EQ_INT(info.kind, VT_MODEL_CRFSUITE, "kind");
    EXPECT((info.can & (VT_CAN_ITEMS | VT_CAN_SAVE_CRFSUITE | VT_CAN_MARGINALS)) ==
               (VT_CAN_ITEMS | VT_CAN_SAVE_CRFSUITE | VT_CAN_MARGINALS),
           "CRFsuite: items in, marginals, a crf1d file out");
    EXPECT(!(info.can & (VT_CAN_COLUMNS | VT_CAN_CHUNKS)), "CRFsuite: no column corpora");
    EXPECT_EQ_INT(info.labels, m.L, "labels");
    for (uint32_t y = 0; y < m.L; y++)
      EXPECT_EQ_STR(vt_model_label_name(vm, (int32_t)y), LABEL_NAMES[y], "label name");
    for (size_t a = 0; a < sizeof one / sizeof *one + sizeof many / sizeof *many + 1; a++) {
      vt_decode_opts o;
      vt_tagger *tg = NULL;
      if (a == 0) {
        vt_model_default_decoder(vm, 1, &o);
      } else if (a <= sizeof one / sizeof *one) {
        vt_decode_opts_init(&o);
        o.algo = one[a - 1];
      } else {
        vt_decode_opts_init(&o);
        o.algo = many[a - 1 - sizeof one / sizeof *one];
        o.k = 1 + test_int(&r, 16);
      }
      if (!vt_algo_available(o.algo)) continue;
      REQUIRE(vt_tagger_create(&tg, vm, &o) == VT_OK, "%s", vt_last_error());
      check_sequences(&m, tg, &o, &r, 10, o.algo == VT_ALGO_VITERBI);
      vt_tagger_destroy(tg);
    }
    vt_model_close(vm);
  }
  unlink(path);
}

TEST(convert_roundtrip) {
  test_rng r = {27};
  const char *src = tmp_path("rt.model"), *dst = tmp_path("rt.vtm"), *dst2 = tmp_path("rt2.vtm");
  for (int round = 0; round < 20; round++) {
    model m;
    crf1d_buf b;
    model_random(&m, &r, round % 2);
    model_bytes(&m, &b);
    REQUIRE(crf1d_save(&b, src) == 0, "cannot write");
    vt_model *a = NULL, *c = NULL, *d = NULL;
    REQUIRE(vt_model_open(&a, src) == VT_OK, "%s", vt_last_error());
    REQUIRE(vt_model_save(a, dst) == VT_OK, "%s", vt_last_error());
    EXPECT_EQ_INT(vt_model_file_kind(src), VT_MODEL_CRFSUITE, "crf1d detected");
    EXPECT_EQ_INT(vt_model_file_kind(dst), VT_MODEL_CRFSUITE, "native detected");
    REQUIRE(vt_model_open(&c, dst) == VT_OK, "%s", vt_last_error());
    /* From memory too, and a native file written from a native model is the same bytes. */
    REQUIRE(vt_model_open_memory(&d, b.p, b.len, "mem") == VT_OK, "%s", vt_last_error());
    REQUIRE(vt_model_save(c, dst2) == VT_OK, "%s", vt_last_error());
    size_t n1 = 0, n2 = 0;
    unsigned char *p1 = test_slurp(dst, &n1), *p2 = test_slurp(dst2, &n2);
    EXPECT(p1 && p2 && n1 == n2 && !memcmp(p1, p2, n1), "native bytes differ");
    free(p1);
    free(p2);
    free(b.p);
    vt_tagger *ta = NULL, *tc = NULL, *td = NULL;
    REQUIRE(vt_tagger_create(&ta, a, NULL) == VT_OK && vt_tagger_create(&tc, c, NULL) == VT_OK &&
                vt_tagger_create(&td, d, NULL) == VT_OK,
            "%s", vt_last_error());
    for (int s = 0; s < 20; s++) {
      char lines[MAXT][1024];
      const char *items[MAXT];
      double E[MAXL], sa[1], sc[1], sd[1];
      int32_t la[MAXT], lc[MAXT], ld[MAXT];
      int T = test_int(&r, MAXT + 1);
      for (int t = 0; t < T; t++) item_random(&m, &r, lines[t], E), items[t] = lines[t];
      vt_tag_out oa = {.labels = la, .scores = sa}, oc = {.labels = lc, .scores = sc},
                 od = {.labels = ld, .scores = sd};
      REQUIRE(vt_tagger_tag_items(ta, items, T, &oa) == VT_OK &&
                  vt_tagger_tag_items(tc, items, T, &oc) == VT_OK &&
                  vt_tagger_tag_items(td, items, T, &od) == VT_OK,
              "%s", vt_last_error());
      EXPECT(oa.n_paths == 1 && oc.n_paths == 1 && od.n_paths == 1, "one path");
      EXPECT_EQ_DBL(sa[0], sc[0], "native score");
      EXPECT_EQ_DBL(sa[0], sd[0], "memory score");
      EXPECT(!memcmp(la, lc, (size_t)T * 4) && !memcmp(la, ld, (size_t)T * 4), "labels differ");
    }
    vt_tagger_destroy(ta);
    vt_tagger_destroy(tc);
    vt_tagger_destroy(td);
    vt_model_close(a);
    vt_model_close(c);
    vt_model_close(d);
  }
  unlink(src);
  unlink(dst);
  unlink(dst2);
}

/* One small fixed model's bytes. */
static void fixed_model(crf1d_buf *b) {
  static const crf1d_feat f[] = {{0, 0, 0, 1.5},   {0, 1, 1, 2},    {0, 2, 2, -1}, {1, 0, 1, 0.5},
                                 {1, 1, 0, -0.25}, {0, 3, 1, 0.75}, {1, 2, 2, 1}};
  crf1d_build(b, LABEL_NAMES, 3, ATTR_NAMES, 4, f, sizeof f / sizeof *f);
}

TEST(damaged_models) {
  crf1d_buf b;
  fixed_model(&b);
  vt_model *m = NULL;
  REQUIRE(vt_model_open_memory(&m, b.p, b.len, "good") == VT_OK, "%s", vt_last_error());
  vt_model_close(m);
  /* Every truncation, and every byte of the header and of a few regions flipped: VT_EFORMAT or
   * a model that still opens (a weight changed), never a crash (ASan build). */
  for (size_t n = 0; n < b.len; n++) {
    m = NULL;
    vt_status st = vt_model_open_memory(&m, b.p, n, "cut");
    EXPECT(st == VT_EFORMAT, "truncated at %zu: %d", n, st);
    vt_model_close(m);
  }
  unsigned char *c = malloc(b.len);
  int refused = 0;
  for (size_t i = 0; i < b.len; i++) {
    memcpy(c, b.p, b.len);
    c[i] ^= (unsigned char)(0x5A + i);
    m = NULL;
    vt_status st = vt_model_open_memory(&m, c, b.len, "flip");
    EXPECT(st == VT_OK || st == VT_EFORMAT, "byte %zu: %d", i, st);
    refused += st == VT_EFORMAT;
    vt_model_close(m);
  }
  EXPECT(refused > 20, "only %d of %zu flips refused", refused, b.len);
  memcpy(c, b.p, b.len);
  c[12] = 101; /* version */
  EXPECT(vt_model_open_memory(&m, c, b.len, "v101") == VT_EFORMAT, "version accepted");
  EXPECT(strstr(vt_last_error(), "version") != NULL, "message: %s", vt_last_error());
  /* The native file: a flipped byte fails a checksum (the zero padding between sections is
   * not covered: a flip there changes nothing). */
  const char *src = tmp_path("dm.model"), *dst = tmp_path("dm.vtm");
  REQUIRE(crf1d_save(&b, src) == 0, "write");
  REQUIRE(vt_model_open(&m, src) == VT_OK && vt_model_save(m, dst) == VT_OK, "%s", vt_last_error());
  vt_model_close(m);
  size_t nn;
  unsigned char *nat = test_slurp(dst, &nn);
  REQUIRE(nat != NULL, "read native");
  int tried = 0;
  refused = 0;
  for (size_t i = 0; i < nn; i += 7) {
    nat[i] ^= 0x21;
    m = NULL;
    vt_status st = vt_model_open_memory(&m, nat, nn, "nflip");
    EXPECT(st == VT_OK || st == VT_EFORMAT, "native byte %zu: %d", i, st);
    refused += st == VT_EFORMAT;
    tried++;
    vt_model_close(m);
    nat[i] ^= 0x21;
  }
  EXPECT(refused * 10 > tried * 8, "only %d of %d native flips refused", refused, tried);
  for (size_t n = 0; n < nn; n += 13) {
    m = NULL;
    EXPECT(vt_model_open_memory(&m, nat, n, "ncut") == VT_EFORMAT, "native cut at %zu", n);
    vt_model_close(m);
  }
  free(nat);
  free(c);
  free(b.p);
  unlink(src);
  unlink(dst);
}

TEST(bad_items) {
  crf1d_buf b;
  fixed_model(&b);
  vt_model *m = NULL;
  vt_tagger *tg = NULL;
  REQUIRE(vt_model_open_memory(&m, b.p, b.len, "fixed") == VT_OK, "%s", vt_last_error());
  REQUIRE(vt_tagger_create(&tg, m, NULL) == VT_OK, "%s", vt_last_error());
  int32_t lab[4];
  double sc[1];
  vt_tag_out o = {.labels = lab, .scores = sc};
  const char *bad[][2] = {{"B-NP\tx", "B-NP\tx:abc"},
                          {"O\tx:1", "O\tx:nan"},
                          {"O", "O\tx:1e999"},
                          {"O", "O\tw=the:1e308\tw=the:1e308"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    EXPECT(vt_tagger_tag_items(tg, bad[i], 2, &o) == VT_EFORMAT, "'%s' accepted", bad[i][1]);
    EXPECT(!strncmp(vt_last_error(), "item 2: ", 8), "message: %s", vt_last_error());
  }
  /* Values scale, escapes and CRFsuite's extra-colon rule: "a:b" is attribute a:b only escaped;
   * "x:2:3" is x with 2 then the attribute "" with 3. */
  const char *one[] = {"L\tw=the:2"};
  EXPECT(vt_tagger_tag_items(tg, one, 1, &o) == VT_OK && sc[0] == 3.0, "value 2: %g", sc[0]);
  const char *esc[] = {"L\ta\\:b:0.5"};
  EXPECT(vt_tagger_tag_items(tg, esc, 1, &o) == VT_OK && sc[0] == 1.0 && lab[0] == 1,
         "escaped a:b: %g %d", sc[0], lab[0]);
  const char *unesc[] = {"L\ta:b"}; /* attribute "a" with value "b": not a number */
  EXPECT(vt_tagger_tag_items(tg, unesc, 1, &o) == VT_EFORMAT, "a:b accepted");
  const char *bs[] = {"L\tc\\d", "L\tc\\\\d:-1"}; /* a bare backslash stays; \\ is one */
  /* E = [0 0 -1], [0 0 1]: (0, 2), (1, 2) and (2, 2) tie at 1; CRFsuite takes previous label 0. */
  EXPECT(vt_tagger_tag_items(tg, bs, 2, &o) == VT_OK && sc[0] == 1.0 && lab[0] == 0 && lab[1] == 2,
         "backslashes: %g %d %d", sc[0], lab[0], lab[1]);
  const char *empty_value[] = {"L\tx:\t\t\tw=the:"};
  EXPECT(vt_tagger_tag_items(tg, empty_value, 1, &o) == VT_OK && sc[0] == 1.5, "empty: %g", sc[0]);
  vt_tagger_destroy(tg);
  vt_model_close(m);
  free(b.p);
}

/* A sink that appends to a growable buffer. */
typedef struct textbuf {
  char *p;
  size_t len;
} textbuf;

static vt_status text_sink(void *ctx, const char *data, size_t len) {
  textbuf *b = ctx;
  char *q = realloc(b->p, b->len + len + 1);
  if (!q) return VT_ENOMEM;
  memcpy(q + b->len, data, len);
  b->p = q;
  b->len += len;
  return VT_OK;
}

/* An item file cut into parts after empty lines (a cluster rank's share, vt_engine_tag_part)
 * tags as the whole file, -p -i -l and k = 2 included: runs of empty lines, items that are a line
 * of blanks or a lone '\r' (items in CRFsuite, not the end of a sequence), no final newline; a
 * bad item in a part is named with its line in the whole file. */
TEST(parts) {
  crf1d_buf b;
  fixed_model(&b);
  vt_model *m = NULL;
  REQUIRE(vt_model_open_memory(&m, b.p, b.len, "fixed") == VT_OK, "%s", vt_last_error());
  static const char text[] = "\n\nB-NP\tw=the\tx:2\nO\ta\\:b\n\nI-NP\tx\n \t\nO\tc\\d\n\n\n\n"
                             "O\tw=the\n\r\nB-NP\tx:-1\n\nO\ta\\:b:0.5\n\n\nI-NP\tw=the\tx";
  const size_t len = sizeof text - 1;
  char *path = tmp_path("parts.items");
  REQUIRE(write_file(path, text, len) == 0, "write %s", path);
  vt_engine *e = NULL;
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = 2;
  eo.batch_tokens = 1;
  REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine");
  vt_tag_opts to;
  vt_tag_opts_init(&to);
  to.decode.algo = VT_ALGO_KBEST_VITERBI;
  to.decode.k = 2;
  to.crfsuite_out = VT_CRFSUITE_PROB | VT_CRFSUITE_MARG | VT_CRFSUITE_MARG_ALL;
  const char *files[1] = {path};
  textbuf ref = {0};
  REQUIRE(vt_engine_tag(e, m, &to, files, 1, text_sink, &ref, NULL) == VT_OK, "tag: %s",
          vt_last_error());
  REQUIRE(ref.len > 0, "output");
  for (int every = 1; every <= 3; every++) { /* cut after every 1st, 2nd, 3rd empty line */
    textbuf out = {0};
    size_t at = 0, empties = 0;
    int64_t lines = 0, parts = 0, seqs = 0;
    for (size_t i = 0; i <= len; i++) {
      int cut = i == len || (text[i] == '\n' && (i == 0 || text[i - 1] == '\n') &&
                             ++empties % (size_t)every == 0);
      if (!cut) continue;
      size_t end = i < len ? i + 1 : len;
      vt_corpus_part part = {text + at, end - at, path, lines, {0}};
      vt_run_report rep;
      EXPECT_EQ_INT(vt_engine_tag_part(e, m, &to, &part, text_sink, &out, &rep), VT_OK, "part");
      seqs += rep.sentences;
      for (size_t j = at; j < end; j++) lines += text[j] == '\n';
      at = end;
      parts++;
    }
    EXPECT(parts > 3, "cut into parts");
    EXPECT_EQ_INT(seqs, 5, "sequences over the parts");
    EXPECT(out.len == ref.len && !memcmp(out.p, ref.p, ref.len),
           "parts after every %d empty lines: the file's bytes", every);
    free(out.p);
  }
  /* A bad value, the 2nd line of a part after 30 lines: line 32 of the file. */
  static const char bad[] = "O\tx\nO\tx:abc\n\n";
  vt_corpus_part part = {bad, sizeof bad - 1, "items.txt", 30, {0}};
  textbuf out = {0};
  EXPECT_EQ_INT(vt_engine_tag_part(e, m, &to, &part, text_sink, &out, NULL), VT_EFORMAT, "bad");
  EXPECT(strstr(vt_last_error(), "items.txt:32:") != NULL, "line in the file: %s", vt_last_error());
  vt_corpus_part empty = {NULL, 0, NULL, 0, {0}};
  EXPECT_EQ_INT(vt_engine_tag_part(e, m, &to, &empty, text_sink, &out, NULL), VT_OK, "empty");
  EXPECT_EQ_INT((int64_t)out.len, 0, "nothing for an empty part");
  free(out.p);
  free(ref.p);
  unlink(path);
  vt_engine_destroy(e);
  vt_model_close(m);
  free(b.p);
}

/* Runs `cmd` through sh; returns its exit status. */
static int run(const char *cmd) {
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Reads a whole small text file into buf (NUL-terminated); its line count. */
static int read_text(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = '\0';
  int lines = 0;
  for (size_t i = 0; i < n; i++) lines += buf[i] == '\n';
  return lines;
}

/* A label holding a newline (it would forge a sentence break in the output) or another control
 * byte: the model is refused at load, naming the label. */
TEST(control_labels) {
  static const char *const names[] = {"B-NP", "I-NP\nB-VP", "O"};
  static const crf1d_feat f[] = {{0, 0, 0, 1.0}, {1, 0, 1, 0.5}};
  crf1d_buf b;
  crf1d_build(&b, names, 3, ATTR_NAMES, 4, f, sizeof f / sizeof *f);
  vt_model *m = NULL;
  EXPECT_EQ_INT(vt_model_open_memory(&m, b.p, b.len, "ctl"), VT_EFORMAT, "a newline in a label");
  EXPECT_EQ_STR(vt_last_error(), "ctl: label 1 holds the control byte 0x0a", "message");
  vt_model_close(m);
  free(b.p);
}

/* Weights whose sums leave the range of a double: the sequence is refused (VT_EFORMAT, a message
 * saying why), never tagged with scores of inf or nan; the CLI exits 2 without output. */
TEST(overflow) {
  static const crf1d_feat f[] = {
      {0, 0, 0, 1e308}, {0, 1, 0, 1e308}, {1, 0, 0, 1e308}, {0, 2, 1, 1.0}};
  crf1d_buf b;
  crf1d_build(&b, LABEL_NAMES, 3, ATTR_NAMES, 4, f, sizeof f / sizeof *f);
  vt_model *m = NULL;
  vt_tagger *t = NULL;
  REQUIRE(vt_model_open_memory(&m, b.p, b.len, "big") == VT_OK, "%s", vt_last_error());
  REQUIRE(vt_tagger_create(&t, m, NULL) == VT_OK, "%s", vt_last_error());
  int32_t labels[4];
  double scores[1], marg[4 * 3];
  vt_tag_out out;
  memset(&out, 0, sizeof out);
  out.labels = labels;
  out.scores = scores;
  const char *two[] = {"B-NP\tw=the\tx", "O"}; /* 1e308 + 1e308 in one item's row */
  EXPECT_EQ_INT(vt_tagger_tag_items(t, two, 2, &out), VT_EFORMAT, "emission overflow");
  EXPECT(strstr(vt_last_error(), "item 1: ") && strstr(vt_last_error(), "overflows"), "message: %s",
         vt_last_error());
  const char *path[] = {"B-NP\tw=the", "B-NP\tw=the"}; /* finite rows, a path of 3e308 */
  EXPECT_EQ_INT(vt_tagger_tag_items(t, path, 2, &out), VT_EFORMAT, "path overflow");
  EXPECT(strstr(vt_last_error(), "score overflows") != NULL, "message: %s", vt_last_error());
  out.marg = marg;
  const char *one[] = {"B-NP\tw=the"}; /* one finite path, log Z finite too */
  EXPECT(vt_tagger_tag_items(t, one, 1, &out) == VT_OK, "%s", vt_last_error());
  EXPECT(scores[0] == 1e308 && isfinite(out.logz), "score %g log Z %g", scores[0], out.logz);
  vt_tagger_destroy(t);
  vt_model_close(m);
  if (test_argc >= 2) {
    const char *mod = tmp_path("big.model"), *items = tmp_path("big.items");
    const char *out_path = tmp_path("big.out"), *err = tmp_path("big.err");
    char cmd[4096];
    REQUIRE(crf1d_save(&b, mod) == 0, "write");
    const char *text = "B-NP\tw=the\nB-NP\tw=the\n";
    REQUIRE(write_file(items, text, strlen(text)) == 0, "write");
    unlink(out_path);
    snprintf(cmd, sizeof cmd, "%s tag -p -i -m %s %s -o %s 2>%s", test_argv[1], mod, items,
             out_path, err);
    EXPECT_EQ_INT(run(cmd), 2, cmd);
    char msg[512] = "";
    FILE *ef = fopen(err, "r");
    if (ef) {
      if (!fgets(msg, sizeof msg, ef)) msg[0] = '\0';
      fclose(ef);
    }
    EXPECT(strstr(msg, "big.items:1: the sequence's score overflows") != NULL, "message: %s", msg);
    struct stat st;
    EXPECT(stat(out_path, &st) != 0, "an output file was left");
    unlink(mod), unlink(items), unlink(err);
  }
  free(b.p);
}

TEST(cli) {
  if (test_argc < 2) {
    printf("  (no vitesse binary given: skipped)\n");
    return;
  }
  const char *vt = test_argv[1];
  char cmd[4096], text[8192];
  crf1d_buf b;
  fixed_model(&b);
  const char *mod = tmp_path("cli.model"), *items = tmp_path("cli.items");
  const char *out = tmp_path("cli.out"), *err = tmp_path("cli.err");
  REQUIRE(crf1d_save(&b, mod) == 0, "write");
  /* Blank-line runs end one sequence; empty sequences print nothing, as crfsuite tag. */
  const char *good = "B-NP\tw=the\tx\nI-NP\ta\\:b\n\n\n\nO\tc\\d:2\n";
  REQUIRE(write_file(items, good, strlen(good)) == 0, "write");
  snprintf(cmd, sizeof cmd, "%s tag -m %s %s -o %s --threads 2 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  read_text(out, text, sizeof text);
  EXPECT_EQ_STR(text, "B-NP\nI-NP\n\nB-NP\n\n", "labels");
  snprintf(cmd, sizeof cmd, "%s tag -p -i -m %s %s -o %s 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  read_text(out, text, sizeof text);
  EXPECT(!strncmp(text, "@score\t4.000000\t", 16) && strstr(text, "\n@probability\t") &&
             strstr(text, "\nB-NP:0."),
         "-p -i: %s", text);
  /* Convert, then the native file tags the same. */
  const char *nat = tmp_path("cli.vtm"), *out2 = tmp_path("cli.out2");
  snprintf(cmd, sizeof cmd, "%s convert --from crfsuite %s -o %s 2>%s", vt, mod, nat, err);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  snprintf(cmd, sizeof cmd, "%s tag -p -i -m %s %s -o %s 2>%s && cmp -s %s %s", vt, nat, items,
           out2, err, out, out2);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  /* --bio on a CRFsuite model: I-NP may not start a sequence. */
  const char *lone = "I-NP\ta\\:b\n";
  REQUIRE(write_file(items, lone, strlen(lone)) == 0, "write");
  snprintf(cmd, sizeof cmd, "%s tag -m %s %s -o %s 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  read_text(out, text, sizeof text);
  EXPECT_EQ_STR(text, "I-NP\n\n", "without --bio");
  snprintf(cmd, sizeof cmd, "%s tag --bio -m %s %s -o %s 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  read_text(out, text, sizeof text);
  EXPECT_EQ_STR(text, "B-NP\n\n", "--bio");
  /* Bad input: one line "vitesse: FILE[:LINE]: what", exit 2, no output file. */
  const char *bad_items = "B-NP\tw=the\nO\tx:zz\n";
  REQUIRE(write_file(items, bad_items, strlen(bad_items)) == 0, "write");
  unlink(out);
  snprintf(cmd, sizeof cmd, "%s tag -m %s %s -o %s 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT_EQ_INT(read_text(err, text, sizeof text), 1, "one line");
  snprintf(cmd, sizeof cmd, "vitesse: %s:2: attribute 'x': value 'zz'", items);
  EXPECT(!strncmp(text, cmd, strlen(cmd)), "message: %s", text);
  struct stat st;
  EXPECT(stat(out, &st) != 0, "an output file was left");
  /* A line past --max-line-bytes: the message names the file and line, nothing before them. */
  const char *long_items = "B-NP\tw=the\nO\tw=abcdefghijklmnopqrstuvwxyz\n";
  REQUIRE(write_file(items, long_items, strlen(long_items)) == 0, "write");
  snprintf(cmd, sizeof cmd, "%s tag -m %s --max-line-bytes 20 %s -o %s 2>%s", vt, mod, items, out,
           err);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT_EQ_INT(read_text(err, text, sizeof text), 1, "one line");
  snprintf(cmd, sizeof cmd, "vitesse: %s:2: line longer than 20 bytes (--max-line-bytes)\n", items);
  EXPECT_EQ_STR(text, cmd, "long line");
  EXPECT(stat(out, &st) != 0, "an output file was left");
  b.p[12] = 7; /* version 7 */
  REQUIRE(crf1d_save(&b, mod) == 0, "write");
  snprintf(cmd, sizeof cmd, "%s tag -m %s %s -o %s 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT_EQ_INT(read_text(err, text, sizeof text), 1, "one line");
  EXPECT(strstr(text, "version 7") != NULL, "message: %s", text);
  snprintf(cmd, sizeof cmd, "%s convert --from crfsuite %s -o %s 2>%s", vt, mod, out, err);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT(stat(out, &st) != 0, "convert left an output file");
  b.p[12] = 100;
  REQUIRE(write_file(mod, b.p, b.len / 2) == 0, "write");
  snprintf(cmd, sizeof cmd, "%s tag -m %s %s -o %s 2>%s", vt, mod, items, out, err);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT_EQ_INT(read_text(err, text, sizeof text), 1, "one line");
  EXPECT(strstr(text, "truncated") != NULL, "message: %s", text);
  free(b.p);
  unlink(mod), unlink(items), unlink(out), unlink(err), unlink(nat), unlink(out2);
}

/* Token by token: equal, or both numbers within 2e-6 (marginals and log Z printed with %f come
 * from two forward-backward implementations). Returns 1 when the texts agree so. */
static int texts_agree(const char *a, const char *b) {
  while (*a || *b) {
    size_t na = strcspn(a, "\t\n:"), nb = strcspn(b, "\t\n:");
    if (na != nb || memcmp(a, b, na)) {
      char *ea, *eb;
      double x = strtod(a, &ea), y = strtod(b, &eb);
      if (ea != a + na || eb != b + nb || fabs(x - y) > 2e-6) return 0;
    }
    a += na;
    b += nb;
    if (*a != *b) return 0;
    if (*a) a++, b++;
  }
  return 1;
}

/* With VT_CRFSUITE=PATH (a crfsuite 0.12 binary): random models and item files written here,
 * tagged by crfsuite tag and by vitesse tag: the labels byte for byte (integer weights: many
 * ties, CRFsuite's rule), -p -l token by token. Skipped without it (crfsuite is no build
 * dependency). */
TEST(peer) {
  const char *cs = getenv("VT_CRFSUITE");
  if (!cs || test_argc < 2) {
    printf("  (VT_CRFSUITE not set: skipped)\n");
    return;
  }
  const char *vt = test_argv[1];
  test_rng r = {2026};
  const char *mod = tmp_path("peer.model"), *items = tmp_path("peer.items");
  const char *o1 = tmp_path("peer.cs"), *o2 = tmp_path("peer.vt");
  static char names[40][24], *attr[40], lab[8][8], *labp[8];
  static char a[1 << 16], b[1 << 16], line[1 << 12];
  for (int round = 0; round < 40; round++) {
    uint32_t L = 1 + (uint32_t)test_int(&r, 7), A = 1 + (uint32_t)test_int(&r, 40), nf = 0;
    static const char CH[] = "ab:\\=xyz09";
    for (uint32_t i = 0; i < A; i++) {
      int n = 1 + test_int(&r, 6);
      snprintf(names[i], sizeof names[i], "%u_", i); /* distinct */
      size_t at = strlen(names[i]);
      for (int j = 0; j < n; j++) names[i][at++] = CH[test_int(&r, 11)];
      names[i][at] = '\0';
      attr[i] = names[i];
    }
    for (uint32_t y = 0; y < L; y++) snprintf(lab[y], sizeof lab[y], "L%u", y), labp[y] = lab[y];
    static crf1d_feat f[40 * 7 + 49];
    int ints = round % 2;
    for (uint32_t i = 0; i < A; i++)
      for (uint32_t y = 0; y < L; y++)
        if (test_int(&r, 3))
          f[nf++] = (crf1d_feat){0, i, y, ints ? test_int(&r, 3) - 1 : 4 * test_unit(&r) - 2};
    for (uint32_t i = 0; i < L; i++)
      for (uint32_t j = 0; j < L; j++)
        if (test_int(&r, 3))
          f[nf++] = (crf1d_feat){1, i, j, ints ? test_int(&r, 3) - 1 : 2 * test_unit(&r) - 1};
    crf1d_buf mb;
    crf1d_build(&mb, (const char *const *)labp, L, (const char *const *)attr, A, f, nf);
    REQUIRE(crf1d_save(&mb, mod) == 0, "write");
    free(mb.p);
    FILE *fi = fopen(items, "w");
    REQUIRE(fi != NULL, "write");
    for (int s = 0; s < 30; s++) {
      int T = 1 + test_int(&r, 12);
      for (int t = 0; t < T; t++) {
        sprintf(line, "L%d", test_int(&r, 9));
        for (int k = test_int(&r, 6); k > 0; k--) {
          strcat(line, "\t");
          escape_put(line, names[test_int(&r, (int)A)], 0);
          if (test_int(&r, 3) == 0) sprintf(line + strlen(line), ":%g", 3 * test_unit(&r) - 1);
        }
        fprintf(fi, "%s\n", line);
      }
      fputs("\n", fi);
    }
    REQUIRE(fclose(fi) == 0, "write");
    for (int opt = 0; opt < 2; opt++) {
      char cmd[4096];
      const char *o = opt ? "-p -l" : "";
      snprintf(cmd, sizeof cmd, "%s tag %s -m %s %s > %s && %s tag %s -m %s %s > %s", cs, o, mod,
               items, o1, vt, o, mod, items, o2);
      REQUIRE(run(cmd) == 0, "%s", cmd);
      read_text(o1, a, sizeof a);
      read_text(o2, b, sizeof b);
      if (opt)
        EXPECT(texts_agree(a, b), "round %d: -p -l differ", round);
      else
        EXPECT(strcmp(a, b) == 0, "round %d: labels differ", round);
    }
  }
  unlink(mod), unlink(items), unlink(o1), unlink(o2);
}

/* Hash flooding: a crf1d model of 3,000 attribute names made to share one unkeyed hash value.
 * The table the loader builds from them takes the process's key (short runs, every name found,
 * tagging uses each one); its native conversion, whose table is unkeyed as files keep it, is
 * refused at load instead of costing thousands of probes per unknown attribute. */
TEST(flooded_attributes) {
  const uint64_t target = 0x0123456789ABCDEFull;
  enum { N = 3000 };
  static char names[N][17];
  static const char *name_ptr[N];
  static crf1d_feat f[N + 1];
  hf_names(names, N, target);
  for (int i = 0; i < N; i++) {
    name_ptr[i] = names[i];
    f[i] = (crf1d_feat){0, (uint32_t)i, (uint32_t)(i % 2), 1.0 + i};
  }
  f[N] = (crf1d_feat){1, 0, 1, 0.5};
  int same = 0;
  for (int i = 0; i < N; i++) same += vt_strhash(names[i], 16) == vt_mix64(target);
  EXPECT_EQ_INT(same, N, "the crafted names share the unkeyed hash");
  crf1d_buf b;
  crf1d_build(&b, LABEL_NAMES, 2, name_ptr, N, f, N + 1);
  char err[512];
  vt_crfs *c = NULL;
  REQUIRE(vt_crfs_load_mem(&c, b.p, b.len, "flood", err, sizeof err) == VT_OK, "%s", err);
  EXPECT(c->key != 0 && c->key == vt_hash_key(), "the table built at load takes the key");
  uint64_t run = 0, longest = 0; /* the index's slots (from slot 0: a lower bound past the end) */
  for (uint64_t i = 0; i <= c->idx.mask; i++) {
    run = c->idx.slots[i] ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  EXPECT(c->slots == NULL, "a crf1d model's lookups go through its index alone");
  /* A table two-thirds full has runs of a hundred slots at worst (fingerprints only); the
   * flood would make one run of all 3,000. */
  EXPECT(longest < 512, "the longest run of the built index is %llu slots",
         (unsigned long long)longest);
  int found = 0;
  for (int i = 0; i < N; i++) found += vt_crfs_attr_find(c, names[i], 16) == i;
  EXPECT_EQ_INT(found, N, "every name found");
  vt_crfs_free(c);
  /* Tagged: each item's one attribute picks its label (weights grow with the id). */
  vt_model *m = NULL, *n = NULL;
  REQUIRE(vt_model_open_memory(&m, b.p, b.len, "flood") == VT_OK, "%s", vt_last_error());
  vt_tagger *tg = NULL;
  REQUIRE(vt_tagger_create(&tg, m, NULL) == VT_OK, "%s", vt_last_error());
  int right = 0;
  for (int i = 0; i < N; i += 7) {
    char line[64] = "?\t"; /* the label field, then the attribute */
    escape_put(line, names[i], 0);
    const char *items[1] = {line};
    int32_t y[1];
    double sc[1];
    vt_tag_out o = {.labels = y, .scores = sc};
    REQUIRE(vt_tagger_tag_items(tg, items, 1, &o) == VT_OK, "%s", vt_last_error());
    right += y[0] == i % 2 && sc[0] == 1.0 + i;
  }
  EXPECT_EQ_INT(right, (N + 6) / 7, "items tagged by their crafted attribute");
  vt_tagger_destroy(tg);
  const char *native = tmp_path("flood.vtm");
  REQUIRE(vt_model_save(m, native) == VT_OK, "%s", vt_last_error());
  EXPECT_EQ_INT(vt_model_open(&n, native), VT_EFORMAT, "a native file with a flooded table");
  EXPECT(strstr(vt_last_error(), "occupied slots (at most 1024)") != NULL, "message: %s",
         vt_last_error());
  vt_model_close(n);
  vt_model_close(m);
  unlink(native);
  free(b.p);
}

/* A crf1d model declaring 46,340 labels in half a megabyte (its dense tables would take 80
 * GiB) is refused before they are allocated, naming the bound; a lower bound set through the
 * library refuses a 300-label model that the default accepts. */
TEST(label_count_bound) {
  enum { BIG = 46340 };
  static char names[BIG][8];
  static const char *ptr[BIG];
  for (int y = 0; y < BIG; y++) snprintf(names[y], sizeof names[y], "l%d", y), ptr[y] = names[y];
  static const crf1d_feat f[] = {{0, 0, 0, 1.0}, {1, 0, 1, 0.5}};
  crf1d_buf b;
  crf1d_build(&b, ptr, BIG, ATTR_NAMES, 1, f, 2);
  vt_model *m = NULL;
  EXPECT_EQ_INT(vt_model_open_memory(&m, b.p, b.len, "big"), VT_EFORMAT, "46,340 labels");
  EXPECT(strstr(vt_last_error(), "big: a model of 46340 labels needs 81917 MiB") != NULL &&
             strstr(vt_last_error(), "(--max-model-memory)") != NULL,
         "message: %s", vt_last_error());
  vt_model_close(m);
  free(b.p);
  crf1d_build(&b, ptr, 300, ATTR_NAMES, 1, f, 2);
  m = NULL;
  REQUIRE(vt_model_open_memory(&m, b.p, b.len, "mid") == VT_OK, "%s", vt_last_error());
  vt_model_close(m);
  m = NULL;
  EXPECT(vt_model_memory_limit() > ((uint64_t)1 << 20), "a default bound");
  vt_model_memory_limit_set((uint64_t)1 << 20);
  EXPECT_EQ_INT(vt_model_memory_limit(), (uint64_t)1 << 20, "the bound set");
  EXPECT_EQ_INT(vt_model_open_memory(&m, b.p, b.len, "mid"), VT_EFORMAT, "over a lower bound");
  EXPECT(strstr(vt_last_error(), "mid: a model of 300 labels needs 4 MiB, more than the bound of 1 "
                                 "MiB") != NULL,
         "message: %s", vt_last_error());
  vt_model_close(m);
  vt_model_memory_limit_set(0);
  free(b.p);
}

/* A crf1d model whose 1,000,000 attribute reference entries all point at one list of 1,000,000
 * features: checking each entry's list took 10^12 steps (a 6.3 MB model of this kind took
 * 40 s; this one, vectorised, about 4 minutes); each distinct list is checked once now (1 s).
 * The load runs in a child under a CPU limit of 60 s, so a quadratic check fails here instead
 * of hanging. */
TEST(shared_reference_lists) {
  enum { N = 1000000 };
  static char names[N][8];
  static const char *ptr[N];
  static crf1d_feat f[N];
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "a%d", i);
    ptr[i] = names[i];
    f[i] = (crf1d_feat){0, 0, (uint32_t)(i % 4), 0.25};
  }
  crf1d_buf b;
  crf1d_build(&b, LABEL_NAMES, 4, ptr, N, f, N);
  const uint32_t aref = (uint32_t)b.p[44] | (uint32_t)b.p[45] << 8 | (uint32_t)b.p[46] << 16 |
                        (uint32_t)b.p[47] << 24;
  /* Every entry at the long list; then, out of order, every other one at the next (empty) list,
   * which a check in file order alone would take for a new list each time. */
  unsigned char first[4], second[4];
  memcpy(first, b.p + aref + 12, 4);
  memcpy(second, b.p + aref + 16, 4);
  REQUIRE(memcmp(first, second, 4), "two lists");
  for (int alternate = 0; alternate < 2; alternate++) {
    for (uint32_t a = 1; a < N; a++)
      memcpy(b.p + aref + 12 + 4 * a, alternate && a % 2 ? second : first, 4);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
      struct rlimit cpu = {60, 60};
      setrlimit(RLIMIT_CPU, &cpu);
      vt_model *m = NULL;
      _exit(vt_model_open_memory(&m, b.p, b.len, "refs") == VT_OK ? 0 : 3);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid, "wait");
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "%s: %s %d (SIGXCPU is 24: the check is quadratic again)",
           alternate ? "two lists in turn" : "one list",
           WIFEXITED(status) ? "exit status" : "signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  }
  free(b.p);
}

/* The tagger's emission rows (vt_crfs_rows: fields found 64 bytes at a time, lookups in groups
 * through the fingerprinted index, dense and sparse records) against the reference reader
 * vt_crfs_item_row, line by line: the same bits in every row and the same error at the same
 * item, on models of 1 to 40 labels whose attributes are dense, sparse, with a label twice or a
 * -0.0 weight, and on lines of every shape: runs of tabs, escapes, colons, empty names, values
 * (negative, -0, huge, not numbers), NUL bytes, names of 0 to 40 bytes, lines past 64 bytes. */
/* Whether the VT_CRFS_ROW_PAD doubles after T rows of L are all +0.0 (what the rows may add
 * there are zeros). */
static int zeros_after(const double *E, int32_t T, uint32_t L) {
  static const double zero[VT_CRFS_ROW_PAD];
  return !memcmp(E + (size_t)T * L, zero, sizeof zero);
}

TEST(rows_match_reference) {
  enum { NA = 300, NF = 6000, TMAX = 40, LINE = 4096 };
  static char names[NA][48];
  static const char *name_ptr[NA];
  static crf1d_feat f[NF];
  static const char *label_names[40];
  static char label_buf[40][8];
  static char lines[TMAX][LINE];
  static double E1[TMAX * 40], E2[TMAX * 40 + VT_CRFS_ROW_PAD];
  static const char *VALUES[] = {"",   ":",      ":0.5", ":-2",  ":-0",
                                 ":0", ":1e300", ":abc", ":1e0", ":3"};
  static const char PIECES[] = "ab:\\\t=x|";
  static const char PLAIN[] = "ab\t=x|"; /* lines of tabs alone take the tagger's one-pass path */
  test_rng r = {20261127};
  int mismatched = 0, errors = 0, cases = 0, levels = 0;
  for (int round = 0; round < 40; round++) {
    const uint32_t L = 1 + (uint32_t)test_int(&r, 40);
    const int plain = round % 2; /* names without ':' or '\\', and no values */
    const char *pieces = plain ? PLAIN : PIECES;
    const int n_pieces = plain ? (int)sizeof PLAIN - 1 : (int)sizeof PIECES - 1;
    const double scale = round % 5 == 4 ? 1e307 : 1.0; /* weights whose sums overflow */
    for (uint32_t y = 0; y < L; y++) {
      snprintf(label_buf[y], sizeof label_buf[y], "L%u", y);
      label_names[y] = label_buf[y];
    }
    for (int a = 0; a < NA; a++) { /* distinct names: a prefix that numbers them */
      int n = snprintf(names[a], sizeof names[a], "%d", a), len = test_int(&r, 36);
      for (int k = 0; k < len; k++) names[a][n++] = pieces[test_int(&r, n_pieces)];
      names[a][n] = '\0';
      if (a == 0) names[a][0] = '\0'; /* the empty name */
      name_ptr[a] = names[a];
    }
    uint32_t nf = 0;
    for (int a = 0; a < NA; a++) {
      const int shape = test_int(&r, 4); /* 0 sparse, 1 dense, 2 a label twice, 3 a -0.0 */
      for (uint32_t y = 0; y < L && nf < NF - 2; y++)
        if (shape == 1 ? test_int(&r, 10) < 9 : test_int(&r, 10) < 2)
          f[nf++] = (crf1d_feat){0, (uint32_t)a, y, (4 * test_unit(&r) - 2) * scale};
      if (shape == 2) f[nf++] = (crf1d_feat){0, (uint32_t)a, 0, 0.75};
      if (shape == 3) f[nf++] = (crf1d_feat){0, (uint32_t)a, L - 1, -0.0};
    }
    f[nf++] = (crf1d_feat){1, 0, 0, 0.5};
    crf1d_buf b;
    crf1d_build(&b, label_names, L, name_ptr, NA, f, nf);
    char err[512];
    vt_crfs *c = NULL;
    REQUIRE(vt_crfs_load_mem(&c, b.p, b.len, "rows", err, sizeof err) == VT_OK, "%s", err);
    free(b.p);
    vt_arena *arena = NULL;
    REQUIRE(vt_arena_create(&arena, 1 << 16) == VT_OK, "arena");
    for (int seq = 0; seq < 60; seq++) {
      const int32_t T = 1 + test_int(&r, TMAX);
      const char *lp[TMAX];
      size_t lens[TMAX];
      for (int32_t t = 0; t < T; t++) {
        char *line = lines[t];
        sprintf(line, "%s", test_int(&r, 3) ? "L0" : "");
        int n = test_int(&r, 30);
        for (int i = 0; i < n && strlen(line) < LINE - 200; i++) {
          strcat(line, test_int(&r, 5) ? "\t" : "\t\t");
          const int a = test_int(&r, NA + 20);
          if (a >= NA)
            strcat(line, "not-in-the-model");
          else
            escape_put(line, names[a], test_int(&r, 2));
          const int v = plain && test_int(&r, 20) ? 0 : test_int(&r, 60);
          strcat(line, v < (int)(sizeof VALUES / sizeof *VALUES) ? VALUES[v] : "");
        }
        if (test_int(&r, 8) == 0) strcat(line, "\t");
        lens[t] = strlen(line);
        if (test_int(&r, 60) == 0 && lens[t] > 2) line[1 + test_int(&r, (int)lens[t] - 1)] = '\0';
        lp[t] = line;
      }
      memset(E1, 0, sizeof E1);
      memset(E2, 0, sizeof E2);
      int32_t bad1 = -1, bad2 = -1;
      char err1[200] = "", err2[200] = "";
      for (int32_t t = 0; t < T && bad1 < 0; t++) {
        char scratch[LINE + 2];
        if (vt_crfs_item_row(c, lp[t], lens[t], scratch, E1 + (size_t)t * L, NULL, err1,
                             sizeof err1))
          bad1 = t;
      }
      cases++;
      errors += bad1 >= 0;
      for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) { /* every level this CPU runs */
        const vt_crfs_rows_ops *k = vt_crfs_rows_get((vt_simd)lv);
        if (!k) continue;
        levels |= 1 << lv;
        memset(E2, 0, sizeof E2);
        bad2 = -1;
        err2[0] = '\0';
        vt_arena_reset(arena);
        const int rc = k->rows(&c->idx, c->L, arena, lp, lens, T, E2, &bad2, err2, sizeof err2);
        const int32_t rows = bad1 >= 0 ? bad1 : T; /* rows before the bad item must agree */
        if ((rc != 0) != (bad1 >= 0) || bad1 != bad2 || strcmp(err1, err2) ||
            memcmp(E1, E2, (size_t)rows * L * sizeof *E1) || !zeros_after(E2, T, L)) {
          if (mismatched++ < 3)
            fprintf(stderr, "round %d seq %d %s: reference item %d '%s', rows item %d '%s'\n",
                    round, seq, vt_simd_name((vt_simd)lv), bad1, err1, bad2, err2);
        }
      }
    }
    vt_arena_destroy(arena);
    for (int a = 0; a < NA; a++)
      if (vt_crfs_attr_find(c, names[a], strlen(names[a])) != a) mismatched++;
    vt_crfs_free(c);
  }
  EXPECT_EQ_INT(mismatched, 0, "sequences whose rows or errors differ from the reference");
  EXPECT(levels & 1 << VT_SIMD_SCALAR, "the scalar level ran");
  EXPECT(errors > cases / 20 && errors < cases - cases / 20, "%d of %d sequences refused", errors,
         cases);
}

/* Two names of `len` bytes whose hashes in index x share the fingerprint (the top half) and the
 * start of their probe in a table of 16 slots, so that a lookup of one meets the other's slot
 * first: a birthday search over numbered names under this process's key (36 bits: some 300,000
 * names on average, never near the 1.5 million tried). */
static int twin_names(const vt_crfs_index *x, size_t len, char *a, char *b) {
  enum { BITS = 21 };
  const uint32_t mask = (1u << BITS) - 1;
  uint64_t *seen = calloc((size_t)1 << BITS, sizeof *seen); /* fp << 32 | start << 24 | id + 1 */
  char s[128];
  int found = 0;
  for (uint32_t id = 0; seen && !found && id < 1500000; id++) {
    const int n = snprintf(s, sizeof s, "%0*u", (int)len, id);
    const uint64_t h = vt_crfs_index_hash(x, s, (size_t)n);
    const uint64_t key = (h >> 32) << 32 | (h & 15) << 24;
    uint32_t i = (uint32_t)(h >> 32) & mask;
    for (; seen[i] && !found; i = (i + 1) & mask)
      if ((seen[i] & ~0xFFFFFFull) == key) {
        snprintf(a, 128, "%0*u", (int)len, (unsigned)(seen[i] & 0xFFFFFF) - 1);
        snprintf(b, 128, "%s", s);
        found = 1;
      }
    if (!found) seen[i] = key | (id + 1);
  }
  free(seen);
  return found;
}

/* Names that share a fingerprint: the lookup compares the name past the fingerprint, at every
 * level, for short names and for names longer than the one-step compare's 64 bytes: a model
 * with one twin does not find the other, a model with both finds each, and the rows are the
 * reference reader's. */
TEST(fingerprint_twins) {
  char err[512];
  crf1d_buf b;
  const char *probe_names[1] = {"x"};
  crf1d_feat pf[2] = {{0, 0, 0, 1.0}, {1, 0, 0, 0.5}};
  crf1d_build(&b, LABEL_NAMES, 2, probe_names, 1, pf, 2);
  vt_crfs *probe = NULL;
  REQUIRE(vt_crfs_load_mem(&probe, b.p, b.len, "probe", err, sizeof err) == VT_OK, "%s", err);
  free(b.p);
  static const size_t LENS[] = {6, 70};
  for (size_t li = 0; li < sizeof LENS / sizeof *LENS; li++) {
    char t1[128], t2[128];
    REQUIRE(twin_names(&probe->idx, LENS[li], t1, t2) && strcmp(t1, t2), "twins of %zu bytes",
            LENS[li]);
    const uint64_t h1 = vt_crfs_index_hash(&probe->idx, t1, strlen(t1)),
                   h2 = vt_crfs_index_hash(&probe->idx, t2, strlen(t2));
    EXPECT(h1 >> 32 == h2 >> 32 && (h1 & 15) == (h2 & 15),
           "%s and %s share a fingerprint and a start", t1, t2);
    for (int both = 0; both < 2; both++) {
      const char *names[2] = {t1, t2};
      crf1d_feat f[4] = {{0, 0, 0, 1.5}, {0, 0, 1, -0.25}, {1, 0, 1, 0.5}, {0, 1, 1, 2.0}};
      crf1d_build(&b, LABEL_NAMES, 2, names, both ? 2 : 1, f, both ? 4 : 3);
      vt_crfs *c = NULL;
      REQUIRE(vt_crfs_load_mem(&c, b.p, b.len, "twins", err, sizeof err) == VT_OK, "%s", err);
      free(b.p);
      REQUIRE(c->idx.mask == 15, "a table of 16 slots");
      EXPECT_EQ_INT(vt_crfs_attr_find(c, t1, strlen(t1)), 0, "the first twin");
      EXPECT_EQ_INT(vt_crfs_attr_find(c, t2, strlen(t2)), both ? 1 : -1, "the second twin");
      char lines[3][400];
      snprintf(lines[0], sizeof lines[0], "L0\t%s", t1);
      snprintf(lines[1], sizeof lines[1], "L0\t%s", t2);
      snprintf(lines[2], sizeof lines[2], "L0\t%s\t%s:2\t%s", t2, t1, t2);
      const char *lp[3] = {lines[0], lines[1], lines[2]};
      size_t lens[3];
      double E1[3 * 2], E2[3 * 2 + VT_CRFS_ROW_PAD];
      memset(E1, 0, sizeof E1);
      for (int t = 0; t < 3; t++) {
        char scratch[402];
        lens[t] = strlen(lines[t]);
        REQUIRE(vt_crfs_item_row(c, lp[t], lens[t], scratch, E1 + 2 * t, NULL, err, sizeof err) ==
                    0,
                "%s", err);
      }
      EXPECT(E1[0] == 1.5 && E1[1] == -0.25, "the first twin's row");
      EXPECT(E1[2] == 0.0 && E1[3] == (both ? 2.0 : 0.0), "the second twin's row");
      vt_arena *arena = NULL;
      REQUIRE(vt_arena_create(&arena, 1 << 12) == VT_OK, "arena");
      for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
        const vt_crfs_rows_ops *k = vt_crfs_rows_get((vt_simd)lv);
        if (!k) continue;
        memset(E2, 0, sizeof E2);
        int32_t bad = -1;
        vt_arena_reset(arena);
        EXPECT(k->rows(&c->idx, c->L, arena, lp, lens, 3, E2, &bad, err, sizeof err) == 0 &&
                   !memcmp(E1, E2, sizeof E1),
               "%s, %zu-byte twins, %s: the reference's rows", vt_simd_name((vt_simd)lv), LENS[li],
               both ? "both in the model" : "one in the model");
      }
      vt_arena_destroy(arena);
      vt_crfs_free(c);
    }
  }
  vt_crfs_free(probe);
}

/* The index's hash of the n bytes at s, NH written out as defined: the bytes zero-padded to 64,
 * eight pairs of 32-bit words, each word plus its key word, the pair's product; their sum mixed
 * with the length. Longer strings take the wide hash. */
static uint64_t nh_reference(const vt_nh_key *K, const char *s, size_t n) {
  if (n > 64) return vt_strhash_wide(K->k0, K->k1, s, n);
  unsigned char block[64] = {0};
  memcpy(block, s, n);
  uint64_t sum = 0;
  for (int j = 0; j < 8; j++) {
    uint32_t lo = 0, hi = 0;
    for (int b = 0; b < 4; b++) {
      lo |= (uint32_t)block[8 * j + b] << (8 * b);
      hi |= (uint32_t)block[8 * j + 4 + b] << (8 * b);
    }
    sum += (uint64_t)(uint32_t)(lo + K->k[2 * j]) * (uint32_t)(hi + K->k[2 * j + 1]);
  }
  return vt_mum(sum ^ K->k1, (uint64_t)n ^ K->k0);
}

/* Every level's hash of the lookups is the index's (a name hashed otherwise is never found), for
 * every length up to past the one-step 64 bytes, at every alignment, and the index's is NH as
 * defined; names that differ only by a trailing zero byte hash apart (the length). */
TEST(index_hash_levels) {
  char err[512];
  crf1d_buf b;
  const char *names[1] = {"x"};
  crf1d_feat pf[1] = {{0, 0, 0, 1.0}};
  crf1d_build(&b, LABEL_NAMES, 2, names, 1, pf, 1);
  vt_crfs *m = NULL;
  REQUIRE(vt_crfs_load_mem(&m, b.p, b.len, "probe", err, sizeof err) == VT_OK, "%s", err);
  free(b.p);
  test_rng r = {12345};
  char buf[256];
  int checked = 0;
  for (int round = 0; round < 20; round++) {
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(test_next(&r) >> 56);
    for (size_t off = 0; off < 8; off++)
      for (size_t n = 0; n <= 140; n++) {
        const uint64_t h = vt_crfs_index_hash(&m->idx, buf + off, n);
        EXPECT(h == nh_reference(&m->idx.key, buf + off, n), "%zu bytes: NH as defined", n);
        for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
          const vt_crfs_rows_ops *k = vt_crfs_rows_get((vt_simd)lv);
          if (!k) continue;
          EXPECT(k->hash(&m->idx, buf + off, n) == h, "%s, %zu bytes at %zu: the index's hash",
                 vt_simd_name((vt_simd)lv), n, off);
          checked++;
        }
      }
  }
  memset(buf, 'a', 70);
  buf[70] = '\0';
  for (size_t n = 0; n <= 70; n++)
    EXPECT(vt_crfs_index_hash(&m->idx, buf, n) != vt_crfs_index_hash(&m->idx, buf, n + 1),
           "%zu and %zu bytes of 'a', or a trailing zero", n, n + 1);
  EXPECT(checked >= 20 * 8 * 141, "%d hashes compared", checked);
  vt_crfs_free(m);
}

TEST_MAIN(CASE(rows_match_reference), CASE(fingerprint_twins), CASE(index_hash_levels),
          CASE(brute_force), CASE(convert_roundtrip), CASE(overflow), CASE(control_labels),
          CASE(damaged_models), CASE(bad_items), CASE(parts), CASE(cli), CASE(peer),
          CASE(flooded_attributes), CASE(label_count_bound), CASE(shared_reference_lists))
