/* engine/cli/cmd_tag.c: `vitesse tag`, a column corpus in, the same lines with the predicted
 * label appended out.
 *
 * The options are parsed by tag_setup.c (shared with vitesse-mpi). The corpus runs through the
 * engine: the reader cuts batches of
 * whole sentences, workers tag them with vt_text_tag_batch, the writer writes them in input
 * order: the output is the same bytes for any thread count and batch size. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/chunk_cli.h"
#include "cli/tag_setup.h"
#include "cli/text_cli.h"

/* CPU time of the whole process (all threads), in seconds. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int vt_cmd_tag(int argc, char **argv) {
  vt_model *m = NULL; /* opened here only when -m can be read once (a pipe) */
  int joint = vt_chunk_cli_joint_model(argc, argv, &m);
  if (joint < 0) return VT_EXIT_USAGE;
  if (joint) return vt_cli_chunk_tag_with(argc, argv, m);
  vt_cli_tag t;
  vt_cli_tag_init(&t);
  t.m = m;
  vt_engine *eng = NULL;
  vt_output *of = NULL;
  int rc = vt_cli_tag_setup(&t, argc, argv);
  if (rc >= 0) goto done;

  rc = VT_EXIT_FAIL;
  if (vt_cli_engine_start(&t.run, 0, &eng) != 0) {
    rc = VT_EXIT_USAGE;
    goto done;
  }
  if (vt_output_open(&of, t.out_path) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  vt_cli_signals_temp(vt_output_temp_path(of)); /* a second ^C removes it */
  double t0 = vt_cli_now(), c0 = cpu_now();
  vt_run_report tot;
  vt_status st =
      vt_engine_tag(eng, t.m, &t.to, t.files, t.n_files, vt_sink_file, vt_output_file(of), &tot);
  rc = vt_cli_tag_end(st, &tot, &of, t.out_path,
                      st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EIO ? VT_EXIT_USAGE
                                                                                : VT_EXIT_FAIL);
  if (rc >= 0) goto done;
  double secs = vt_cli_now() - t0, cpu = cpu_now() - c0;
  if (t.run.stats) {
    vt_cli_tag_stats(&t, &tot, secs, cpu, stderr);
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  vt_cli_signals_temp(NULL);
  vt_output_abort(of);
  vt_cli_engine_stop(eng);
  vt_cli_tag_free(&t);
  return rc;
}
