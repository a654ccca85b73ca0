/* engine/cli/run_id.c: the identity of a run's input files (run_id.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/run_id.h"

#include "cli/cli.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_SPAN 65536 /* bytes hashed at each end of a file */

static unsigned long long fnv(unsigned long long h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

int vt_cli_file_id_of(const char *path, vt_cli_file_id *id) {
  int rc = -1, fd = open(path, O_RDONLY);
  unsigned char *buf = malloc(HASH_SPAN);
  struct stat st;
  if (fd < 0 || !buf || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) goto out;
  id->size = (long long)st.st_size;
  id->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  id->hash = 0xcbf29ce484222325ULL;
  for (int end = 0; end < 2; end++) {
    off_t at = end ? (st.st_size > HASH_SPAN ? st.st_size - HASH_SPAN : 0) : 0;
    ssize_t n = pread(fd, buf, HASH_SPAN, at);
    if (n < 0) goto out;
    id->hash = fnv(id->hash, buf, (size_t)n);
  }
  rc = 0;
out:
  free(buf);
  if (fd >= 0) close(fd);
  return rc;
}

int vt_cli_strput(char **s, size_t *len, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line) return -1;
  char *ns = realloc(*s, *len + (size_t)n + 1);
  if (!ns) return -1;
  memcpy(ns + *len, line, (size_t)n + 1);
  *s = ns;
  *len += (size_t)n;
  return 0;
}

char *vt_cli_inputs_id(const char *cmd, const vt_cli_file *files, int n) {
  char *s = NULL;
  size_t len = 0;
  if (vt_cli_strput(&s, &len, "inputs")) goto nomem;
  for (int i = 0; i < n; i++) {
    vt_cli_file_id id;
    if (!files[i].path) continue;
    if (!strcmp(files[i].path, "-")) {
      vt_cli_error("%s: --checkpoint: %s is standard input, which a resumed run cannot read "
                   "again: name a file",
                   cmd, files[i].what);
      goto fail;
    }
    if (vt_cli_file_id_of(files[i].path, &id)) {
      vt_cli_error("%s: --checkpoint: %s %s is not a regular file that can be read", cmd,
                   files[i].what, files[i].path);
      goto fail;
    }
    if (vt_cli_strput(&s, &len, " %s=%lld:%lld:%016llx", files[i].what, id.size, id.mtime_ns,
                      id.hash))
      goto nomem;
  }
  if (vt_cli_strput(&s, &len, "\n")) goto nomem;
  return s;
nomem:
  vt_cli_error("out of memory");
fail:
  free(s);
  return NULL;
}
