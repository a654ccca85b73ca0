/* io/outfile.c: atomic output files (temp file in the target's directory, rename on commit). */
#define _POSIX_C_SOURCE 200809L

#include "outfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

void vt_io_errorf(char *err, size_t errlen, const char *path, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  int n = snprintf(err, errlen, "%s: ", path ? path : "-");
  if (n >= 0 && (size_t)n < errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  err[errlen - 1] = '\0';
  for (char *p = err; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
}

static int is_stdout(const char *path) { return !path || strcmp(path, "-") == 0; }

int vt_outfile_open(vt_outfile *of, const char *path, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  int fd = -1;
  memset(of, 0, sizeof *of);
  if (err && errlen) err[0] = '\0';
  if (is_stdout(path)) {
    of->fp = stdout;
    return VT_OK;
  }
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* keeps the '/' */
  if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
    vt_io_errorf(err, errlen, path, "not a file name");
    st = VT_EINVAL;
    goto fail;
  }
  of->path = strdup(path);
  of->tmp = malloc(dirlen + strlen(base) + sizeof(".") + sizeof(".tmp.XXXXXX"));
  if (!of->path || !of->tmp) {
    vt_io_errorf(err, errlen, path, "out of memory");
    goto fail;
  }
  memcpy(of->tmp, path, dirlen);
  sprintf(of->tmp + dirlen, ".%s.tmp.XXXXXX", base);
  fd = mkstemp(of->tmp);
  if (fd < 0) {
    vt_io_errorf(err, errlen, path, "cannot create temp file: %s", strerror(errno));
    free(of->tmp); /* nothing was created */
    of->tmp = NULL;
    st = VT_EIO;
    goto fail;
  }
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(of->fp = fdopen(fd, "wb"))) {
    vt_io_errorf(err, errlen, path, "cannot set up temp file %s: %s", of->tmp, strerror(errno));
    st = VT_EIO;
    goto fail;
  }
  return VT_OK;
fail:
  if (fd >= 0 && !of->fp) close(fd);
  vt_outfile_abort(of);
  return st;
}

int vt_outfile_commit(vt_outfile *of, char *err, size_t errlen) {
  int st = VT_EIO;
  int e = 0;
  if (err && errlen) err[0] = '\0';
  if (!of->fp) {
    vt_io_errorf(err, errlen, of->path, "output file is not open");
    return VT_EINVAL;
  }
  if (!of->tmp) { /* stdout */
    errno = 0;
    if (fflush(of->fp) != 0 || ferror(of->fp)) {
      vt_io_errorf(err, errlen, "-", "write failed: %s", errno ? strerror(errno) : "I/O error");
      of->fp = NULL;
      return VT_EIO;
    }
    of->fp = NULL;
    return VT_OK;
  }
  errno = 0;
  if (fflush(of->fp) != 0 || ferror(of->fp)) e = errno ? errno : EIO;
  errno = 0;
  if (fclose(of->fp) != 0 && !e) e = errno ? errno : EIO;
  of->fp = NULL;
  if (e) {
    vt_io_errorf(err, errlen, of->path, "write failed: %s", strerror(e));
    goto fail;
  }
  if (rename(of->tmp, of->path) != 0) {
    vt_io_errorf(err, errlen, of->path, "cannot rename temp file into place: %s",
                 strerror(errno));
    goto fail;
  }
  free(of->tmp);
  free(of->path);
  memset(of, 0, sizeof *of);
  return VT_OK;
fail:
  vt_outfile_abort(of);
  return st;
}

void vt_outfile_abort(vt_outfile *of) {
  if (!of) return;
  if (!of->tmp) { /* stdout, or nothing open */
    free(of->path);
    memset(of, 0, sizeof *of);
    return;
  }
  if (of->fp) fclose(of->fp);
  unlink(of->tmp);
  free(of->tmp);
  free(of->path);
  memset(of, 0, sizeof *of);
}
