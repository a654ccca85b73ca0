/* engine/api/train_joint.c: the public training API for the joint POS + chunk model
 * (vitesse.h, vt_train_joint[_mem]; Shimizu & Haas 2006): the arguments checked, the training
 * itself engine/train/pipeline_joint.c's. */
#include <string.h>

#include "core/errmsg.h"
#include "train/pipeline.h"
#include "vitesse.h"

/* vt_pipeline_joint_run, its failure recorded as the thread's last error. */
static vt_status run(const vt_train_opts *o, const vt_corpus_src *train, const vt_corpus_src *test,
                     const char *out_path, vt_train_report *rep) {
  char err[VT_ERR_LINE] = "";
  vt_status st = vt_pipeline_joint_run(o, train, test, out_path, rep, err, sizeof err);
  return st == VT_OK || !err[0] ? st : vt_fail(st, "%s", err);
}

vt_status vt_train_joint(const vt_train_opts *opts, const char *train, const char *test,
                         const char *out_path, vt_train_report *rep) {
  vt_train_report scratch;
  if (!rep) rep = &scratch;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  if (!train)
    return vt_fail(VT_EINVAL, "chunk-train: a training corpus and a model path are required");
  const char *const tr[1] = {train}, *const te[1] = {test};
  vt_corpus_src ts = {tr, 1, NULL, 0, "train", NULL},
                ds = {te, test ? 1 : 0, NULL, 0, "test", NULL};
  return run(opts, &ts, &ds, out_path, rep);
}

vt_status vt_train_joint_mem(const vt_train_opts *opts, const vt_sentence_in *train,
                             int64_t n_train, const vt_sentence_in *test, int64_t n_test,
                             const char *out_path, vt_train_report *rep) {
  vt_train_report scratch;
  static const vt_sentence_in none;
  if (!rep) rep = &scratch;
  memset(rep, 0, sizeof *rep);
  rep->dev_accuracy = -1;
  if (n_train < 0 || n_test < 0 || (n_train > 0 && !train) || (n_test > 0 && !test))
    return vt_fail(VT_EINVAL, "chunk-train: sentence counts >= 0 and their sentences expected");
  vt_corpus_src ts = {NULL, 0, n_train > 0 ? train : &none, n_train, "train", NULL};
  vt_corpus_src ds = {NULL, 0, n_test > 0 ? test : NULL, n_test, "test", NULL};
  return run(opts, &ts, &ds, out_path, rep);
}
