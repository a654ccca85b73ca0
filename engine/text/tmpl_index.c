/* engine/text/tmpl_index.c: an index's lifetime and its sentinels (see tmpl_index.h; the build
 * is engine/text/tmpl_index_build.c). */
#include "text/tmpl_index.h"

#include <stdlib.h>
#include <string.h>

vt_tmpl_index *vt_tmpl_index_retain(vt_tmpl_index *x) {
  if (x) atomic_fetch_add_explicit(&x->refs, 1, memory_order_relaxed);
  return x;
}

void vt_tmpl_index_free(vt_tmpl_index *x) {
  if (!x || atomic_fetch_sub_explicit(&x->refs, 1, memory_order_acq_rel) > 1) return;
  free(x->vslots);
  free(x->vpool);
  free(x->voff);
  free(x->slots);
  free(x->tails);
  free(x->fast);
  free(x->ncell);
  free(x->cell0);
  free(x->cells);
  free(x->cs_col);
  free(x->cs_item);
  free(x->cs_shared);
  free(x->sent);
  free(x->dpos);
  free(x->dn);
  free(x->dbase);
  free(x->drec);
  free(x->gbase);
  free(x->gdim);
  free(x->lrow);
  free(x->lid);
  free(x->grec);
  free(x->obs_mats);
  free(x->obs_map);
  free(x);
}

int32_t vt_tix_sentinel_text(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t sl, int64_t idx,
                             int32_t T) {
  char sb[VT_TMPL_SENTINEL_MAX], buf[VT_TMPL_SENTINEL_MAX];
  const char *v;
  const size_t n0 = vt_tmpl_sentinel(x->wapiti, idx, T, sb);
  const size_t n = vt_tmpl_item_text(ts, &ts->items[x->cs_item[sl]], sb, n0, buf, &v);
  return vt_tix_value(x, v, n, vt_tix_hash(x, v, n));
}

int32_t vt_tix_sentinel(const vt_tmpl_index *x, const vt_tmplset *ts, int32_t sl, int64_t idx,
                        int32_t T) {
  const int64_t d = idx < 0 ? -idx : idx - T + 1;
  if (d <= VT_TIX_SENT) return x->sent[((size_t)sl * 2 + (idx >= 0)) * (VT_TIX_SENT + 1) + d];
  return vt_tix_sentinel_text(x, ts, sl, idx, T);
}
