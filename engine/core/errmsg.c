/* engine/core/errmsg.c: one-line error messages (see errmsg.h). */
#include "core/errmsg.h"

#include <stdarg.h>
#include <stdio.h>

void vt_errorf(char *err, size_t errlen, const char *name, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  int n = name ? snprintf(err, errlen, "%s: ", name) : 0;
  if (n < 0) n = 0;
  if ((size_t)n < errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  for (char *p = err; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
}

vt_status vt_fail_into(char *err, size_t errlen, vt_status st, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    for (char *p = err; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
  }
  return st;
}
