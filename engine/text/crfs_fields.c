/* engine/text/crfs_fields.c: reading an item line's fields (crfs_fields.h). */
#include "text/crfs_fields.h"

#include <math.h>
#include <stdlib.h>

size_t vt_crfs_field_read(const char *line, size_t len, size_t *pos, char *out) {
  size_t i = *pos, n = 0;
  while (i < len && line[i] != ':' && line[i] != '\t') {
    char c = line[i++];
    if (c == '\\' && i < len && (line[i] == ':' || line[i] == '\\')) c = line[i++];
    out[n++] = c;
  }
  *pos = i;
  return n;
}

int vt_crfs_value_parse(char *s, size_t n, double *v) {
  if (n == 0) {
    *v = 1.0;
    return 0;
  }
  s[n] = '\0';
  char *end;
  *v = strtod(s, &end);
  return end == s + n && isfinite(*v) ? 0 : -1;
}
