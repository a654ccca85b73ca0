/* engine/cli/tag_drive.c: one tagging run of any model kind (tag_drive.h). The corpus runs
 * through the engine: the reader cuts batches of whole sentences, workers tag them as the
 * model's kind does, the writer writes them in input order, so the output is the same bytes for
 * any thread count and batch size. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tag_drive.h"

#include <errno.h>

#include "cli/cli.h"

int vt_cli_tag_fail_code(vt_status st) {
  return st == VT_EFORMAT || st == VT_EUNSUPPORTED || st == VT_EIO ? VT_EXIT_USAGE : VT_EXIT_FAIL;
}

void vt_cli_tag_report(const vt_cli_tag_run *r, const vt_run_report *rep, vt_engine *eng, double t0,
                       double c0) {
  const double secs = vt_cli_now() - t0, cpu = vt_cli_cpu_now() - c0;
  if (r->report) r->report(r->ctx, rep, secs, cpu, stderr);
  if (r->run->stats) {
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
}

int vt_cli_tag_drive(const vt_cli_tag_run *r) {
  vt_engine *eng = NULL;
  vt_output *of = NULL;
  int rc = VT_EXIT_FAIL;
  if (vt_cli_engine_start(r->run, 0, &eng) != 0) {
    rc = VT_EXIT_USAGE;
    goto done;
  }
  vt_status ost = vt_output_open(&of, r->out_path);
  if (ost != VT_OK) { /* a folder that is not there, no write permission: as decode, exit 2 */
    vt_cli_error("%s", vt_last_error());
    rc = ost == VT_EIO ? VT_EXIT_USAGE : VT_EXIT_FAIL;
    goto done;
  }
  vt_cli_signals_temp(vt_output_temp_path(of)); /* a second ^C removes it */
  const double t0 = vt_cli_now(), c0 = vt_cli_cpu_now();
  vt_run_report rep;
  if (r->filter) *r->filter_out = vt_output_file(of);
  vt_status st =
      vt_engine_tag(eng, r->m, r->to, r->files, r->n_files, r->filter ? r->filter : vt_sink_file,
                    r->filter ? r->filter_ctx : vt_output_file(of), &rep);
  vt_cli_omp_release();
  if (st == VT_OK && r->filter_end && r->filter_end(r->filter_ctx, rep.wall_seconds) != VT_OK) {
    st = VT_EIO; /* the output could not be written */
    rep.write_errno = errno ? errno : EIO;
  }
  rc = vt_cli_tag_end(st, &rep, &of, r->out_path, vt_cli_tag_fail_code(st));
  if (rc >= 0) goto done;
  vt_cli_tag_report(r, &rep, eng, t0, c0);
  rc = VT_EXIT_OK;
done:
  vt_output_abort(of); /* removed before it is forgotten: see vt_cli_signals_temp */
  vt_cli_signals_temp(NULL);
  vt_cli_engine_stop(eng);
  return rc;
}
