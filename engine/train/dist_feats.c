/* engine/train/dist_feats.c: the CRF feature set of a corpus spread over the processes of a
 * training job (dist.h). Each process lists its (attribute, label) pairs with their exact
 * frequencies (128-bit fixed point) and its label-pair counts; process 0 merges them process by
 * process (attribute by attribute, labels ascending), applies the frequency cut as
 * vt_crf_feats_build does, and hands the feature set to every process. */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "core/fix128.h"
#include "train/dist.h"

/* A feature list: per attribute its labels ascending with their frequencies, and L x L counts. */
typedef struct flist {
  int64_t n;
  int64_t *off;   /* n_attr + 1 */
  int32_t *label; /* n */
  vt_fix128 *sum; /* n */
  int64_t *tr;    /* L * L */
} flist;

static void flist_free(flist *l) {
  free(l->off);
  free(l->label);
  free(l->sum);
  free(l->tr);
  memset(l, 0, sizeof *l);
}

/* This process's list. */
static vt_status flist_local(flist *l, const vt_crf_data *d, const vt_crf_featgen *g) {
  vt_crf_feats f;
  vt_crf_featgen g0 = {0, g->possible_states, 0, NULL};
  const size_t LL = (size_t)d->L * (size_t)d->L;
  memset(l, 0, sizeof *l);
  if (vt_crf_feats_build(&f, d, &g0, NULL) != VT_OK) return VT_ENOMEM;
  l->n = f.n_state;
  l->off = f.st_off;
  l->label = f.st_label;
  f.st_off = NULL;
  f.st_label = NULL;
  vt_crf_feats_free(&f);
  f.st_off = l->off; /* read-only view for vt_crf_feats_state */
  f.st_label = l->label;
  f.n_attr = d->n_attr;
  f.L = d->L;
  l->sum = calloc((size_t)(l->n ? l->n : 1), sizeof *l->sum);
  l->tr = calloc(LL ? LL : 1, sizeof *l->tr);
  if (!l->sum || !l->tr) return VT_ENOMEM;
  for (int64_t s = 0; s < d->n_sent; s++)
    for (int64_t t = d->sent_off[s]; t < d->sent_off[s + 1]; t++) {
      for (int64_t i = d->tok_off[t]; i < d->tok_off[t + 1]; i++) {
        const int64_t k = vt_crf_feats_state(&f, d->attr[i], d->gold[t]);
        if (k >= 0) vt_fix_add_double(&l->sum[k], vt_crf_val(d, i));
      }
      if (t > d->sent_off[s]) l->tr[(size_t)d->gold[t - 1] * (size_t)d->L + (size_t)d->gold[t]]++;
    }
  return VT_OK;
}

static size_t flist_bytes(const flist *l, int64_t A, size_t LL) {
  return 8 + 8 * ((size_t)A + 1) + 20 * (size_t)l->n + 8 * LL;
}

/* The packed layout, every array aligned to 8 bytes: n, offsets, sums, label-pair counts,
 * labels. */
static void flist_pack(const flist *l, int64_t A, size_t LL, char *q) {
  memcpy(q, &l->n, 8);
  q += 8;
  memcpy(q, l->off, 8 * ((size_t)A + 1));
  q += 8 * ((size_t)A + 1);
  memcpy(q, l->sum, 16 * (size_t)l->n);
  q += 16 * (size_t)l->n;
  memcpy(q, l->tr, 8 * LL);
  q += 8 * LL;
  memcpy(q, l->label, 4 * (size_t)l->n);
}

/* The list packed at b (views into b, except for what merging allocates). */
static int flist_view(flist *v, const char *b, size_t len, int64_t A, size_t LL) {
  if (len < 8) return -1;
  memcpy(&v->n, b, 8);
  if (v->n < 0 || len != flist_bytes(v, A, LL)) return -1;
  const char *q = b + 8;
  v->off = (int64_t *)(void *)q;
  q += 8 * ((size_t)A + 1);
  v->sum = (vt_fix128 *)(void *)q;
  q += 16 * (size_t)v->n;
  v->tr = (int64_t *)(void *)q;
  q += 8 * LL;
  v->label = (int32_t *)(void *)q;
  return 0;
}

/* acc = acc merged with v (labels united per attribute, sums added). */
static vt_status flist_merge(flist *acc, const flist *v, int64_t A, size_t LL) {
  flist m;
  memset(&m, 0, sizeof m);
  const int64_t cap = acc->n + v->n;
  m.off = malloc(((size_t)A + 1) * sizeof *m.off);
  m.label = malloc((size_t)(cap ? cap : 1) * sizeof *m.label);
  m.sum = malloc((size_t)(cap ? cap : 1) * sizeof *m.sum);
  if (!m.off || !m.label || !m.sum) {
    flist_free(&m);
    return VT_ENOMEM;
  }
  m.off[0] = 0;
  for (int64_t a = 0; a < A; a++) {
    int64_t i = acc->off[a], j = v->off[a];
    const int64_t ie = acc->off[a + 1], je = v->off[a + 1];
    while (i < ie || j < je) {
      int32_t y;
      vt_fix128 s = {0, 0};
      if (j >= je || (i < ie && acc->label[i] < v->label[j])) {
        y = acc->label[i];
        s = acc->sum[i++];
      } else if (i >= ie || v->label[j] < acc->label[i]) {
        y = v->label[j];
        s = v->sum[j++];
      } else {
        y = acc->label[i];
        s = acc->sum[i++];
        vt_fix_add(&s, v->sum[j++]);
      }
      m.label[m.n] = y;
      m.sum[m.n++] = s;
    }
    m.off[a + 1] = m.n;
  }
  for (size_t k = 0; k < LL; k++) acc->tr[k] += v->tr[k];
  m.tr = acc->tr;
  acc->tr = NULL;
  flist_free(acc);
  *acc = m;
  return VT_OK;
}

/* Process 0: the feature set of the merged list, as vt_crf_feats_build cuts it. */
static vt_status feats_of(vt_crf_feats *f, const flist *l, int32_t L, int32_t A,
                          const vt_crf_featgen *g) {
  const size_t LL = (size_t)L * (size_t)L;
  memset(f, 0, sizeof *f);
  f->L = L;
  f->n_attr = A;
  f->st_off = malloc(((size_t)A + 1) * sizeof *f->st_off);
  f->st_label = malloc((size_t)(l->n ? l->n : 1) * sizeof *f->st_label);
  f->tr_id = malloc((LL ? LL : 1) * sizeof *f->tr_id);
  if (!f->st_off || !f->st_label || !f->tr_id) return VT_ENOMEM;
  f->st_off[0] = 0;
  for (int32_t a = 0; a < A; a++) {
    for (int64_t k = l->off[a]; k < l->off[a + 1]; k++)
      if (!(vt_fix_to_double(l->sum[k]) < g->min_freq)) f->st_label[f->n_state++] = l->label[k];
    f->st_off[a + 1] = f->n_state;
  }
  for (size_t i = 0; i < LL; i++) {
    const int keep = (l->tr[i] > 0 || g->possible_transitions) && (double)l->tr[i] >= g->min_freq;
    f->tr_id[i] = keep ? (int32_t)(f->n_state + f->n_trans++) : -1;
  }
  f->n = f->n_state + f->n_trans;
  return VT_OK;
}

vt_status vt_dist_feats_build(const vt_train_comm *c, vt_crf_feats *f, const vt_crf_data *d,
                              const vt_crf_featgen *g, char *err, size_t errlen) {
  const int64_t A = d->n_attr;
  const size_t LL = (size_t)d->L * (size_t)d->L;
  flist mine;
  char *b = NULL;
  size_t len = 0;
  memset(f, 0, sizeof *f);
  vt_status st = flist_local(&mine, d, g);
  if ((st = vt_dist_agree(c, st, err, errlen)) != VT_OK) goto done;
  if (c->rank == 0) {
    for (int r = 1; r < c->size; r++) {
      flist v;
      memset(&v, 0, sizeof v);
      void *got = NULL;
      if (c->recv(c->ctx, r, &got, &len)) {
        st = VT_EIO;
        goto done;
      }
      if (st == VT_OK)
        st = flist_view(&v, got, len, A, LL) ? VT_EIO : flist_merge(&mine, &v, A, LL);
      free(got);
    }
    if (st == VT_OK) st = feats_of(f, &mine, d->L, d->n_attr, g);
  } else {
    len = flist_bytes(&mine, A, LL);
    if ((b = malloc(len))) flist_pack(&mine, A, LL, b);
    if (c->send(c->ctx, 0, b, b ? len : 0)) {
      st = VT_EIO;
      goto done;
    }
  }
  if ((st = vt_dist_agree(c, st, err, errlen)) != VT_OK) goto done;
  /* Every process gets process 0's feature set. */
  int64_t sizes[3] = {f->n_state, f->n_trans, 0};
  if (c->bcast(c->ctx, sizes, sizeof sizes)) {
    st = VT_EIO;
    goto done;
  }
  if (c->rank != 0) {
    f->L = d->L;
    f->n_attr = d->n_attr;
    f->n_state = sizes[0];
    f->n_trans = sizes[1];
    f->n = sizes[0] + sizes[1];
    f->st_off = malloc(((size_t)A + 1) * sizeof *f->st_off);
    f->st_label = malloc((size_t)(f->n_state ? f->n_state : 1) * sizeof *f->st_label);
    f->tr_id = malloc((LL ? LL : 1) * sizeof *f->tr_id);
    st = f->st_off && f->st_label && f->tr_id ? VT_OK : VT_ENOMEM;
  }
  if ((st = vt_dist_agree(c, st, err, errlen)) != VT_OK) goto done;
  if (c->bcast(c->ctx, f->st_off, ((size_t)A + 1) * sizeof *f->st_off) ||
      (f->n_state && c->bcast(c->ctx, f->st_label, (size_t)f->n_state * sizeof *f->st_label)) ||
      (LL && c->bcast(c->ctx, f->tr_id, LL * sizeof *f->tr_id)))
    st = VT_EIO;
done:
  free(b);
  flist_free(&mine);
  if (st != VT_OK) vt_crf_feats_free(f);
  if (st == VT_ENOMEM)
    vt_fail_into(err, errlen, st, "training: out of memory building the features");
  return st;
}
