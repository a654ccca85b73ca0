/* io/outfile.c: atomic output files (temp file in the target's directory, rename on commit). */
#define _XOPEN_SOURCE 700

#include "io/outfile.h"
#include "core/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The target of symbolic link `path` as a path usable from here (a relative target is taken from
 * the link's directory), heap-allocated; NULL when it cannot be read. */
static char *link_target(const char *path) {
  char buf[4096];
  ssize_t n = readlink(path, buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = '\0';
  const char *slash = strrchr(path, '/');
  size_t dirlen = buf[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
  char *out = malloc(dirlen + (size_t)n + 1);
  if (!out) return NULL;
  memcpy(out, path, dirlen);
  memcpy(out + dirlen, buf, (size_t)n + 1);
  return out;
}

static int is_stdout(const char *path) { return !path || strcmp(path, "-") == 0; }

int vt_outfile_probe(const char *path, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (is_stdout(path)) return VT_OK;
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    vt_errorf(err, errlen, path, "is a directory");
    return VT_EIO;
  }
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) return VT_OK; /* never open a FIFO twice */
  vt_outfile of;
  int st = vt_outfile_open(&of, path, err, errlen);
  if (st == VT_OK) vt_outfile_abort(&of);
  return st;
}

int vt_outfile_open(vt_outfile *of, const char *path, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  int fd = -1;
  memset(of, 0, sizeof *of);
  if (err && errlen) err[0] = '\0';
  if (is_stdout(path)) {
    of->fp = stdout;
    return VT_OK;
  }
  struct stat sb;
  char *resolved = NULL;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
    /* A device or FIFO: write in place. (A directory fails at commit, as rename says.) */
    of->path = strdup(path);
    if (!of->path) {
      vt_errorf(err, errlen, path, "out of memory");
      goto fail;
    }
    if (!(of->fp = fopen(path, "wb"))) {
      vt_errorf(err, errlen, path, "cannot open: %s", strerror(errno));
      st = VT_EIO;
      goto fail;
    }
    of->direct = 1;
    return VT_OK;
  }
  struct stat lb;
  if (lstat(path, &lb) == 0 && S_ISLNK(lb.st_mode)) {
    /* Replace the file the link points to, not the link; a dangling link names the file to
     * create, relative to the link's directory. */
    if (!(resolved = realpath(path, NULL))) resolved = link_target(path);
    if (resolved) path = resolved;
  }
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* keeps the '/' */
  if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
    vt_errorf(err, errlen, path, "not a file name");
    st = VT_EINVAL;
    goto fail;
  }
  of->path = resolved ? resolved : strdup(path);
  resolved = NULL;
  of->tmp = malloc(dirlen + strlen(base) + sizeof(".") + sizeof(".tmp.XXXXXX"));
  if (!of->path || !of->tmp) {
    vt_errorf(err, errlen, path, "out of memory");
    goto fail;
  }
  memcpy(of->tmp, path, dirlen);
  sprintf(of->tmp + dirlen, ".%s.tmp.XXXXXX", base);
  fd = mkstemp(of->tmp);
  if (fd < 0) {
    vt_errorf(err, errlen, path, "cannot create temp file: %s", strerror(errno));
    free(of->tmp); /* nothing was created */
    of->tmp = NULL;
    st = VT_EIO;
    goto fail;
  }
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(of->fp = fdopen(fd, "wb"))) {
    vt_errorf(err, errlen, path, "cannot set up temp file %s: %s", of->tmp, strerror(errno));
    st = VT_EIO;
    goto fail;
  }
  return VT_OK;
fail:
  free(resolved);
  if (fd >= 0 && !of->fp) close(fd);
  vt_outfile_abort(of);
  return st;
}

int vt_outfile_commit(vt_outfile *of, char *err, size_t errlen) {
  int st = VT_EIO;
  int e = 0;
  if (err && errlen) err[0] = '\0';
  if (!of->fp) {
    vt_errorf(err, errlen, of->path, "output file is not open");
    return VT_EINVAL;
  }
  if (!of->tmp) { /* stdout, or a target written in place */
    errno = 0;
    int bad = fflush(of->fp) != 0 || ferror(of->fp);
    e = bad ? (errno ? errno : EIO) : 0;
    if (of->direct && fclose(of->fp) != 0 && !e) e = errno ? errno : EIO;
    of->fp = NULL;
    if (e) vt_errorf(err, errlen, of->path ? of->path : "-", "write failed: %s", strerror(e));
    free(of->path);
    memset(of, 0, sizeof *of);
    return e ? VT_EIO : VT_OK;
  }
  errno = 0;
  if (fflush(of->fp) != 0 || ferror(of->fp)) e = errno ? errno : EIO;
  errno = 0;
  if (fclose(of->fp) != 0 && !e) e = errno ? errno : EIO;
  of->fp = NULL;
  if (e) {
    vt_errorf(err, errlen, of->path, "write failed: %s", strerror(e));
    goto fail;
  }
  if (rename(of->tmp, of->path) != 0) {
    vt_errorf(err, errlen, of->path, "cannot rename temp file into place: %s", strerror(errno));
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
  if (!of->tmp) { /* stdout, a target written in place, or nothing open */
    if (of->direct && of->fp) fclose(of->fp);
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

void vt_dir_sync(const char *path) {
  char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
  if (!dir) return;
  if (slash)
    slash[slash == dir] = 0;
  else
    strcpy(dir, ".");
  int dfd = open(dir, O_RDONLY);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  free(dir);
}
