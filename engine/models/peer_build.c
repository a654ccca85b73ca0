/* engine/models/peer_build.c: a native tagger model from a peer model's parts (see peer_build.h).
 */
#include "models/peer_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "core/memlimit.h"
#include "io/outfile.h"
#include "models/model_file.h"

#define MAX_LABELS 46340 /* as engine/models/model_file.c: L * L fits an int32 key */

/* Makes room for `more` bytes after *len in *p (capacity *cap). Returns 0 or -1. */
static int reserve(void **p, size_t *cap, size_t len, size_t more) {
  if (len + more <= *cap) return 0;
  size_t ncap = *cap ? *cap : 4096;
  while (ncap < len + more) ncap *= 2;
  void *np = realloc(*p, ncap);
  if (!np) return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

vt_status vt_peer_build_init(vt_peer_build *b, int32_t L, double cf, const char *name, char *err,
                             size_t errlen) {
  memset(b, 0, sizeof *b);
  if (L < 1 || L > MAX_LABELS) {
    vt_errorf(err, errlen, name, "%d labels: at most %d", L, MAX_LABELS);
    return VT_EFORMAT;
  }
  char what[64];
  snprintf(what, sizeof what, "a model of %d labels", L);
  vt_status st =
      vt_memlimit_check((uint64_t)L * (uint64_t)L * VT_MEM_PER_LABEL_PAIR, name, what, err, errlen);
  if (st != VT_OK) return st;
  b->L = L;
  b->cf = cf;
  b->key_bytes = L <= 65535 ? 2 : 4;
  b->label_off = calloc((size_t)L + 1, sizeof *b->label_off);
  if (!b->label_off) {
    vt_errorf(err, errlen, name, "out of memory");
    return VT_ENOMEM;
  }
  return VT_OK;
}

vt_status vt_peer_build_label(vt_peer_build *b, const char *s, size_t n) {
  if (b->n_labels >= b->L || b->labels_len + n > UINT32_MAX) return VT_EFORMAT;
  if (reserve((void **)&b->labels, &b->labels_cap, b->labels_len, n + 1)) return VT_ENOMEM;
  memcpy(b->labels + b->labels_len, s, n);
  b->labels_len += n;
  b->label_off[++b->n_labels] = (uint32_t)b->labels_len;
  return VT_OK;
}

vt_status vt_peer_build_template(vt_peer_build *b, const char *s, size_t n) {
  if (reserve((void **)&b->tmpl, &b->tmpl_cap, b->tmpl_len, n + 1)) return VT_ENOMEM;
  memcpy(b->tmpl + b->tmpl_len, s, n);
  b->tmpl[b->tmpl_len + n] = '\n';
  b->tmpl_len += n + 1;
  return VT_OK;
}

vt_status vt_peer_build_templates_end(vt_peer_build *b, const char *name, char *err,
                                      size_t errlen) {
  vt_tmplset ts;
  char terr[256];
  vt_status st =
      vt_tmplset_parse(&ts, b->tmpl ? b->tmpl : "", b->tmpl_len, "template", terr, sizeof terr);
  if (st == VT_ENOMEM) {
    vt_errorf(err, errlen, name, "out of memory");
    return st;
  }
  if (st != VT_OK) {
    vt_errorf(err, errlen, name, "%s", terr);
    return st;
  }
  b->obs_bigram = ts.n_b > 0;
  b->tmpl_done = 1;
  vt_tmplset_free(&ts);
  return VT_OK;
}

/* Appends a zeroed feature record for string s (n bytes) of nnz weights, keys of kb bytes, the
 * flag bits `flags` (bigram, dense) beside nnz, and counts it; returns where its keys go and sets
 * *vals to its values, or NULL when out of memory. */
static uint8_t *record_open(vt_peer_build *b, const char *s, size_t n, uint32_t nnz, uint32_t flags,
                            int kb, float **vals) {
  uint64_t size = vt_feat_size((uint32_t)n, nnz, kb);
  if (reserve((void **)&b->recs, (size_t *)&b->recs_cap, b->recs_len, size)) return NULL;
  uint8_t *r = b->recs + b->recs_len;
  memset(r, 0, size);
  uint32_t head[2] = {(uint32_t)n, nnz | flags};
  memcpy(r, head, 8);
  memcpy(r + 8, s, n);
  uint8_t *keys = r + 8 + vt_pad4((uint32_t)n);
  *vals = (float *)(void *)(keys + (((uint64_t)nnz * (uint64_t)kb + 3) & ~3ull));
  b->recs_len += size;
  b->n_feat++;
  return keys;
}

vt_status vt_peer_build_feature(vt_peer_build *b, const char *s, size_t n, int bigram,
                                const double *w) {
  if (bigram && !b->obs_bigram) return VT_OK;
  const size_t nw = bigram ? (size_t)b->L * (size_t)b->L : (size_t)b->L;
  uint32_t nnz = 0;
  int bad = 0;
  for (size_t i = 0; i < nw; i++) { /* no exit in the loop: it vectorizes */
    bad |= !isfinite(w[i]);
    nnz += (float)(w[i] * b->cf) != 0.0f;
  }
  if (bad) return VT_EFORMAT;
  if (nnz == 0) return VT_OK; /* adds nothing anywhere: as if unseen */
  if (n > UINT32_MAX / 2) return VT_EFORMAT;
  /* dense (all L weights, keyless) when it scores at least an eighth of the labels, as the
   * trainer writes them (engine/train/train_export.c): faster to add */
  const int dense = !bigram && (uint64_t)nnz * 8 >= (uint64_t)b->L;
  const int kb = bigram ? 4 : dense ? 0 : b->key_bytes;
  if (dense) nnz = (uint32_t)b->L;
  float *vals;
  uint8_t *keys =
      record_open(b, s, n, nnz, (bigram ? 0x80000000u : 0) | (dense ? 0x40000000u : 0), kb, &vals);
  if (!keys) return VT_ENOMEM;
  if (dense) { /* every weight, keyless */
    for (size_t i = 0; i < nw; i++) vals[i] = (float)(w[i] * b->cf);
    return VT_OK;
  }
  uint32_t k = 0;
  for (size_t i = 0; i < nw; i++) {
    float v = (float)(w[i] * b->cf);
    if (v == 0.0f) continue;
    if (kb == 2) {
      uint16_t key = (uint16_t)i;
      memcpy(keys + 2 * (size_t)k, &key, 2);
    } else if (kb == 4) {
      uint32_t key = (uint32_t)i;
      memcpy(keys + 4 * (size_t)k, &key, 4);
    }
    vals[k++] = v;
  }
  return VT_OK;
}

vt_status vt_peer_build_bigram_sparse(vt_peer_build *b, const char *s, size_t n,
                                      const uint64_t *key, const double *w, size_t n_w) {
  if (!b->obs_bigram) return VT_OK;
  uint32_t nnz = 0;
  for (size_t i = 0; i < n_w; i++) {
    if (!isfinite(w[i])) return VT_EFORMAT;
    nnz += (float)(w[i] * b->cf) != 0.0f;
  }
  if (nnz == 0) return VT_OK; /* adds nothing anywhere: as if unseen */
  if (n > UINT32_MAX / 2) return VT_EFORMAT;
  float *vals;
  uint8_t *keys = record_open(b, s, n, nnz, 0x80000000u, 4, &vals);
  if (!keys) return VT_ENOMEM;
  uint32_t k = 0;
  for (size_t i = 0; i < n_w; i++) {
    float v = (float)(w[i] * b->cf);
    if (v == 0.0f) continue;
    uint32_t kk = (uint32_t)key[i];
    memcpy(keys + 4 * (size_t)k, &kk, 4);
    vals[k++] = v;
  }
  return VT_OK;
}

/* Allocates the label-bigram matrix at its first use. Returns 0 or -1. */
static int trans_ready(vt_peer_build *b) {
  if (!b->A) b->A = calloc((size_t)b->L * (size_t)b->L, sizeof *b->A);
  return b->A ? 0 : -1;
}

vt_status vt_peer_build_trans(vt_peer_build *b, const double *w) {
  if (trans_ready(b)) return VT_ENOMEM;
  for (size_t i = 0; i < (size_t)b->L * (size_t)b->L; i++) b->A[i] += w[i] * b->cf;
  return VT_OK;
}

vt_status vt_peer_build_trans_sparse(vt_peer_build *b, const uint64_t *key, const double *w,
                                     size_t n_w) {
  if (n_w == 0) return VT_OK;
  if (trans_ready(b)) return VT_ENOMEM;
  for (size_t i = 0; i < n_w; i++) b->A[key[i]] += w[i] * b->cf;
  return VT_OK;
}

vt_status vt_peer_build_finish(vt_peer_build *b, const char *name, vt_textmodel **out, char *err,
                               size_t errlen) {
  vt_status st = VT_ENOMEM;
  const int32_t L = b->L;
  const size_t LL = (size_t)L * (size_t)L;
  vt_textmodel_image img;
  memset(&img, 0, sizeof img);
  *out = NULL;
  uint64_t *freq = calloc((size_t)L, sizeof *freq);
  int32_t *rank = malloc((size_t)L * sizeof *rank);
  float *A = calloc(LL, sizeof *A), *SF = calloc(2 * (size_t)L, sizeof *SF);
  if (!freq || !rank || !A || !SF) goto nomem;
  if (b->n_labels != L) {
    vt_errorf(err, errlen, name, "%d labels named, %d declared", b->n_labels, L);
    st = VT_EFORMAT;
    goto done;
  }
  for (size_t i = 0; i < LL && b->A; i++) {
    A[i] = (float)b->A[i];
    if (!isfinite(A[i])) {
      vt_errorf(err, errlen, name, "transition weight out of range");
      st = VT_EFORMAT;
      goto done;
    }
  }
  free(b->A); /* the doubles go once they are floats; the floats last until the model is built */
  b->A = NULL;
  for (int32_t y = 0; y < L; y++) rank[y] = y; /* no training counts: the peer's order */
  img.L = L;
  img.label_bytes = b->labels ? b->labels : "";
  img.label_off = b->label_off;
  img.label_freq = freq;
  img.rank = rank;
  img.tmpl_text = b->tmpl ? b->tmpl : "";
  img.tmpl_len = b->tmpl_len;
  img.recs = b->recs;
  img.recs_len = b->recs_len;
  img.n_feat = b->n_feat;
  img.key_bytes = b->key_bytes;
  img.A = A;
  img.S = SF;
  img.F = SF + L;
  img.meta.label_col = -1;
  img.meta.ncols = 0;
  img.meta.reader = (uint32_t)VT_SEP_AUTO << 2; /* columns split on blanks or tabs */
  img.meta.origin = b->origin;
  img.obs_bigram = b->obs_bigram;
  if (!img.recs) img.recs = (const uint8_t *)"";
  st = vt_textmodel_from_image(out, &img, name, err, errlen);
  goto done;
nomem:
  vt_errorf(err, errlen, name, "out of memory");
done:
  free(freq);
  free(rank);
  free(A);
  free(SF);
  return st;
}

void vt_peer_build_free(vt_peer_build *b) {
  free(b->labels);
  free(b->label_off);
  free(b->tmpl);
  free(b->recs);
  free(b->A);
  memset(b, 0, sizeof *b);
}
