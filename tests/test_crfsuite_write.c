/* tests/test_crfsuite_write.c: CRFsuite models written as crf1d files
 * (engine/models/crfsuite_write.h). The hash against lookup3's published values and against the
 * tests' own writer (tests/crf1d_write.h); the CQDB chunks byte for byte against that writer's
 * and looked up as CRFsuite looks keys up; random models (zero and -0 transitions, zero and
 * repeated state features, empty and escaped names, no attributes) written and read back to
 * the same labels, attributes, state features and transitions bit for bit, tagging the same
 * labels and scores; vt_model_save_as and `vitesse convert --to crfsuite`; paths that cannot be
 * written (one line, nothing left); and, with VT_CRFSUITE=PATH, `crfsuite tag` itself on the
 * written files. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crf1d_write.h"
#include "harness.h"
#include "io/binfile.h"
#include "io/npy.h"
#include "models/cqdb_write.h"
#include "models/crfsuite_file.h"
#include "models/crfsuite_write.h"
#include "test_util.h"
#include "vitesse.h"

#define MAXL 5
#define MAXA 9
#define MAXF 96
#define MAXT 6

/* Distinct names; the empty one, ':' and '\' (escaped in items), a tab-free space, UTF-8. */
static const char *const ATTRS[MAXA] = {
    "w=the", "",         "a:b",
    "c\\d",  "pos=NN",   "x y",
    "suf=é", "w[-1]=of", "long_attribute_name_of_forty_bytes__"};
static const char *const LABELS[MAXL] = {"B-NP", "I-NP", "O", "B-VP", "I-VP"};

typedef struct rmodel {
  uint32_t L, A, nf;
  crf1d_feat f[MAXF];
} rmodel;

/* A random crf1d model: state features (some of weight 0, some pairs twice), transitions (some
 * +0, some -0, some absent), in a shuffled order, as a file of CRFsuite may hold them. */
static void rmodel_random(rmodel *m, test_rng *r) {
  memset(m, 0, sizeof *m);
  m->L = 1 + (uint32_t)test_int(r, MAXL);
  m->A = (uint32_t)test_int(r, MAXA + 1);
  for (uint32_t a = 0; a < m->A; a++)
    for (uint32_t y = 0; y < m->L; y++)
      for (int rep = test_int(r, 8) == 0 ? 2 : 1; rep > 0 && m->nf < MAXF; rep--)
        if (test_int(r, 10) < 6)
          m->f[m->nf++] = (crf1d_feat){0, a, y, test_int(r, 8) == 0 ? 0.0 : 6 * test_unit(r) - 3};
  for (uint32_t i = 0; i < m->L; i++)
    for (uint32_t j = 0; j < m->L && m->nf < MAXF; j++) {
      int k = test_int(r, 10);
      if (k < 2) continue; /* absent */
      double w = k == 2 ? 0.0 : k == 3 ? -0.0 : 4 * test_unit(r) - 2;
      m->f[m->nf++] = (crf1d_feat){1, i, j, w};
    }
  for (uint32_t i = m->nf; i > 1; i--) {
    uint32_t j = (uint32_t)test_int(r, (int)i);
    crf1d_feat t = m->f[i - 1];
    m->f[i - 1] = m->f[j];
    m->f[j] = t;
  }
}

static void rmodel_bytes(const rmodel *m, crf1d_buf *b) {
  crf1d_build(b, LABELS, m->L, ATTRS, m->A, m->f, m->nf);
}

static char *tmp_path(const char *name) {
  static char buf[16][512];
  static int i;
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char *p = buf[i++ % 16];
  snprintf(p, 512, "%s/vt_crfw_%d_%s", dir, (int)getpid(), name);
  return p;
}

static int write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(p, 1, n, f) == n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static int run(const char *cmd) {
  int s = system(cmd);
  return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

/* The lines of a text file (0 when it cannot be read), its text in buf. */
static int read_text(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  buf[0] = '\0';
  if (!f) return 0;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = '\0';
  fclose(f);
  int lines = 0;
  for (size_t i = 0; i < n; i++) lines += buf[i] == '\n';
  return lines;
}

/* Entries of directory `dir` other than . and .. */
static int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* 1 when a and b hold the same labels, attributes, state features and transitions, every
 * weight bit for bit; else 0, with what differs in `why`. */
static int crfs_same(const vt_crfs *a, const vt_crfs *b, const char **why) {
  const size_t L = (size_t)a->L, A = a->A, ns = a->n_state;
  if (a->L != b->L || a->A != b->A || a->n_state != b->n_state) return *why = "counts", 0;
  if (memcmp(a->label_off, b->label_off, (L + 1) * 4) ||
      memcmp(a->label_pool, b->label_pool, a->label_off[L]))
    return *why = "labels", 0;
  if (memcmp(a->attr_off, b->attr_off, (A + 1) * 4) ||
      memcmp(a->attr_pool, b->attr_pool, a->attr_off[A]))
    return *why = "attributes", 0;
  if (memcmp(a->st_off, b->st_off, (A + 1) * 4) || memcmp(a->st_label, b->st_label, ns * 4) ||
      memcmp(a->st_w, b->st_w, ns * 8))
    return *why = "state features", 0;
  if (memcmp(a->tw, b->tw, L * L * 8)) return *why = "transitions", 0;
  return 1;
}

/* Checks the reference chunks of the crf1d bytes w as CRFsuite's tagger reads them: label l's
 * list holds exactly the transition features out of l, attribute a's exactly its state
 * features, each in the order of the feature table (the order CRFsuite sums them in); the two
 * spare label entries are 0. Returns NULL or what is wrong. */
static const char *refs_consistent(const unsigned char *w) {
  const uint32_t L = vt_bin_get32(w + 20), A = vt_bin_get32(w + 24);
  const unsigned char *feat = w + vt_bin_get32(w + 28), *lref = w + vt_bin_get32(w + 40);
  const unsigned char *aref = w + vt_bin_get32(w + 44);
  const uint32_t nf = vt_bin_get32(feat + 8);
  if (memcmp(lref, "LFRF", 4) || vt_bin_get32(lref + 8) != L + 2) return "LFRF head";
  if (memcmp(aref, "AFRF", 4) || vt_bin_get32(aref + 8) != A) return "AFRF head";
  if (vt_bin_get32(lref + 12 + 4 * L) || vt_bin_get32(lref + 16 + 4 * L)) return "spare entries";
  for (int type = 0; type < 2; type++) {
    const unsigned char *chunk = type ? lref : aref;
    for (uint32_t key = 0; key < (type ? L : A); key++) {
      const unsigned char *list = w + vt_bin_get32(chunk + 12 + 4 * key);
      uint32_t at = 0, n = vt_bin_get32(list);
      for (uint32_t f = 0; f < nf; f++) {
        const unsigned char *rec = feat + 12 + 20 * (size_t)f;
        if (vt_bin_get32(rec) != (uint32_t)type || vt_bin_get32(rec + 4) != key) continue;
        if (at >= n || vt_bin_get32(list + 4 + 4 * at) != f)
          return type ? "LFRF list" : "AFRF list";
        at++;
      }
      if (at != n) return type ? "LFRF list length" : "AFRF list length";
    }
  }
  return NULL;
}

/* Appends `s` to line with CRFsuite's escapes. */
static void escape_put(char *line, const char *s) {
  char *p = line + strlen(line);
  for (; *s; s++) {
    if (*s == ':' || *s == '\\') *p++ = '\\';
    *p++ = *s;
  }
  *p = '\0';
}

/* A random item line over the attribute names (some the model lacks), some with values. */
static void item_random(test_rng *r, char *line) {
  static const char *const VALUES[] = {"", ":0.5", ":-2", ":3", ":0.25"};
  sprintf(line, "%s", LABELS[test_int(r, MAXL)]);
  for (int n = test_int(r, 6); n > 0; n--) {
    strcat(line, "\t");
    escape_put(line, ATTRS[test_int(r, MAXA)]);
    strcat(line, VALUES[test_int(r, 5)]);
  }
}

TEST(hash_vectors) {
  static const char four[] = "Four score and seven years ago";
  /* lookup3.c's own self-test values */
  EXPECT_EQ_INT(vt_lookup3_hashlittle("", 0, 0), 0xdeadbeefu, "empty, seed 0");
  EXPECT_EQ_INT(vt_lookup3_hashlittle("", 0, 0xdeadbeefu), 0xbd5b7ddeu, "empty, seed deadbeef");
  EXPECT_EQ_INT(vt_lookup3_hashlittle(four, 30, 0), 0x17770551u, "four score, seed 0");
  EXPECT_EQ_INT(vt_lookup3_hashlittle(four, 30, 1), 0xcd628161u, "four score, seed 1");
  /* Every length across the 12-byte blocks, and an unaligned start, as the tests' writer. */
  test_rng r = {7};
  unsigned char buf[64];
  for (size_t len = 0; len < 50; len++)
    for (int k = 0; k < 4; k++) {
      for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)test_int(&r, 256);
      uint32_t seed = (uint32_t)test_next(&r);
      EXPECT_EQ_INT(vt_lookup3_hashlittle(buf + k, len, seed), crf1d_hash(buf + k, len, seed),
                    "against tests/crf1d_write.h");
    }
}

/* The id of `key` in the CQDB chunk c, found as CRFsuite's cqdb_to_id finds it; -1 if absent. */
static int64_t cqdb_lookup(const unsigned char *c, const char *key) {
  const size_t ks = strlen(key) + 1;
  const uint32_t h = vt_lookup3_hashlittle(key, ks, 0);
  const uint32_t toff = vt_bin_get32(c + 24 + 8 * (h % 256)),
                 n = vt_bin_get32(c + 28 + 8 * (h % 256));
  if (!toff || !n) return -1;
  for (uint32_t k = (h >> 8) % n;; k = (k + 1) % n) {
    const uint32_t hh = vt_bin_get32(c + toff + 8 * k), ro = vt_bin_get32(c + toff + 8 * k + 4);
    if (!ro) return -1;
    if (hh == h && !strcmp((const char *)c + ro + 8, key)) return vt_bin_get32(c + ro);
  }
}

TEST(cqdb_chunks) {
  test_rng r = {11};
  static char names[600][24];
  static const char *keys[600];
  static uint32_t off[601];
  static char pool[600 * 24];
  for (int round = 0; round < 30; round++) {
    uint32_t n = 1 + (uint32_t)test_int(&r, round < 20 ? 40 : 600); /* many per table too */
    off[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
      int len = snprintf(names[i], sizeof names[i], "%u/%x", i, (unsigned)test_int(&r, 1 << 20));
      keys[i] = names[i];
      memcpy(pool + off[i], names[i], (size_t)len);
      off[i + 1] = off[i] + (uint32_t)len;
    }
    const uint64_t size = vt_cqdb_size(off, n);
    unsigned char *c = malloc((size_t)size);
    REQUIRE(c && vt_cqdb_fill(c, off, pool, n) == 0, "fill");
    crf1d_buf b = {0};
    crf1d_cqdb(&b, keys, n);
    EXPECT(b.len == size && !memcmp(b.p, c, (size_t)size), "round %d: chunk differs", round);
    EXPECT_EQ_INT(vt_bin_get32(c + 4), size, "chunk size");
    for (uint32_t i = 0; i < n; i++) EXPECT_EQ_INT(cqdb_lookup(c, keys[i]), i, keys[i]);
    EXPECT_EQ_INT(cqdb_lookup(c, "no such key"), -1, "absent key");
    free(b.p);
    free(c);
  }
  /* No keys: header and empty table references only, no id array (offset 0, as CRFsuite). */
  unsigned char c0[24 + 256 * 8];
  off[0] = 0;
  EXPECT_EQ_INT(vt_cqdb_size(off, 0), sizeof c0, "empty size");
  REQUIRE(vt_cqdb_fill(c0, off, pool, 0) == 0, "fill");
  EXPECT(!memcmp(c0, "CQDB", 4) && vt_bin_get32(c0 + 4) == sizeof c0 &&
             vt_bin_get32(c0 + 16) == 0 && vt_bin_get32(c0 + 20) == 0,
         "empty header");
}

/* Tags random sequences with both models: the same labels and scores, bit for bit. */
static void check_tagging(const void *pa, size_t na, const void *pb, size_t nb, test_rng *r) {
  vt_model *ma = NULL, *mb = NULL;
  vt_tagger *ta = NULL, *tb = NULL;
  REQUIRE(vt_model_open_memory(&ma, pa, na, "a") == VT_OK &&
              vt_model_open_memory(&mb, pb, nb, "b") == VT_OK,
          "%s", vt_last_error());
  REQUIRE(vt_tagger_create(&ta, ma, NULL) == VT_OK && vt_tagger_create(&tb, mb, NULL) == VT_OK,
          "%s", vt_last_error());
  for (int s = 0; s < 20; s++) {
    char lines[MAXT][512];
    const char *items[MAXT];
    int32_t la[MAXT], lb[MAXT];
    double sa[1], sb[1], ga[MAXT * MAXL], gb[MAXT * MAXL];
    int T = 1 + test_int(r, MAXT);
    for (int t = 0; t < T; t++) item_random(r, lines[t]), items[t] = lines[t];
    vt_tag_out oa = {.labels = la, .scores = sa, .marg = ga};
    vt_tag_out ob = {.labels = lb, .scores = sb, .marg = gb};
    REQUIRE(vt_tagger_tag_items(ta, items, T, &oa) == VT_OK &&
                vt_tagger_tag_items(tb, items, T, &ob) == VT_OK,
            "%s", vt_last_error());
    EXPECT(oa.n_paths == 1 && ob.n_paths == 1, "one path");
    EXPECT(!memcmp(sa, sb, 8), "scores %.17g %.17g", sa[0], sb[0]);
    EXPECT(!memcmp(la, lb, (size_t)T * 4), "labels differ");
    EXPECT(!memcmp(&oa.logz, &ob.logz, 8), "log Z %.17g %.17g", oa.logz, ob.logz);
  }
  vt_tagger_destroy(ta);
  vt_tagger_destroy(tb);
  vt_model_close(ma);
  vt_model_close(mb);
}

TEST(roundtrip) {
  test_rng r = {2027};
  char err[512];
  const char *path = tmp_path("rt.crfsuite");
  for (int round = 0; round < 60; round++) {
    rmodel rm;
    crf1d_buf b;
    rmodel_random(&rm, &r);
    rmodel_bytes(&rm, &b);
    vt_crfs *a = NULL, *c = NULL, *d = NULL;
    unsigned char *w = NULL, *w2 = NULL;
    size_t nw = 0, nw2 = 0, nf = 0;
    REQUIRE(vt_crfs_load_mem(&a, b.p, b.len, "in", err, sizeof err) == VT_OK, "%s", err);
    REQUIRE(vt_crfs_crf1d_bytes(a, "out", &w, &nw, err, sizeof err) == VT_OK, "%s", err);
    REQUIRE(vt_crfs_load_mem(&c, w, nw, "out", err, sizeof err) == VT_OK, "round %d: %s", round,
            err);
    const char *why = "";
    EXPECT(crfs_same(a, c, &why), "round %d: %s differ", round, why);
    /* Only the transitions that are not +0 are features; the file's size says so. */
    uint64_t nt = 0;
    for (uint64_t p = 0; p < (uint64_t)a->L * (uint64_t)a->L; p++)
      nt += a->tw[p] != 0.0 || signbit(a->tw[p]);
    EXPECT_EQ_INT(vt_bin_get32(w + 48 + 8), a->n_state + nt, "FEAT count");
    EXPECT_EQ_INT(vt_bin_get32(w + 4), nw, "header size");
    const char *bad = refs_consistent(w);
    EXPECT(bad == NULL, "round %d: %s", round, bad);
    /* The file holds the same bytes, reads back the same, and writing it again changes nothing. */
    REQUIRE(vt_crfs_write_crf1d(path, a, err, sizeof err) == VT_OK, "%s", err);
    unsigned char *fb = test_slurp(path, &nf);
    EXPECT(fb && nf == nw && !memcmp(fb, w, nw), "file and memory bytes differ");
    free(fb);
    REQUIRE(vt_crfs_load(&d, path, err, sizeof err) == VT_OK, "%s", err);
    EXPECT(crfs_same(a, d, &why), "file: %s differ", why);
    REQUIRE(vt_crfs_crf1d_bytes(c, NULL, &w2, &nw2, err, sizeof err) == VT_OK, "%s", err);
    EXPECT(nw2 == nw && !memcmp(w, w2, nw), "written twice: bytes differ");
    check_tagging(b.p, b.len, w, nw, &r);
    vt_crfs_free(a);
    vt_crfs_free(c);
    vt_crfs_free(d);
    free(w);
    free(w2);
    free(b.p);
  }
  unlink(path);
}

/* A model built by hand (not loaded): arrays on the stack, the attribute table filled here. */
typedef struct hand {
  vt_crfs m;
  uint32_t label_off[3], attr_off[3], st_off[3], st_label[3], slots[16];
  double st_w[3], tw[4];
} hand;

static void hand_make(hand *h, const char *attr_pool, uint32_t attr_len0) {
  memset(h, 0, sizeof *h);
  h->label_off[1] = 1, h->label_off[2] = 2; /* "AB": labels "A", "B" */
  h->attr_off[1] = attr_len0, h->attr_off[2] = attr_len0 + 1;
  h->st_off[1] = 2, h->st_off[2] = 3;
  h->st_label[0] = 0, h->st_label[1] = 1, h->st_label[2] = 1;
  h->st_w[0] = 1.5, h->st_w[1] = -0.5, h->st_w[2] = 2;
  h->tw[1] = 0.25, h->tw[2] = -1;
  vt_crfs *m = &h->m;
  m->L = 2, m->A = 2, m->n_state = 3;
  m->label_off = h->label_off, m->label_pool = "AB";
  m->attr_off = h->attr_off, m->attr_pool = attr_pool;
  m->st_off = h->st_off, m->st_label = h->st_label, m->st_w = h->st_w, m->tw = h->tw;
  m->mask = 15;
  vt_crfs_hash_fill(h->slots, 16, h->attr_off, attr_pool, 2, 0);
  m->slots = h->slots;
}

TEST(refused_models) {
  char err[512];
  unsigned char *w = NULL;
  size_t n = 0;
  hand h;
  hand_make(&h, "xy", 1); /* a good one */
  REQUIRE(vt_crfs_crf1d_bytes(&h.m, "h", &w, &n, err, sizeof err) == VT_OK, "%s", err);
  vt_crfs *c = NULL;
  REQUIRE(vt_crfs_load_mem(&c, w, n, "h", err, sizeof err) == VT_OK, "%s", err);
  const char *why = "";
  EXPECT(crfs_same(&h.m, c, &why), "hand-made: %s differ", why);
  vt_crfs_free(c);
  free(w);
  /* A NUL inside an attribute name; the same name twice: refused, nothing returned, and a file
   * already at the target stays as it was. */
  const char *path = tmp_path("refused.crfsuite");
  REQUIRE(write_file(path, "old", 3) == 0, "write");
  hand_make(&h, "x\0", 1);
  h.attr_off[2] = 2;
  EXPECT_EQ_INT(vt_crfs_crf1d_bytes(&h.m, "h", &w, &n, err, sizeof err), VT_EINVAL, "a NUL");
  EXPECT(w == NULL && strstr(err, "attribute 1 holds a NUL byte"), "message: %s", err);
  EXPECT_EQ_INT(vt_crfs_write_crf1d(path, &h.m, err, sizeof err), VT_EINVAL, "a NUL, to a file");
  EXPECT(!strncmp(err, path, strlen(path)) && !strchr(err, '\n'), "message: %s", err);
  hand_make(&h, "xx", 1);
  EXPECT_EQ_INT(vt_crfs_write_crf1d(path, &h.m, err, sizeof err), VT_EINVAL, "named twice");
  EXPECT(strstr(err, "attribute 1 is named twice") != NULL, "message: %s", err);
  char text[16];
  read_text(path, text, sizeof text);
  EXPECT_EQ_STR(text, "old", "the target changed");
  unlink(path);
}

TEST(unwritable) {
  char err[512], dir[512], target[600];
  crf1d_buf b;
  rmodel rm;
  test_rng r = {5};
  rmodel_random(&rm, &r);
  rmodel_bytes(&rm, &b);
  vt_crfs *m = NULL;
  REQUIRE(vt_crfs_load_mem(&m, b.p, b.len, "in", err, sizeof err) == VT_OK, "%s", err);
  snprintf(dir, sizeof dir, "%s", tmp_path("dir.XXXXXX"));
  REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
  /* A folder that does not exist. */
  snprintf(target, sizeof target, "%s/missing/out.crfsuite", dir);
  EXPECT_EQ_INT(vt_crfs_write_crf1d(target, m, err, sizeof err), VT_EIO, "missing folder");
  EXPECT(!strncmp(err, target, strlen(target)) && !strchr(err, '\n'), "message: %s", err);
  EXPECT_EQ_INT(dir_entries(dir), 0, "something was left");
  /* A folder in the way: the temp file is written, cannot replace it, and is removed. */
  snprintf(target, sizeof target, "%s/sub", dir);
  REQUIRE(mkdir(target, 0755) == 0, "mkdir");
  char inner[700];
  snprintf(inner, sizeof inner, "%s/keep", target);
  REQUIRE(write_file(inner, "k", 1) == 0, "write");
  EXPECT_EQ_INT(vt_crfs_write_crf1d(target, m, err, sizeof err), VT_EIO, "a folder");
  EXPECT(!strncmp(err, target, strlen(target)) && !strchr(err, '\n'), "message: %s", err);
  EXPECT_EQ_INT(dir_entries(dir), 1, "a temp file was left");
  EXPECT_EQ_INT(dir_entries(target), 1, "the folder changed");
  /* A device that takes no bytes. */
  if (access("/dev/full", W_OK) == 0) {
    EXPECT_EQ_INT(vt_crfs_write_crf1d("/dev/full", m, err, sizeof err), VT_EIO, "/dev/full");
    EXPECT(!strncmp(err, "/dev/full: ", 11) && !strchr(err, '\n'), "message: %s", err);
  }
  unlink(inner);
  rmdir(target);
  rmdir(dir);
  vt_crfs_free(m);
  free(b.p);
}

TEST(save_as) {
  test_rng r = {99};
  rmodel rm;
  crf1d_buf b;
  rmodel_random(&rm, &r);
  rmodel_bytes(&rm, &b);
  const char *src = tmp_path("sa.in"), *nat = tmp_path("sa.vtm"), *o1 = tmp_path("sa.o1");
  const char *o2 = tmp_path("sa.o2");
  REQUIRE(crf1d_save(&b, src) == 0, "write");
  vt_model *m = NULL, *n = NULL, *t = NULL;
  REQUIRE(vt_model_open(&m, src) == VT_OK, "%s", vt_last_error());
  REQUIRE(vt_model_save_as(m, nat, NULL) == VT_OK, "%s", vt_last_error());
  EXPECT_EQ_INT(vt_model_file_kind(nat), VT_MODEL_CRFSUITE, "native written");
  REQUIRE(vt_model_open(&n, nat) == VT_OK, "%s", vt_last_error());
  /* From the crf1d model and from its native copy: the same crf1d bytes. */
  REQUIRE(vt_model_save_as(m, o1, "crfsuite") == VT_OK, "%s", vt_last_error());
  REQUIRE(vt_model_save_as(n, o2, "crfsuite") == VT_OK, "%s", vt_last_error());
  size_t n1 = 0, n2 = 0;
  unsigned char *p1 = test_slurp(o1, &n1), *p2 = test_slurp(o2, &n2);
  EXPECT(p1 && p2 && n1 == n2 && !memcmp(p1, p2, n1), "crf1d bytes differ");
  EXPECT(p1 && n1 >= 4 && !memcmp(p1, "lCRF", 4), "not a crf1d file");
  check_tagging(b.p, b.len, p1, n1, &r);
  free(p1);
  free(p2);
  unlink(o1);
  EXPECT_EQ_INT(vt_model_save_as(m, o1, "wapiti"), VT_EINVAL, "unknown format");
  EXPECT(strstr(vt_last_error(), "'wapiti'") != NULL, "message: %s", vt_last_error());
  /* Another kind of model cannot be a CRFsuite model. */
  double A[4] = {0, 1, 2, 3};
  REQUIRE(vt_model_open_trans(&t, 2, A, NULL, NULL, NULL) == VT_OK, "%s", vt_last_error());
  EXPECT_EQ_INT(vt_model_save_as(t, o1, "crfsuite"), VT_EINVAL, "transitions");
  EXPECT(strstr(vt_last_error(), "only CRFsuite models") != NULL, "message: %s", vt_last_error());
  struct stat st;
  EXPECT(stat(o1, &st) != 0, "a file was left");
  vt_model_close(m);
  vt_model_close(n);
  vt_model_close(t);
  free(b.p);
  unlink(src), unlink(nat), unlink(o2);
}

TEST(cli) {
  if (test_argc < 2) {
    printf("  (no vitesse binary given: skipped)\n");
    return;
  }
  const char *vt = test_argv[1];
  char cmd[4096], text[4096], err[512];
  test_rng r = {31};
  rmodel rm;
  crf1d_buf b;
  do rmodel_random(&rm, &r);
  while (rm.A < 3);
  rmodel_bytes(&rm, &b);
  const char *src = tmp_path("cli.in"), *nat = tmp_path("cli.vtm"), *out = tmp_path("cli.out");
  const char *out2 = tmp_path("cli.out2"), *items = tmp_path("cli.items");
  const char *ta = tmp_path("cli.ta"), *tb = tmp_path("cli.tb"), *e = tmp_path("cli.err");
  const char *npy = tmp_path("cli.npy");
  REQUIRE(crf1d_save(&b, src) == 0, "write");
  FILE *f = fopen(items, "w");
  REQUIRE(f != NULL, "write");
  for (int s = 0; s < 10; s++) {
    char line[512];
    for (int t = 1 + test_int(&r, MAXT); t > 0; t--)
      item_random(&r, line), fprintf(f, "%s\n", line);
    fputs("\n", f);
  }
  REQUIRE(fclose(f) == 0, "write");
  /* Straight from the crf1d file, and through the native copy: the bytes the library writes. */
  snprintf(cmd, sizeof cmd,
           "%s convert --to crfsuite %s -o %s 2>%s && %s convert --from crfsuite %s -o %s && "
           "%s convert --to crfsuite %s -o %s && cmp -s %s %s",
           vt, src, out, e, vt, src, nat, vt, nat, out2, out, out2);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  vt_crfs *m = NULL;
  unsigned char *w = NULL;
  size_t nw = 0, nf = 0;
  REQUIRE(vt_crfs_load(&m, src, err, sizeof err) == VT_OK, "%s", err);
  REQUIRE(vt_crfs_crf1d_bytes(m, NULL, &w, &nw, err, sizeof err) == VT_OK, "%s", err);
  unsigned char *fb = test_slurp(out, &nf);
  EXPECT(fb && nf == nw && !memcmp(fb, w, nw), "convert --to crfsuite wrote other bytes");
  free(fb);
  free(w);
  vt_crfs_free(m);
  /* It tags as the original: labels, scores, probabilities and marginals. */
  snprintf(cmd, sizeof cmd, "%s tag -p -i -m %s %s > %s && %s tag -p -i -m %s %s > %s && cmp %s %s",
           vt, src, items, ta, vt, out, items, tb, ta, tb);
  EXPECT_EQ_INT(run(cmd), 0, cmd);
  /* An unknown --to: one line, exit 2, nothing written. */
  unlink(out);
  snprintf(cmd, sizeof cmd, "%s convert --to nosuch %s -o %s 2>%s", vt, src, out, e);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT_EQ_INT(read_text(e, text, sizeof text), 1, "one line");
  EXPECT(strstr(text, "--to: expected vitesse|crfsuite, got 'nosuch'") != NULL, "%s", text);
  struct stat st;
  EXPECT(stat(out, &st) != 0, "an output file was left");
  /* A model of another kind (a transition matrix): one line, exit 2, nothing written. */
  const int64_t shape[2] = {2, 2};
  const double A[4] = {0, 1, 2, 3};
  REQUIRE(vt_npy_write(npy, VT_NPY_F64, 2, shape, A, err, sizeof err) == VT_OK, "%s", err);
  snprintf(cmd, sizeof cmd, "%s convert --to crfsuite %s -o %s 2>%s", vt, npy, out, e);
  EXPECT_EQ_INT(run(cmd), 2, cmd);
  EXPECT_EQ_INT(read_text(e, text, sizeof text), 1, "one line");
  EXPECT(strstr(text, "only CRFsuite models can be written as CRFsuite models") != NULL, "%s",
         text);
  EXPECT(stat(out, &st) != 0, "an output file was left");
  /* An output that cannot be written: one line, exit 1, nothing left. */
  snprintf(cmd, sizeof cmd, "%s convert --to crfsuite %s -o %s/missing/x 2>%s", vt, src, out, e);
  EXPECT_EQ_INT(run(cmd), 1, cmd);
  EXPECT_EQ_INT(read_text(e, text, sizeof text), 1, "one line");
  free(b.p);
  unlink(src), unlink(nat), unlink(out), unlink(out2), unlink(items), unlink(ta), unlink(tb);
  unlink(e), unlink(npy);
}

/* With VT_CRFSUITE=PATH (a crfsuite 0.12 binary): random models written here and rewritten by
 * vt_crfs_write_crf1d: `crfsuite tag` prints the same bytes from both, labels and -p -i.
 * Skipped without it (crfsuite is no build dependency). */
TEST(peer) {
  const char *cs = getenv("VT_CRFSUITE");
  if (!cs) {
    printf("  (VT_CRFSUITE not set: skipped)\n");
    return;
  }
  test_rng r = {4242};
  char err[512], cmd[4096];
  const char *src = tmp_path("peer.in"), *dst = tmp_path("peer.out"), *items = tmp_path("p.items");
  const char *o1 = tmp_path("peer.o1"), *o2 = tmp_path("peer.o2");
  for (int round = 0; round < 30; round++) {
    rmodel rm;
    crf1d_buf b;
    rmodel_random(&rm, &r);
    rmodel_bytes(&rm, &b);
    REQUIRE(crf1d_save(&b, src) == 0, "write");
    vt_crfs *m = NULL;
    REQUIRE(vt_crfs_load_mem(&m, b.p, b.len, "in", err, sizeof err) == VT_OK, "%s", err);
    REQUIRE(vt_crfs_write_crf1d(dst, m, err, sizeof err) == VT_OK, "%s", err);
    vt_crfs_free(m);
    free(b.p);
    FILE *f = fopen(items, "w");
    REQUIRE(f != NULL, "write");
    for (int s = 0; s < 20; s++) {
      char line[512];
      for (int t = 1 + test_int(&r, MAXT); t > 0; t--)
        item_random(&r, line), fprintf(f, "%s\n", line);
      fputs("\n", f);
    }
    REQUIRE(fclose(f) == 0, "write");
    for (int opt = 0; opt < 2; opt++) {
      const char *o = opt ? "-p -i" : "";
      snprintf(cmd, sizeof cmd,
               "%s tag %s -m %s %s > %s && %s tag %s -m %s %s > %s && cmp -s %s %s", cs, o, src,
               items, o1, cs, o, dst, items, o2, o1, o2);
      EXPECT_EQ_INT(run(cmd), 0, cmd);
    }
  }
  unlink(src), unlink(dst), unlink(items), unlink(o1), unlink(o2);
}

TEST_MAIN(CASE(hash_vectors), CASE(cqdb_chunks), CASE(roundtrip), CASE(refused_models),
          CASE(unwritable), CASE(save_as), CASE(cli), CASE(peer))
