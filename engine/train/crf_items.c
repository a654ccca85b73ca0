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

/* A line's attributes, all parsed before any is looked up (vt_featdict_prefetch): their names
 * unescaped back to back in text, and per attribute where its name lies, its value and hash. */
typedef struct line_attrs {
  char *text;
  size_t text_cap;
  struct attr_ref {
    size_t at, len;
    double v;
    uint64_t h;
  } * a;
  int64_t cap;
} line_attrs;

/* Room in la for a line of `len` bytes: its names and values (each field's unescaped bytes and
 * two more) and one attribute a byte; 0 or -1. */
static int line_attrs_fit(line_attrs *la, size_t len) {
  const size_t need = 3 * len + 16;
  if (need > la->text_cap) {
    char *t = realloc(la->text, need);
    if (!t) return -1;
    la->text = t;
    la->text_cap = need;
  }
  if ((int64_t)len + 1 > la->cap) {
    struct attr_ref *a = realloc(la->a, ((size_t)len + 1) * sizeof *a);
    if (!a) return -1;
    la->a = a;
    la->cap = (int64_t)len + 1;
  }
  return 0;
}

/* Appends the item `line` (`len` bytes, line number `lineno` of `file`) to d as its next token;
 * la has room for the line (line_attrs_fit). Returns VT_OK, VT_EFORMAT or VT_ENOMEM (message in
 * err). */
static vt_status item_add(vt_crf_names *n, int frozen, vt_crf_data *d, const char *line, size_t len,
                          line_attrs *la, const char *file, unsigned long long lineno, char *err,
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
  char *scratch = la->text;
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
  /* The attributes, parsed and hashed (runs of tabs separate them). */
  int64_t k = 0;
  size_t used = 0;
  for (;;) {
    while (pos < len && line[pos] == '\t') pos++;
    if (pos >= len) break;
    char *name = scratch + used;
    char *val = vt_crfs_attr_next(line, len, &pos, name, &an, &vn, &has_value);
    double v = 1.0;
    if (has_value && (vn == 0 || vt_crfs_value_parse(val, vn, &v))) {
      name[an] = '\0';
      val[vn] = '\0';
      return vt_fail_into(err, errlen, VT_EFORMAT,
                          "%s:%llu: attribute '%.64s': value '%.64s' is not a finite number", file,
                          lineno, name, val);
    }
    la->a[k] = (struct attr_ref){used, an, v, vt_featdict_hash(&n->attrs, name, an)};
    vt_featdict_prefetch(&n->attrs, la->a[k++].h, 0);
    used += an + vn + 2;
  }
  for (int stage = 1; stage <= 2; stage++)
    for (int64_t i = 0; i < k; i++) vt_featdict_prefetch(&n->attrs, la->a[i].h, stage);
  int64_t occ = d->tok_off[d->n_tok];
  if (reserve2((void **)&d->attr, sizeof *d->attr, (void **)&d->val, sizeof *d->val, &d->cap_occ,
               occ + k))
    return VT_ENOMEM;
  for (int64_t i = 0; i < k; i++) { /* looked up in line order: the ids of one at a time */
    const struct attr_ref *r = &la->a[i];
    int32_t a;
    if (frozen) {
      if ((a = vt_featdict_find_hashed(&n->attrs, scratch + r->at, r->len, r->h)) < 0) continue;
    } else if (vt_featdict_add_hashed(&n->attrs, scratch + r->at, r->len, r->h, &a) != VT_OK) {
      return VT_ENOMEM;
    }
    d->attr[occ] = a;
    d->val[occ++] = r->v;
  }
  d->tok_off[++d->n_tok] = occ;
  return VT_OK;
}

vt_status vt_crf_items_compile(vt_crf_names *n, int frozen, vt_crf_data *d, vt_items *r, char *err,
                               size_t errlen) {
  vt_status st = VT_OK;
  vt_items_batch b;
  memset(&b, 0, sizeof b);
  line_attrs la = {NULL, 0, NULL, 0};
  if (!d->sent_off) {
    if (reserve2((void **)&d->sent_off, sizeof *d->sent_off, NULL, 0, &d->cap_sent, 1) ||
        reserve2((void **)&d->tok_off, sizeof *d->tok_off, (void **)&d->gold, sizeof *d->gold,
                 &d->cap_tok, 1))
      goto nomem;
    d->sent_off[0] = 0;
    d->tok_off[0] = 0;
  }
  while ((st = vt_items_read(r, &b, (size_t)1 << 22, err, errlen)) == VT_OK && b.n_seq > 0) {
    int64_t item = 0;
    for (int32_t s = 0; s < b.n_seq; s++) {
      for (int32_t i = 0; i < b.n_items[s]; i++, item++) {
        const size_t len = b.lens[item];
        if (line_attrs_fit(&la, len)) goto nomem;
        st = item_add(n, frozen, d, b.src + b.at[item], len, &la, b.file,
                      (unsigned long long)(b.line0[s] + (uint64_t)i), err, errlen);
        if (st == VT_ENOMEM) goto nomem;
        if (st != VT_OK) goto done;
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
  free(la.text);
  free(la.a);
  return st;
}
