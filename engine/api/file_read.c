/* engine/api/file_read.c: vt_file_read (vitesse.h), io/readall.c's whole-file reader with its
 * failure recorded as the thread's last error. */
#include "core/errmsg.h"
#include "io/readall.h"
#include "vitesse.h"

vt_status vt_file_read(const char *path, size_t max_bytes, char **buf, size_t *len) {
  char err[VT_ERR_LINE];
  vt_status st = vt_read_file(path, max_bytes, buf, len, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}
