/* engine/cli/output_end.c: how a streaming command ends its output (decode, tag). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "engine_cli.h"

int vt_cli_output_end(vt_status *st, int werr, int to_stdout, const char *out_path) {
  if (*st == VT_OK && to_stdout && fflush(stdout) != 0) { /* see a closed pipe before commit */
    werr = errno;
    *st = VT_EIO;
  }
  if (werr == EPIPE) return 128 + SIGPIPE; /* the reader went away: end quietly, like SIGPIPE */
  if (werr) {
    vt_cli_error("%s: write failed: %s", out_path ? out_path : "-", strerror(werr));
    return VT_EXIT_FAIL;
  }
  return -1;
}
