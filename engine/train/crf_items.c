/* engine/train/crf_items.c: item files to a CRF training problem (crf_items.h). */
#include "train/crf_items.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "text/crfs_fields.h"

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

/* Appends the item `line` (`len` bytes, line number `lineno` of `file`) to d as its next token.
 * `scratch` holds len + 2 bytes. Returns VT_OK, VT_EFORMAT or VT_ENOMEM (message in err). */
static vt_status item_add(vt_crf_names *n, int frozen, vt_crf_data *d, const char *line, size_t len,
                          char *scratch, const char *file, unsigned long long lineno, char *err,
                          size_t errlen) {
  if (memchr(line, '\0', len))
    return vt_fail_into(err, errlen, VT_EFORMAT, "%s:%llu: a NUL byte in the item", file, lineno);
  if (len && line[len - 1] == '\r') /* CRFsuite would train on a label "\r" per CRLF blank line */
    return vt_fail_into(err, errlen, VT_EFORMAT,
                        "%s:%llu: the line ends in CR (CRLF line ends): item files for training "
                        "take LF line ends",
                        file, lineno);
  if (d->n_tok >= INT32_MAX - 1 ||
      reserve2((void **)&d->tok_off, sizeof *d->tok_off, (void **)&d->gold, sizeof *d->gold,
               &d->cap_tok, d->n_tok + 2))
    return VT_ENOMEM;
  size_t pos = 0, an, vn;
  int has_value;
  vt_crfs_attr_next(line, len, &pos, scratch, &an, &vn, &has_value); /* the label */
  if (an == 0)
    return vt_fail_into(err, errlen, VT_EFORMAT, "%s:%llu: the item has no label", file, lineno);
  const unsigned char *bad = vt_label_control((const unsigned char *)scratch, an);
  if (bad)
    return vt_fail_into(err, errlen, VT_EFORMAT,
                        "%s:%llu: the label holds the control byte 0x%02x, which a model "
                        "cannot hold",
                        file, lineno, *bad);
  int32_t y;
  if (frozen == 1)
    y = vt_featdict_find(&n->labels, scratch, an);
  else if (vt_featdict_add(&n->labels, scratch, an, &y) != VT_OK)
    return VT_ENOMEM;
  d->gold[d->n_tok] = y;
  int64_t occ = d->tok_off[d->n_tok];
  for (;;) { /* runs of tabs separate the attributes */
    while (pos < len && line[pos] == '\t') pos++;
    if (pos >= len) break;
    char *val = vt_crfs_attr_next(line, len, &pos, scratch, &an, &vn, &has_value);
    double v = 1.0;
    if (has_value && (vn == 0 || vt_crfs_value_parse(val, vn, &v))) {
      scratch[an] = '\0';
      val[vn] = '\0';
      return vt_fail_into(err, errlen, VT_EFORMAT,
                          "%s:%llu: attribute '%.64s': value '%.64s' is not a finite number", file,
                          lineno, scratch, val);
    }
    int32_t a;
    if (frozen) {
      if ((a = vt_featdict_find(&n->attrs, scratch, an)) < 0) continue;
    } else if (vt_featdict_add(&n->attrs, scratch, an, &a) != VT_OK) {
      return VT_ENOMEM;
    }
    if (reserve2((void **)&d->attr, sizeof *d->attr, (void **)&d->val, sizeof *d->val, &d->cap_occ,
                 occ + 1))
      return VT_ENOMEM;
    d->attr[occ] = a;
    d->val[occ++] = v;
  }
  d->tok_off[++d->n_tok] = occ;
  return VT_OK;
}

vt_status vt_crf_items_compile(vt_crf_names *n, int frozen, vt_crf_data *d, vt_items *r, char *err,
                               size_t errlen) {
  vt_status st = VT_OK;
  vt_items_batch b;
  memset(&b, 0, sizeof b);
  char *scratch = NULL;
  size_t scratch_cap = 0;
  if (!d->sent_off) {
    if (reserve2((void **)&d->sent_off, sizeof *d->sent_off, NULL, 0, &d->cap_sent, 1) ||
        reserve2((void **)&d->tok_off, sizeof *d->tok_off, (void **)&d->gold, sizeof *d->gold,
                 &d->cap_tok, 1))
      goto nomem;
    d->sent_off[0] = 0;
    d->tok_off[0] = 0;
  }
  while ((st = vt_items_read(r, &b, (size_t)1 << 22, err, errlen)) == VT_OK && b.n_seq > 0) {
    const char *p = b.text;
    for (int32_t s = 0; s < b.n_seq; s++) {
      for (int32_t i = 0; i < b.n_items[s]; i++) {
        const char *nl = memchr(p, '\n', (size_t)(b.text + b.len - p));
        const size_t len = (size_t)(nl - p);
        if (len + 2 > scratch_cap) {
          char *q = realloc(scratch, len + 2);
          if (!q) goto nomem;
          scratch = q;
          scratch_cap = len + 2;
        }
        st = item_add(n, frozen, d, p, len, scratch, b.file,
                      (unsigned long long)(b.line0[s] + (uint64_t)i), err, errlen);
        if (st == VT_ENOMEM) goto nomem;
        if (st != VT_OK) goto done;
        p = nl + 1;
      }
      if (reserve2((void **)&d->sent_off, sizeof *d->sent_off, NULL, 0, &d->cap_sent,
                   d->n_sent + 2))
        goto nomem;
      d->sent_off[++d->n_sent] = d->n_tok;
      const int64_t T = d->sent_off[d->n_sent] - d->sent_off[d->n_sent - 1];
      if (T > d->max_T) d->max_T = (int32_t)T;
    }
  }
  if (st != VT_OK) goto done;
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
