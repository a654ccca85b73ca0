/* engine/models/kind_transitions.c: the table of transition models (kind_ops.h): an (L, L) NumPy
 * matrix of transitions (and its start and end scores), for decoding score lattices. It has no
 * features, so it tags nothing. */
#include <stdio.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/lattice_file.h"
#include "models/kind_ops.h"

static int sniff(const unsigned char *head, size_t n) {
  return n >= 6 && !memcmp(head, "\x93NUMPY", 6);
}

static vt_status load(vt_model *m, const char *path, char *err, size_t errlen) {
  vt_trans *t = NULL;
  vt_status st = vt_trans_file_load(&t, path, NULL, NULL, NULL, err, errlen);
  m->impl = t;
  return st;
}

static vt_status load_mem(vt_model *m, const void *data, size_t size, const char *name, char *err,
                          size_t errlen) {
  (void)m, (void)data, (void)size;
  snprintf(err, errlen,
           "%s: a transition matrix in memory is opened from its arrays (vt_model_open_trans)",
           name);
  return VT_EUNSUPPORTED;
}

static vt_status describe(vt_model *m) {
  int32_t L = vt_trans_labels(m->impl);
  m->info.labels = L;
  if (vt_kind_names_alloc(&m->names, L) != VT_OK) return VT_ENOMEM;
  for (int32_t y = 0; y < L; y++) {
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d", y);
    if (!(m->names[y] = vt_kind_dup(buf, (size_t)n))) return VT_ENOMEM;
  }
  return VT_OK;
}

static void model_free(vt_model *m) { vt_trans_destroy(m->impl); }

static vt_trans *trans(const vt_model *m) { return m->impl; }

const vt_kind_ops vt_kind_transitions = {
    .kind = VT_MODEL_TRANSITIONS,
    .name = "transitions",
    .can = VT_CAN_KBEST,
    .sniff = sniff,
    .load = load,
    .load_mem = load_mem,
    .describe = describe,
    .free = model_free,
    .trans = trans,
    .decoder_default = vt_kind_decoder_default,
    .decoder_check = vt_kind_decoder_check,
};

vt_status vt_kind_transitions_make(vt_model *m, int32_t L, const double *A, const double *S,
                                   const double *F, const int32_t *rank) {
  vt_trans *t = NULL;
  m->ops = &vt_kind_transitions;
  vt_status st = vt_trans_create(&t, L, A, S, F, rank);
  m->impl = t;
  return st;
}
