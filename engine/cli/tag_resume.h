/* engine/cli/tag_resume.h: `vitesse tag ... -o OUT --resume`: a tagging run that keeps its
 * progress durably beside OUT (OUT.partial, the output so far, and OUT.progress, the run's
 * identity and the place in the input after the last whole sentence made durable), so that the
 * same command run again after a kill continues there and OUT ends as the same bytes an
 * uninterrupted run writes (tag_resume.c). */
#ifndef VT_CLI_TAG_RESUME_H
#define VT_CLI_TAG_RESUME_H

#include "cli/resume.h"
#include "cli/tag_drive.h"

/* The checks and the identity of a resumable run of `r` whose progress file starts with the line
 * `head` ("vitesse-tag-resume 1"; vitesse-mpi's differs, its places being its own): refuses
 * standard input, an output on stdout, a filter (-t, -q) or --eval (one line, exit 2), else
 * puts the identity (the model, the inputs, the options that change the output, the files they
 * name) into *id. Returns -1 to go on, else the exit status (printed; *id freed). */
int vt_cli_tag_resume_id(const vt_cli_tag_run *r, const char *head, vt_cli_resume_id *id);

/* Runs `r` (the commands call it instead of vt_cli_tag_drive when --resume is given) resumably:
 * refuses standard input, an output on stdout, a filter (-t, -q) or joint --eval, and a progress
 * file of another input, model or options (one line each, exit 2); else starts or continues the
 * run, makes its place durable about every VITESSE_RESUME_INTERVAL seconds (default 2), and at the
 * end renames OUT.partial to OUT and removes OUT.progress. A cancel (SIGINT, SIGTERM) keeps both,
 * made durable up to the last sentence written. Returns the exit status, as vt_cli_tag_drive. */
int vt_cli_tag_resume_drive(const vt_cli_tag_run *r);

#endif
