/* engine/text/crfs_fields.h: the fields of a CRFsuite item line (NAME[:VALUE], escapes \: and
 * \\), read one at a time: the reference reader that the tagger's fast scan (crfs_rows.c) falls
 * back on for escaped fields, and the trainer's item reader. */
#ifndef VT_TEXT_CRFS_FIELDS_H
#define VT_TEXT_CRFS_FIELDS_H

#include <stddef.h>

/* Reads one field of an item `line` (`len` bytes) from *pos up to a ':', a tab or the end,
 * undoing the escapes \: and \\ (a backslash before anything else is kept), into out (len + 1
 * bytes); returns its length and leaves *pos on the byte that ended it. */
size_t vt_crfs_field_read(const char *line, size_t len, size_t *pos, char *out);

/* Reads the next NAME[:VALUE] field of an item `line` from *pos: NAME into scratch (*an bytes),
 * and when a ':' follows, VALUE into scratch + *an + 1 (*vn bytes, *has_value 1; else 0 and 0).
 * Returns where the value went. scratch holds len + 2 bytes. */
static inline char *vt_crfs_attr_next(const char *line, size_t len, size_t *pos, char *scratch,
                                      size_t *an, size_t *vn, int *has_value) {
  *an = vt_crfs_field_read(line, len, pos, scratch);
  char *val = scratch + *an + 1;
  *vn = 0;
  *has_value = *pos < len && line[*pos] == ':';
  if (*has_value) {
    ++*pos;
    *vn = vt_crfs_field_read(line, len, pos, val);
  }
  return val;
}

/* Parses the `n` bytes at s (s[n] is overwritten with a NUL) as CRFsuite's attribute value: empty
 * is 1, else a finite number that strtod reads whole. Returns 0 or -1. */
int vt_crfs_value_parse(char *s, size_t n, double *v);

#endif
