/* engine/cli/read_file.c: a whole small input file of the CLI (a template file, a label list)
 * read into memory (cli.h) by the library's one reader, vt_file_read. */
#include <stdlib.h>

#include "cli/cli.h"

char *vt_cli_read_file(const char *path, size_t max_bytes, const char *what, size_t *len) {
  char *buf = NULL;
  vt_status st = vt_file_read(path, max_bytes, &buf, len);
  if (st == VT_EFORMAT)
    vt_cli_error("%s: too large for %s", path, what);
  else if (st != VT_OK)
    vt_cli_error("%s", vt_last_error());
  return st == VT_OK ? buf : NULL;
}
