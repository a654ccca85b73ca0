/* engine/train/pipeline_items.c: CRF training over CRFsuite item files from start to model file
 * (pipeline.h; the public vt_train_items[_part] of engine/api/train_items.c): items compiled
 * (train/crf_items.h), features generated as CRFsuite does (train/crf_data.h), weights trained by
 * L-BFGS / OWL-QN, SGD or CRFsuite's online trainers (train/crf_train.h), then the CRFsuite model
 * built (train/crf_export.h) and written atomically as CRFsuite's own crf1d file
 * (models/crfsuite_write.h), which crfsuite tag, python-crfsuite and vitesse read. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/heap_trim.h"
#include "core/clock.h"
#include "core/errmsg.h"
#include "io/crfs_items.h"
#include "io/outfile.h"
#include "models/crfsuite_file.h"
#include "models/crfsuite_write.h"
#include "train/ckpt.h"
#include "train/crf_export.h"
#include "train/crf_grad.h"
#include "train/crf_items.h"
#include "train/crf_report.h"
#include "train/crf_train.h"
#include "train/dist.h"
#include "train/pipeline.h"
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

/* Compiles the training files into d. With VT_TRAIN_DEV_LABELS and VT_TRAIN_DEV_BEFORE(k), the
 * development files' labels are numbered between training files k - 1 and k (a first pass over
 * them that keeps only their labels), as crfsuite learn numbers its holdout group's. */
static vt_status compile_train(vt_crf_names *n, vt_crf_data *d, const char *const *train,
                               int n_train, const char *const *dev, int n_dev,
                               const vt_train_opts *o, char *err, size_t errlen) {
  const int at = (o->crfsuite_learn & VT_TRAIN_DEV_LABELS) && n_dev > 0
                     ? (int)((unsigned)o->crfsuite_learn >> 8) - 1
                     : -1;
  if (at < 0 || at >= n_train)
    return compile_files(n, 0, d, train, n_train, &o->reader, err, errlen);
  vt_crf_data labels_only;
  memset(&labels_only, 0, sizeof labels_only);
  vt_status st = compile_files(n, 0, d, train, at, &o->reader, err, errlen);
  if (st == VT_OK) st = compile_files(n, 2, &labels_only, dev, n_dev, &o->reader, err, errlen);
  vt_crf_data_free(&labels_only);
  if (st == VT_OK) st = compile_files(n, 0, d, train + at, n_train - at, &o->reader, err, errlen);
  return st;
}

/* The label names of n as NUL-terminated strings by id, in one block (free it); NULL: no memory. */
static char **label_names(const vt_crf_names *n) {
  const int32_t L = n->labels.n;
  const size_t bytes = (size_t)n->labels.off[L] + (size_t)L;
  char **names = malloc(((size_t)L + 1) * sizeof *names + bytes);
  if (!names) return NULL;
  char *p = (char *)(names + L + 1);
  for (int32_t y = 0; y < L; y++) {
    size_t len;
    const char *s = vt_featdict_str(&n->labels, y, &len);
    names[y] = memcpy(p, s, len);
    p[len] = '\0';
    p += len + 1;
  }
  names[L] = NULL;
  return names;
}

/* Builds the CRFsuite model of w into *model and writes it to out_path. */
static vt_status write_model(vt_crfs **model, const vt_crf_names *names, const vt_crf_feats *f,
                             const double *w, const char *out_path, vt_train_report *rep, char *err,
                             size_t errlen) {
  vt_status st;
  if ((st = vt_crf_export_crfs(model, names, f, w)) != VT_OK)
    return st == VT_EINVAL ? vt_fail_into(err, errlen, VT_EIO, "%s: model too large", out_path)
                           : vt_fail_into(err, errlen, VT_ENOMEM, "%s: out of memory", out_path);
  if ((st = vt_crfs_write_crf1d(out_path, *model, err, errlen)) != VT_OK)
    return (st == VT_ENOMEM ? VT_ENOMEM : VT_EIO);
  const vt_crfs *m = *model;
  rep->model_features = (int64_t)m->n_state;
  for (size_t i = 0; i < (size_t)m->L * (size_t)m->L; i++) rep->model_features += m->tw[i] != 0;
  rep->model_bytes = (uint64_t)m->n_state * 12 + (uint64_t)m->L * (uint64_t)m->L * 8;
  return VT_OK;
}

/* Compiles a part of an item file into d with the names of n. */
static vt_status compile_part(vt_crf_names *n, vt_crf_data *d, const vt_train_part *pt,
                              const vt_reader_opts *ro, char *err, size_t errlen) {
  vt_items *r = NULL;
  vt_status st = vt_items_open_mem(&r, pt->name, pt->data, pt->len, (uint64_t)pt->first_line,
                                   ro->max_line_bytes, ro->max_tokens, err, errlen);
  if (st == VT_OK) st = vt_crf_items_compile(n, 0, d, r, err, errlen);
  vt_items_close(r);
  d->L = n->labels.n;
  d->n_attr = n->attrs.n;
  return st;
}

/* ids[i] = map[ids[i]] for the n ids. */
static void remap_ids(int32_t *ids, int64_t n, const int32_t *map) {
  for (int64_t i = 0; i < n; i++) ids[i] = map[ids[i]];
}

/* Across processes: the names merged in process order (process 0 keeps the merged attribute
 * names, every process the merged labels), d rewritten in the merged ids, then d's sentences
 * moved so that each process holds whole gradient batches. *tok_before and *n_tok: where d
 * starts in the corpus, and the corpus's tokens. */
static vt_status dist_prepare(const vt_train_comm *c, vt_crf_names *names, vt_crf_data *d,
                              int64_t *tok_before, int64_t *n_tok, char *err, size_t errlen) {
  vt_status st;
  int32_t *map = NULL, *dest = NULL;
  int64_t n_attr = 0;
  if ((st = vt_dist_dict_merge(c, &names->labels, &map, err, errlen)) != VT_OK) goto done;
  remap_ids(d->gold, d->n_tok, map);
  free(map);
  map = NULL;
  if ((st = vt_dist_dict_bcast(c, &names->labels, err, errlen)) != VT_OK) goto done;
  if ((st = vt_dist_dict_merge(c, &names->attrs, &map, err, errlen)) != VT_OK) goto done;
  remap_ids(d->attr, d->tok_off ? d->tok_off[d->n_tok] : 0, map);
  n_attr = names->attrs.n;
  if (c->bcast(c->ctx, &n_attr, sizeof n_attr)) {
    st = vt_fail_into(err, errlen, VT_EIO, "training: the processes lost touch");
    goto done;
  }
  d->L = names->labels.n;
  d->n_attr = (int32_t)n_attr;
  if ((st = vt_dist_prefix(c, d->n_tok, tok_before, n_tok, err, errlen)) != VT_OK) goto done;
  dest = vt_dist_dest_batches(c, d->sent_off, d->n_sent, *tok_before, *n_tok,
                              vt_crf_batch_count(*n_tok, d->L));
  st = dest ? VT_OK : vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
  if ((st = vt_dist_agree(c, st, err, errlen)) != VT_OK ||
      (st = vt_dist_move_crf(c, d, dest, err, errlen)) != VT_OK)
    goto done;
  vt_crf_data_unit(d);
  st = vt_dist_prefix(c, d->n_tok, tok_before, n_tok, err, errlen);
done:
  free(map);
  free(dest);
  return st;
}

/* Agrees with the other processes on `st` (dist.h): a failure keeps its message; another
 * process's failure is VT_ECANCELED here. */
static vt_status agree(const vt_train_comm *c, vt_status st, char *err, size_t errlen) {
  char mine[VT_ERR_LINE] = "";
  const vt_status a = vt_dist_agree(c, st, mine, sizeof mine);
  if (a != st) snprintf(err, errlen, "%s", mine);
  return a;
}

vt_status vt_pipeline_items_run(const vt_train_opts *o, const char *const *train, int n_train,
                                const char *const *dev, int n_dev, const char *out_path,
                                vt_train_report *rep, const vt_train_comm *comm,
                                const vt_train_part *part, char *err, size_t errlen) {
  vt_status st = VT_OK;
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
  char **lnames = NULL;
  const int writer = !comm || comm->rank == 0; /* reads dev, calls back, writes the model */
  vt_ckpt ck;
  memset(&ck, 0, sizeof ck);
  if (!writer) {
    n_dev = 0;
    out_path = NULL;
  }

  if (!o || (writer && !out_path)) {
    st = vt_fail_into(err, errlen, VT_EINVAL, "train: options and the model path are required");
    goto done;
  }
  if (o->algorithm != VT_TRAIN_LBFGS && o->algorithm != VT_TRAIN_L2SGD &&
      o->algorithm != VT_TRAIN_AP && o->algorithm != VT_TRAIN_PA && o->algorithm != VT_TRAIN_AROW) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "train: item files train a CRF: algorithm lbfgs, l2sgd, ap, pa or arow");
    goto done;
  }
  if ((st = vt_crf_opts_check(o, err, errlen)) != VT_OK) goto done;
  if (comm && (o->algorithm != VT_TRAIN_LBFGS || o->init_model)) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "training across processes: item files train with --algo lbfgs "
                      "(no --init); the others train on one process");
    goto done;
  }
  /* A checkpoint of another run is refused now, before the items are read. */
  st = vt_ckpt_setup(&ck, o, vt_ckpt_trainer(o->algorithm), writer, err, errlen);
  if (comm) ck.cancel = NULL; /* one process's request cannot stop the others at one place */
  if (comm) st = agree(comm, st, err, errlen);
  if (st != VT_OK) goto done;
  if (vt_crf_names_init(&names) != VT_OK) goto nomem;
  if (o->init_model) {
    if ((st = vt_crfs_load(&init, o->init_model, err, errlen)) != VT_OK) goto done;
    if (vt_crf_names_seed(&names, init) != VT_OK || vt_crf_prior_from_crfs(&prior, init) != VT_OK)
      goto nomem;
  }
  double t0 = vt_clock_seconds();
  st = part ? compile_part(&names, &td, part, &o->reader, err, errlen)
            : compile_train(&names, &td, train, n_train, dev, n_dev, o, err, errlen);
  int64_t n_sent = td.n_sent, n_tok = td.n_tok, tok_before = 0, sent_before = 0;
  if (comm && (st = agree(comm, st, err, errlen)) != VT_OK) goto done;
  if (comm && (st = vt_dist_prefix(comm, td.n_sent, &sent_before, &n_sent, err, errlen))) goto done;
  if (st != VT_OK) goto done;
  if (n_sent == 0) {
    st = vt_fail_into(err, errlen, VT_EFORMAT, "%s: no sequence to train on",
                      part ? part->name : train[0]);
    goto done;
  }
  if (comm && (st = dist_prepare(comm, &names, &td, &tok_before, &n_tok, err, errlen)) != VT_OK)
    goto done;
  if (n_dev > 0 && (st = compile_files(&names, o->crfsuite_learn & VT_TRAIN_DEV_LABELS ? 2 : 1, &dd,
                                       dev, n_dev, &o->reader, err, errlen)) != VT_OK)
    goto done;
  td.L = names.labels.n; /* with VT_TRAIN_DEV_LABELS, dev's labels too */
  vt_crf_data_unit(&td);
  vt_crf_data_unit(&dd);
  vt_crf_featgen gen = {o->min_freq, o->possible_states, o->possible_transitions,
                        init ? &prior : NULL};
  if (comm) {
    if ((st = vt_dist_feats_build(comm, &f, &td, &gen, err, errlen)) != VT_OK) goto done;
  } else if (vt_crf_feats_build(&f, &td, &gen, NULL) != VT_OK) {
    goto nomem;
  }
  if (!(w = calloc((size_t)(f.n ? f.n : 1), sizeof *w))) goto nomem;
  if (init) vt_crf_weights_from_prior(w, &f, &prior);
  rep->sentences = n_sent;
  rep->tokens = n_tok;
  rep->labels = td.L;
  rep->features = f.n;
  rep->read_seconds = vt_clock_seconds() - t0;
  rep->input_ok = 1;
  if (writer && !(lnames = label_names(&names))) goto nomem;
  rep->label_names = (const char *const *)lnames;
  if (writer) st = vt_outfile_probe(out_path, err, errlen);
  if (comm) st = agree(comm, st, err, errlen);
  if (st != VT_OK) goto done;
  if (writer && o->on_start) o->on_start(o->ctx, rep);
  vt_heap_trim(); /* the reader's and the feature build's scratch, not kept through training */
  vt_crf_result res;
  const vt_crf_span span = {tok_before, n_tok, comm};
  st = vt_crf_train(&td, &f, n_dev > 0 ? &dd : NULL, w, o, &res, err, errlen, comm ? &span : NULL,
                    ck.path ? &ck : NULL);
  if (st != VT_OK) goto done;
  rep->epochs = res.iterations;
  rep->stop_reason = res.stop;
  rep->train_seconds = res.seconds;
  rep->dev_accuracy = n_dev > 0 ? vt_crf_accuracy(&dd, &f, w, o->threads) : -1;
  rep->reserved[0] = 0;
  if (writer) st = write_model(&model, &names, &f, w, out_path, rep, err, errlen);
  if (comm) st = agree(comm, st, err, errlen);
  goto done;
nomem:
  st = vt_fail_into(err, errlen, VT_ENOMEM, "train: out of memory");
done:
  vt_ckpt_free(&ck);
  rep->label_names = NULL;
  free(lnames);
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
