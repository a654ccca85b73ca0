/* tests/crfsuite_seeds.c DIR: writes the seed corpora of the CRFsuite fuzz targets into
 * DIR/crfsmodel and DIR/crfsitems (tests/fuzz/make_seeds.sh runs it): a small crf1d model made
 * by tests/crf1d_write.h, its native conversion, damaged copies (truncated, another version, a
 * state feature out of range, a CQDB record with another id), and item files (escapes, values,
 * runs of blank lines, a bad value, a NUL byte, no final newline, a gzip one is left to the
 * fuzzer). Deterministic. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crf1d_write.h"
#include "hash_flood.h"
#include "vitesse.h"

static int put(const char *dir, const char *name, const void *p, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "crfsuite_seeds: cannot write %s\n", path);
    exit(1);
  }
  return 0;
}

/* Writes the native conversion of dir/src as dir/dst (vt_model_save); exits on failure. */
static void native_copy(const char *dir, const char *src, const char *dst) {
  char from[8192], to[8192];
  snprintf(from, sizeof from, "%s/%s", dir, src);
  snprintf(to, sizeof to, "%s/%s", dir, dst);
  vt_model *m = NULL;
  if (vt_model_open(&m, from) != VT_OK || vt_model_save(m, to) != VT_OK) {
    fprintf(stderr, "crfsuite_seeds: %s\n", vt_last_error());
    exit(1);
  }
  vt_model_close(m);
}

static uint32_t get32(const unsigned char *p) {
  return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The seeds of the size-driven cases, bigger than the fuzzers' default input: a model of 2,000
 * labels (over the fuzz targets' memory bound: refused), one whose 2,000 attribute reference
 * entries all point at one list of 300 features (checked once), and one of 1,100 attribute
 * names made to share the unkeyed hash, with its native conversion (refused: a flooded table). */
static void size_seeds(const char *dm) {
  enum { BIG = 2000, REFS = 2000, LREF = 300, FLOOD = 1100 };
  static char lname[BIG][8], aname[REFS][8], flood[FLOOD][17];
  static const char *lp[BIG], *ap[REFS], *fp[FLOOD];
  static crf1d_feat f[LREF + FLOOD + 1];
  for (int i = 0; i < BIG; i++) snprintf(lname[i], sizeof lname[i], "l%d", i), lp[i] = lname[i];
  for (int i = 0; i < REFS; i++) snprintf(aname[i], sizeof aname[i], "a%d", i), ap[i] = aname[i];
  crf1d_buf b;
  f[0] = (crf1d_feat){0, 0, 0, 1.0};
  f[1] = (crf1d_feat){1, 0, 1, 0.5};
  crf1d_build(&b, lp, BIG, ap, 1, f, 2);
  put(dm, "size_many_labels.model", b.p, b.len);
  free(b.p);
  for (int y = 0; y < LREF; y++) f[y] = (crf1d_feat){0, 0, (uint32_t)y, 0.5 + y};
  f[LREF] = (crf1d_feat){0, REFS - 1, 1, 1.0};
  crf1d_build(&b, lp, LREF, ap, REFS, f, LREF + 1);
  const uint32_t aref = get32(b.p + 44), first = get32(b.p + aref + 12);
  for (uint32_t a = 1; a < REFS; a++) /* every attribute's list: attribute 0's */
    for (int k = 0; k < 4; k++) b.p[aref + 12 + 4 * a + k] = (unsigned char)(first >> (8 * k));
  put(dm, "size_shared_refs.model", b.p, b.len);
  free(b.p);
  hf_names(flood, FLOOD, 0x0123456789ABCDEFull);
  for (int i = 0; i < FLOOD; i++) {
    fp[i] = flood[i];
    f[i] = (crf1d_feat){0, (uint32_t)i, (uint32_t)(i % 4), 1.0 + i};
  }
  f[FLOOD] = (crf1d_feat){1, 0, 1, 0.5};
  crf1d_build(&b, lp, 4, fp, FLOOD, f, FLOOD + 1);
  put(dm, "size_flooded_names.model", b.p, b.len);
  native_copy(dm, "size_flooded_names.model", "size_flooded_names_native.model");
  free(b.p);
}

int main(int argc, char **argv) {
  static const char *const attrs[] = {"w=the", "a:b", "c\\d", "x", "pos=NN", "U00=the"};
  static const char *const labels[] = {"B-NP", "I-NP", "O", "B-VP"};
  static const crf1d_feat f[] = {{0, 0, 0, 1.5},   {0, 1, 1, 2},    {0, 2, 2, -1}, {1, 0, 1, 0.5},
                                 {1, 1, 0, -0.25}, {0, 3, 1, 0.75}, {1, 2, 2, 1},  {0, 4, 3, 0.5},
                                 {0, 5, 0, -2},    {1, 3, 0, 0.125}};
  if (argc != 2) {
    fprintf(stderr, "usage: crfsuite_seeds DIR\n");
    return 64;
  }
  char dm[4096], di[4096];
  snprintf(dm, sizeof dm, "%s/crfsmodel", argv[1]);
  snprintf(di, sizeof di, "%s/crfsitems", argv[1]);
  mkdir(dm, 0777);
  mkdir(di, 0777);
  crf1d_buf b;
  crf1d_build(&b, labels, 4, attrs, 6, f, sizeof f / sizeof *f);
  put(dm, "good.model", b.p, b.len);
  put(dm, "bad_truncated.model", b.p, 200);
  b.p[12] = 101;
  put(dm, "bad_version.model", b.p, b.len);
  b.p[12] = 100;
  unsigned char *c = malloc(b.len);
  memcpy(c, b.p, b.len);
  c[48 + 12 + 4] = 6; /* feature 0: attribute 6 of 6 */
  put(dm, "bad_feature_range.model", c, b.len);
  memcpy(c, b.p, b.len);
  uint32_t off_labels = c[32] | (uint32_t)c[33] << 8 | (uint32_t)c[34] << 16;
  c[off_labels + 24 + 2048] = 9; /* the first label record's id */
  put(dm, "bad_cqdb_id.model", c, b.len);
  free(c);
  native_copy(dm, "good.model", "good_native.model");
  free(b.p);
  size_seeds(dm);
  static const char good[] = "B-NP\tw=the\tx:2\nI-NP\ta\\:b:0.5\tunknown\n\n\n\nO\tc\\d\tc\\\\d:-1"
                             "\nB-VP\t\tx:\tpos=NN:1e-3\tU00=the\n\nO\n";
  put(di, "good.items", good, sizeof good - 1);
  static const char colons[] = "B-NP:1\tx:2:3\t:4\tw=the::\n\t\t\n \n\r\nO\tx\r\n";
  put(di, "colons.items", colons, sizeof colons - 1);
  static const char bad_value[] = "B-NP\tx:2\nO\tw=the:abc\n";
  put(di, "bad_value.items", bad_value, sizeof bad_value - 1);
  static const char bad_nul[] = "B-NP\tx\0y\nO\n";
  put(di, "bad_nul.items", bad_nul, sizeof bad_nul - 1);
  static const char overflow[] = "O\tw=the:1e308\tw=the:1e308\n";
  put(di, "bad_overflow.items", overflow, sizeof overflow - 1);
  static const char no_newline[] = "B-NP\tw=the\nI-NP\tx";
  put(di, "no_final_newline.items", no_newline, sizeof no_newline - 1);
  return 0;
}
