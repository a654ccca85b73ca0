/* engine/cli/train_ckpt.c: `vitesse train --checkpoint CK`: the identity of the run's input
 * files that the library keeps in CK and compares on resume (train_setup.h); the options that
 * change the model are the library's to compare. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run_id.h"
#include "cli/train_setup.h"

int vt_cli_train_ckpt_setup(vt_cli_train *t) {
  if (!t->to.checkpoint) return -1;
  const struct {
    const char *path, *name;
  } files[] = {{t->crf.items, "--items"},
               {t->train_path, "--train"},
               {t->tmpl_path, "--template"},
               {t->dev_path, "--dev"},
               {t->to.init_model, "--init"}};
  char *s = NULL;
  size_t len = 0;
  if (vt_cli_strput(&s, &len, "inputs")) goto nomem;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    vt_cli_file_id id;
    if (!files[i].path) continue;
    if (!strcmp(files[i].path, "-")) {
      vt_cli_error("train: --checkpoint: %s is standard input, which a resumed run cannot read "
                   "again: name a file",
                   files[i].name);
      free(s);
      return VT_EXIT_USAGE;
    }
    if (vt_cli_file_id_of(files[i].path, &id)) {
      vt_cli_error("train: --checkpoint: %s %s is not a regular file that can be read",
                   files[i].name, files[i].path);
      free(s);
      return VT_EXIT_USAGE;
    }
    if (vt_cli_strput(&s, &len, " %s=%lld:%lld:%016llx", files[i].name, id.size, id.mtime_ns,
                      id.hash))
      goto nomem;
  }
  if (vt_cli_strput(&s, &len, "\n")) goto nomem;
  t->ckpt_id = s;
  t->to.checkpoint_id = s;
  return -1;
nomem:
  free(s);
  vt_cli_error("out of memory");
  return VT_EXIT_FAIL;
}
