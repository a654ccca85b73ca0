/* engine/cli/cmd_tag.c: `vitesse tag`, a column corpus (or CRFsuite item files) in, the same
 * lines with the predicted label appended out, with a model of any kind. The options are parsed
 * by tag_setup.c (shared with vitesse-mpi), and applied as the model takes them (a joint model's
 * as chunk-tag's, cmd_chunk_tag.c); the run is tag_drive.c's. */
#include <stdio.h>
#include <string.h>

#include "cli/chunk_cli.h"
#include "cli/crfs_test.h"
#include "cli/tag_drive.h"
#include "cli/tag_resume.h"
#include "cli/tag_setup.h"
#include "cli/text_cli.h"

/* --stats: the opening of the JSON object (tag_drive.h). */
static void report(void *ctx, const vt_run_report *rep, double secs, double cpu, FILE *f) {
  const vt_cli_tag *t = ctx;
  if (t->run.stats) vt_cli_tag_stats(t, rep, secs, cpu, f);
}

/* -t: the evaluation after the output. */
static vt_status crfs_test_end(void *ctx, double secs) { return vt_cli_crfs_test_print(ctx, secs); }

int vt_cmd_tag(int argc, char **argv) {
  vt_cli_tag t;
  vt_cli_tag_init(&t);
  vt_cli_crfs_test ev;
  memset(&ev, 0, sizeof ev);
  int rc = vt_cli_tag_setup(&t, argc, argv);
  if (rc < 0 && t.joint) {
    rc = vt_cli_chunk_tag_run(&t.chunk, argv);
  } else if (rc < 0) {
    vt_cli_tag_run r = {.run = &t.run,
                        .m = t.m,
                        .to = &t.to,
                        .files = t.files,
                        .n_files = t.n_files,
                        .out_path = t.out_path,
                        .model_path = t.model_path,
                        .opts = argv + 1,
                        .n_opts = (int)(t.files - (const char *const *)argv) - 1,
                        .report = report,
                        .ctx = &t};
    if (t.crfs_test || t.crfs_quiet) { /* crfsuite tag -t / -q: the output through a filter */
      if (vt_cli_crfs_test_init(&ev, t.m, &t.to, t.crfs_quiet) != VT_OK) {
        vt_cli_error("out of memory");
        rc = VT_EXIT_FAIL;
        goto done;
      }
      t.to.crfsuite_out |= VT_CRFSUITE_REF; /* the references, for the filter */
      r.filter = vt_cli_crfs_test_sink;
      r.filter_ctx = &ev;
      r.filter_out = &ev.out;
      if (t.crfs_test) r.filter_end = crfs_test_end;
    }
    rc = t.run.resume ? vt_cli_tag_resume_drive(&r) : vt_cli_tag_drive(&r);
  }
done:
  vt_cli_crfs_test_free(&ev);
  vt_cli_tag_free(&t);
  return rc;
}
