/* io/readall.c: a whole file, or the rest of a stream, read into memory (readall.h). */
#define _POSIX_C_SOURCE 200809L /* fileno, ftello */
#include "io/readall.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/errmsg.h"
#include "io/outfile.h"

/* Read in blocks of at least this many bytes; the buffer doubles from 1 MiB, up to 1 TiB. */
#define READ_BLOCK ((size_t)65536)
#define READ_FIRST ((size_t)1 << 20)
#define READ_MAX ((size_t)1 << 40)

vt_status vt_read_stream(FILE *f, const char *name, size_t max_bytes, char **buf_out,
                         size_t *len_out, char *err, size_t errlen) {
  vt_status st = VT_EIO;
  size_t len = 0, cap = 0;
  char *buf = NULL;
  *buf_out = NULL;
  *len_out = 0;
  struct stat sb; /* a regular file: room for the rest of it at once, so nothing is copied again */
  const off_t at = ftello(f);
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && at >= 0 && sb.st_size >= at &&
      (uint64_t)(sb.st_size - at) < READ_MAX) {
    cap = (size_t)(sb.st_size - at) + READ_BLOCK + 1;
    if (!(buf = malloc(cap))) cap = 0;
  }
  for (;;) {
    if (cap - len < READ_BLOCK) {
      char *nb = cap < READ_MAX ? realloc(buf, cap = cap ? 2 * cap : READ_FIRST) : NULL;
      if (!nb) {
        st = VT_ENOMEM;
        vt_errorf(err, errlen, name, "out of memory");
        goto fail;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
    if (max_bytes && len > max_bytes) {
      st = VT_EFORMAT;
      vt_errorf(err, errlen, name, "larger than %zu bytes", max_bytes);
      goto fail;
    }
  }
  if (ferror(f)) {
    vt_errorf(err, errlen, name, "read error: %s", strerror(errno));
    goto fail;
  }
  buf[len] = '\0';
  *buf_out = buf;
  *len_out = len;
  return VT_OK;
fail:
  free(buf);
  return st;
}

vt_status vt_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, char *err,
                       size_t errlen) {
  *buf = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    vt_errorf(err, errlen, path, "cannot open: %s", strerror(errno));
    return VT_EIO;
  }
  vt_status st = vt_read_stream(f, path, max_bytes, buf, len, err, errlen);
  fclose(f);
  return st;
}
