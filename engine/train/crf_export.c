/* engine/train/crf_export.c: CRF weights to and from CRFsuite models (crf_export.h). */
#include "train/crf_export.h"

#include <stdlib.h>
#include <string.h>

#include "text/strhash.h"

/* Allocates n bytes as the model's next owned block; NULL when out of memory (or no slot). */
static void *own(vt_crfs *m, size_t n) {
  if (m->n_own >= (int)(sizeof m->own / sizeof m->own[0])) return NULL;
  void *p = calloc(1, n ? n : 1);
  if (p) m->own[m->n_own++] = p;
  return p;
}

vt_status vt_crf_export_crfs(vt_crfs **out, const vt_crf_names *n, const vt_crf_feats *f,
                             const double *w) {
  vt_status st = VT_ENOMEM;
  const int32_t L = f->L;
  const size_t Ls = (size_t)L;
  vt_crfs *m = calloc(1, sizeof *m);
  *out = NULL;
  if (!m) return VT_ENOMEM;
  /* Attributes kept and the bytes of the names. */
  uint64_t A = 0, ns = 0, apool = 0, lpool = 0;
  for (int32_t a = 0; a < f->n_attr; a++) {
    uint64_t k = 0;
    for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++) k += w[q] != 0;
    if (k) {
      size_t len;
      vt_featdict_str(&n->attrs, a, &len);
      A++;
      ns += k;
      apool += len;
    }
  }
  for (int32_t y = 0; y < L; y++) {
    size_t len;
    vt_featdict_str(&n->labels, y, &len);
    lpool += len;
  }
  if (A >= UINT32_MAX / 2 || ns >= UINT32_MAX || apool >= UINT32_MAX || lpool >= UINT32_MAX) {
    st = VT_EINVAL;
    goto done;
  }
  m->L = L;
  m->A = (uint32_t)A;
  m->n_state = (uint32_t)ns;
  uint32_t *label_off = own(m, (Ls + 1) * 4), *attr_off = own(m, (A + 1) * 4);
  char *label_pool = own(m, lpool), *attr_pool = own(m, apool);
  uint32_t *st_off = own(m, (A + 1) * 4), *st_label = own(m, ns * 4);
  double *st_w = own(m, ns * 8), *tw = own(m, Ls * Ls * 8);
  const uint64_t n_slots = vt_crfs_slot_count(A);
  uint32_t *slots = own(m, n_slots * 4);
  if (!label_off || !attr_off || !label_pool || !attr_pool || !st_off || !st_label || !st_w ||
      !tw || !slots)
    goto done;
  for (int32_t y = 0; y < L; y++) {
    size_t len;
    const char *s = vt_featdict_str(&n->labels, y, &len);
    memcpy(label_pool + label_off[y], s, len);
    label_off[y + 1] = label_off[y] + (uint32_t)len;
  }
  uint32_t k = 0, q_out = 0;
  for (int32_t a = 0; a < f->n_attr; a++) {
    uint32_t before = q_out;
    for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++)
      if (w[q] != 0) {
        st_label[q_out] = (uint32_t)f->st_label[q];
        st_w[q_out++] = w[q];
      }
    if (q_out == before) continue;
    size_t len;
    const char *s = vt_featdict_str(&n->attrs, a, &len);
    memcpy(attr_pool + attr_off[k], s, len);
    attr_off[k + 1] = attr_off[k] + (uint32_t)len;
    st_off[++k] = q_out;
  }
  for (size_t i = 0; i < Ls * Ls; i++) tw[i] = f->tr_id[i] >= 0 ? w[f->tr_id[i]] : 0.0;
  m->key = vt_hash_key();
  vt_crfs_hash_fill(slots, n_slots, attr_off, attr_pool, (uint32_t)A, m->key);
  m->label_off = label_off;
  m->label_pool = label_pool;
  m->attr_off = attr_off;
  m->attr_pool = attr_pool;
  m->slots = slots;
  m->mask = (uint32_t)(n_slots - 1);
  m->st_off = st_off;
  m->st_label = st_label;
  m->st_w = st_w;
  m->tw = tw;
  *out = m;
  m = NULL;
  st = VT_OK;
done:
  vt_crfs_free(m);
  return st;
}

vt_status vt_crf_names_seed(vt_crf_names *n, const vt_crfs *m) {
  int32_t id;
  for (int32_t y = 0; y < m->L; y++) {
    size_t len;
    const char *s = vt_crfs_label(m, y, &len);
    if (vt_featdict_add(&n->labels, s, len, &id) != VT_OK) return VT_ENOMEM;
  }
  for (uint32_t a = 0; a < m->A; a++)
    if (vt_featdict_add(&n->attrs, m->attr_pool + m->attr_off[a],
                        m->attr_off[a + 1] - m->attr_off[a], &id) != VT_OK)
      return VT_ENOMEM;
  return VT_OK;
}

vt_status vt_crf_prior_from_crfs(vt_crf_prior *p, const vt_crfs *m) {
  const size_t Ls = (size_t)m->L, ns = m->n_state ? m->n_state : 1;
  memset(p, 0, sizeof *p);
  p->L = m->L;
  p->n_attr = (int32_t)m->A;
  p->st_off = malloc(((size_t)m->A + 1) * sizeof *p->st_off);
  p->st_label = malloc(ns * sizeof *p->st_label);
  p->st_w = malloc(ns * sizeof *p->st_w);
  p->tw = malloc((Ls ? Ls * Ls : 1) * sizeof *p->tw);
  if (!p->st_off || !p->st_label || !p->st_w || !p->tw) {
    vt_crf_prior_free(p);
    return VT_ENOMEM;
  }
  for (uint32_t a = 0; a <= m->A; a++) p->st_off[a] = m->st_off[a];
  for (uint32_t q = 0; q < m->n_state; q++) {
    p->st_label[q] = (int32_t)m->st_label[q];
    p->st_w[q] = m->st_w[q];
  }
  memcpy(p->tw, m->tw, Ls * Ls * sizeof *p->tw);
  return VT_OK;
}
