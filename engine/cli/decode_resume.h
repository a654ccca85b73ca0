/* engine/cli/decode_resume.h: `vitesse decode ... -o OUT --resume`: a decoding run that keeps its
 * progress durably beside OUT (and beside --posteriors P), so that the same command run again
 * after a kill continues after the last durable sentence and OUT (and P) end as the bytes of an
 * uninterrupted run (decode_resume.c; what is kept, and how: resume.h). */
#ifndef VT_CLI_DECODE_RESUME_H
#define VT_CLI_DECODE_RESUME_H

#include "cli/decode_setup.h"

/* Runs the parsed command `d` resumably (cmd_decode.c calls it when --resume is given); `opts`:
 * its n_opts arguments after the command's name, part of the run's identity with the content of
 * every file they name (and the SIMD level with --logz or --posteriors). Refuses an output on
 * stdout, and a progress file of other inputs or options (one line each, exit 2). Returns the exit
 * status, as `vitesse decode`: a cancel (SIGINT, SIGTERM) keeps OUT.partial and OUT.progress, made
 * durable up to the last sentence written. */
int vt_cli_decode_resume_run(vt_cli_decode *d, char *const *opts, int n_opts);

#endif
