/* engine/cli/cmd_tag.c: `vitesse tag`, a column corpus (or CRFsuite item files) in, the same
 * lines with the predicted label appended out, with a model of any kind. The options are parsed
 * by tag_setup.c (shared with vitesse-mpi), a joint model's by chunk-tag's (cmd_chunk_tag.c);
 * the run is tag_drive.c's. */
#include <stdio.h>

#include "cli/chunk_cli.h"
#include "cli/tag_drive.h"
#include "cli/tag_setup.h"
#include "cli/text_cli.h"

/* --stats: the opening of the JSON object (tag_drive.h). */
static void report(void *ctx, const vt_run_report *rep, double secs, double cpu, FILE *f) {
  const vt_cli_tag *t = ctx;
  if (t->run.stats) vt_cli_tag_stats(t, rep, secs, cpu, f);
}

int vt_cmd_tag(int argc, char **argv) {
  vt_model *m = NULL; /* opened here only when -m can be read once (a pipe) */
  int joint = vt_chunk_cli_joint_model(argc, argv, &m);
  if (joint < 0) return VT_EXIT_USAGE;
  if (joint) return vt_cli_chunk_tag_with(argc, argv, m);
  vt_cli_tag t;
  vt_cli_tag_init(&t);
  t.m = m;
  int rc = vt_cli_tag_setup(&t, argc, argv);
  if (rc < 0) {
    vt_cli_tag_run r = {&t.run, t.m, &t.to, t.files, t.n_files, t.out_path, report, &t};
    rc = vt_cli_tag_drive(&r);
  }
  vt_cli_tag_free(&t);
  return rc;
}
