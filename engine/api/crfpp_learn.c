/* engine/api/crfpp_learn.c: crf_learn as a library call (vitesse.h, "CRF++ training"): the
 * public entry points, whose work is engine/train/pipeline_crfpp.c's; a failure is recorded
 * (vt_last_error). */
#include <string.h>

#include "core/errmsg.h"
#include "train/pipeline.h"
#include "vitesse.h"

void vt_crfpp_learn_opts_init(vt_crfpp_learn_opts *o) {
  memset(o, 0, sizeof *o);
  o->freq = 1;
  o->maxiter = 100000;
  o->cost = 1;
  o->eta = 1e-4;
  o->algorithm = VT_CRFPP_L2;
  o->shrinking_size = 20;
}

vt_status vt_crfpp_learn(const char *templates, const char *train, const char *model,
                         const vt_crfpp_learn_opts *o, vt_crfpp_learn_report *r) {
  char why[VT_ERR_LINE];
  const vt_status st = vt_pipeline_crfpp_learn(templates, train, model, o, r, why, sizeof why);
  return st == VT_OK ? VT_OK : vt_fail(st, "%s", why);
}

vt_status vt_crfpp_convert(const char *text_path, const char *model) {
  char why[VT_ERR_LINE];
  const vt_status st = vt_pipeline_crfpp_convert(text_path, model, why, sizeof why);
  return st == VT_OK ? VT_OK : vt_fail(st, "%s", why);
}
