/* engine/api/train_items.c: the public CRF training API over CRFsuite item files (vitesse.h,
 * vt_train_items[_part]): the arguments checked, the training itself engine/train/
 * pipeline_items.c's (a CRFsuite model written as CRFsuite's own crf1d file). */
#include <string.h>

#include "core/errmsg.h"
#include "train/pipeline.h"
#include "vitesse.h"

/* vt_pipeline_items_run, its failure recorded as the thread's last error. */
static vt_status run(const vt_train_opts *o, const char *const *train, int n_train,
                     const char *const *dev, int n_dev, const char *out_path, vt_train_report *rep,
                     const vt_train_comm *comm, const vt_train_part *part) {
  char err[VT_ERR_LINE] = "";
  vt_status st = vt_pipeline_items_run(o, train, n_train, dev, n_dev, out_path, rep, comm, part,
                                       err, sizeof err);
  return st == VT_OK || !err[0] ? st : vt_fail(st, "%s", err);
}

vt_status vt_train_items(const vt_train_opts *opts, const char *const *train, int n_train,
                         const char *const *dev, int n_dev, const char *out_path,
                         vt_train_report *rep) {
  vt_train_report scratch;
  if (!rep) rep = &scratch;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  if (!train || n_train < 1 || n_dev < 0 || (n_dev > 0 && !dev))
    return vt_fail(VT_EINVAL, "train: expected at least one item file");
  for (int i = 0; i < n_train; i++)
    if (!train[i]) return vt_fail(VT_EINVAL, "train: item file %d is NULL", i);
  for (int i = 0; i < n_dev; i++)
    if (!dev[i]) return vt_fail(VT_EINVAL, "train: dev item file %d is NULL", i);
  return run(opts, train, n_train, dev, n_dev, out_path, rep, NULL, NULL);
}

vt_status vt_train_items_part(const vt_train_opts *opts, const vt_train_comm *comm,
                              const vt_train_part *part, const char *dev, const char *out_path,
                              vt_train_report *rep) {
  vt_train_report scratch;
  if (!rep) rep = &scratch;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  if (!comm || !part || comm->size < 1 || comm->rank < 0 || comm->rank >= comm->size ||
      (part->len && !part->data) || !part->name)
    return vt_fail(VT_EINVAL, "train: a process needs its comm and its part");
  const char *const devs[1] = {dev};
  return run(opts, NULL, 0, devs, dev ? 1 : 0, out_path, rep, comm, part);
}
