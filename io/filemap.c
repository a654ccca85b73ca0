/* io/filemap.c: a whole file mapped or read into memory (see filemap.h). */
#define _DEFAULT_SOURCE /* MADV_DONTNEED; implies _POSIX_C_SOURCE 200809L */
#include "io/filemap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc/prefault.h"
#include "core/errmsg.h"

/* Reads a whole non-mappable file (a pipe) into 64-byte aligned memory. */
static vt_status read_all(int fd, void **out, size_t *len) {
  size_t cap = 1 << 20, n = 0;
  char *buf = aligned_alloc(64, cap);
  if (!buf) return VT_ENOMEM;
  for (;;) {
    if (n == cap) {
      char *nb = aligned_alloc(64, cap * 2);
      if (!nb) {
        free(buf);
        return VT_ENOMEM;
      }
      memcpy(nb, buf, n);
      free(buf);
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      free(buf);
      return VT_EIO;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  *out = buf;
  *len = n;
  return VT_OK;
}

vt_status vt_filemap_open(vt_filemap *m, const char *path, char *err, size_t errlen) {
  vt_status st = VT_EIO;
  memset(m, 0, sizeof *m);
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    vt_errorf(err, errlen, path, "cannot open: %s", strerror(errno));
    return VT_EIO;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    vt_errorf(err, errlen, path, "cannot stat: %s", strerror(errno));
    goto done;
  }
  if (S_ISDIR(sb.st_mode)) {
    vt_errorf(err, errlen, path, "is a directory");
    goto done;
  }
  if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      m->p = p;
      m->len = (size_t)sb.st_size;
      st = VT_OK;
      goto done;
    }
  }
  st = read_all(fd, &m->p, &m->len);
  if (st != VT_OK)
    vt_errorf(err, errlen, path, "cannot read: %s",
              st == VT_EIO ? strerror(errno) : "out of memory");
  else
    m->heap = 1;
done:
  close(fd);
  return st;
}

void vt_filemap_drop(const vt_filemap *m, const void *p, size_t n) {
  if (m->heap || !m->p || !p || !n) return;
  (void)vt_mem_advise_pages(p, n, MADV_DONTNEED); /* clean pages of a file: dropped */
}

void vt_filemap_close(vt_filemap *m) {
  if (m->p) {
    if (m->heap)
      free(m->p);
    else
      munmap(m->p, m->len);
  }
  memset(m, 0, sizeof *m);
}

/* Whether the file open at fd starts with gzip's magic, 1f 8b. */
static int gzip_head(int fd) {
  unsigned char magic[2];
  return pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

int vt_file_is_plain(const char *path) {
  struct stat st;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const int plain = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !gzip_head(fd);
  close(fd);
  return plain;
}

char *vt_filemap_plain(int fd, int64_t size) {
  if (size <= 0 || (uint64_t)size > SIZE_MAX || gzip_head(fd)) return NULL;
  void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

#define DROP_LAG ((size_t)1 << 20)
#define DROP_STEP ((size_t)1 << 20)

size_t vt_filemap_drop_behind(char *p, size_t dropped, size_t at) {
  if (at < dropped || at - dropped < DROP_LAG + DROP_STEP) return dropped;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t from = dropped & ~(page - 1), to = (at - DROP_LAG) & ~(page - 1);
  return madvise(p + from, to - from, MADV_DONTNEED) ? dropped : to;
}
