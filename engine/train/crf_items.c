/* engine/train/crf_items.c: item files to a CRF training problem (crf_items.h). */
#include "train/crf_items.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "text/crfs.h"

vt_status vt_crf_names_init(vt_crf_names *n) {
  memset(n, 0, sizeof *n);
  if (vt_featdict_init(&n->labels) != VT_OK || vt_featdict_init(&n->attrs) != VT_OK) {
    vt_crf_names_free(n);
    return VT_ENOMEM;
  }
  return VT_OK;
}

void vt_crf_names_free(vt_crf_names *n) {
  vt_featdict_free(&n->labels);
  vt_featdict_free(&n->attrs);
}

/* Room for `need` elements in the arrays *p (elements of `size` bytes) and, when q is not NULL,
 * *q (elements of `qsize` bytes), both of capacity *cap; 0 or -1. */
static int reserve2(void **p, size_t size, void **q, size_t qsize, int64_t *cap, int64_t need) {
  if (need <= *cap) return 0;
  int64_t nc = *cap ? *cap : 1024;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, (size_t)nc * size);
  if (!np) return -1;
  *p = np;
  if (q) {
    void *nq = realloc(*q, (size_t)nc * qsize);
    if (!nq) return -1;
    *q = nq;
  }
  *cap = nc;
  return 0;
}

static int reserve(void **p, int64_t *cap, int64_t need, size_t size) {
  return reserve2(p, size, NULL, 0, cap, need);
}

/* Capacities of d's arrays: what they hold rounded up to the growth steps of reserve(). */
static int64_t cap_of(int64_t n) {
  int64_t c = 1024;
  while (c < n) c *= 2;
  return n ? c : 0;
}

vt_status vt_crf_items_compile(vt_crf_names *n, int frozen, vt_crf_data *d, vt_items *r, char *err,
                               size_t errlen) {
  vt_status st = VT_OK;
  vt_items_batch b;
  memset(&b, 0, sizeof b);
  char *scratch = NULL;
  size_t scratch_cap = 0;
  /* What d's arrays hold (reserve() grows them by doubling from 1024: their capacities follow). */
  int64_t cap_sent = d->sent_off ? cap_of(d->n_sent + 1) : 0;
  int64_t cap_tok = d->tok_off ? cap_of(d->n_tok + 1) : 0;
  int64_t cap_occ = d->attr ? cap_of(d->tok_off[d->n_tok]) : 0;
  if (!d->sent_off) {
    if (reserve((void **)&d->sent_off, &cap_sent, 1, sizeof *d->sent_off) ||
        reserve2((void **)&d->tok_off, sizeof *d->tok_off, (void **)&d->gold, sizeof *d->gold,
                 &cap_tok, 1))
      goto nomem;
    d->sent_off[0] = 0;
    d->tok_off[0] = 0;
  }
  for (;;) {
    if ((st = vt_items_read(r, &b, (size_t)1 << 22, err, errlen)) != VT_OK) goto done;
    if (b.n_seq == 0) break;
    const char *p = b.text;
    for (int32_t s = 0; s < b.n_seq; s++) {
      for (int32_t i = 0; i < b.n_items[s]; i++) {
        const char *nl = memchr(p, '\n', (size_t)(b.text + b.len - p));
        size_t len = (size_t)(nl - p);
        const unsigned long long line = (unsigned long long)(b.line0[s] + (uint64_t)i);
        if (len + 2 > scratch_cap) {
          char *q = realloc(scratch, len + 2);
          if (!q) goto nomem;
          scratch = q;
          scratch_cap = len + 2;
        }
        if (memchr(p, '\0', len)) {
          st = vt_fail_into(err, errlen, VT_EFORMAT, "%s:%llu: a NUL byte in the item", b.file,
                            line);
          goto done;
        }
        if (d->n_tok >= INT32_MAX - 1 ||
            reserve2((void **)&d->tok_off, sizeof *d->tok_off, (void **)&d->gold, sizeof *d->gold,
                     &cap_tok, d->n_tok + 2))
          goto nomem;
        size_t pos = 0;
        int first = 1;
        int64_t occ = d->tok_off[d->n_tok];
        for (;;) {
          if (!first) /* runs of tabs separate attributes; the label is the first field */
            while (pos < len && p[pos] == '\t') pos++;
          if (pos >= len && !first) break;
          size_t an = vt_crfs_field_read(p, len, &pos, scratch);
          char *val = scratch + an + 1;
          size_t vn = 0;
          int has_value = 0;
          if (pos < len && p[pos] == ':') {
            pos++;
            has_value = 1;
            vn = vt_crfs_field_read(p, len, &pos, val);
          }
          if (first) {
            first = 0;
            if (an == 0) {
              st = vt_fail_into(err, errlen, VT_EFORMAT, "%s:%llu: the item has no label", b.file,
                                line);
              goto done;
            }
            int32_t y;
            if (frozen)
              y = vt_featdict_find(&n->labels, scratch, an);
            else if (vt_featdict_add(&n->labels, scratch, an, &y) != VT_OK)
              goto nomem;
            d->gold[d->n_tok] = y;
            continue;
          }
          double v = 1.0;
          if (has_value && (vn == 0 || vt_crfs_value_parse(val, vn, &v))) {
            scratch[an] = '\0';
            val[vn] = '\0';
            st = vt_fail_into(err, errlen, VT_EFORMAT,
                              "%s:%llu: attribute '%.64s': value '%.64s' is not a finite number",
                              b.file, line, scratch, val);
            goto done;
          }
          int32_t a;
          if (frozen) {
            if ((a = vt_featdict_find(&n->attrs, scratch, an)) < 0) continue;
          } else if (vt_featdict_add(&n->attrs, scratch, an, &a) != VT_OK) {
            goto nomem;
          }
          if (reserve2((void **)&d->attr, sizeof *d->attr, (void **)&d->val, sizeof *d->val,
                       &cap_occ, occ + 1))
            goto nomem;
          d->attr[occ] = a;
          d->val[occ++] = v;
        }
        d->tok_off[++d->n_tok] = occ;
        p = nl + 1;
      }
      if (reserve((void **)&d->sent_off, &cap_sent, d->n_sent + 2, sizeof *d->sent_off)) goto nomem;
      d->sent_off[++d->n_sent] = d->n_tok;
      int64_t T = d->sent_off[d->n_sent] - d->sent_off[d->n_sent - 1];
      if (T > d->max_T) d->max_T = (int32_t)T;
    }
  }
  d->L = n->labels.n;
  d->n_attr = n->attrs.n;
  goto done;
nomem:
  st = vt_fail_into(err, errlen, VT_ENOMEM, "%s: out of memory reading the items",
                    b.file ? b.file : "items");
done:
  vt_items_batch_free(&b);
  free(scratch);
  return st;
}
