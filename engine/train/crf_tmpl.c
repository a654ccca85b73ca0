/* engine/train/crf_tmpl.c: template corpora to CRF problems and back (crf_tmpl.h). */
#include "train/crf_tmpl.h"

#include <stdlib.h>
#include <string.h>

vt_status vt_crf_from_tcorpus(vt_crf_data *d, const vt_tcorpus *c, int32_t L, int32_t n_attr) {
  int64_t occ = 0;
  for (int64_t i = 0; i < c->n_tok * c->n_u; i++) occ += c->ufeat[i] >= 0;
  memset(d, 0, sizeof *d);
  d->L = L;
  d->n_attr = n_attr;
  d->n_sent = c->n_sent;
  d->n_tok = c->n_tok;
  d->max_T = c->max_T;
  d->sent_off = malloc(((size_t)c->n_sent + 1) * sizeof *d->sent_off);
  d->gold = malloc((size_t)(c->n_tok ? c->n_tok : 1) * sizeof *d->gold);
  d->tok_off = malloc(((size_t)c->n_tok + 1) * sizeof *d->tok_off);
  d->attr = malloc((size_t)(occ ? occ : 1) * sizeof *d->attr);
  if (!d->sent_off || !d->gold || !d->tok_off || !d->attr) {
    vt_crf_data_free(d);
    return VT_ENOMEM;
  }
  memcpy(d->sent_off, c->sent_off, ((size_t)c->n_sent + 1) * sizeof *d->sent_off);
  if (c->n_tok) memcpy(d->gold, c->gold, (size_t)c->n_tok * sizeof *d->gold);
  occ = 0;
  d->tok_off[0] = 0;
  for (int64_t t = 0; t < c->n_tok; t++) {
    for (int32_t k = 0; k < c->n_u; k++) {
      int32_t a = c->ufeat[t * c->n_u + k];
      if (a < 0 || a >= n_attr) continue;
      d->attr[occ++] = a; /* every value 1: no val array */
    }
    d->tok_off[t + 1] = occ;
  }
  return VT_OK;
}

vt_status vt_crf_to_weights(vt_weights *W, const vt_crf_feats *f, const double *w) {
  for (int32_t a = 0; a < f->n_attr; a++)
    for (int64_t q = f->st_off[a]; q < f->st_off[a + 1]; q++)
      if (w[q] != 0 && vt_weights_add_wu(W, a, f->st_label[q], w[q], 0) != VT_OK) return VT_ENOMEM;
  for (size_t i = 0; i < (size_t)f->L * (size_t)f->L; i++)
    W->A[i] = f->tr_id[i] >= 0 ? w[f->tr_id[i]] : 0.0;
  return VT_OK;
}
