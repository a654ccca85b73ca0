/* engine/cli/omp_wait.c: the training commands' OpenMP teams wait passively, and the tagging
 * commands' team leaves no thread spinning once its run is over.
 *
 * libgomp's threads spin at every barrier for a while before they sleep (OMP_WAIT_POLICY
 * unset). The trainers meet at barriers many times an iteration; on a machine whose cores are
 * busy with other processes, a thread that spins while its partner is descheduled burns the CPU
 * the partner needs: `vitesse train --threads 2` took more wall time and 1.6 times the CPU of one
 * thread beside four busy processes, and 0.74 times the wall time and the same CPU with passive
 * waiting. libgomp reads its environment once, before main, so the command runs itself again
 * with OMP_WAIT_POLICY=PASSIVE when the user set neither it nor GOMP_SPINCOUNT. */
#define _GNU_SOURCE /* setenv */
#include <omp.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cli/cli.h"

void vt_cli_omp_passive(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  const char *self = (const char *)getauxval(AT_EXECFN); /* the path this process was run by */
  if (!self || setenv("OMP_WAIT_POLICY", "PASSIVE", 1)) return;
  execv(self, argv); /* returns only when it failed: then the command runs as it is */
  unsetenv("OMP_WAIT_POLICY");
}

/* After its run, the engine's team goes back to libgomp's pool, where its threads spin for a
 * while before they sleep; a tagging command ends soon after, and the spinning took the CPU its
 * last steps needed (pinned to one core, CRF++ and Wapiti models tagged in 0.14 and 0.18 s of CPU
 * with it, 0.13 and 0.15 s with the pool released). The library leaves the pool be: a program
 * that tags again would start the threads anew. */
void vt_cli_omp_release(void) { omp_pause_resource_all(omp_pause_soft); }
