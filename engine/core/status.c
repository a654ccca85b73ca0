/* engine/core/status.c: status strings and the version. */
#include "vitesse.h"

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

const char *vt_version(void) { return "0.1.0"; }
