/* tests/test_npy.c: the .npy reader/writer, atomic output files and lattice-set validation,
 * through the C API: round trips, hand-written headers, and every malformed input. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/lattice_file.h"
#include "io/npy.h"
#include "io/outfile.h"
#include "test_util.h"
#include "vitesse.h"

static char dir[64];

/* ---- helpers --------------------------------------------------------------------------------- */

static const char *tpath(const char *name) {
  static char buf[8][384];
  static int next;
  char *p = buf[next++ % 8];
  snprintf(p, sizeof buf[0], "%s/%s", dir, name);
  return p;
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
  FILE *fp = fopen(path, "wb");
  if (!fp || (n && fwrite(bytes, 1, n, fp) != n) || fclose(fp) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

/* Writes a .npy file with header text `hdr` used verbatim (no padding added). */
static void write_npy_raw(const char *path, int major, int minor, const char *hdr, const void *data,
                          size_t nbytes) {
  size_t hl = strlen(hdr), pre = major == 1 ? 10 : 12;
  unsigned char *b = malloc(pre + hl + nbytes + 1);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = (unsigned char)minor;
  b[8] = (unsigned char)(hl & 0xff);
  b[9] = (unsigned char)(hl >> 8 & 0xff);
  if (pre == 12) {
    b[10] = (unsigned char)(hl >> 16 & 0xff);
    b[11] = (unsigned char)(hl >> 24 & 0xff);
  }
  memcpy(b + pre, hdr, hl);
  if (nbytes) memcpy(b + pre + hl, data, nbytes);
  write_bytes(path, b, pre + hl + nbytes);
  free(b);
}

/* Writes a v1.0 .npy file whose header dict is `dict`, padded to 64 bytes like numpy does. */
static void write_npy(const char *path, const char *dict, const void *data, size_t nbytes) {
  char hdr[1024];
  size_t n = strlen(dict);
  size_t total = (10 + n + 1 + 63) / 64 * 64;
  memcpy(hdr, dict, n);
  memset(hdr + n, ' ', total - 10 - n - 1);
  hdr[total - 10 - 1] = '\n';
  hdr[total - 10] = '\0';
  write_npy_raw(path, 1, 0, hdr, data, nbytes);
}

static void write_f4(const char *name, const char *shape, const float *v, size_t n) {
  char dict[256];
  snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
  write_npy(tpath(name), dict, v, n * sizeof *v);
}

static void write_f8(const char *name, const char *shape, const double *v, size_t n) {
  char dict[256];
  snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape);
  write_npy(tpath(name), dict, v, n * sizeof *v);
}

static void write_i4(const char *name, const char *shape, const int32_t *v, size_t n) {
  char dict[256];
  snprintf(dict, sizeof dict, "{'descr': '<i4', 'fortran_order': False, 'shape': %s, }", shape);
  write_npy(tpath(name), dict, v, n * sizeof *v);
}

static void write_i8(const char *name, const char *shape, const int64_t *v, size_t n) {
  char dict[256];
  snprintf(dict, sizeof dict, "{'descr': '<i8', 'fortran_order': False, 'shape': %s, }", shape);
  write_npy(tpath(name), dict, v, n * sizeof *v);
}

/* Number of entries in the test directory (without . and ..). */
static int dir_entries(void) {
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  if (d) closedir(d);
  return n;
}

static void clear_dir(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    const char *p = tpath(e->d_name);
    if (unlink(p) != 0) rmdir(p);
  }
  if (d) closedir(d);
}

static void remove_dir(void) {
  clear_dir();
  rmdir(dir);
}

/* Makes the test directory on the first call (removed at exit) and empties it; returns 1 when it
 * is there. */
static int dir_ready(void) {
  static int state; /* 0: not yet, 1: made, -1: failed */
  if (!state) {
    strcpy(dir, "/tmp/vt_test_npy.XXXXXX");
    state = mkdtemp(dir) ? 1 : -1;
    if (state < 0) perror("mkdtemp");
    if (state > 0) atexit(remove_dir);
    umask(022);
  }
  if (state > 0) clear_dir();
  return state > 0;
}

/* Checks a failure: status `want`, one line in err naming `path` and holding every word. */
static void check_err(const char *ctx, int got, int want, const char *err, const char *path, ...) {
  va_list ap;
  EXPECT(got == want, "%s: status %d, want %d (err: %s)", ctx, got, want, err);
  EXPECT(strchr(err, '\n') == NULL && err[0], "%s: err is not one non-empty line: '%s'", ctx, err);
  EXPECT(strstr(err, path) == err, "%s: err does not start with the path %s: '%s'", ctx, path, err);
  va_start(ap, path);
  for (const char *w; (w = va_arg(ap, const char *));)
    EXPECT(strstr(err, w) != NULL, "%s: err lacks '%s': '%s'", ctx, w, err);
  va_end(ap);
}

/* Opens `path` expecting failure `want` with the given words in the message. */
#define EXPECT_OPEN_FAIL(ctx, path, want, ...)                                                     \
  do {                                                                                             \
    vt_npy x_;                                                                                     \
    char e_[512];                                                                                  \
    memset(&x_, 0x5a, sizeof x_);                                                                  \
    int st_ = vt_npy_open(&x_, (path), e_, sizeof e_);                                             \
    check_err((ctx), st_, (want), e_, (path), __VA_ARGS__, (const char *)NULL);                    \
    EXPECT(x_.map == NULL && x_.owned == NULL && x_.data == NULL, "%s: not zeroed", (ctx));        \
    vt_npy_close(&x_);                                                                             \
  } while (0)

/* ---- npy round trips ------------------------------------------------------------------------- */

/* Every dtype and shape written and read back (mapped), with the file's mode and no stray
 * files. */
TEST(roundtrip) {
  REQUIRE(dir_ready(), "temporary directory");
  static const int64_t shapes[][2] = {{0, 0}, {5, 0}, {0, 3}, {2, 3}};
  static const int ndims[] = {0, 1, 2, 2};
  static const vt_npy_dtype dts[] = {VT_NPY_F32, VT_NPY_F64, VT_NPY_I32, VT_NPY_I64};
  for (int t = 0; t < 4; t++) {
    for (int s = 0; s < 4; s++) {
      char ctx[64], err[512];
      snprintf(ctx, sizeof ctx, "roundtrip %s ndim %d shape %lld,%lld", vt_npy_descr(dts[t]),
               ndims[s], (long long)shapes[s][0], (long long)shapes[s][1]);
      int64_t count = 1;
      for (int d = 0; d < ndims[s]; d++) count *= shapes[s][d];
      double bufd[6];
      unsigned char *buf = (unsigned char *)bufd;
      for (int64_t i = 0; i < count; i++) {
        double v = (double)(i * 7 - 9) / (dts[t] <= VT_NPY_F64 ? 4.0 : 1.0);
        if (dts[t] == VT_NPY_F32) ((float *)(void *)buf)[i] = (float)v;
        if (dts[t] == VT_NPY_F64) ((double *)(void *)buf)[i] = v;
        if (dts[t] == VT_NPY_I32) ((int32_t *)(void *)buf)[i] = (int32_t)v;
        if (dts[t] == VT_NPY_I64) ((int64_t *)(void *)buf)[i] = (int64_t)v - 5000000000LL;
      }
      const char *p = tpath("rt.npy");
      int st = vt_npy_write(p, dts[t], ndims[s], shapes[s], buf, err, sizeof err);
      EXPECT(st == VT_OK, "%s: write: %s", ctx, err);
      struct stat sb;
      size_t nbytes = (size_t)count * vt_npy_itemsize(dts[t]);
      EXPECT(stat(p, &sb) == 0 && (size_t)sb.st_size >= nbytes &&
                 ((size_t)sb.st_size - nbytes) % 64 == 0,
             "%s: header not padded to 64", ctx);
      EXPECT((sb.st_mode & 0777) == 0644, "%s: mode %o", ctx, (unsigned)(sb.st_mode & 0777));
      EXPECT(dir_entries() == 1, "%s: stray files", ctx);
      vt_npy x;
      st = vt_npy_open(&x, p, err, sizeof err);
      EXPECT(st == VT_OK, "%s: open: %s", ctx, err);
      if (st != VT_OK) continue;
      EXPECT(x.dtype == dts[t] && x.ndim == ndims[s] && x.count == count, "%s: header", ctx);
      for (int d = 0; d < ndims[s]; d++) EXPECT(x.shape[d] == shapes[s][d], "%s: shape", ctx);
      EXPECT(x.map != NULL && x.owned == NULL, "%s: not mapped", ctx);
      EXPECT(nbytes == 0 || memcmp(x.data, buf, nbytes) == 0, "%s: data differs", ctx);
      for (int64_t i = 0; i < count; i++) {
        if (dts[t] == VT_NPY_F32 || dts[t] == VT_NPY_F64)
          EXPECT(vt_npy_get_f(&x, i) == (double)(i * 7 - 9) / 4.0, "%s: get_f(%lld)", ctx,
                 (long long)i);
        else if (dts[t] == VT_NPY_I32)
          EXPECT(vt_npy_get_i(&x, i) == i * 7 - 9, "%s: get_i(%lld)", ctx, (long long)i);
        else
          EXPECT(vt_npy_get_i(&x, i) == i * 7 - 9 - 5000000000LL, "%s: get_i", ctx);
      }
      char shp[64];
      vt_npy_shape_str(&x, shp, sizeof shp);
      const char *want = s == 0 ? "()" : s == 1 ? "(5,)" : s == 2 ? "(0, 3)" : "(2, 3)";
      EXPECT(strcmp(shp, want) == 0, "%s: shape_str %s", ctx, shp);
      vt_npy_close(&x);
      vt_npy_close(&x); /* idempotent */
      EXPECT(x.data == NULL && x.map == NULL, "%s: close did not zero", ctx);
    }
  }
  clear_dir();
  vt_npy z;
  memset(&z, 0, sizeof z);
  vt_npy_close(&z);
  vt_npy_close(NULL);
}

/* Format versions 1.0 to 3.0 and hand-written headers numpy accepts; misaligned data copied. */
TEST(versions_and_headers) {
  REQUIRE(dir_ready(), "temporary directory");
  const float f[6] = {1, 2, 3, 4, 5, -INFINITY};
  const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  char hdr[256], err[512], ctx[64];
  vt_npy x;
  for (int major = 1; major <= 3; major++) {
    /* pad to 64 like numpy: prefix is 10 bytes (v1) or 12 (v2, v3) */
    size_t pre = major == 1 ? 10 : 12, n = strlen(dict);
    size_t total = (pre + n + 1 + 63) / 64 * 64;
    memcpy(hdr, dict, n);
    memset(hdr + n, ' ', total - pre - n - 1);
    hdr[total - pre - 1] = '\n';
    hdr[total - pre] = '\0';
    snprintf(ctx, sizeof ctx, "version %d.0", major);
    write_npy_raw(tpath("v.npy"), major, 0, hdr, f, sizeof f);
    int st = vt_npy_open(&x, tpath("v.npy"), err, sizeof err);
    EXPECT(st == VT_OK, "%s: %s", ctx, err);
    EXPECT(st != VT_OK || (x.ndim == 2 && x.shape[0] == 2 && x.shape[1] == 3 &&
                           x.dtype == VT_NPY_F32 && memcmp(x.data, f, sizeof f) == 0),
           "%s: content", ctx);
    vt_npy_close(&x);
  }

  /* hand-written headers: odd spacing, any key order, double quotes, no padding, misaligned
   * data (copied then), Python 2 long suffixes, '=' byte order, no trailing newline */
  static const struct {
    const char *hdr;
    int ndim;
    int64_t s0, s1;
    vt_npy_dtype dt;
  } ok[] = {
      {"{ \"shape\" : ( 2 , 3 , ) ,  'fortran_order' :False , \"descr\":\"<f4\"}   \n", 2, 2, 3,
       VT_NPY_F32},
      {"{'fortran_order': False, 'descr': '<f4', 'shape': (2,3)}", 2, 2, 3, VT_NPY_F32},
      {"{'descr':'<f4','fortran_order':False,'shape':(6,),}\n", 1, 6, 0, VT_NPY_F32},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6, )}", 1, 6, 0, VT_NPY_F32},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n", 2, 2, 3, VT_NPY_F32},
      {"{'descr': '=f4', 'fortran_order': False, 'shape': (2, 3), }\n", 2, 2, 3, VT_NPY_F32},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", 0, 0, 0, VT_NPY_I32},
      {"\t{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\r\n", 1, 3, 0, VT_NPY_F64},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    snprintf(ctx, sizeof ctx, "header %zu", i);
    write_npy_raw(tpath("h.npy"), 1, 0, ok[i].hdr, f, sizeof f);
    int st = vt_npy_open(&x, tpath("h.npy"), err, sizeof err);
    EXPECT(st == VT_OK, "%s: %s", ctx, err);
    if (st != VT_OK) continue;
    EXPECT(x.ndim == ok[i].ndim && x.shape[0] == ok[i].s0 && x.shape[1] == ok[i].s1 &&
               x.dtype == ok[i].dt,
           "%s: parsed wrong", ctx);
    EXPECT(((uintptr_t)x.data % vt_npy_itemsize(x.dtype)) == 0, "%s: misaligned data", ctx);
    size_t nb = (size_t)x.count * vt_npy_itemsize(x.dtype);
    EXPECT(memcmp(x.data, f, nb) == 0, "%s: data", ctx);
    vt_npy_close(&x);
  }
  /* a header length that leaves the data misaligned: served from a heap copy */
  write_npy_raw(tpath("h.npy"), 1, 0, "{'descr':'<f4','fortran_order':False,'shape':(6,)} ", f,
                sizeof f);
  EXPECT(vt_npy_open(&x, tpath("h.npy"), err, sizeof err) == VT_OK, "misaligned: %s", err);
  EXPECT(x.owned != NULL && memcmp(x.data, f, sizeof f) == 0, "misaligned: not copied");
  vt_npy_close(&x);
  /* bytes after the data are ignored */
  float g[7] = {1, 2, 3, 4, 5, 6, 7};
  write_f4("long.npy", "(2, 3)", g, 7);
  EXPECT(vt_npy_open(&x, tpath("long.npy"), err, sizeof err) == VT_OK && x.count == 6,
         "trailing bytes: %s", err);
  vt_npy_close(&x);
  clear_dir();
}

/* A FIFO is read into memory (no mmap). */
TEST(fifo_read_into_memory) {
  REQUIRE(dir_ready(), "temporary directory");
  const double d[3] = {1.5, -INFINITY, 3};
  char err[512];
  const char *fifo = tpath("fifo.npy");
  write_f8("src.npy", "(3,)", d, 3);
  if (mkfifo(fifo, 0600) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    FILE *in = fopen(tpath("src.npy"), "rb"), *out = fopen(fifo, "wb");
    int c;
    while (in && out && (c = fgetc(in)) != EOF) fputc(c, out);
    if (out) fclose(out);
    _exit(0);
  }
  vt_npy x;
  int st = vt_npy_open(&x, fifo, err, sizeof err);
  waitpid(pid, NULL, 0);
  EXPECT(st == VT_OK, "fifo: %s", err);
  EXPECT(st != VT_OK || (x.owned && x.count == 3 && memcmp(x.data, d, sizeof d) == 0), "fifo");
  vt_npy_close(&x);
  clear_dir();
}

/* ---- npy malformed inputs -------------------------------------------------------------------- */

/* Every malformed input: its status and a one-line message naming the file. */
TEST(malformed) {
  REQUIRE(dir_ready(), "temporary directory");
  const float f[6] = {0};
  char err[512];
  const char *p = tpath("bad.npy");
#define HDR(descr, fo, shape)                                                                      \
  "{'descr': '" descr "', 'fortran_order': " fo ", 'shape': " shape ", }"

  write_npy(p, HDR("<f4", "True", "(2, 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("fortran", p, VT_EFORMAT, "Fortran order");
  write_npy(p, HDR(">f4", "False", "(2, 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("bigendian", p, VT_EFORMAT, "big-endian", ">f4");
  write_npy(p, HDR(">i8", "False", "(2, 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("bigendian i8", p, VT_EFORMAT, "big-endian");
  static const char *const dtypes[] = {"<f2", "<u1", "|u1", "|b1", "<c8",  "|O",
                                       "<i2", "|f4", "<u4", "f4",  "<f16", ""};
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
    char dict[256];
    snprintf(dict, sizeof dict, HDR("%s", "False", "(2, 3)"), dtypes[i]);
    write_npy(p, dict, f, sizeof f);
    EXPECT_OPEN_FAIL(dtypes[i], p, VT_EFORMAT, "unsupported dtype");
  }
  write_npy(p, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", f, 8);
  EXPECT_OPEN_FAIL("structured", p, VT_EFORMAT, "unsupported dtype");

  /* bad magic, versions */
  write_bytes(p, "\x93NUMPZ\x01\x00\x10\x00", 10);
  EXPECT_OPEN_FAIL("badmagic", p, VT_EFORMAT, "bad magic");
  write_bytes(p, "PK\x03\x04 zip file, not npy", 22);
  EXPECT_OPEN_FAIL("badmagic zip", p, VT_EFORMAT, "bad magic");
  write_bytes(p, "x", 1);
  EXPECT_OPEN_FAIL("badmagic 1 byte", p, VT_EFORMAT, "bad magic");
  static const int vers[][2] = {{4, 0}, {0, 0}, {1, 1}, {2, 5}, {255, 0}};
  for (size_t i = 0; i < sizeof vers / sizeof vers[0]; i++) {
    write_npy_raw(p, vers[i][0], vers[i][1], HDR("<f4", "False", "(6,)") "\n", f, sizeof f);
    EXPECT_OPEN_FAIL("badversion", p, VT_EFORMAT, "unsupported .npy format version");
  }

  /* truncated headers */
  write_bytes(p, "\x93NUM", 4);
  EXPECT_OPEN_FAIL("truncated magic", p, VT_EFORMAT, "truncated header");
  write_bytes(p, "\x93NUMPY\x01", 7);
  EXPECT_OPEN_FAIL("truncated version", p, VT_EFORMAT, "truncated header");
  write_bytes(p, "\x93NUMPY\x01\x00\x76", 9);
  EXPECT_OPEN_FAIL("truncated length", p, VT_EFORMAT, "truncated header");
  write_bytes(p, "\x93NUMPY\x02\x00\x76\x00\x00", 11);
  EXPECT_OPEN_FAIL("truncated length v2", p, VT_EFORMAT, "truncated header");
  write_bytes(p, "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortr", 30);
  EXPECT_OPEN_FAIL("truncated header", p, VT_EFORMAT, "truncated header", "needs 128 bytes",
                   "has 30");
  write_bytes(p, "\x93NUMPY\x02\x00\x00\x00\x00\x01{'descr'", 20);
  EXPECT_OPEN_FAIL("truncated header v2", p, VT_EFORMAT, "truncated header");

  /* truncated data */
  write_npy(p, HDR("<f4", "False", "(2, 3)"), f, 20);
  EXPECT_OPEN_FAIL("truncated data", p, VT_EFORMAT, "truncated data", "expected 24 bytes",
                   "has 20");
  write_npy(p, HDR("<f8", "False", "(1000000, 1000)"), f, 0);
  EXPECT_OPEN_FAIL("truncated data big", p, VT_EFORMAT, "truncated data", "8000000000");
  write_npy(p, HDR("<f8", "False", "(4611686018427387904, 4)"), f, 0);
  EXPECT_OPEN_FAIL("shape overflow", p, VT_EFORMAT, "too large");
  write_npy(p, HDR("<f8", "False", "(99999999999999999999,)"), f, 0);
  EXPECT_OPEN_FAIL("dimension overflow", p, VT_EFORMAT, "too large");

  /* shapes */
  write_npy(p, HDR("<f4", "False", "(-2, 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("negative dim", p, VT_EFORMAT, "negative dimension -2");
  write_npy(p, HDR("<f4", "False", "(2.5, 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("float dim", p, VT_EFORMAT, "non-integer dimension '2.5'");
  write_npy(p, HDR("<f4", "False", "('a', 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("string dim", p, VT_EFORMAT, "non-integer dimension");
  write_npy(p, HDR("<f4", "False", "(None,)"), f, sizeof f);
  EXPECT_OPEN_FAIL("None dim", p, VT_EFORMAT, "non-integer dimension");
  write_npy(p, HDR("<f4", "False", "(1, 2, 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("3-D", p, VT_EFORMAT, "3-D", "at most 2");
  write_npy(p, HDR("<f4", "False", "[2, 3]"), f, sizeof f);
  EXPECT_OPEN_FAIL("shape list", p, VT_EFORMAT, "malformed header");
  write_npy(p, HDR("<f4", "False", "(2 3)"), f, sizeof f);
  EXPECT_OPEN_FAIL("shape no comma", p, VT_EFORMAT, "malformed header");
  write_npy(p, HDR("<f4", "False", "(,)"), f, sizeof f);
  EXPECT_OPEN_FAIL("shape (,)", p, VT_EFORMAT, "malformed header");

  /* malformed dicts */
  static const char *const bad[] = {
      "",
      "not a dict",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'shape': (6,)}",
      "{'fortran_order': False, 'shape': (6,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'extra': 1}",
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}",
      "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (6,)}",
      "{'descr': <f4, 'fortran_order': False, 'shape': (6,)}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (6,)}",
      "{'descr' '<f4', 'fortran_order': False, 'shape': (6,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)",
      "{descr: '<f4', 'fortran_order': False, 'shape': (6,)}",
      "{'descr: '<f4', 'fortran_order': False, 'shape': (6,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (6,",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char ctx[32];
    snprintf(ctx, sizeof ctx, "malformed %zu", i);
    write_npy(p, bad[i], f, sizeof f);
    EXPECT_OPEN_FAIL(ctx, p, VT_EFORMAT, "malformed header");
  }

  /* files that are not there or not files */
  EXPECT_OPEN_FAIL("missing", tpath("nope.npy"), VT_EIO, "cannot open", strerror(ENOENT));
  write_bytes(p, "", 0);
  EXPECT_OPEN_FAIL("empty", p, VT_EFORMAT, "empty file");
  mkdir(tpath("sub"), 0700);
  EXPECT_OPEN_FAIL("directory", tpath("sub"), VT_EIO, "directory");
  /* a control character in a path never breaks the line */
  vt_npy x;
  EXPECT(vt_npy_open(&x, tpath("new\nline.npy"), err, sizeof err) == VT_EIO && !strchr(err, '\n') &&
             strstr(err, "new?line.npy"),
         "newline in path: '%s'", err);
  /* a tiny err buffer is still NUL-terminated; errlen 0 writes nothing */
  char tiny[8];
  EXPECT(vt_npy_open(&x, tpath("nope.npy"), tiny, sizeof tiny) == VT_EIO &&
             strlen(tiny) == sizeof tiny - 1,
         "tiny err");
  EXPECT(vt_npy_open(&x, tpath("nope.npy"), NULL, 0) == VT_EIO, "NULL err");
  clear_dir();
#undef HDR
}

/* ---- outfile and writer errors --------------------------------------------------------------- */

/* Atomic output files: hidden until commit, removed on abort; writer errors leave nothing. */
TEST(outfile) {
  REQUIRE(dir_ready(), "temporary directory");
  char err[512];
  vt_outfile of;
  mode_t old = umask(027);
  EXPECT(vt_outfile_open(&of, tpath("out.txt"), err, sizeof err) == VT_OK, "open: %s", err);
  EXPECT(dir_entries() == 1 && access(tpath("out.txt"), F_OK) != 0, "temp file not hidden");
  fputs("hello\n", of.fp);
  EXPECT(vt_outfile_commit(&of, err, sizeof err) == VT_OK, "commit: %s", err);
  vt_outfile_abort(&of); /* no-op after commit */
  struct stat sb;
  EXPECT(stat(tpath("out.txt"), &sb) == 0 && sb.st_size == 6, "committed file");
  EXPECT((sb.st_mode & 0777) == 0640, "mode %o under umask 027", (unsigned)(sb.st_mode & 0777));
  EXPECT(dir_entries() == 1, "stray files after commit");
  umask(old);

  /* abort leaves the old content and no temp file */
  EXPECT(vt_outfile_open(&of, tpath("out.txt"), err, sizeof err) == VT_OK, "open 2: %s", err);
  fputs("partial", of.fp);
  EXPECT(dir_entries() == 2, "temp file missing");
  vt_outfile_abort(&of);
  vt_outfile_abort(&of);
  EXPECT(stat(tpath("out.txt"), &sb) == 0 && sb.st_size == 6 && dir_entries() == 1, "abort");

  /* a directory that does not exist */
  const char *nodir = tpath("no/such/dir/out.txt");
  int st = vt_outfile_open(&of, nodir, err, sizeof err);
  check_err("outfile no dir", st, VT_EIO, err, nodir, "temp file", (const char *)NULL);
  EXPECT(of.fp == NULL && of.tmp == NULL && of.path == NULL, "not zeroed");
  vt_outfile_abort(&of);
  st = vt_outfile_open(&of, tpath("dir/"), err, sizeof err);
  EXPECT(st == VT_EINVAL, "trailing slash: %d", st);

  /* rename over a directory fails at commit; the temp file goes away */
  mkdir(tpath("adir"), 0700);
  EXPECT(vt_outfile_open(&of, tpath("adir"), err, sizeof err) == VT_OK, "open adir: %s", err);
  st = vt_outfile_commit(&of, err, sizeof err);
  check_err("commit over dir", st, VT_EIO, err, tpath("adir"), "rename", (const char *)NULL);
  EXPECT(dir_entries() == 2, "temp left after failed commit");
  vt_outfile_abort(&of);

  /* a full disk is reported at commit (when /dev/full exists) */
  if (access("/dev/full", W_OK) == 0) {
    FILE *full = fopen("/dev/full", "w");
    vt_outfile so = {full, NULL, NULL, 0}; /* stdout-like: flush only */
    fputs("x", full);
    st = vt_outfile_commit(&so, err, sizeof err);
    EXPECT(st == VT_EIO && strstr(err, "No space"), "ENOSPC: %d '%s'", st, err);
    fclose(full);
  }

  /* stdout */
  EXPECT(vt_outfile_open(&of, "-", err, sizeof err) == VT_OK && of.fp == stdout, "stdout");
  vt_outfile_abort(&of);
  EXPECT(vt_outfile_open(&of, NULL, err, sizeof err) == VT_OK && of.fp == stdout, "stdout NULL");
  EXPECT(vt_outfile_commit(&of, err, sizeof err) == VT_OK, "commit stdout");

  /* vt_npy_write failures leave nothing behind */
  const int64_t sh[2] = {2, 3};
  const float f[6] = {0};
  st = vt_npy_write(nodir, VT_NPY_F32, 2, sh, f, err, sizeof err);
  EXPECT(st == VT_EIO && strstr(err, nodir) == err, "npy_write no dir: %d %s", st, err);
  EXPECT(vt_npy_write(tpath("w.npy"), VT_NPY_F32, 3, sh, f, err, sizeof err) == VT_EINVAL,
         "ndim 3");
  const int64_t neg[2] = {-1, 3};
  EXPECT(vt_npy_write(tpath("w.npy"), VT_NPY_F32, 2, neg, f, err, sizeof err) == VT_EINVAL,
         "negative shape");
  EXPECT(dir_entries() == 2, "stray files after failed writes");
  clear_dir();
}

/* ---- lattice sets ---------------------------------------------------------------------------- */

static const float good_E[15] = {0, 1, 2, -INFINITY, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
static const int64_t good_N[2] = {2, 3};
static const double good_A[9] = {0.5, -1, 2, -INFINITY, 0, 1, 3, 2, 1};
static const float good_S[3] = {1, 2, -INFINITY};
static const float good_F[3] = {-1, -2, -3};
static const int32_t good_R[3] = {2, 0, 1};

/* Writes the good set E.npy (5, 3) f4, N.npy i8, A.npy f8, S.npy, F.npy f4, R.npy i4. */
static void write_good_set(void) {
  write_f4("E.npy", "(5, 3)", good_E, 15);
  write_i8("N.npy", "(2,)", good_N, 2);
  write_f8("A.npy", "(3, 3)", good_A, 9);
  write_f4("S.npy", "(3,)", good_S, 3);
  write_f4("F.npy", "(3,)", good_F, 3);
  write_i4("R.npy", "(3,)", good_R, 3);
}

static int load_set(vt_lattice_file *lf, char *err, size_t errlen) {
  return vt_lattice_file_load(lf, tpath("E.npy"), tpath("N.npy"), tpath("A.npy"), tpath("S.npy"),
                              tpath("F.npy"), tpath("R.npy"), err, errlen);
}

/* Loads the set expecting a VT_EFORMAT naming file `bad` with the given words. */
#define EXPECT_LOAD_FAIL(ctx, bad, ...)                                                            \
  do {                                                                                             \
    vt_lattice_file lf_;                                                                           \
    char e_[512];                                                                                  \
    int st_ = load_set(&lf_, e_, sizeof e_);                                                       \
    check_err((ctx), st_, VT_EFORMAT, e_, tpath(bad), __VA_ARGS__, (const char *)NULL);            \
    EXPECT(lf_.offset == NULL && lf_.A == NULL && lf_.E.data == NULL, "%s: not zeroed", (ctx));    \
    vt_lattice_file_free(&lf_);                                                                    \
    write_good_set();                                                                              \
  } while (0)

/* Lattice-set validation: a good set loads; every inconsistency is named with its file. */
/* Reads the whole file at `path` into buf (at most n - 1 bytes, NUL-terminated); -1 on failure. */
static long read_back(const char *path, char *buf, size_t n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  size_t got = fread(buf, 1, n - 1, fp);
  fclose(fp);
  buf[got] = '\0';
  return (long)got;
}

/* -o never replaces what it writes to with a regular file when that is not one: a symbolic link
 * keeps being a link (its target is replaced, atomically), a dangling one creates its target, and
 * a FIFO (standing for /dev/null and other devices) is written in place. Regression test: -o
 * /dev/null used to turn /dev/null into a regular file. */
TEST(outfile_keeps_links_and_fifos) {
  REQUIRE(dir_ready(), "temporary directory");
  char err[512], got[64];
  struct stat sb;
  vt_outfile of;
  write_bytes(tpath("real.txt"), "old\n", 4);
  REQUIRE(symlink("real.txt", tpath("link.txt")) == 0, "symlink");
  EXPECT(vt_outfile_open(&of, tpath("link.txt"), err, sizeof err) == VT_OK, "open link: %s", err);
  fputs("new\n", of.fp);
  EXPECT(vt_outfile_commit(&of, err, sizeof err) == VT_OK, "commit link: %s", err);
  EXPECT(lstat(tpath("link.txt"), &sb) == 0 && S_ISLNK(sb.st_mode), "the link is still a link");
  EXPECT(read_back(tpath("real.txt"), got, sizeof got) == 4 && !strcmp(got, "new\n"),
         "its target holds the output: '%s'", got);

  REQUIRE(symlink("made.txt", tpath("dangling.txt")) == 0, "dangling symlink");
  EXPECT(vt_outfile_open(&of, tpath("dangling.txt"), err, sizeof err) == VT_OK, "open: %s", err);
  fputs("made\n", of.fp);
  EXPECT(vt_outfile_commit(&of, err, sizeof err) == VT_OK, "commit dangling: %s", err);
  EXPECT(lstat(tpath("dangling.txt"), &sb) == 0 && S_ISLNK(sb.st_mode), "still a link");
  EXPECT(read_back(tpath("made.txt"), got, sizeof got) == 5, "the target was created");

  const char *fifo = tpath("out.fifo");
  REQUIRE(mkfifo(fifo, 0600) == 0, "mkfifo");
  pid_t pid = fork();
  if (pid == 0) { /* the reader: copies what comes through the FIFO into a file */
    FILE *in = fopen(fifo, "rb"), *out = fopen(tpath("fifo.got"), "wb");
    int c;
    while (in && out && (c = fgetc(in)) != EOF) fputc(c, out);
    if (out) fclose(out);
    _exit(0);
  }
  EXPECT(vt_outfile_open(&of, fifo, err, sizeof err) == VT_OK, "open fifo: %s", err);
  if (of.fp) fputs("through\n", of.fp);
  EXPECT(vt_outfile_commit(&of, err, sizeof err) == VT_OK, "commit fifo: %s", err);
  waitpid(pid, NULL, 0);
  EXPECT(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO is still a FIFO");
  EXPECT(read_back(tpath("fifo.got"), got, sizeof got) == 8 && !strcmp(got, "through\n"),
         "written through it: '%s'", got);
  clear_dir();
}

TEST(lattice_set) {
  REQUIRE(dir_ready(), "temporary directory");
  char err[512];
  vt_lattice_file lf;
  write_good_set();
  int st = load_set(&lf, err, sizeof err);
  EXPECT(st == VT_OK, "good set: %s", err);
  if (st == VT_OK) {
    EXPECT(lf.L == 3 && lf.n_sent == 2 && lf.n_rows == 5 && lf.E.dtype == VT_NPY_F32, "sizes");
    EXPECT(lf.offset[0] == 0 && lf.offset[1] == 2 && lf.offset[2] == 5, "offsets");
    EXPECT(vt_lattice_file_len(&lf, 0) == 2 && vt_lattice_file_len(&lf, 1) == 3, "lens");
    EXPECT(memcmp(lf.A, good_A, sizeof good_A) == 0, "A");
    for (int y = 0; y < 3; y++)
      EXPECT(lf.S[y] == good_S[y] && lf.F[y] == good_F[y] && lf.R[y] == good_R[y], "S F R");
    const float *r1 = vt_lattice_file_rows(&lf, 1);
    EXPECT(r1[0] == good_E[6], "rows(1)");
    double d[9];
    vt_lattice_file_copy(&lf, 1, d);
    for (int i = 0; i < 9; i++) EXPECT(d[i] == good_E[6 + i], "copy %d", i);
    vt_lattice_file_copy(&lf, 0, d);
    EXPECT(d[3] == -INFINITY, "copy -inf");
  }
  vt_lattice_file_free(&lf);
  vt_lattice_file_free(&lf);

  /* optional files absent; E float64 and N int32 */
  double e8[15];
  for (int i = 0; i < 15; i++) e8[i] = good_E[i];
  write_f8("E.npy", "(5, 3)", e8, 15);
  write_i4("N.npy", "(3,)", (const int32_t[]){5, 0, 0}, 3);
  st = vt_lattice_file_load(&lf, tpath("E.npy"), tpath("N.npy"), tpath("A.npy"), NULL, NULL, NULL,
                            err, sizeof err);
  EXPECT(st == VT_OK && lf.S == NULL && lf.F == NULL && lf.R == NULL && lf.n_sent == 3,
         "minimal set: %s", err);
  if (st == VT_OK) {
    const double *r0 = vt_lattice_file_rows(&lf, 0);
    EXPECT(r0[14] == 14 && vt_lattice_file_len(&lf, 2) == 0, "f64 rows");
  }
  vt_lattice_file_free(&lf);

  /* E with 0 rows: N empty or all zero */
  write_f4("E.npy", "(0, 3)", NULL, 0);
  write_i8("N.npy", "(0,)", NULL, 0);
  st = load_set(&lf, err, sizeof err);
  EXPECT(st == VT_OK && lf.n_rows == 0 && lf.n_sent == 0 && lf.offset[0] == 0, "0 rows: %s", err);
  vt_lattice_file_free(&lf);
  write_i8("N.npy", "(2,)", (const int64_t[]){0, 0}, 2);
  st = load_set(&lf, err, sizeof err);
  EXPECT(st == VT_OK && lf.n_sent == 2 && vt_lattice_file_len(&lf, 1) == 0, "0 rows 2: %s", err);
  vt_lattice_file_free(&lf);
  write_good_set();

  /* the bad-input cases */
  write_npy(tpath("E.npy"), "{'descr': '<f4', 'fortran_order': True, 'shape': (5, 3), }", good_E,
            sizeof good_E);
  EXPECT_LOAD_FAIL("fortran", "E.npy", "Fortran order");
  write_npy(tpath("A.npy"), "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 3), }", good_A,
            sizeof good_A);
  EXPECT_LOAD_FAIL("bigendian", "A.npy", "big-endian");
  write_npy(tpath("E.npy"), "{'descr': '<i2', 'fortran_order': False, 'shape': (5, 3), }", good_E,
            30);
  EXPECT_LOAD_FAIL("wrongdtype E i2", "E.npy", "dtype");
  write_i4("E.npy", "(5, 3)", (const int32_t *)(const void *)good_E, 15);
  EXPECT_LOAD_FAIL("wrongdtype E i4", "E.npy", "dtype int32", "float32 or float64");
  write_f4("N.npy", "(2,)", (const float[]){2, 3}, 2);
  EXPECT_LOAD_FAIL("wrongdtype N", "N.npy", "dtype float32", "int32 or int64");
  write_f4("R.npy", "(3,)", (const float[]){2, 0, 1}, 3);
  EXPECT_LOAD_FAIL("wrongdtype R", "R.npy", "dtype float32");
  write_i4("S.npy", "(3,)", good_R, 3);
  EXPECT_LOAD_FAIL("wrongdtype S", "S.npy", "dtype int32");
  write_f8("A.npy", "(3, 4)", (const double[12]){0}, 12);
  EXPECT_LOAD_FAIL("wrongshape_A", "A.npy", "expected shape (3, 3)", "got (3, 4)");
  write_f8("A.npy", "(9,)", good_A, 9);
  EXPECT_LOAD_FAIL("wrongshape_A 1-D", "A.npy", "2-D", "shape (9,)");
  write_f4("E.npy", "(15,)", good_E, 15);
  EXPECT_LOAD_FAIL("wrongshape_E", "E.npy", "expected a 2-D array", "got shape (15,)");
  write_f4("E.npy", "()", good_E, 1);
  EXPECT_LOAD_FAIL("wrongshape_E scalar", "E.npy", "2-D", "()");
  write_f4("E.npy", "(5, 0)", NULL, 0);
  EXPECT_LOAD_FAIL("0 labels", "E.npy", "labels");
  write_i8("N.npy", "(2, 1)", good_N, 2);
  EXPECT_LOAD_FAIL("wrongshape N", "N.npy", "1-D");
  write_f4("S.npy", "(4,)", good_E, 4);
  EXPECT_LOAD_FAIL("wrongshape S", "S.npy", "expected shape (3,)", "got (4,)");
  write_f4("F.npy", "(1, 3)", good_F, 3);
  EXPECT_LOAD_FAIL("wrongshape F", "F.npy", "1-D");
  write_i4("R.npy", "(2,)", good_R, 2);
  EXPECT_LOAD_FAIL("wrongshape R", "R.npy", "expected shape (3,)");
  write_i8("N.npy", "(2,)", (const int64_t[]){2, 4}, 2);
  EXPECT_LOAD_FAIL("lengths_mismatch", "N.npy", "sum to 6", "5 rows", "E.npy");
  write_i8("N.npy", "(2,)", (const int64_t[]){2, 2}, 2);
  EXPECT_LOAD_FAIL("lengths_mismatch short", "N.npy", "sum to 4", "5 rows");
  write_i8("N.npy", "(3,)", (const int64_t[]){INT64_MAX / 2, INT64_MAX / 2, 5}, 3);
  EXPECT_LOAD_FAIL("huge length", "N.npy", "length [0]", "too large");
  write_i8("N.npy", "(3,)", (const int64_t[]){4, 2, -1}, 3);
  EXPECT_LOAD_FAIL("negative_length", "N.npy", "length [2] is negative (-1)");
  write_f4("E.npy", "(5, 3)", good_E, 14);
  EXPECT_LOAD_FAIL("truncated_data", "E.npy", "truncated data", "expected 60", "has 56");
  write_bytes(tpath("N.npy"), "\x93NUMPY\x01\x00\x76\x00{'descr", 17);
  EXPECT_LOAD_FAIL("truncated_header", "N.npy", "truncated header");
  write_bytes(tpath("A.npy"), "\x89PNG\r\n\x1a\n", 8);
  EXPECT_LOAD_FAIL("badmagic", "A.npy", "bad magic");
  write_npy_raw(tpath("E.npy"), 7, 0, "{}", NULL, 0);
  EXPECT_LOAD_FAIL("badversion", "E.npy", "version");
  write_bytes(tpath("S.npy"), "", 0);
  EXPECT_LOAD_FAIL("empty_file", "S.npy", "empty");

  float e[15];
  memcpy(e, good_E, sizeof e);
  e[13] = NAN;
  write_f4("E.npy", "(5, 3)", e, 15);
  EXPECT_LOAD_FAIL("nan_E", "E.npy", "element [4, 1] is NaN");
  e[13] = INFINITY;
  write_f4("E.npy", "(5, 3)", e, 15);
  EXPECT_LOAD_FAIL("posinf_E", "E.npy", "element [4, 1] is +inf");
  memcpy(e8, good_A, sizeof good_A);
  e8[5] = INFINITY;
  write_f8("A.npy", "(3, 3)", e8, 9);
  EXPECT_LOAD_FAIL("posinf_A", "A.npy", "element [1, 2] is +inf");
  e8[5] = NAN;
  write_f8("A.npy", "(3, 3)", e8, 9);
  EXPECT_LOAD_FAIL("nan_A", "A.npy", "element [1, 2] is NaN");
  write_f4("S.npy", "(3,)", (const float[]){0, NAN, 0}, 3);
  EXPECT_LOAD_FAIL("nan_S", "S.npy", "element [1] is NaN");
  write_f8("F.npy", "(3,)", (const double[]){INFINITY, 0, 0}, 3);
  EXPECT_LOAD_FAIL("posinf_F", "F.npy", "element [0] is +inf");
  write_i4("R.npy", "(3,)", (const int32_t[]){2, 0, 2}, 3);
  EXPECT_LOAD_FAIL("rank_not_permutation", "R.npy", "element [2] = 2 repeats element [0]");
  write_i8("R.npy", "(3,)", (const int64_t[]){0, 3, 1}, 3);
  EXPECT_LOAD_FAIL("rank_out_of_range", "R.npy", "element [1] = 3 is out of range 0..2");
  write_i4("R.npy", "(3,)", (const int32_t[]){0, -1, 1}, 3);
  EXPECT_LOAD_FAIL("rank negative", "R.npy", "out of range");
  unlink(tpath("F.npy"));
  st = load_set(&lf, err, sizeof err);
  check_err("missing_file", st, VT_EIO, err, tpath("F.npy"), "cannot open", (const char *)NULL);
  vt_lattice_file_free(&lf);
  write_good_set();

  /* a NaN at the very end of a large E, past the first scan chunk */
  int64_t rows = 3000;
  float *big = calloc((size_t)rows * 3, sizeof *big);
  big[rows * 3 - 1] = NAN;
  char shape[32];
  snprintf(shape, sizeof shape, "(%lld, 3)", (long long)rows);
  write_f4("E.npy", shape, big, (size_t)rows * 3);
  write_i8("N.npy", "(1,)", (const int64_t[]){rows}, 1);
  EXPECT_LOAD_FAIL("nan_E at end", "E.npy", "element [2999, 2] is NaN");
  free(big);
  clear_dir();
}

/* ---- releasing pages behind a scan --------------------------------------------------------- */

/* Resident pages of this process, from /proc/self/statm (-1 when unreadable). */
static long resident_pages(void) {
  long size = 0, res = -1;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &res) != 2) res = -1;
  fclose(f);
  return res;
}

/* vt_npy_release drops the pages of a mapped array from resident memory and leaves the data
 * readable; the lattice loader's validation scan of a large E leaves it non-resident. */
TEST(release) {
  REQUIRE(dir_ready(), "temporary directory");
  const int64_t n = (int64_t)8 << 20; /* 32 MB of float32 */
  const long page = sysconf(_SC_PAGESIZE), need = (24L << 20) / page;
  float *v = malloc((size_t)n * sizeof *v);
  EXPECT(v != NULL, "malloc");
  if (!v) return;
  for (int64_t i = 0; i < n; i++) v[i] = (float)(i % 1000);
  write_f4("E.npy", "(2097152, 4)", v, (size_t)n);
  free(v);
  vt_npy x;
  char err[512];
  EXPECT(vt_npy_open(&x, tpath("E.npy"), err, sizeof err) == VT_OK, "open: %s", err);
  long r0 = resident_pages();
  if (r0 < 0) {
    printf("test_npy: /proc/self/statm unreadable, release checks skipped\n");
    vt_npy_close(&x);
    clear_dir();
    return;
  }
  double sum = 0;
  for (int64_t i = 0; i < n; i += 256) sum += ((const float *)x.data)[i];
  long r1 = resident_pages();
  EXPECT(r1 - r0 >= need, "touching 32 MB made only %ld pages resident", r1 - r0);
  vt_npy_release(&x, 0, n);
  long r2 = resident_pages();
  EXPECT(r1 - r2 >= need, "release dropped only %ld of %ld pages", r1 - r2, r1 - r0);
  double again = 0;
  int same = 1;
  for (int64_t i = 0; i < n; i += 256) {
    again += ((const float *)x.data)[i];
    same &= ((const float *)x.data)[i] == (float)(i % 1000);
  }
  EXPECT(same && again == sum, "data changed after release");
  vt_npy_release(&x, 5, 0); /* empty range: no-op */
  vt_npy_close(&x);

  /* The loader validates every element of E, and must not leave it resident. */
  write_i8("N.npy", "(1,)", (const int64_t[]){n / 4}, 1);
  write_f8("A.npy", "(4, 4)", (const double[16]){0}, 16);
  vt_lattice_file lf;
  long l0 = resident_pages();
  int st = vt_lattice_file_load(&lf, tpath("E.npy"), tpath("N.npy"), tpath("A.npy"), NULL, NULL,
                                NULL, err, sizeof err);
  EXPECT(st == VT_OK, "load: %s", err);
  long l1 = resident_pages();
  EXPECT(l1 - l0 < need / 3, "loading left %ld pages resident (E is %ld pages)", l1 - l0,
         (long)(n * 4 / page));
  if (st == VT_OK) vt_lattice_file_free(&lf);
  clear_dir();
}

TEST_MAIN(CASE(roundtrip), CASE(versions_and_headers), CASE(fifo_read_into_memory), CASE(malformed),
          CASE(outfile), CASE(outfile_keeps_links_and_fifos), CASE(lattice_set), CASE(release))
