/* engine/api/train_items.c: the public CRF training API over CRFsuite item files (vitesse.h,
 * vt_train_items): items compiled (train/crf_items.h), features generated as CRFsuite does
 * (train/crf_data.h), weights trained by L-BFGS / OWL-QN, SGD or CRFsuite's online trainers
 * (train/crf_train.h), then the CRFsuite model built (train/crf_export.h) and written atomically
 * as CRFsuite's own crf1d file (models/crfsuite_write.h), which crfsuite tag, python-crfsuite and
 * vitesse read. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"
#include "io/crfs_items.h"
#include "io/outfile.h"
#include "models/crfsuite_file.h"
#include "models/crfsuite_write.h"
#include "train/crf_export.h"
#include "train/crf_items.h"
#include "train/crf_report.h"
#include "train/crf_train.h"
#include "vitesse.h"

/* Compiles the item files into d with the names of n (frozen: development data). */
static vt_status compile_files(vt_crf_names *n, int frozen, vt_crf_data *d,
                               const char *const *files, int n_files, const vt_reader_opts *ro,
                               char *err, size_t errlen) {
  vt_status st = VT_OK;
  for (int i = 0; i < n_files && st == VT_OK; i++) {
    vt_items *r = NULL;
    st = vt_items_open(&r, files[i], ro->max_line_bytes, ro->max_tokens, err, errlen);
    if (st == VT_OK) st = vt_crf_items_compile(n, frozen, d, r, err, errlen);
    vt_items_close(r);
  }
  d->L = n->labels.n;
  d->n_attr = n->attrs.n;
  return st;
}

/* The whole pipeline; rep is reset by the caller. */
static vt_status train_items(const vt_train_opts *o, const char *const *train, int n_train,
                             const char *const *dev, int n_dev, const char *out_path,
                             vt_train_report *rep) {
  vt_status st = VT_OK;
  char err[VT_ERR_LINE];
  vt_crf_names names;
  vt_crf_data td, dd;
  vt_crf_feats f;
  memset(&names, 0, sizeof names);
  memset(&td, 0, sizeof td);
  memset(&dd, 0, sizeof dd);
  memset(&f, 0, sizeof f);
  vt_crfs *init = NULL, *model = NULL;
  vt_crf_prior prior;
  memset(&prior, 0, sizeof prior);
  double *w = NULL;

  if (!o || !out_path) {
    st = vt_fail(VT_EINVAL, "train: options and the model path are required");
    goto done;
  }
  if (o->algorithm != VT_TRAIN_LBFGS && o->algorithm != VT_TRAIN_L2SGD &&
      o->algorithm != VT_TRAIN_AP && o->algorithm != VT_TRAIN_PA && o->algorithm != VT_TRAIN_AROW) {
    st =
        vt_fail(VT_EINVAL, "train: item files train a CRF: algorithm lbfgs, l2sgd, ap, pa or arow");
    goto done;
  }
  if ((st = vt_crf_opts_check(o, err, sizeof err)) != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  if (vt_crf_names_init(&names) != VT_OK) goto nomem;
  if (o->init_model) {
    if ((st = vt_crfs_load(&init, o->init_model, err, sizeof err)) != VT_OK) {
      st = vt_fail(st, "%s", err);
      goto done;
    }
    if (vt_crf_names_seed(&names, init) != VT_OK || vt_crf_prior_from_crfs(&prior, init) != VT_OK)
      goto nomem;
  }
  double t0 = vt_clock_seconds();
  if ((st = compile_files(&names, 0, &td, train, n_train, &o->reader, err, sizeof err)) != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  if (td.n_sent == 0) {
    st = vt_fail(VT_EFORMAT, "%s: no sequence to train on", train[0]);
    goto done;
  }
  if (n_dev > 0 &&
      (st = compile_files(&names, 1, &dd, dev, n_dev, &o->reader, err, sizeof err)) != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  vt_crf_data_unit(&td);
  vt_crf_data_unit(&dd);
  vt_crf_featgen gen = {o->min_freq, o->possible_states, o->possible_transitions,
                        init ? &prior : NULL};
  if (vt_crf_feats_build(&f, &td, &gen, NULL) != VT_OK) goto nomem;
  if (!(w = calloc((size_t)(f.n ? f.n : 1), sizeof *w))) goto nomem;
  if (init) vt_crf_weights_from_prior(w, &f, &prior);
  rep->sentences = td.n_sent;
  rep->tokens = td.n_tok;
  rep->labels = td.L;
  rep->features = f.n;
  rep->read_seconds = vt_clock_seconds() - t0;
  rep->input_ok = 1;
  if ((st = vt_outfile_probe(out_path, err, sizeof err)) != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  if (o->on_start) o->on_start(o->ctx, rep);
  vt_crf_result res;
  st = vt_crf_train(&td, &f, n_dev > 0 ? &dd : NULL, w, o, &res, err, sizeof err, NULL);
  if (st != VT_OK) {
    st = vt_fail(st, "%s", err);
    goto done;
  }
  rep->epochs = res.iterations;
  rep->train_seconds = res.seconds;
  rep->dev_accuracy = n_dev > 0 ? vt_crf_accuracy(&dd, &f, w, o->threads) : -1;
  rep->reserved[0] = 0;
  if ((st = vt_crf_export_crfs(&model, &names, &f, w)) != VT_OK) {
    st = st == VT_EINVAL ? vt_fail(VT_EIO, "%s: model too large", out_path)
                         : vt_fail(VT_ENOMEM, "%s: out of memory", out_path);
    goto done;
  }
  if ((st = vt_crfs_write_crf1d(out_path, model, err, sizeof err)) != VT_OK) {
    st = vt_fail(st == VT_ENOMEM ? VT_ENOMEM : VT_EIO, "%s", err);
    goto done;
  }
  rep->model_features = (int64_t)model->n_state;
  for (size_t i = 0; i < (size_t)model->L * (size_t)model->L; i++)
    rep->model_features += model->tw[i] != 0;
  rep->model_bytes = (uint64_t)model->n_state * 12 + (uint64_t)model->L * (uint64_t)model->L * 8;
  goto done;
nomem:
  st = vt_fail(VT_ENOMEM, "train: out of memory");
done:
  vt_crfs_free(init);
  vt_crf_prior_free(&prior);
  vt_crfs_free(model);
  free(w);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&td);
  vt_crf_data_free(&dd);
  vt_crf_names_free(&names);
  return st;
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
  return train_items(opts, train, n_train, dev, n_dev, out_path, rep);
}
