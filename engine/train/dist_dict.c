/* engine/train/dist_dict.c: agreeing, prefix sums, broadcasting and merging dictionaries across
 * the processes of a training job (dist.h). */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "train/dist.h"

vt_status vt_dist_agree(const vt_train_comm *c, vt_status st, char *err, size_t errlen) {
  int64_t bad = st != VT_OK;
  if (c->sum_i64(c->ctx, &bad, 1))
    return vt_fail_into(err, errlen, VT_EIO, "training: the processes lost touch");
  if (bad && st == VT_OK) return vt_fail_into(err, errlen, VT_ECANCELED, "another process failed");
  return st;
}

vt_status vt_dist_prefix(const vt_train_comm *c, int64_t v, int64_t *before, int64_t *total,
                         char *err, size_t errlen) {
  int64_t *all = calloc((size_t)c->size, sizeof *all);
  if (!all) return vt_fail_into(err, errlen, VT_ENOMEM, "training: out of memory");
  all[c->rank] = v;
  if (c->sum_i64(c->ctx, all, c->size)) {
    free(all);
    return vt_fail_into(err, errlen, VT_EIO, "training: the processes lost touch");
  }
  *before = *total = 0;
  for (int i = 0; i < c->size; i++) {
    if (i < c->rank) *before += all[i];
    *total += all[i];
  }
  free(all);
  return VT_OK;
}

vt_status vt_dist_bcast_blob(const vt_train_comm *c, void **p, int64_t *n, char *err,
                             size_t errlen) {
  int64_t len = c->rank == 0 ? *n : 0;
  if (c->bcast(c->ctx, &len, sizeof len)) return VT_EIO;
  if (c->rank != 0) {
    *n = len;
    if (!(*p = malloc(len ? (size_t)len : 1))) return VT_ENOMEM; /* the job then fails */
  }
  return len && c->bcast(c->ctx, *p, (size_t)len) ? VT_EIO : VT_OK;
}

/* A dictionary as bytes: n, then per entry its length, its count and its bytes (malloc'd; NULL
 * when out of memory). */
static void *dict_pack(const vt_featdict *d, size_t *len) {
  size_t n = 8 + (size_t)d->n * 8 + d->pool_len;
  char *b = malloc(n), *q = b;
  if (!b) return NULL;
  int64_t k = d->n;
  memcpy(q, &k, 8);
  q += 8;
  for (int32_t i = 0; i < d->n; i++) {
    size_t sl;
    const char *s = vt_featdict_str(d, i, &sl);
    uint32_t h[2] = {(uint32_t)sl, d->count[i]};
    memcpy(q, h, 8);
    memcpy(q + 8, s, sl);
    q += 8 + sl;
  }
  *len = n;
  return b;
}

/* Adds the packed dictionary b (len bytes) to d; its entries' ids into *map (malloc'd, *k). */
static vt_status dict_add_packed(vt_featdict *d, const char *b, size_t len, int32_t **map,
                                 int64_t *k) {
  vt_status st = VT_EIO;
  int32_t *m = NULL;
  if (len < 8) goto done;
  memcpy(k, b, 8);
  if (*k < 0 || (uint64_t)*k > (len - 8) / 8) goto done;
  st = VT_ENOMEM;
  if (!(m = malloc((size_t)(*k > 0 ? *k : 1) * sizeof *m))) goto done;
  size_t at = 8;
  for (int64_t i = 0; i < *k; i++) {
    uint32_t h[2];
    st = VT_EIO;
    if (at + 8 > len) goto done;
    memcpy(h, b + at, 8);
    if (h[0] > len - at - 8) goto done;
    if ((st = vt_featdict_add(d, b + at + 8, h[0], &m[i])) != VT_OK) goto done;
    /* vt_featdict_add counted one insertion: add the rest of this part's count, saturating */
    uint64_t sum = (uint64_t)d->count[m[i]] - 1 + h[1];
    d->count[m[i]] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
    at += 8 + h[0];
  }
  st = VT_OK;
done:
  if (st != VT_OK) {
    free(m);
    m = NULL;
  }
  *map = m;
  return st;
}

vt_status vt_dist_dict_merge(const vt_train_comm *c, vt_featdict *d, int32_t **map, char *err,
                             size_t errlen) {
  vt_status st = VT_OK;
  void *b = NULL;
  size_t len = 0;
  *map = NULL;
  if (c->rank == 0) {
    if (!(*map = malloc((size_t)(d->n ? d->n : 1) * sizeof **map))) st = VT_ENOMEM;
    for (int32_t i = 0; st == VT_OK && i < d->n; i++) (*map)[i] = i;
    /* Process by process, in order; after a failure the others still get their answer. */
    for (int r = 1; r < c->size; r++) {
      int32_t *m = NULL;
      int64_t k = 0;
      if (c->recv(c->ctx, r, &b, &len)) return VT_EIO;
      if (st == VT_OK) st = dict_add_packed(d, b, len, &m, &k);
      free(b);
      b = NULL;
      /* The answer: the ids of its entries, or nothing when the merge failed. */
      int rc = c->send(c->ctx, r, m, st == VT_OK ? (size_t)k * sizeof *m : 0);
      free(m);
      if (rc) return VT_EIO;
    }
  } else {
    st = VT_ENOMEM;
    if (!(b = dict_pack(d, &len))) len = 0; /* an empty message: process 0 then fails */
    if (c->send(c->ctx, 0, b, len)) {
      free(b);
      return VT_EIO;
    }
    free(b);
    b = NULL;
    if (c->recv(c->ctx, 0, &b, &len)) return VT_EIO;
    if (len == (size_t)d->n * sizeof **map && (d->n == 0 || b)) {
      *map = b ? b : malloc(1);
      b = NULL;
      st = *map ? VT_OK : VT_ENOMEM;
    }
    free(b);
  }
  if (st != VT_OK) {
    free(*map);
    *map = NULL;
    vt_fail_into(err, errlen, st == VT_EIO ? VT_EIO : VT_ENOMEM,
                 "training: out of memory merging the dictionaries");
  }
  return vt_dist_agree(c, st, err, errlen);
}

vt_status vt_dist_dict_bcast(const vt_train_comm *c, vt_featdict *d, char *err, size_t errlen) {
  vt_status st = VT_OK;
  void *b = NULL;
  int64_t n = 0;
  if (c->rank == 0) {
    size_t len = 0;
    if ((b = dict_pack(d, &len))) n = (int64_t)len;
  }
  if (vt_dist_bcast_blob(c, &b, &n, err, errlen) != VT_OK) st = VT_EIO;
  if (st == VT_OK && n < 8) st = VT_ENOMEM; /* process 0 could not pack it */
  if (st == VT_OK && c->rank != 0) {        /* the same entries, ids and counts as process 0's */
    int32_t *map = NULL;
    int64_t k = 0;
    vt_featdict_free(d);
    if ((st = vt_featdict_init(d)) == VT_OK) st = dict_add_packed(d, b, (size_t)n, &map, &k);
    free(map);
  }
  free(b);
  if (st == VT_ENOMEM) vt_fail_into(err, errlen, st, "training: out of memory sharing the labels");
  return vt_dist_agree(c, st, err, errlen);
}
