/* engine/text/textmodel.c: feature lookup in a loaded model, and its lifetime. */
#define _POSIX_C_SOURCE 200809L
#include "text/textmodel.h"

#include <stdlib.h>
#include <string.h>

#include "io/filemap.h"
#include "text/strhash.h"
#include "text/tmpl_index.h"

const uint8_t *vt_textmodel_find(const vt_textmodel *m, const char *s, size_t len) {
  uint64_t h = vt_strhash(s, len);
  const uint32_t tag = vt_textmodel_tag(h, m->off_bits);
  const uint32_t omask = m->off_bits >= 32 ? 0xFFFFFFFFu : (1u << m->off_bits) - 1;
  uint32_t i = (uint32_t)h & m->slot_mask;
  for (;;) {
    uint32_t v = m->slots[i];
    if (!v) return NULL;
    if (m->off_bits >= 32 || v >> m->off_bits == tag) {
      const uint8_t *rec = m->recs + 4 * (uint64_t)((v & omask) - 1);
      const uint32_t *hd = (const uint32_t *)(const void *)rec;
      if (hd[0] == len && memcmp(rec + 8, s, len) == 0) return rec;
    }
    i = (i + 1) & m->slot_mask;
  }
}

vt_status vt_textmodel_bind(vt_textmodel *m) {
  vt_trans_destroy(m->trans);
  m->trans = NULL;
  return vt_trans_create(&m->trans, m->L, m->A, m->S, m->F, m->rank);
}

void vt_textmodel_free(vt_textmodel *m) {
  if (!m) return;
  vt_trans_destroy(m->trans);
  vt_tmpl_index_free(m->tix);
  vt_tmplset_free(&m->tmpl);
  free(m->A);
  free(m->S);
  free(m->F);
  vt_filemap_close(&m->file);
  free(m);
}
