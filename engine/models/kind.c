/* engine/models/kind.c: the model kinds' tables (kind_ops.h), found by kind or by a file's first
 * bytes: the only place that lists the kinds. */
#include <stddef.h>

#include "models/kind_ops.h"

/* In the order a file's first bytes are tried: the tagger's sniff is the loosest. */
static const vt_kind_ops *const kinds[] = {&vt_kind_joint, &vt_kind_transitions, &vt_kind_crfsuite,
                                           &vt_kind_tagger};

const vt_kind_ops *vt_kind_ops_of(vt_model_kind kind) {
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i]->kind == kind) return kinds[i];
  return NULL;
}

const vt_kind_ops *vt_kind_ops_sniff(const unsigned char *head, size_t n) {
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i]->sniff(head, n)) return kinds[i];
  return NULL;
}

const char *vt_model_kind_name(vt_model_kind kind) {
  const vt_kind_ops *k = vt_kind_ops_of(kind);
  return k ? k->name : "unknown";
}

uint32_t vt_model_kind_can(vt_model_kind kind) {
  const vt_kind_ops *k = vt_kind_ops_of(kind);
  return k ? k->can : 0;
}

vt_textmodel *vt_kind_features(const vt_model *m) {
  return m->ops->features ? m->ops->features(m) : NULL;
}
