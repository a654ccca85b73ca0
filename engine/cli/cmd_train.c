/* engine/cli/cmd_train.c: `vitesse train`: an averaged perceptron or a CRF from a column corpus
 * and templates (vt_train_tagger), or a CRF from CRFsuite item files (vt_train_items); the
 * options and the lines it prints are train_setup.h's. */
#include "cli/chunk_cli.h"
#include "cli/cli.h"
#include "cli/signals.h"
#include "cli/text_cli.h"
#include "cli/train_setup.h"
#include "vitesse.h"

int vt_cmd_train(int argc, char **argv) {
  if (vt_chunk_cli_wants_joint(argc, argv)) return vt_cmd_chunk_train(argc, argv);
  vt_cli_train t;
  vt_train_report rep;
  int rc = vt_cli_train_setup(&t, argc, argv);
  if (rc < 0) rc = vt_cli_train_callbacks(&t);
  if (rc < 0 && t.to.checkpoint) /* SIGTERM/SIGINT: a checkpoint at the next epoch or iteration */
    vt_cli_signals_install(NULL);
  if (rc < 0) {
    const char *const train_files[1] = {t.crf.items ? t.crf.items : t.train_path};
    const char *const dev_files[1] = {t.dev_path};
    const int n_dev = t.dev_path ? 1 : 0;
    vt_status st = t.crf.items ? vt_train_items(&t.to, train_files, 1, dev_files, n_dev,
                                                vt_cli_train_model_path(&t), &rep)
                               : vt_train_tagger(&t.to, train_files, 1, dev_files, n_dev,
                                                 vt_cli_train_model_path(&t), &rep);
    rc = vt_cli_train_finish(&t, st, &rep);
    if (t.to.checkpoint) vt_cli_signals_restore();
  }
  vt_cli_train_free(&t);
  return rc;
}
