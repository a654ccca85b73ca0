/* io/npy.c: the .npy reader (mmap, strict header parser) and writer (v1.0, atomic). */
#define _DEFAULT_SOURCE /* madvise(MADV_DONTNEED); implies _POSIX_C_SOURCE 200809L */

#include "io/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errmsg.h"
#include "io/outfile.h"

#define VT_NPY_MAGIC "\x93NUMPY"
#define VT_NPY_MAGIC_LEN 6
#define VT_NPY_ACCEPTED "expected <f4, <f8, <i4 or <i8"

static int host_is_le(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

size_t vt_npy_itemsize(vt_npy_dtype dtype) {
  return dtype == VT_NPY_F64 || dtype == VT_NPY_I64 ? 8 : 4;
}

const char *vt_npy_descr(vt_npy_dtype dtype) {
  switch (dtype) {
  case VT_NPY_F32: return "<f4";
  case VT_NPY_F64: return "<f8";
  case VT_NPY_I32: return "<i4";
  case VT_NPY_I64: return "<i8";
  }
  return "?";
}

/* ---- reading the file ------------------------------------------------------------------------ */

/* The raw bytes of a file: a read-only mapping (regular files) or a heap buffer (pipes). */
typedef struct vt_raw {
  const unsigned char *p;
  size_t n;
  void *map;
  size_t map_len;
  unsigned char *buf;
} vt_raw;

static void raw_free(vt_raw *raw) {
  if (raw->map) munmap(raw->map, raw->map_len);
  free(raw->buf);
  memset(raw, 0, sizeof *raw);
}

/* Reads all of `fd` (not a regular file) into raw->buf. */
static int raw_read_all(vt_raw *raw, int fd, const char *path, char *err, size_t errlen) {
  size_t cap = 1 << 16;
  size_t n = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) goto nomem;
  for (;;) {
    if (n == cap) {
      unsigned char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!nb) goto nomem;
      buf = nb;
      cap *= 2;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      vt_errorf(err, errlen, path, "cannot read: %s", strerror(errno));
      free(buf);
      return VT_EIO;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  raw->buf = buf;
  raw->p = buf;
  raw->n = n;
  return VT_OK;
nomem:
  free(buf);
  vt_errorf(err, errlen, path, "out of memory");
  return VT_ENOMEM;
}

static int raw_load(vt_raw *raw, const char *path, char *err, size_t errlen) {
  int st = VT_EIO;
  struct stat sb;
  memset(raw, 0, sizeof *raw);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    vt_errorf(err, errlen, path, "cannot open: %s", strerror(errno));
    goto fail;
  }
  if (fstat(fd, &sb) != 0) {
    vt_errorf(err, errlen, path, "cannot stat: %s", strerror(errno));
    goto fail;
  }
  if (S_ISDIR(sb.st_mode)) {
    vt_errorf(err, errlen, path, "cannot read: is a directory");
    goto fail;
  }
  if (!S_ISREG(sb.st_mode)) {
    st = raw_read_all(raw, fd, path, err, errlen);
    if (st != VT_OK) goto fail;
  } else if (sb.st_size > 0) {
    if ((uintmax_t)sb.st_size > SIZE_MAX) {
      vt_errorf(err, errlen, path, "file too large to map");
      goto fail;
    }
    raw->map_len = (size_t)sb.st_size;
    raw->map = mmap(NULL, raw->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (raw->map == MAP_FAILED) {
      raw->map = NULL;
      vt_errorf(err, errlen, path, "cannot map: %s", strerror(errno));
      goto fail;
    }
    raw->p = raw->map;
    raw->n = raw->map_len;
  }
  close(fd);
  return VT_OK;
fail:
  if (fd >= 0) close(fd);
  raw_free(raw);
  return st;
}

/* ---- the header dict ------------------------------------------------------------------------- */

typedef struct vt_hdr {
  const char *p, *end; /* parse cursor over the header text */
  const char *path;
  char *err;
  size_t errlen;
  char descr[32];
  int have_descr, have_fortran, have_shape;
  int fortran;
  int ndim; /* may exceed 2: only the first 2 dimensions are stored */
  int64_t shape[2];
} vt_hdr;

static void skip_ws(vt_hdr *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r')) h->p++;
}

static int peek(const vt_hdr *h) { return h->p < h->end ? (unsigned char)*h->p : -1; }

static int malformed(vt_hdr *h, const char *what) {
  vt_errorf(h->err, h->errlen, h->path, "malformed header: %s", what);
  return VT_EFORMAT;
}

/* Parses a quoted Python string without escapes into buf (truncated to bufsize-1 chars). */
static int parse_str(vt_hdr *h, char *buf, size_t bufsize) {
  int q = peek(h);
  size_t n = 0;
  if (q != '\'' && q != '"') return -1;
  h->p++;
  while (h->p < h->end && *h->p != q) {
    if (*h->p == '\\' || *h->p == '\n') return -1;
    if (n + 1 < bufsize) buf[n++] = *h->p;
    h->p++;
  }
  if (h->p >= h->end) return -1;
  h->p++;
  buf[n] = '\0';
  return 0;
}

/* Matches the identifier `word` (True, False) at the cursor. */
static int match_word(vt_hdr *h, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(h->end - h->p) < n || memcmp(h->p, word, n) != 0) return 0;
  if (h->p + n < h->end) {
    char c = h->p[n];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
      return 0;
  }
  h->p += n;
  return 1;
}

/* Parses one dimension: an integer token (optionally with Python 2's 'L' suffix). */
static int parse_dim(vt_hdr *h) {
  const char *tok = h->p;
  while (h->p < h->end && !strchr(",) \t\r\n", *h->p)) h->p++;
  int len = (int)(h->p - tok);
  if (len == 0) return malformed(h, "empty dimension in shape");
  if (len > 40) len = 40; /* for the messages */
  const char *q = tok;
  int neg = 0;
  if (*q == '+' || *q == '-') neg = *q++ == '-';
  const char *digits = q;
  int64_t v = 0;
  int overflow = 0;
  while (q < h->p && *q >= '0' && *q <= '9') {
    int d = *q++ - '0';
    if (v > (INT64_MAX - d) / 10)
      overflow = 1;
    else
      v = v * 10 + d;
  }
  if (q < h->p && (*q == 'L' || *q == 'l') && q + 1 == h->p) q++;
  if (q == digits || q != h->p) {
    vt_errorf(h->err, h->errlen, h->path, "non-integer dimension '%.*s' in shape", len, tok);
    return VT_EFORMAT;
  }
  if (neg && v != 0) {
    vt_errorf(h->err, h->errlen, h->path, "negative dimension %.*s in shape", len, tok);
    return VT_EFORMAT;
  }
  if (overflow) {
    vt_errorf(h->err, h->errlen, h->path, "dimension %.*s too large", len, tok);
    return VT_EFORMAT;
  }
  if (h->ndim < 2) h->shape[h->ndim] = v;
  h->ndim++;
  return VT_OK;
}

static int parse_shape(vt_hdr *h) {
  if (peek(h) != '(') return malformed(h, "shape is not a tuple");
  h->p++;
  skip_ws(h);
  if (peek(h) == ')') {
    h->p++;
    return VT_OK;
  }
  for (;;) {
    int st = parse_dim(h);
    if (st != VT_OK) return st;
    skip_ws(h);
    if (peek(h) == ',') {
      h->p++;
      skip_ws(h);
      if (peek(h) == ')') break;
    } else if (peek(h) == ')') {
      break;
    } else {
      return malformed(h, "expected ',' or ')' in shape");
    }
  }
  h->p++;
  return VT_OK;
}

static int parse_header(vt_hdr *h) {
  char key[32];
  int st;
  skip_ws(h);
  if (peek(h) != '{') return malformed(h, "not a dict");
  h->p++;
  for (;;) {
    skip_ws(h);
    if (peek(h) == '}') break;
    if (parse_str(h, key, sizeof key) != 0) return malformed(h, "expected a quoted key");
    skip_ws(h);
    if (peek(h) != ':') return malformed(h, "expected ':' after a key");
    h->p++;
    skip_ws(h);
    if (strcmp(key, "descr") == 0 && !h->have_descr) {
      if (peek(h) == '[') {
        vt_errorf(h->err, h->errlen, h->path,
                  "unsupported dtype: structured arrays are not supported (" VT_NPY_ACCEPTED ")");
        return VT_EFORMAT;
      }
      if (parse_str(h, h->descr, sizeof h->descr) != 0)
        return malformed(h, "'descr' is not a string");
      h->have_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0 && !h->have_fortran) {
      if (match_word(h, "True"))
        h->fortran = 1;
      else if (match_word(h, "False"))
        h->fortran = 0;
      else
        return malformed(h, "'fortran_order' is not True or False");
      h->have_fortran = 1;
    } else if (strcmp(key, "shape") == 0 && !h->have_shape) {
      if ((st = parse_shape(h)) != VT_OK) return st;
      h->have_shape = 1;
    } else {
      return malformed(h, "unknown or repeated key");
    }
    skip_ws(h);
    if (peek(h) == ',') {
      h->p++;
    } else if (peek(h) != '}') {
      return malformed(h, "expected ',' or '}' after a value");
    }
  }
  h->p++;
  skip_ws(h);
  if (h->p != h->end) return malformed(h, "text after the closing '}'");
  if (!h->have_descr) return malformed(h, "missing key 'descr'");
  if (!h->have_fortran) return malformed(h, "missing key 'fortran_order'");
  if (!h->have_shape) return malformed(h, "missing key 'shape'");
  return VT_OK;
}

static int parse_descr(const vt_hdr *h, vt_npy_dtype *out) {
  const char *d = h->descr;
  if (strlen(d) == 3 && (d[0] == '<' || d[0] == '=')) {
    if (strcmp(d + 1, "f4") == 0)
      *out = VT_NPY_F32;
    else if (strcmp(d + 1, "f8") == 0)
      *out = VT_NPY_F64;
    else if (strcmp(d + 1, "i4") == 0)
      *out = VT_NPY_I32;
    else if (strcmp(d + 1, "i8") == 0)
      *out = VT_NPY_I64;
    else
      goto unsupported;
    return VT_OK;
  }
  if (d[0] == '>') {
    vt_errorf(h->err, h->errlen, h->path,
              "big-endian dtype '%s' is not supported (" VT_NPY_ACCEPTED ")", d);
    return VT_EFORMAT;
  }
unsupported:
  vt_errorf(h->err, h->errlen, h->path, "unsupported dtype '%s' (" VT_NPY_ACCEPTED ")", d);
  return VT_EFORMAT;
}

/* ---- open / close ---------------------------------------------------------------------------- */

static int truncated_header(const char *path, char *err, size_t errlen, size_t need, size_t have) {
  vt_errorf(err, errlen, path, "truncated header: needs %zu bytes, file has %zu", need, have);
  return VT_EFORMAT;
}

int vt_npy_open(vt_npy *out, const char *path, char *err, size_t errlen) {
  int st = VT_EFORMAT;
  vt_raw raw;
  vt_hdr h;
  memset(out, 0, sizeof *out);
  memset(&raw, 0, sizeof raw);
  if (err && errlen) err[0] = '\0';
  if (!host_is_le()) {
    vt_errorf(err, errlen, path, "cannot read .npy files on a big-endian host");
    return VT_EUNSUPPORTED;
  }
  st = raw_load(&raw, path, err, errlen);
  if (st != VT_OK) goto fail;
  st = VT_EFORMAT;
  const unsigned char *p = raw.p;
  size_t n = raw.n;
  if (n == 0) {
    vt_errorf(err, errlen, path, "empty file (0 bytes), not a .npy file");
    goto fail;
  }
  size_t cmp = n < VT_NPY_MAGIC_LEN ? n : VT_NPY_MAGIC_LEN;
  if (memcmp(p, VT_NPY_MAGIC, cmp) != 0) {
    vt_errorf(err, errlen, path, "not a .npy file (bad magic)");
    goto fail;
  }
  if (n < VT_NPY_MAGIC_LEN + 2) {
    st = truncated_header(path, err, errlen, VT_NPY_MAGIC_LEN + 2, n);
    goto fail;
  }
  unsigned major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0) {
    vt_errorf(err, errlen, path, "unsupported .npy format version %u.%u (1.0, 2.0, 3.0 are)", major,
              minor);
    goto fail;
  }
  size_t lenbytes = major == 1 ? 2 : 4;
  if (n < 8 + lenbytes) {
    st = truncated_header(path, err, errlen, 8 + lenbytes, n);
    goto fail;
  }
  size_t hlen = (size_t)p[8] | (size_t)p[9] << 8;
  if (lenbytes == 4) hlen |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
  size_t off = 8 + lenbytes + hlen;
  if (n < off) {
    st = truncated_header(path, err, errlen, off, n);
    goto fail;
  }

  memset(&h, 0, sizeof h);
  h.p = (const char *)p + 8 + lenbytes;
  h.end = (const char *)p + off;
  h.path = path;
  h.err = err;
  h.errlen = errlen;
  if ((st = parse_header(&h)) != VT_OK) goto fail;
  if ((st = parse_descr(&h, &out->dtype)) != VT_OK) goto fail;
  st = VT_EFORMAT;
  if (h.fortran) {
    vt_errorf(err, errlen, path,
              "Fortran order (fortran_order: True) is not supported; "
              "save a C-order array (np.ascontiguousarray)");
    goto fail;
  }
  if (h.ndim > 2) {
    vt_errorf(err, errlen, path, "%d-D array: at most 2 dimensions are supported", h.ndim);
    goto fail;
  }
  out->ndim = h.ndim;
  out->count = 1;
  size_t item = vt_npy_itemsize(out->dtype);
  for (int d = 0; d < h.ndim; d++) {
    out->shape[d] = h.shape[d];
    if (h.shape[d] != 0 && out->count > INT64_MAX / (int64_t)item / h.shape[d]) {
      vt_errorf(err, errlen, path, "shape too large");
      goto fail;
    }
    out->count *= h.shape[d];
  }
  uint64_t need = (uint64_t)out->count * item;
  if (need > n - off) {
    vt_errorf(err, errlen, path, "truncated data: expected %" PRIu64 " bytes of data, file has %zu",
              need, n - off);
    goto fail;
  }
  const unsigned char *data = p + off;
  if (raw.buf || (uintptr_t)data % item != 0) {
    out->owned = malloc(need ? (size_t)need : 1);
    if (!out->owned) {
      vt_errorf(err, errlen, path, "out of memory");
      st = VT_ENOMEM;
      goto fail;
    }
    if (need) memcpy(out->owned, data, (size_t)need);
    out->data = out->owned;
    raw_free(&raw);
  } else {
    out->data = data;
    out->map = raw.map;
    out->map_len = raw.map_len;
  }
  return VT_OK;
fail:
  raw_free(&raw);
  vt_npy_close(out);
  return st;
}

void vt_npy_close(vt_npy *npy) {
  if (!npy) return;
  if (npy->map) munmap(npy->map, npy->map_len);
  free(npy->owned);
  memset(npy, 0, sizeof *npy);
}

void vt_npy_release(const vt_npy *npy, int64_t first, int64_t count) {
  if (!npy || !npy->map || npy->owned || count <= 0) return;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  size_t item = vt_npy_itemsize(npy->dtype);
  uintptr_t lo = (uintptr_t)npy->data + (size_t)first * item;
  uintptr_t hi = lo + (size_t)count * item;
  lo &= ~(page - 1); /* from the page holding element `first`, */
  hi &= ~(page - 1); /* up to the page holding the first element after the range */
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void vt_npy_release_inside(const vt_npy *npy, int64_t first, int64_t count) {
  if (!npy || !npy->map || npy->owned || count <= 0) return;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  size_t item = vt_npy_itemsize(npy->dtype);
  uintptr_t lo = (uintptr_t)npy->data + (size_t)first * item;
  uintptr_t hi = lo + (size_t)count * item;
  lo = (lo + page - 1) & ~(page - 1); /* the first page that starts inside the range */
  hi &= ~(page - 1);                  /* up to the last page that ends inside it */
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

double vt_npy_get_f(const vt_npy *npy, int64_t i) {
  switch (npy->dtype) {
  case VT_NPY_F32: return ((const float *)npy->data)[i];
  case VT_NPY_F64: return ((const double *)npy->data)[i];
  case VT_NPY_I32: return ((const int32_t *)npy->data)[i];
  case VT_NPY_I64: return (double)((const int64_t *)npy->data)[i];
  }
  return NAN;
}

int64_t vt_npy_get_i(const vt_npy *npy, int64_t i) {
  double v;
  switch (npy->dtype) {
  case VT_NPY_I32: return ((const int32_t *)npy->data)[i];
  case VT_NPY_I64: return ((const int64_t *)npy->data)[i];
  case VT_NPY_F32: v = ((const float *)npy->data)[i]; break;
  case VT_NPY_F64: v = ((const double *)npy->data)[i]; break;
  default: return 0;
  }
  /* -2^63 is exact in double; 2^63 is the first value out of range */
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return 0;
  return (int64_t)v;
}

static char *shape_fmt(int ndim, const int64_t *shape, char *buf, size_t buflen) {
  if (ndim == 0)
    snprintf(buf, buflen, "()");
  else if (ndim == 1)
    snprintf(buf, buflen, "(%" PRId64 ",)", shape[0]);
  else
    snprintf(buf, buflen, "(%" PRId64 ", %" PRId64 ")", shape[0], shape[1]);
  return buf;
}

char *vt_npy_shape_str(const vt_npy *npy, char *buf, size_t buflen) {
  return shape_fmt(npy->ndim, npy->shape, buf, buflen);
}

/* ---- writing --------------------------------------------------------------------------------- */

size_t vt_npy_header(vt_npy_dtype dtype, int ndim, const int64_t *shape, char *buf, size_t cap) {
  char shp[64];
  char *hdr = buf + 10;
  int len = snprintf(hdr, cap - 10, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     vt_npy_descr(dtype), shape_fmt(ndim, shape, shp, sizeof shp));
  size_t total = (10 + (size_t)len + 1 + 63) / 64 * 64; /* + 1 for the '\n' */
  size_t hlen = total - 10;
  memset(hdr + len, ' ', hlen - 1 - (size_t)len);
  hdr[hlen - 1] = '\n';
  memcpy(buf, VT_NPY_MAGIC, VT_NPY_MAGIC_LEN);
  buf[6] = 1;
  buf[7] = 0;
  buf[8] = (char)(hlen & 0xff);
  buf[9] = (char)(hlen >> 8);
  return total;
}

int vt_npy_write(const char *path, vt_npy_dtype dtype, int ndim, const int64_t *shape,
                 const void *data, char *err, size_t errlen) {
  int st = VT_EINVAL;
  vt_outfile of = {0};
  char hdr[256];
  if (err && errlen) err[0] = '\0';
  if (dtype != VT_NPY_F32 && dtype != VT_NPY_F64 && dtype != VT_NPY_I32 && dtype != VT_NPY_I64) {
    vt_errorf(err, errlen, path, "cannot write: unknown dtype");
    goto fail;
  }
  if (ndim < 0 || ndim > 2 || (ndim > 0 && !shape)) {
    vt_errorf(err, errlen, path, "cannot write: %d dimensions (0..2 are supported)", ndim);
    goto fail;
  }
  size_t item = vt_npy_itemsize(dtype);
  uint64_t count = 1;
  for (int d = 0; d < ndim; d++) {
    uint64_t max_count = (uint64_t)(SIZE_MAX / item);
    if (shape[d] < 0 || (shape[d] > 0 && count > max_count / (uint64_t)shape[d])) {
      vt_errorf(err, errlen, path, "cannot write: bad shape");
      goto fail;
    }
    count *= (uint64_t)shape[d];
  }
  size_t nbytes = (size_t)count * item;
  if (nbytes && !data) {
    vt_errorf(err, errlen, path, "cannot write: no data");
    goto fail;
  }
  size_t total = vt_npy_header(dtype, ndim, shape, hdr, sizeof hdr);
  st = vt_outfile_open(&of, path, err, errlen);
  if (st != VT_OK) goto fail;
  st = VT_EIO;
  errno = 0;
  if (fwrite(hdr, 1, total, of.fp) != total ||
      (nbytes && fwrite(data, 1, nbytes, of.fp) != nbytes)) {
    vt_errorf(err, errlen, path, "write failed: %s", errno ? strerror(errno) : "I/O error");
    goto fail;
  }
  return vt_outfile_commit(&of, err, errlen);
fail:
  vt_outfile_abort(&of);
  return st;
}
