/* engine/chunk/chunk_feat.c: the joint model's templates, token types, POS collapsing, part scores
 * of a sentence and the features of a structure (see chunk_model.h). */
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "chunk/chunk_model.h"

const vt_chunk_tmpl vt_chunk_tmpls[VT_CHUNK_NTMPL] = {
    {VT_CPART_POS_NODE, VT_CSRC_BIAS, 0, 0, "pos-node"},
    {VT_CPART_POS_NODE, VT_CSRC_WORD, 0, -1, "pos-node x[r-1]"},
    {VT_CPART_POS_NODE, VT_CSRC_WORD, 0, 0, "pos-node x[r]"},
    {VT_CPART_POS_NODE, VT_CSRC_WORD, 0, 1, "pos-node x[r+1]"},
    {VT_CPART_POS_NODE, VT_CSRC_TYPE, 0, 0, "pos-node t[r]"},
    {VT_CPART_POS_TRANS, VT_CSRC_BIAS, 0, 0, "pos-trans"},
    {VT_CPART_POS_TRANS, VT_CSRC_WORD, 0, -1, "pos-trans x[r-1]"},
    {VT_CPART_POS_TRANS, VT_CSRC_WORD, 0, 0, "pos-trans x[r]"},
    {VT_CPART_CHUNK_NODE, VT_CSRC_BIAS, 0, 0, "chunk-node"},
    {VT_CPART_CHUNK_NODE, VT_CSRC_WORD, 0, -1, "chunk-node x[q-1]"},
    {VT_CPART_CHUNK_NODE, VT_CSRC_WORD, 0, 0, "chunk-node x[q]"},
    {VT_CPART_CHUNK_NODE, VT_CSRC_WORD, 1, 0, "chunk-node x[r]"},
    {VT_CPART_CHUNK_NODE, VT_CSRC_WORD, 1, 1, "chunk-node x[r+1]"},
    {VT_CPART_CHUNK_TRANS, VT_CSRC_BIAS, 0, 0, "chunk-trans"},
    {VT_CPART_CHUNK_TRANS, VT_CSRC_WORD, 0, -1, "chunk-trans x[q-1]"},
    {VT_CPART_CHUNK_TRANS, VT_CSRC_WORD, 0, 0, "chunk-trans x[q]"},
};

static int is_up(unsigned char ch) { return ch >= 'A' && ch <= 'Z'; }
static int is_lo(unsigned char ch) { return ch >= 'a' && ch <= 'z'; }

/* Length of the run of bytes of one class starting at i. */
static size_t run(const unsigned char *s, size_t i, size_t n, int (*cls)(unsigned char)) {
  size_t j = i;
  while (j < n && cls(s[j])) j++;
  return j - i;
}

int vt_chunk_token_type(const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  size_t u = run(s, 0, n, is_up);
  if (u == 1 && n > 1 && run(s, 1, n, is_lo) == n - 1) return VT_TTYPE_CAPITAL;
  if (u == 1 && n == 1) return VT_TTYPE_CAP_ONE;
  if (u >= 1 && u == n) return VT_TTYPE_CAP_ALL;
  if (u >= 1) { /* [A-Z]+[a-z]+[A-Z]+[a-z]* */
    size_t l = run(s, u, n, is_lo), u2 = l ? run(s, u + l, n, is_up) : 0;
    if (l && u2 && u + l + u2 + run(s, u + l + u2, n, is_lo) == n) return VT_TTYPE_CAP_MIX;
  }
  for (size_t i = 0; i < n; i++)
    if (s[i] >= '0' && s[i] <= '9') return VT_TTYPE_NUMBER;
  return VT_TTYPE_NONE;
}

const char *vt_chunk_pos_collapse(int mode, const char *tag, size_t len, size_t *out_len) {
  static const struct {
    const char *prefix, *to;
  } rules[] = {{"NN", "NOUN"}, {"VB", "VERB"}, {"JJ", "JADJ"}, {"RB", "RBP"}};
  if (mode != VT_COLLAPSE_PAPER) {
    *out_len = len;
    return tag;
  }
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (len >= 2 && !memcmp(tag, rules[i].prefix, 2)) {
      *out_len = strlen(rules[i].to);
      return rules[i].to;
    }
  *out_len = 5;
  return "OTHER";
}

int64_t vt_chunk_tmpl_values(const vt_chunk_model *m, int k) {
  switch (vt_chunk_tmpls[k].src) {
  case VT_CSRC_WORD: return m->words.n;
  case VT_CSRC_TYPE: return VT_TTYPE_COUNT;
  default: return 1;
  }
}

int64_t vt_chunk_tmpl_dim(const vt_chunk_model *m, int k) {
  const int64_t c = m->c, p = m->p;
  switch (vt_chunk_tmpls[k].part) {
  case VT_CPART_POS_NODE: return c * p;
  case VT_CPART_POS_TRANS: return c * p * p;
  case VT_CPART_CHUNK_NODE: return c;
  default: return c * c;
  }
}

vt_status vt_chunk_model_init(vt_chunk_model *m) {
  memset(m, 0, sizeof *m);
  int32_t id;
  if (vt_featdict_init(&m->pos_names) || vt_featdict_init(&m->chunk_names) ||
      vt_featdict_init(&m->words) || vt_featdict_add(&m->words, "_B-1", 4, &id) ||
      vt_featdict_add(&m->words, "_B+1", 4, &id) || vt_featdict_add(&m->chunk_names, "O", 1, &id))
    return VT_ENOMEM;
  m->c = 1;
  return VT_OK;
}

void vt_chunk_model_free(vt_chunk_model *m) {
  vt_featdict_free(&m->pos_names);
  vt_featdict_free(&m->chunk_names);
  vt_featdict_free(&m->words);
  free(m->rowptr);
  free(m->outs);
  free(m->w);
  memset(m, 0, sizeof *m);
}

/* Observation value of template k at anchor token t of x, or -1 (an unknown word). */
static inline int64_t obs_at(const vt_chunk_x *x, const vt_chunk_tmpl *tp, int32_t t) {
  if (tp->src == VT_CSRC_BIAS) return 0;
  int32_t at = t + tp->off;
  if (tp->src == VT_CSRC_TYPE) return x->type[at];
  if (at < 0) return 0;
  if (at >= x->n) return 1;
  return x->word[at];
}

/* Is t an anchor of template tp in the structure? (The structure is NULL when building the
 * lattice: every token is then an anchor of every template it can be.) */
static inline int is_anchor(const vt_chunk_tmpl *tp, int32_t t, int32_t n, const uint8_t *begin) {
  switch (tp->part) {
  case VT_CPART_POS_NODE: return 1;
  case VT_CPART_POS_TRANS: return t > 0 && (!begin || !begin[t]);
  case VT_CPART_CHUNK_NODE:
    if (!begin) return 1;
    return tp->at_end ? (t == n - 1 || begin[t + 1]) : begin[t];
  default: return t > 0 && (!begin || begin[t]);
  }
}

vt_status vt_chunk_lattice_build(const vt_chunk_model *m, const double *w, const vt_chunk_x *x,
                                 int32_t W, vt_arena *arena, vt_chunk_lattice *lat) {
  const int32_t n = x->n, c = m->c, p = m->p;
  memset(lat, 0, sizeof *lat);
  lat->n = n;
  lat->c = c;
  lat->p = p;
  lat->W = W > 0 && W < n ? W : n;
  const size_t sz[4] = {(size_t)n * c * p, (size_t)n * c * p * p, (size_t)n * c, (size_t)n * c * c};
  double *dst[5];
  for (int i = 0; i < 4; i++) {
    dst[i] = VT_ARENA_NEW(arena, double, sz[i]);
    if (!dst[i]) return VT_ENOMEM;
    memset(dst[i], 0, sz[i] * sizeof(double));
  }
  dst[4] = VT_ARENA_NEW(arena, double, sz[2]); /* chunk-node scores at the chunk's end */
  if (!dst[4]) return VT_ENOMEM;
  memset(dst[4], 0, sz[2] * sizeof(double));
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) {
    const vt_chunk_tmpl *tp = &vt_chunk_tmpls[k];
    const int64_t dim = vt_chunk_tmpl_dim(m, k);
    double *d = tp->part == VT_CPART_CHUNK_NODE && tp->at_end ? dst[4] : dst[tp->part];
    for (int32_t t = 0; t < n; t++) {
      if (!is_anchor(tp, t, n, NULL)) continue;
      const int64_t a = obs_at(x, tp, t);
      if (a < 0) continue;
      const int64_t row = m->row0[k] + a;
      double *o = d + t * dim;
      for (int64_t e = m->rowptr[row]; e < m->rowptr[row + 1]; e++) o[m->outs[e]] += w[e];
    }
  }
  lat->pos_node = dst[VT_CPART_POS_NODE];
  lat->pos_trans = dst[VT_CPART_POS_TRANS];
  lat->chunk_left = dst[VT_CPART_CHUNK_NODE];
  lat->chunk_right = dst[4];
  lat->chunk_trans = dst[VT_CPART_CHUNK_TRANS];
  return VT_OK;
}

int64_t vt_chunk_feat_find(const vt_chunk_model *m, int k, int64_t a, int32_t o) {
  if (a < 0 || a >= m->row0[k + 1] - m->row0[k]) return -1;
  const int64_t row = m->row0[k] + a;
  int64_t lo = m->rowptr[row], hi = m->rowptr[row + 1];
  if (hi - lo == vt_chunk_tmpl_dim(m, k)) return lo + o; /* a dense row */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (m->outs[mid] < o)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < m->rowptr[row + 1] && m->outs[lo] == o ? lo : -1;
}

int64_t vt_chunk_feats(const vt_chunk_model *m, const vt_chunk_x *x, const int32_t *pos,
                       const int32_t *ctag, const uint8_t *begin, uint32_t mask, int64_t *ids) {
  const int32_t n = x->n, c = m->c, p = m->p;
  int64_t k_n = 0;
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) {
    if (!(mask >> k & 1u)) continue;
    const vt_chunk_tmpl *tp = &vt_chunk_tmpls[k];
    for (int32_t t = 0; t < n; t++) {
      if (!is_anchor(tp, t, n, begin)) continue;
      int32_t o;
      switch (tp->part) {
      case VT_CPART_POS_NODE: o = ctag[t] * p + pos[t]; break;
      case VT_CPART_POS_TRANS: o = (ctag[t] * p + pos[t - 1]) * p + pos[t]; break;
      case VT_CPART_CHUNK_NODE: o = ctag[t]; break;
      default: o = ctag[t - 1] * c + ctag[t]; break;
      }
      int64_t id = vt_chunk_feat_find(m, k, obs_at(x, tp, t), o);
      if (id >= 0) ids[k_n++] = id;
    }
  }
  return k_n;
}
