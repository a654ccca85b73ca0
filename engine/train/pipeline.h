/* engine/train/pipeline.h: each training from start to model file, behind the public entry
 * points of engine/api/train_{tagger,items,joint}.c and crfpp_learn.c: the options checked, the
 * corpora read and compiled, the weights trained (perceptron, CRF, joint; across processes with a
 * vt_train_comm), the model written atomically. Failures come back as a status and one line in err;
 * progress goes to the callbacks of vt_train_opts. Each takes *rep zeroed (dev_accuracy -1) by the
 * caller. */
#ifndef VT_TRAIN_PIPELINE_H
#define VT_TRAIN_PIPELINE_H

#include <stddef.h>

#include "train/corpus_src.h"
#include "vitesse.h"

/* A tagger (the averaged perceptron, or a CRF: o->algorithm) from `train` (and `dev`, NULL:
 * none) to out_path. With comm, one process of a training across processes: `train` is its part,
 * and only process 0 reads dev, calls back and writes the model. */
vt_status vt_pipeline_tagger_run(const vt_train_opts *o, const vt_corpus_src *train,
                                 const vt_corpus_src *dev, const char *out_path,
                                 vt_train_report *rep, const vt_train_comm *comm, char *err,
                                 size_t errlen);

/* A CRFsuite model from the n_train item files `train` (n_dev `dev` files for development) to
 * out_path as CRFsuite's crf1d file. With comm, this process's part of the items is `part`. */
vt_status vt_pipeline_items_run(const vt_train_opts *o, const char *const *train, int n_train,
                                const char *const *dev, int n_dev, const char *out_path,
                                vt_train_report *rep, const vt_train_comm *comm,
                                const vt_train_part *part, char *err, size_t errlen);

/* A joint POS + chunk model from `train` (and `test`, evaluated after each epoch for the
 * callback; no files and no sentences: none) to out_path. */
vt_status vt_pipeline_joint_run(const vt_train_opts *o, const vt_corpus_src *train,
                                const vt_corpus_src *test, const char *out_path,
                                vt_train_report *rep, char *err, size_t errlen);

/* crf_learn (vitesse.h's vt_crfpp_learn): CRF++'s features and objective from the templates
 * file and the training corpus to a CRF++ model (and model.txt with o->text_model). */
vt_status vt_pipeline_crfpp_learn(const char *templates, const char *train, const char *model,
                                  const vt_crfpp_learn_opts *o, vt_crfpp_learn_report *r, char *why,
                                  size_t whylen);

/* crf_learn -C (vt_crfpp_convert): a CRF++ text model to its binary model. */
vt_status vt_pipeline_crfpp_convert(const char *text_path, const char *model, char *why,
                                    size_t whylen);

#endif
