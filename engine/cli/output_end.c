/* engine/cli/output_end.c: how a streaming command ends its output (decode, tag, chunk-tag). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output_end.h"
#include "cli/signals.h"

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

int vt_cli_tag_end(vt_status st, const vt_run_report *rep, vt_output **of, const char *out_path,
                   int fail_rc) {
  const int atomic = vt_output_is_atomic(*of);
  int end = vt_cli_output_end(&st, rep->write_errno, !atomic, out_path);
  if (end >= 0) return end;
  if (st == VT_ECANCELED) {
    int sig = atomic_load(&vt_cli_stop);
    vt_cli_error("interrupted by %s: %lld sentences were tagged in order%s%s%s",
                 vt_cli_signal_name(sig), (long long)rep->sentences, atomic ? "; " : " and written",
                 atomic ? out_path : "", atomic ? " was not written" : "");
    return 128 + (sig ? sig : SIGINT);
  }
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    return fail_rc;
  }
  st = vt_output_commit(*of);
  *of = NULL;
  vt_cli_signals_temp(NULL); /* committed before it is forgotten: see vt_cli_signals_temp */
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    return VT_EXIT_FAIL;
  }
  return -1;
}
