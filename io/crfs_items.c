/* io/crfs_items.c: the CRFsuite item file reader (see crfs_items.h). */
#define _POSIX_C_SOURCE 200809L
#include "io/crfs_items.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/errmsg.h"
#include "io/filemap.h"
#include "io/outfile.h"

#define READ_CHUNK (1 << 16)
#define PAGE 4096

struct vt_items_map {
  char *p;
  size_t len;
  atomic_int refs; /* the reader's and each batch's */
};

/* Lets go of one hold on map m; the last unmaps it. NULL is a no-op. */
static void map_release(vt_items_map *m) {
  if (!m || atomic_fetch_sub(&m->refs, 1) != 1) return;
  munmap(m->p, m->len);
  free(m);
}

/* The plain regular file open at fd, of `size` bytes, mapped, or NULL (io/filemap.h). */
static vt_items_map *map_plain(int fd, off_t size) {
  vt_items_map *m = malloc(sizeof *m);
  char *p = m ? vt_filemap_plain(fd, (int64_t)size) : NULL;
  if (!p) {
    free(m);
    return NULL;
  }
  m->p = p;
  m->len = (size_t)size;
  atomic_init(&m->refs, 1);
  return m;
}

struct vt_items {
  gzFile gz;         /* NULL: memory (vt_items_open_mem) or a mapped file; buf read only */
  vt_items_map *map; /* a mapped file: buf is its bytes */
  size_t dropped;    /* a mapped file: its pages before this offset are dropped */
  const char *name;
  /* Reading a file, buf is the text of the batch being read while vt_items_read runs (the
   * file is read into it, its lines stay where they were read), and between batches the bytes
   * read past the last one. */
  char *buf;
  size_t start, end, cap; /* unread bytes: buf[start, end) */
  size_t target;          /* the size of the batch being read */
  int eof;
  uint64_t lineno; /* lines consumed */
  int64_t size, got;
  size_t max_line;
  int32_t max_items;
};

/* Sets up reader r over all of its input, `len` bytes at data (memory, or a mapped file), whose
 * first line follows `first_line` lines; limits as vt_items_open. It is at its end (eof) from the
 * start: next_line only scans buf, never moves or grows it. */
static void all_there(vt_items *r, const char *name, const char *data, size_t len,
                      uint64_t first_line, int32_t max_line, int32_t max_items) {
  r->buf = (char *)(uintptr_t)data;
  r->end = r->cap = len;
  r->eof = 1;
  r->name = name;
  r->lineno = first_line;
  r->size = r->got = (int64_t)len;
  r->max_line = max_line > 0 ? (size_t)max_line : (size_t)1 << 20;
  r->max_items = max_items > 0 ? max_items : 10000;
}

vt_status vt_items_open(vt_items **out, const char *path, int32_t max_line, int32_t max_items,
                        char *err, size_t errlen) {
  *out = NULL;
  int is_stdin = !path || !strcmp(path, "-");
  const char *name = is_stdin ? "-" : path;
  int fd = is_stdin ? dup(0) : open(path, O_RDONLY);
  if (fd < 0) {
    vt_errorf(err, errlen, name, "cannot open: %s", strerror(errno));
    return VT_EIO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) st.st_mode = 0;
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    vt_errorf(err, errlen, name, "is a directory");
    return VT_EIO;
  }
  vt_items *r = calloc(1, sizeof *r);
  if (r && !is_stdin && S_ISREG(st.st_mode) && (r->map = map_plain(fd, st.st_size))) {
    close(fd);
    all_there(r, name, r->map->p, r->map->len, 0, max_line, max_items);
    *out = r;
    return VT_OK;
  }
  if (r) r->buf = malloc(READ_CHUNK);
  if (!r || !r->buf || !(r->gz = gzdopen(fd, "rb"))) {
    close(fd);
    if (r) free(r->buf); /* no gz yet: vt_items_close would take buf for borrowed memory */
    free(r);
    vt_errorf(err, errlen, name, "out of memory");
    return VT_ENOMEM;
  }
  gzbuffer(r->gz, READ_CHUNK / 4); /* reads of READ_CHUNK or more skip its buffer */
  r->cap = READ_CHUNK;
  r->name = name;
  r->size = S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
  r->max_line = max_line > 0 ? (size_t)max_line : (size_t)1 << 20;
  r->max_items = max_items > 0 ? max_items : 10000;
  *out = r;
  return VT_OK;
}

vt_status vt_items_open_mem(vt_items **out, const char *name, const char *data, size_t len,
                            uint64_t first_line, int32_t max_line, int32_t max_items, char *err,
                            size_t errlen) {
  vt_items *r = calloc(1, sizeof *r);
  *out = NULL;
  if (!name) name = "-";
  if (!r) {
    vt_errorf(err, errlen, name, "out of memory");
    return VT_ENOMEM;
  }
  all_there(r, name, data ? data : "", len, first_line, max_line, max_items);
  *out = r;
  return VT_OK;
}

void vt_items_close(vt_items *r) {
  if (!r) return;
  if (r->gz) {
    gzclose(r->gz);
    free(r->buf);
  }
  map_release(r->map);
  free(r);
}

void vt_items_batch_free(vt_items_batch *b) {
  map_release(b->map);
  free(b->text);
  free(b->n_items);
  free(b->line0);
  free(b->lens);
  free(b->at);
  memset(b, 0, sizeof *b);
}

int64_t vt_items_offset(const vt_items *r, int64_t *size) {
  *size = r->size;
  if (!r->gz) return (int64_t)r->start;
  z_off_t at = gzoffset(r->gz);
  return at < 0 ? r->got : (int64_t)at;
}

int64_t vt_items_where(const vt_items *r, uint64_t *lines) {
  *lines = r->lineno;
  if (!r->gz) return (int64_t)r->start;
  return r->got - (int64_t)(r->end - r->start);
}

vt_status vt_items_skip(vt_items *r, int64_t offset, uint64_t lines, char *err, size_t errlen) {
  if (r->map && !r->start && offset >= 0 && (uint64_t)offset <= r->map->len) {
    r->start = r->dropped = (size_t)offset;
    r->lineno = lines;
    return VT_OK;
  }
  /* gzdirect reads the head to tell plain from gzip: a plain file then seeks, not reads. */
  if (!r->gz || r->got || r->end || (gzdirect(r->gz), 0) ||
      gzseek(r->gz, (z_off_t)offset, SEEK_SET) != (z_off_t)offset) {
    vt_errorf(err, errlen, r->name, "cannot seek to byte %lld", (long long)offset);
    return VT_EIO;
  }
  r->got = offset;
  r->lineno = lines;
  return VT_OK;
}

/* Next line without its '\n': 1 with [*line, *len) valid until the next call, 0 at the end, or
 * a negative status. */
static int next_line(vt_items *r, const char **line, size_t *len, char *err, size_t errlen) {
  size_t scan = r->start;
  for (;;) {
    char *nl = memchr(r->buf + scan, '\n', r->end - scan);
    size_t have = (nl ? (size_t)(nl - r->buf) : r->end) - r->start;
    if (have > r->max_line) {
      vt_errorf(err, errlen, NULL, "%s:%llu: line longer than %zu bytes (--max-line-bytes)",
                r->name, (unsigned long long)r->lineno + 1, r->max_line);
      return VT_EFORMAT;
    }
    if (nl || (r->eof && r->end > r->start)) {
      *line = r->buf + r->start;
      *len = have;
      r->start += have + (nl ? 1 : 0);
      r->lineno++;
      return 1;
    }
    if (r->eof) return 0;
    scan = r->end;
    /* buf is the batch's text: the lines before start stay, and it grows. It is read up to a
     * page past the batch's size, then a page at a time, so that little is read past its end
     * (bytes batch_end copies). */
    const size_t want = r->end + PAGE < r->target ? r->target - r->end + PAGE : PAGE;
    if (r->cap - r->end < want) {
      size_t c = 2 * r->cap;
      while (c - r->end < want) c *= 2;
      char *nb = realloc(r->buf, c);
      if (!nb) {
        vt_errorf(err, errlen, r->name, "out of memory");
        return VT_ENOMEM;
      }
      r->buf = nb;
      r->cap = c;
    }
    int got = gzread(r->gz, r->buf + r->end, (unsigned)(want < INT_MAX ? want : INT_MAX));
    int zerr = Z_OK;
    const char *msg = got <= 0 ? gzerror(r->gz, &zerr) : "";
    /* A cut or damaged .gz ends with an error, not a short clean end: never items read so far. */
    if (got < 0 || (got == 0 && zerr != Z_OK && zerr != Z_STREAM_END)) {
      if (zerr == Z_ERRNO) {
        vt_errorf(err, errlen, r->name, "read error: %s", strerror(errno));
        return VT_EIO;
      }
      const char *fd_name = strstr(msg, ">: "); /* gzdopen names the file "<fd:N>" */
      vt_errorf(err, errlen, r->name, "corrupt or truncated gzip data: %s",
                !strncmp(msg, "<fd:", 4) && fd_name ? fd_name + 3 : msg);
      return VT_EFORMAT;
    }
    if (got == 0) r->eof = 1;
    r->end += (size_t)got;
    r->got += got;
  }
}

/* Notes item `s` (n bytes) as the batch's next, where it lies in r->buf (the batch's text, a
 * mapped file, memory). 0 or -1. */
static int item_put(const vt_items *r, vt_items_batch *b, const char *s, size_t n) {
  if (b->items >= b->cap_items) {
    const int64_t c = b->cap_items ? 2 * b->cap_items : 4096;
    size_t *l = realloc(b->lens, (size_t)c * sizeof *l);
    if (l) b->lens = l;
    size_t *a = l ? realloc(b->at, (size_t)c * sizeof *a) : NULL;
    if (!a) return -1;
    b->at = a;
    b->cap_items = c;
  }
  b->lens[b->items] = n;
  b->at[b->items] = (size_t)(s - r->buf);
  return 0;
}

/* Reading a file: the batch's text becomes the reader's buffer, starting with the bytes read past
 * the last batch (r->buf, kept in *stash). -1 when out of memory. */
static int batch_begin(vt_items *r, vt_items_batch *b, char **stash, size_t *stash_cap) {
  const size_t tail = r->end - r->start;
  if (b->cap < tail + 2 * READ_CHUNK) {
    free(b->text);
    b->cap = 0;
    if (!(b->text = malloc(tail + 2 * READ_CHUNK))) return -1;
    b->cap = tail + 2 * READ_CHUNK;
  }
  memcpy(b->text, r->buf + r->start, tail);
  *stash = r->buf;
  *stash_cap = r->cap;
  r->buf = b->text;
  r->cap = b->cap;
  r->start = 0;
  r->end = tail;
  return 0;
}

/* Reading a file: bytes [0, start) of the buffer are the batch's text, and the rest (read past
 * it) goes back to the stash, which becomes the reader's buffer again. -1 when out of memory. */
static int batch_end(vt_items *r, vt_items_batch *b, char *stash, size_t stash_cap) {
  const size_t tail = r->end - r->start;
  if (stash_cap < tail) {
    char *s = realloc(stash, tail);
    if (s) {
      stash = s;
      stash_cap = tail;
    }
  }
  const int bad = stash_cap < tail;
  if (!bad) memcpy(stash, r->buf + r->start, tail);
  b->text = r->buf;
  b->src = b->text;
  b->cap = r->cap;
  b->len = r->start;
  r->buf = stash;
  r->cap = stash_cap;
  r->start = 0;
  r->end = bad ? 0 : tail;
  return bad ? -1 : 0;
}

/* Starts sequence number b->n_seq at line `line0`; 0 or -1. */
static int seq_start(vt_items_batch *b, uint64_t line0) {
  if (b->n_seq == b->cap_seq) {
    int32_t c = b->cap_seq ? 2 * b->cap_seq : 256;
    int32_t *ni = realloc(b->n_items, (size_t)c * sizeof *ni);
    if (ni) b->n_items = ni;
    uint64_t *l0 = ni ? realloc(b->line0, (size_t)c * sizeof *l0) : NULL;
    if (!l0) return -1;
    b->line0 = l0;
    b->cap_seq = c;
  }
  b->n_items[b->n_seq] = 0;
  b->line0[b->n_seq++] = line0;
  return 0;
}

vt_status vt_items_read(vt_items *r, vt_items_batch *b, size_t max_bytes, char *err,
                        size_t errlen) {
  vt_status st = VT_OK;
  char *stash = NULL;
  size_t stash_cap = 0;
  map_release(b->map);
  b->map = NULL;
  if (r->map) r->dropped = vt_filemap_drop_behind(r->buf, r->dropped, r->start);
  if (!r->gz) { /* the items stay where they lie */
    b->src = r->buf;
    b->from = b->len = r->start;
    if ((b->map = r->map)) atomic_fetch_add(&b->map->refs, 1);
  } else {
    b->from = b->len = 0;
  }
  b->n_seq = 0;
  b->items = 0;
  b->file = r->name;
  r->target = max_bytes;
  int oom = r->gz && batch_begin(r, b, &stash, &stash_cap);
  for (int in_seq = 0; !oom;) {
    const char *line = NULL;
    size_t len = 0;
    int got = next_line(r, &line, &len, err, errlen);
    if (got <= 0) {
      st = (vt_status)got;
      break;
    }
    if (len == 0) { /* the end of a sequence (or of none) */
      in_seq = 0;
      if (r->start - b->from >= max_bytes) break;
      continue;
    }
    if (!in_seq && (oom = seq_start(b, r->lineno) != 0)) break;
    in_seq = 1;
    if (++b->n_items[b->n_seq - 1] > r->max_items) {
      vt_errorf(err, errlen, NULL, "%s:%llu: a sequence of more than %d items (--max-tokens)",
                r->name, (unsigned long long)r->lineno, r->max_items);
      st = VT_EFORMAT;
      break;
    }
    if ((oom = item_put(r, b, line, len) != 0)) break;
    b->items++;
  }
  if (stash && batch_end(r, b, stash, stash_cap)) oom = 1;
  if (!r->gz) b->len = r->start;
  if (oom) {
    vt_errorf(err, errlen, r->name, "out of memory");
    st = VT_ENOMEM;
  }
  return st;
}
