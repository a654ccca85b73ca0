/* engine/cli/signals.c: SIGINT/SIGTERM ask a run to stop (a second one kills, removing the
 * temporary output file); SIGPIPE becomes an EPIPE error. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli/signals.h"

atomic_int vt_cli_stop;

static vt_engine *_Atomic stop_engine; /* the engine a signal cancels, or NULL */

/* The temporary output files a second signal removes: the output's (vt_cli_signals_temp) and a
 * second one's (vt_cli_signals_temp_extra: decode's --posteriors). */
static char temp_path[2][4096];
static volatile sig_atomic_t temp_set[2];
static volatile sig_atomic_t unlink_first; /* vt_cli_signals_unlink_first */

static void temp_unlink(void) {
  for (int i = 0; i < 2; i++)
    if (temp_set[i]) unlink(temp_path[i]);
}

/* The first signal asks the run to stop (it then cleans up and exits); a second one removes the
 * temporary output file and dies of the signal at once. */
static void on_stop(int sig) {
  int saved = errno;
  if (atomic_exchange(&vt_cli_stop, sig) != 0) {
    temp_unlink();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns (sig is blocked in it) */
    errno = saved;
    return;
  }
  if (unlink_first) temp_unlink();
  errno = saved;
  vt_engine *e = atomic_load(&stop_engine);
  if (e) vt_engine_cancel(e);
}

/* Sets slot i to `path` (NULL: none). */
static void temp_slot(int i, const char *path) {
  temp_set[i] = 0;
  if (!path || strlen(path) >= sizeof temp_path[i]) return; /* too long: left to the first ^C */
  memcpy(temp_path[i], path, strlen(path) + 1);
  temp_set[i] = 1;
}

void vt_cli_signals_temp(const char *path) {
  temp_slot(0, path);
  if (!path) temp_slot(1, NULL);
}

void vt_cli_signals_temp_extra(const char *path) { temp_slot(1, path); }

void vt_cli_signals_unlink_first(int on) { unlink_first = on != 0; }

static int handled[2]; /* SIGINT, SIGTERM: whether we installed the handler */

/* Installs on_stop for `sig` unless it was ignored when we started (a background job of a
 * shell ignores SIGINT, and nohup'd jobs SIGHUP: those stay ignored, as for any Unix tool). */
static int stop_on(int sig) {
  struct sigaction old, sa;
  if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN) return 0;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; /* a second ^C kills at once, from the handler (on_stop) */
  return sigaction(sig, &sa, NULL) == 0;
}

void vt_cli_signals_install(vt_engine *eng) {
  atomic_store(&vt_cli_stop, 0);
  atomic_store(&stop_engine, eng);
  handled[0] = stop_on(SIGINT);
  handled[1] = stop_on(SIGTERM);
  signal(SIGPIPE, SIG_IGN);
}

const char *vt_cli_signal_name(int sig) { return sig == SIGTERM ? "SIGTERM" : "SIGINT"; }

void vt_cli_signals_restore(void) {
  atomic_store(&stop_engine, NULL);
  temp_set[0] = temp_set[1] = 0;
  if (handled[0]) signal(SIGINT, SIG_DFL);
  if (handled[1]) signal(SIGTERM, SIG_DFL);
  handled[0] = handled[1] = 0;
  signal(SIGPIPE, SIG_DFL);
}
