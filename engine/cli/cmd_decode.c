/* engine/cli/cmd_decode.c: `vitesse decode`, score lattices from .npy files to paths (options:
 * decode_setup.c, shared with vitesse-mpi). */
#include <signal.h>
#include <string.h>

#include "cli/decode_resume.h"
#include "cli/decode_setup.h"

int vt_cmd_decode(int argc, char **argv) {
  vt_cli_decode d;
  vt_cli_decode_init(&d);
  vt_engine *eng = NULL;
  vt_output *of = NULL, *pf = NULL;
  int rc = vt_cli_decode_setup(&d, argc, argv);
  if (rc >= 0) goto done;
  if (d.run.resume) {
    rc = vt_cli_decode_resume_run(&d, argv + 1, argc - 1);
    goto done;
  }
  rc = VT_EXIT_USAGE;
  const char *out_path = d.out_path;
  const int64_t n_sent = vt_lattices_sentences(d.lat);
  if (vt_cli_engine_start(&d.run, n_sent, &eng) != 0) goto done;
  /* The signal handlers are in place before the temp file exists: a ^C now still cleans up. */
  if (vt_output_open(&of, out_path) != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  vt_cli_signals_temp(vt_output_temp_path(of)); /* a second ^C removes it */
  if (d.post_path) {
    if (vt_output_open(&pf, d.post_path) != VT_OK) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
    vt_cli_signals_temp_extra(vt_output_temp_path(pf)); /* a second ^C removes it too */
    d.conf.post_sink = vt_sink_file;
    d.conf.post_ctx = vt_output_file(pf);
  }
  vt_run_report rs;
  rc = VT_EXIT_FAIL;
  d.names.sink = vt_sink_file;
  d.names.sink_ctx = vt_output_file(of);
  vt_status st = d.labels_path ? vt_engine_decode_conf(eng, d.trans, &d.opts, &d.conf, d.lat,
                                                       vt_cli_names_sink, &d.names, &rs)
                               : vt_engine_decode_conf(eng, d.trans, &d.opts, &d.conf, d.lat,
                                                       vt_sink_file, d.names.sink_ctx, &rs);
  vt_cli_omp_release();
  int end = vt_cli_output_end(&st, rs.write_errno, !vt_output_is_atomic(of), out_path);
  if (end >= 0) {
    rc = end;
    goto done;
  }
  if (st == VT_ECANCELED) {
    int sig = atomic_load(&vt_cli_stop);
    if (vt_output_is_atomic(of))
      vt_cli_error("interrupted by %s: %lld of %lld sentences were decoded in order; %s was "
                   "not written",
                   vt_cli_signal_name(sig), (long long)rs.sentences, (long long)n_sent, out_path);
    else
      vt_cli_error("interrupted by %s: the first %lld of %lld sentences were written",
                   vt_cli_signal_name(sig), (long long)rs.sentences, (long long)n_sent);
    rc = 128 + (sig ? sig : SIGINT);
    goto done;
  }
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  /* Committed before they are forgotten: a second ^C in between only unlinks names gone. */
  if (pf) {
    st = vt_output_commit(pf);
    pf = NULL;
    if (st != VT_OK) {
      vt_cli_error("%s", vt_last_error());
      goto done;
    }
  }
  st = vt_output_commit(of);
  of = NULL;
  vt_cli_signals_temp(NULL);
  if (st != VT_OK) {
    vt_cli_error("%s", vt_last_error());
    goto done;
  }
  if (d.run.stats) {
    vt_cli_decode_stats(&d, &rs, stderr);
    vt_engine_stats_json(eng, stderr);
    fputs("}\n", stderr);
  }
  rc = VT_EXIT_OK;
done:
  /* Removed before they are forgotten: a second ^C in between kills with nothing left behind. */
  vt_output_abort(pf);
  vt_output_abort(of);
  vt_cli_signals_temp(NULL);
  vt_cli_engine_stop(eng);
  vt_cli_decode_free(&d);
  return rc;
}
