/* engine/models/kind_shared.c: what the kinds' tables share (kind_ops.h): the decoder policy every
 * kind starts from, and label names. */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "models/kind_ops.h"

void vt_kind_decoder_default(const vt_model *m, int32_t k, vt_decode_opts *o) {
  vt_decode_opts_default(o, m->info.labels, k);
}

vt_status vt_kind_decoder_check(const vt_model *m, const vt_decode_opts *o, char *err,
                                size_t errlen) {
  (void)m;
  if (o->k < 1 || (o->k > 1 && !vt_algo_kbest(o->algo))) {
    vt_errorf(err, errlen, NULL, "-k %d: --algo %s returns one path", o->k, vt_algo_name(o->algo));
    return VT_EINVAL;
  }
  return VT_OK;
}

char *vt_kind_dup(const char *s, size_t len) {
  char *p = malloc(len + 1);
  if (p) {
    if (len) memcpy(p, s, len);
    p[len] = '\0';
  }
  return p;
}

vt_status vt_kind_names_alloc(char ***names, int32_t n) {
  *names = n > 0 ? calloc((size_t)n, sizeof **names) : NULL;
  return n > 0 && !*names ? VT_ENOMEM : VT_OK;
}
