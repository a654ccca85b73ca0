/* engine/cli/signals.h: SIGINT and SIGTERM during a batch command: the run is cancelled,
 * temporary output files are removed (signals.c). */
#ifndef VT_CLI_SIGNALS_H
#define VT_CLI_SIGNALS_H

#include <stdatomic.h>

#include "vitesse.h"

/* The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none did. */
extern atomic_int vt_cli_stop;

/* SIGINT and SIGTERM set vt_cli_stop and cancel `eng` (may be NULL) (a second one removes the
 * temporary file of vt_cli_signals_temp and kills as usual), unless the signal was ignored at
 * start (background jobs of a shell); SIGPIPE is ignored, so a write to a closed pipe fails with
 * EPIPE instead. */
void vt_cli_signals_install(vt_engine *eng);

/* Registers `path` (copied; NULL: none) as the temporary output file a second SIGINT or SIGTERM
 * removes before the process dies: vt_output_temp_path once the output is open, NULL once it is
 * committed or aborted (never before: a second signal in between would leave it behind; after a
 * commit, the handler only unlinks a name that is gone). NULL also forgets the extra file.
 * vt_cli_signals_restore forgets it. */
void vt_cli_signals_temp(const char *path);

/* As vt_cli_signals_temp, for a second temporary file (decode's --posteriors); a
 * vt_cli_signals_temp(NULL) forgets both. */
void vt_cli_signals_temp_extra(const char *path);

/* With `on`, the first SIGINT/SIGTERM already removes the temporary files (then asks the run to
 * stop as usual): for vitesse-mpi, whose ranks a launcher may SIGKILL soon after the signal
 * (Open MPI's mpirun: odls_base_sigkill_timeout seconds after its SIGTERM), before the run's
 * own clean-up. */
void vt_cli_signals_unlink_first(int on);

/* The name the messages give signal `sig`: "SIGTERM" for SIGTERM, else "SIGINT". */
const char *vt_cli_signal_name(int sig);

/* Restores the default actions. */
void vt_cli_signals_restore(void);

#endif
