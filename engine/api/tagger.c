/* engine/api/tagger.c: the public vt_tagger (vitesse.h): one thread's state for tagging
 * sentences held in memory with a shared model of any kind (its table's tag_cells or
 * tag_items). Its buffers grow to the longest sentence seen and are kept, so the steady state
 * allocates nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "api/model_impl.h"
#include "core/errmsg.h"

struct vt_tagger {
  const vt_model *m;
  vt_decode_opts opts;
  vt_cells_scratch s; /* its kind's scratch: arena, row cache, cells, constraints */
};

vt_status vt_tagger_constrain(vt_tagger *t, const vt_constraints *c) {
  if (c && c->model != vt_kind_features(t->m))
    return vt_fail(VT_EINVAL, "the constraints were made for another model");
  t->s.conf.cons = c;
  return VT_OK;
}

vt_status vt_tagger_create(vt_tagger **out, const vt_model *m, const vt_decode_opts *opts) {
  vt_status st;
  *out = NULL;
  if (!m->ops->tag_cells && !m->ops->tag_items)
    return vt_fail(VT_EUNSUPPORTED, "a transition model has no features to tag with: decode "
                                    "score lattices with vt_decode or vt_engine_decode");
  vt_tagger *t = calloc(1, sizeof *t);
  if (!t) return vt_fail(VT_ENOMEM, "out of memory");
  t->m = m;
  if (opts)
    t->opts = *opts;
  else
    vt_model_default_decoder(m, 1, &t->opts);
  if ((st = vt_model_check_decoder(m, &t->opts)) != VT_OK) goto fail;
  if ((st = vt_arena_create(&t->s.arena, 0)) != VT_OK) {
    vt_fail(st, "out of memory");
    goto fail;
  }
  *out = t;
  return VT_OK;
fail:
  vt_tagger_destroy(t);
  return st;
}

void vt_tagger_destroy(vt_tagger *t) {
  if (!t) return;
  vt_arena_destroy(t->s.arena);
  vt_rowcache_destroy(t->s.cache);
  free(t->s.bytes);
  free(t->s.fields);
  free(t);
}

vt_status vt_tagger_tag(vt_tagger *t, const char *const *cells, int32_t T, int32_t ncols,
                        vt_tag_out *out) {
  out->n_paths = 0;
  if (T < 0 || ncols < 1 || (T > 0 && !cells))
    return vt_fail(VT_EINVAL, "tag: T >= 0 tokens of ncols >= 1 columns expected");
  vt_arena_reset(t->s.arena);
  if (T == 0) {
    out->n_paths = 1;
    if (out->scores) out->scores[0] = 0;
    if (out->marg) out->logz = 0;
    return VT_OK;
  }
  if (!t->m->ops->tag_cells)
    return vt_fail(VT_EUNSUPPORTED, "a CRFsuite model tags item lines: vt_tagger_tag_items");
  char err[VT_ERR_LINE];
  vt_status st = t->m->ops->tag_cells(t->m, &t->opts, &t->s, cells, T, ncols, out, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}

vt_status vt_tagger_tag_items(vt_tagger *t, const char *const *items, int32_t T, vt_tag_out *out) {
  out->n_paths = 0;
  if (!t->m->ops->tag_items)
    return vt_fail(VT_EUNSUPPORTED, "item lines are tagged with a CRFsuite model only");
  if (T < 0 || (T > 0 && !items)) return vt_fail(VT_EINVAL, "tag: T >= 0 items expected");
  vt_arena_reset(t->s.arena);
  char err[VT_ERR_LINE];
  vt_status st = t->m->ops->tag_items(t->m, &t->opts, &t->s, items, T, out, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}
