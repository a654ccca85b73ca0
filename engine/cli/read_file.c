/* engine/cli/read_file.c: a whole small input file of the CLI (a template file, a label list)
 * read into memory (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* The buffer starts at 64 KiB and doubles. */
#define READ_FIRST ((size_t)65536)

char *vt_cli_read_file(const char *path, size_t max_bytes, const char *what, size_t *len) {
  size_t n = 0, cap = 0;
  char *buf = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    vt_cli_error("%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  for (;;) {
    if (n == cap) {
      size_t next = cap ? 2 * cap : READ_FIRST;
      char *nb = cap < max_bytes ? realloc(buf, next + 1) : NULL;
      if (!nb) {
        vt_cli_error("%s: too large for %s", path, what);
        goto fail;
      }
      buf = nb;
      cap = next;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    vt_cli_error("%s: read error: %s", path, strerror(errno));
    goto fail;
  }
  fclose(f);
  buf[n] = '\0';
  *len = n;
  return buf;
fail:
  fclose(f);
  free(buf);
  return NULL;
}
