/* engine/cli/signals.c: SIGINT/SIGTERM ask a run to stop; SIGPIPE becomes an EPIPE error. */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <string.h>

#include "engine_cli.h"

atomic_int vt_cli_stop;

static vt_engine *_Atomic stop_engine; /* the engine a signal cancels, or NULL */

static void on_stop(int sig) {
  atomic_store(&vt_cli_stop, sig);
  vt_engine *e = atomic_load(&stop_engine);
  if (e) vt_engine_cancel(e);
}

static int handled[2]; /* SIGINT, SIGTERM: whether we installed the handler */

/* Installs on_stop for `sig` unless it was ignored when we started (a background job of a
 * shell ignores SIGINT, and nohup'd jobs SIGHUP: those stay ignored, as for any Unix tool). */
static int stop_on(int sig) {
  struct sigaction old, sa;
  if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN) return 0;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART; /* a second ^C kills at once */
  return sigaction(sig, &sa, NULL) == 0;
}

void vt_cli_signals_install(vt_engine *eng) {
  atomic_store(&vt_cli_stop, 0);
  atomic_store(&stop_engine, eng);
  handled[0] = stop_on(SIGINT);
  handled[1] = stop_on(SIGTERM);
  signal(SIGPIPE, SIG_IGN);
}

void vt_cli_signals_restore(void) {
  atomic_store(&stop_engine, NULL);
  if (handled[0]) signal(SIGINT, SIG_DFL);
  if (handled[1]) signal(SIGTERM, SIG_DFL);
  handled[0] = handled[1] = 0;
  signal(SIGPIPE, SIG_DFL);
}
