/* engine/cli/output_end.h: the end of a batch command's output: a closed pipe, a write error,
 * a cancel, or the commit of the output file (output_end.c). */
#ifndef VT_CLI_OUTPUT_END_H
#define VT_CLI_OUTPUT_END_H

#include "vitesse.h"

/* Ends a run's output: when writing to stdout (`to_stdout`) and *st is VT_OK, flushes it to see a
 * closed pipe (then *st becomes VT_EIO); `werr` is the errno of a failed write, 0 if none.
 * Returns the exit status to end with (128 + SIGPIPE quietly for a closed pipe, VT_EXIT_FAIL
 * after printing a write error), or -1 when the caller goes on. */
int vt_cli_output_end(vt_status *st, int werr, int to_stdout, const char *out_path);

/* Ends a tagging run (tag, chunk-tag) whose vt_engine_tag returned `st` with report `rep`,
 * writing to *of (target `out_path`): a write error or closed pipe as vt_cli_output_end; a cancel
 * says how many sentences were tagged in order and ends with 128 + the signal; another failure
 * prints vt_last_error and ends with `fail_rc`; on success commits *of (set to NULL). Returns the
 * exit status to end with, or -1 when the run succeeded and the caller goes on. */
int vt_cli_tag_end(vt_status st, const vt_run_report *rep, vt_output **of, const char *out_path,
                   int fail_rc);

#endif
