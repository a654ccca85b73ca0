/* engine/train/chunk_features.c: the feature rows of a joint model, built from the gold structures
 * of a training corpus (see vt_chunk_features_build in chunk_train.h). */
#include <stdlib.h>
#include <string.h>

#include "train/chunk_train.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The (row, output) keys of every gold feature, as row << 32 | output. */
static vt_status gold_keys(const vt_chunk_model *m, const vt_chunk_corpus *cp, uint64_t **keys_out,
                           int64_t *n_out) {
  vt_status st = VT_ENOMEM;
  int64_t cap = cp->n_tok * VT_CHUNK_NTMPL + 1, n = 0;
  uint64_t *keys = malloc((size_t)cap * sizeof *keys);
  if (!keys) goto fail;
  for (int64_t s = 0; s < cp->n_sent; s++) {
    vt_chunk_x x;
    vt_chunk_corpus_x(cp, s, &x);
    const int64_t o = cp->off[s];
    for (int k = 0; k < VT_CHUNK_NTMPL; k++) {
      const vt_chunk_tmpl *tp = &vt_chunk_tmpls[k];
      for (int32_t t = 0; t < x.n; t++) {
        const int32_t C = cp->ctag[o + t], P = cp->pos[o + t];
        const uint8_t *beg = cp->begin + o;
        int32_t out, at = t + tp->off;
        if (P < 0) {
          st = VT_EINVAL;
          goto fail;
        }
        switch (tp->part) {
        case VT_CPART_POS_NODE: out = C * m->p + P; break;
        case VT_CPART_POS_TRANS:
          if (t == 0 || beg[t]) continue;
          out = (C * m->p + cp->pos[o + t - 1]) * m->p + P;
          break;
        case VT_CPART_CHUNK_NODE:
          if (tp->at_end ? !(t == x.n - 1 || beg[t + 1]) : !beg[t]) continue;
          out = C;
          break;
        default:
          if (t == 0 || !beg[t]) continue;
          out = cp->ctag[o + t - 1] * m->c + C;
          break;
        }
        int64_t a = 0;
        if (tp->src == VT_CSRC_TYPE)
          a = x.type[at];
        else if (tp->src == VT_CSRC_WORD)
          a = at < 0 ? 0 : at >= x.n ? 1 : x.word[at];
        keys[n++] = (uint64_t)(m->row0[k] + a) << 32 | (uint32_t)out;
      }
    }
  }
  *keys_out = keys;
  *n_out = n;
  return VT_OK;
fail:
  free(keys);
  return st;
}

vt_status vt_chunk_features_build(vt_chunk_model *m, const vt_chunk_corpus *train, int mode) {
  m->c = m->chunk_names.n;
  m->p = m->pos_names.n;
  m->row0[0] = 0;
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) m->row0[k + 1] = m->row0[k] + vt_chunk_tmpl_values(m, k);
  m->n_rows = m->row0[VT_CHUNK_NTMPL];
  uint64_t *keys = NULL;
  int64_t n_keys = 0;
  vt_status st = gold_keys(m, train, &keys, &n_keys);
  if (st != VT_OK) return st;
  qsort(keys, (size_t)n_keys, sizeof *keys, cmp_u64);
  free(m->rowptr);
  free(m->outs);
  free(m->w);
  m->outs = NULL;
  m->w = NULL;
  m->rowptr = calloc((size_t)m->n_rows + 1, sizeof *m->rowptr);
  uint8_t *dense = calloc((size_t)m->n_rows, 1);
  st = VT_ENOMEM;
  if (!m->rowptr || !dense) goto done;
  /* Row sizes: dense rows hold their part's every output; other rows their distinct keys. */
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) {
    const int bias = vt_chunk_tmpls[k].src == VT_CSRC_BIAS;
    if (bias || (mode == VT_CFEAT_ALL && vt_chunk_tmpl_dim(m, k) <= VT_CFEAT_DENSE_MAX))
      for (int64_t r = m->row0[k]; r < m->row0[k + 1]; r++) dense[r] = 1;
  }
  for (int64_t i = 0; i < n_keys; i++) {
    int64_t r = (int64_t)(keys[i] >> 32);
    if (!dense[r] && (i == 0 || keys[i] != keys[i - 1])) m->rowptr[r + 1]++;
  }
  for (int k = 0; k < VT_CHUNK_NTMPL; k++)
    for (int64_t r = m->row0[k]; r < m->row0[k + 1]; r++) {
      int seen = vt_chunk_tmpls[k].src == VT_CSRC_BIAS;
      if (dense[r] && !seen) { /* a value seen in training: find any key of the row */
        uint64_t probe = (uint64_t)r << 32;
        int64_t lo = 0, hi = n_keys;
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (keys[mid] < probe)
            lo = mid + 1;
          else
            hi = mid;
        }
        seen = lo < n_keys && (int64_t)(keys[lo] >> 32) == r;
      }
      if (dense[r]) m->rowptr[r + 1] = seen ? vt_chunk_tmpl_dim(m, k) : 0;
    }
  for (int64_t r = 0; r < m->n_rows; r++) m->rowptr[r + 1] += m->rowptr[r];
  m->n_feat = m->rowptr[m->n_rows];
  m->outs = malloc((size_t)(m->n_feat + 1) * sizeof *m->outs);
  m->w = calloc((size_t)m->n_feat + 1, sizeof *m->w);
  if (!m->outs || !m->w) goto done;
  for (int64_t r = 0; r < m->n_rows; r++) /* dense rows: 0 .. dim-1 */
    if (dense[r])
      for (int64_t e = m->rowptr[r]; e < m->rowptr[r + 1]; e++)
        m->outs[e] = (int32_t)(e - m->rowptr[r]);
  int64_t fill = -1, row = -1;
  for (int64_t i = 0; i < n_keys; i++) {
    int64_t r = (int64_t)(keys[i] >> 32);
    if (dense[r] || (i > 0 && keys[i] == keys[i - 1])) continue;
    if (r != row) fill = m->rowptr[row = r];
    m->outs[fill++] = (int32_t)(uint32_t)keys[i];
  }
  st = VT_OK;
done:
  free(keys);
  free(dense);
  return st;
}
