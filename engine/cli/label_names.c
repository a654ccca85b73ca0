/* engine/cli/label_names.c: label names for `vitesse decode --labels` (label_names.h). */
#include "cli/label_names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_NAMES_BYTES ((size_t)1 << 30)

int vt_cli_names_load(vt_cli_names *nm, const char *path, int32_t labels) {
  int rc = -1;
  size_t len = 0;
  int32_t line = 0;
  memset(nm, 0, sizeof *nm);
  if (!(nm->text = vt_cli_read_file(path, MAX_NAMES_BYTES, "a label list", &len))) goto done;
  nm->name = malloc((size_t)(labels > 0 ? labels : 1) * sizeof *nm->name);
  if (!nm->name) {
    vt_cli_error("%s: out of memory", path);
    goto done;
  }
  for (char *p = nm->text; p < nm->text + len;) {
    char *nl = memchr(p, '\n', (size_t)(nm->text + len - p));
    char *end = nl ? nl : nm->text + len;
    line++;
    if (end > p && end[-1] == '\r') end[-1] = '\0', end--;
    if (end == p || memchr(p, '\0', (size_t)(end - p)) || memchr(p, '\t', (size_t)(end - p))) {
      vt_cli_error("%s:%d: expected one label name (no tab, not empty)", path, (int)line);
      goto done;
    }
    if (line > labels) {
      vt_cli_error("%s:%d: more names than the lattices' %d labels", path, (int)line, (int)labels);
      goto done;
    }
    *end = '\0';
    nm->name[line - 1] = p;
    p = nl ? nl + 1 : end;
  }
  if (line != labels) {
    vt_cli_error("%s: %d label names for lattices of %d labels", path, (int)line, (int)labels);
    goto done;
  }
  nm->n = labels;
  rc = 0;
done:
  if (rc) vt_cli_names_free(nm);
  return rc;
}

/* Appends n bytes to the batch buffer; -1 when out of memory. */
static int put(vt_cli_names *nm, size_t *at, const char *s, size_t n) {
  if (*at + n > nm->cap) {
    size_t cap = nm->cap ? nm->cap : 65536;
    while (cap < *at + n) cap *= 2;
    char *b = realloc(nm->buf, cap);
    if (!b) return -1;
    nm->buf = b;
    nm->cap = cap;
  }
  memcpy(nm->buf + *at, s, n);
  *at += n;
  return 0;
}

vt_status vt_cli_names_sink(void *ctx, const char *data, size_t len) {
  vt_cli_names *nm = ctx;
  size_t at = 0;
  const char *p = data, *end = data + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end, *f = p;
    for (int tabs = 0; tabs < 3 && f < eol; f++) /* start of the fourth field */
      if (*f == '\t') tabs++;
    if (put(nm, &at, p, (size_t)(f - p))) return VT_ENOMEM;
    while (f < eol && *f != '\t') { /* numbers separated by single spaces */
      char *q;
      long y = strtol(f, &q, 10);
      if (q == f || y < 0 || y >= nm->n) return VT_EFORMAT;
      const char *name = nm->name[y];
      if (put(nm, &at, name, strlen(name))) return VT_ENOMEM;
      f = q;
      if (f < eol && *f == ' ' && put(nm, &at, " ", 1)) return VT_ENOMEM;
      if (f < eol && *f == ' ') f++;
    }
    if (put(nm, &at, f, (size_t)(eol - f))) return VT_ENOMEM; /* --logz's fields, verbatim */
    if (nl && put(nm, &at, "\n", 1)) return VT_ENOMEM;
    p = nl ? nl + 1 : end;
  }
  return nm->sink(nm->sink_ctx, nm->buf, at);
}

void vt_cli_names_free(vt_cli_names *nm) {
  free(nm->text);
  free(nm->name);
  free(nm->buf);
  memset(nm, 0, sizeof *nm);
}
