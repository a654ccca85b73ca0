/* engine/core/status.c: status strings, the version, and the thread's last error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/errmsg.h"
#include "vitesse.h"

#define VT_STR_(x) #x
#define VT_STR(x) VT_STR_(x)

/* The message of the last failing public call on this thread. */
static _Thread_local char last_error[512];

const char *vt_strerror(int status) {
  switch (status) {
  case VT_OK: return "success";
  case VT_ENOMEM: return "out of memory";
  case VT_EINVAL: return "invalid argument";
  case VT_EIO: return "input/output error";
  case VT_EFORMAT: return "malformed input";
  case VT_EUNSUPPORTED: return "not supported";
  case VT_ECANCELED: return "canceled";
  }
  return "unknown status";
}

const char *vt_version(void) {
  return VT_STR(VT_VERSION_MAJOR) "." VT_STR(VT_VERSION_MINOR) "." VT_STR(VT_VERSION_PATCH);
}

int vt_version_number(void) { return VT_VERSION_NUMBER; }

const char *vt_last_error(void) { return last_error; }

vt_status vt_fail(vt_status st, const char *fmt, ...) {
  if (st == VT_OK) return st;
  if (!fmt) {
    snprintf(last_error, sizeof last_error, "%s", vt_strerror(st));
    return st;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  for (char *p = last_error; *p; p++)
    if ((unsigned char)*p < 32) *p = '?';
  return st;
}
