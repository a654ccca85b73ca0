/* engine/text/template.c: parses template files into vt_tmplset (see template.h). */
#include "text/template.h"

#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "text/regex.h"

typedef struct builder {
  vt_tmplset *ts;
  int32_t cap_t;
  uint32_t n_items, cap_items;
  size_t pool_len, pool_cap;
  int keep_plain; /* macro-free B lines are templates of their own (vt_tmplset_parse_crfpp) */
} builder;

static int grow(void **p, size_t elem, size_t need, size_t *cap) {
  if (need <= *cap) return 0;
  size_t ncap = *cap ? *cap : 16;
  while (ncap < need) ncap *= 2;
  void *np = realloc(*p, ncap * elem);
  if (!np) return -1;
  *p = np;
  *cap = ncap;
  return 0;
}

/* Appends `len` bytes (and a NUL) to the pool; returns their offset via *off. */
static int pool_add(builder *b, const char *s, size_t len, uint32_t *off) {
  if (b->pool_len + len + 1 > UINT32_MAX) return -1;
  if (grow((void **)&b->ts->pool, 1, b->pool_len + len + 1, &b->pool_cap)) return -1;
  if (len) memcpy(b->ts->pool + b->pool_len, s, len);
  b->ts->pool[b->pool_len + len] = '\0';
  *off = (uint32_t)b->pool_len;
  b->pool_len += len + 1;
  return 0;
}

static vt_tmpl_item *item_new(builder *b) {
  size_t cap = b->cap_items;
  if (grow((void **)&b->ts->items, sizeof(vt_tmpl_item), (size_t)b->n_items + 1, &cap)) return NULL;
  b->cap_items = (uint32_t)cap;
  vt_tmpl_item *it = &b->ts->items[b->n_items++];
  memset(it, 0, sizeof *it);
  return it;
}

/* Recognizes the prefix pattern "^" + n x ".?" (1) and the suffix pattern n x ".?" + "$" (2),
 * whose leftmost matches are the first / last min(n, length) bytes; 0 otherwise. */
static uint8_t regex_shortcut(const char *re, uint32_t *n) {
  int prefix = re[0] == '^';
  const char *p = re + prefix;
  uint32_t k = 0;
  while (p[0] == '.' && p[1] == '?') {
    p += 2;
    k++;
  }
  *n = k;
  if (k == 0) return 0;
  if (prefix && p[0] == '\0') return 1;
  if (!prefix && p[0] == '$' && p[1] == '\0') return 2;
  return 0;
}

static const char *skip_blanks(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return p;
}

/* The value of hex digit c, or -1. */
static int digit_of(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Parses an optionally signed integer with |value| <= 1000000: decimal, or, when `c_base` (C's
 * %i, as Wapiti reads rows), octal after a leading 0 and hexadecimal after 0x. */
static const char *parse_int(const char *p, const char *end, int allow_sign, int c_base,
                             int32_t *out) {
  int neg = 0, base = 10;
  if (allow_sign && p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  if (p >= end || *p < '0' || *p > '9') return NULL;
  if (c_base && *p == '0') {
    base = 8;
    if (end - p > 2 && (p[1] == 'x' || p[1] == 'X') && digit_of(p[2]) >= 0) {
      base = 16;
      p += 2;
    }
  }
  int32_t v = 0;
  for (int d; p < end && (d = digit_of(*p)) >= 0 && d < base; p++) {
    v = v * base + d;
    if (v > 1000000) return NULL;
  }
  *out = neg ? -v : v;
  return p;
}

/* Parses one template line [p, end) (trimmed, non-empty, not a comment) as a unigram or, when
 * `bigram`, a bigram template; `mark` is a literal put before its text (Wapiti's `*`). */
static vt_status parse_line(builder *b, const char *p, const char *end, int32_t lineno,
                            const char *name, int bigram, const char *mark, char *err,
                            size_t errlen) {
  vt_tmplset *ts = b->ts;
  vt_tmpl tm = {bigram, b->n_items, 0, 0, 0, lineno};
  if (*mark) {
    vt_tmpl_item *it = item_new(b);
    if (!it || pool_add(b, mark, strlen(mark), &it->off)) return VT_ENOMEM;
    it->kind = VT_TI_LIT;
    it->len = (uint32_t)strlen(mark);
    tm.lit_len += it->len;
  }
  const char *lit = p, *q = p;
  while (q < end) {
    if (*q != '%') {
      q++;
      continue;
    }
    if (q > lit) {
      vt_tmpl_item *it = item_new(b);
      if (!it || pool_add(b, lit, (size_t)(q - lit), &it->off)) return VT_ENOMEM;
      it->kind = VT_TI_LIT;
      it->len = (uint32_t)(q - lit);
      tm.lit_len += it->len;
    }
    const char *cmd = q;
    char c = q + 1 < end ? q[1] : '\0';
    char lc = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lc != 'x' && lc != 't' && lc != 'm') {
      vt_errorf(err, errlen, NULL, "%s:%d: unknown macro '%%%c' (expected %%x, %%t or %%m)", name,
                lineno, c ? c : ' ');
      return VT_EFORMAT;
    }
    q += 2;
    int32_t row = 0, col = 0;
    int abs = 0;
    const char *re = NULL;
    size_t re_len = 0;
    if (q >= end || *q != '[') goto syntax;
    q = skip_blanks(q + 1, end);
    if (ts->wapiti && q < end && *q == '@') {
      abs = 1;
      q++;
    }
    if (!(q = parse_int(q, end, 1, ts->wapiti, &row))) goto syntax;
    q = skip_blanks(q, end);
    if (q >= end || *q != ',') goto syntax;
    q = skip_blanks(q + 1, end);
    if (!(q = parse_int(q, end, 0, 0, &col))) goto syntax;
    q = skip_blanks(q, end);
    if (lc != 'x') {
      if (q >= end || *q != ',') goto syntax;
      q = skip_blanks(q + 1, end);
      if (q >= end || *q != '"') goto syntax;
      re = ++q;
      while (q < end && *q != '"') q += (*q == '\\' && q + 1 < end) ? 2 : 1;
      if (q >= end) goto syntax;
      re_len = (size_t)(q - re);
      q = skip_blanks(q + 1, end);
    }
    if (q >= end || *q != ']') goto syntax;
    q++;
    vt_tmpl_item *it = item_new(b);
    if (!it) return VT_ENOMEM;
    it->kind = lc == 'x' ? VT_TI_X : lc == 't' ? VT_TI_T : VT_TI_M;
    it->caps = c != lc;
    it->abs = (uint8_t)abs;
    it->row = row;
    it->col = col;
    if (re) {
      if (memchr(re, '\0', re_len) || pool_add(b, re, re_len, &it->off)) {
        vt_errorf(err, errlen, NULL, "%s:%d: invalid regex", name, lineno);
        return VT_EFORMAT;
      }
      it->len = (uint32_t)re_len;
      it->fast = regex_shortcut(ts->pool + it->off, &it->fast_n);
      const char *why = vt_regex_check(ts->pool + it->off);
      if (why) {
        /* The pattern quoted up to 40 bytes: the message stays one readable line. */
        vt_errorf(err, errlen, NULL, "%s:%d: regex \"%.*s%s\": %s", name, lineno,
                  (int)(re_len > 40 ? 40 : re_len), re, re_len > 40 ? "..." : "", why);
        return VT_EFORMAT;
      }
    }
    if (col > ts->max_col) ts->max_col = col;
    tm.n_macros++;
    lit = q;
    continue;
  syntax:
    vt_errorf(err, errlen, NULL, "%s:%d: malformed macro '%.*s' (expected %%%c[row,col%s])", name,
              lineno, (int)(end - cmd > 40 ? 40 : end - cmd), cmd, c,
              lc == 'x' ? "" : ",\"regex\"");
    return VT_EFORMAT;
  }
  if (end > lit) {
    vt_tmpl_item *it = item_new(b);
    if (!it || pool_add(b, lit, (size_t)(end - lit), &it->off)) return VT_ENOMEM;
    it->kind = VT_TI_LIT;
    it->len = (uint32_t)(end - lit);
    tm.lit_len += it->len;
  }
  tm.n = b->n_items - tm.item0;
  if (tm.bigram && tm.n_macros == 0 && !b->keep_plain) {
    if (!ts->plain_bigram) /* where the first one stands among the bigram templates */
      for (int32_t i = ts->plain_bigram_at = 0; i < ts->n; i++)
        ts->plain_bigram_at += ts->t[i].bigram;
    ts->plain_bigram = 1; /* every macro-free B line is the same label-bigram feature */
    b->n_items = tm.item0;
    return VT_OK;
  }
  size_t cap = (size_t)b->cap_t;
  if (grow((void **)&ts->t, sizeof(vt_tmpl), (size_t)ts->n + 1, &cap)) return VT_ENOMEM;
  b->cap_t = (int32_t)cap;
  ts->t[ts->n++] = tm;
  return VT_OK;
}

/* Whether template i reads only row 0 (true for one without macros); adds the columns it reads
 * to *cols (UINT32_MAX once a column is >= 31). */
static int tmpl_local(const vt_tmplset *ts, int32_t i, uint32_t *cols) {
  const vt_tmpl *tm = &ts->t[i];
  const vt_tmpl_item *it = ts->items + tm->item0;
  uint32_t c = *cols;
  for (uint32_t j = 0; j < tm->n; j++, it++) {
    if (it->kind == VT_TI_LIT) continue;
    if (it->row != 0 || it->abs) return 0;
    c = it->col < 31 && c != UINT32_MAX ? c | 1u << it->col : UINT32_MAX;
  }
  *cols = c;
  return 1;
}

/* Fills u_ord, n_local and local_cols (see vt_tmplset) from u_idx. */
static void order_unigrams(vt_tmplset *ts) {
  int32_t n = 0;
  ts->local_cols = 0;
  for (int32_t k = 0; k < ts->n_u; k++)
    if (tmpl_local(ts, ts->u_idx[k], &ts->local_cols)) ts->u_ord[n++] = ts->u_idx[k];
  ts->n_local = n;
  for (int32_t k = 0; k < ts->n_u; k++) {
    uint32_t ignored = 0;
    if (!tmpl_local(ts, ts->u_idx[k], &ignored)) ts->u_ord[n++] = ts->u_idx[k];
  }
}

int vt_tmpl_is_wapiti(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *s = skip_blanks(p, nl ? nl : end);
    if (s < end && (*s == 'u' || *s == 'b' || *s == '*')) return 1;
    p = nl ? nl + 1 : end;
  }
  return 0;
}

/* Parses the template line [s, e): its type letter picks unigram, bigram or (Wapiti's `*`)
 * both. */
static vt_status parse_typed(builder *b, const char *s, const char *e, int32_t lineno,
                             const char *name, char *err, size_t errlen) {
  char c = *s;
  if (b->ts->wapiti && c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
  if (c == 'U' || c == 'B') return parse_line(b, s, e, lineno, name, c == 'B', "", err, errlen);
  if (c == '*' && b->ts->wapiti) {
    vt_status st = parse_line(b, s, e, lineno, name, 0, "", err, errlen);
    return st != VT_OK ? st : parse_line(b, s, e, lineno, name, 1, "\n", err, errlen);
  }
  vt_errorf(err, errlen, NULL, "%s:%d: a template starts with %s, got '%c'", name, lineno,
            b->ts->wapiti ? "u, b or *" : "U or B", *s);
  return VT_EFORMAT;
}

/* vt_tmplset_parse's work; `keep_plain` as builder's. */
static vt_status tmplset_parse(vt_tmplset *ts, const char *text, size_t len, const char *name,
                               int keep_plain, char *err, size_t errlen) {
  vt_status st = VT_OK;
  builder b;
  memset(ts, 0, sizeof *ts);
  memset(&b, 0, sizeof b);
  b.ts = ts;
  b.keep_plain = keep_plain;
  ts->max_col = -1;
  ts->plain_bigram_at = -1;
  ts->wapiti = vt_tmpl_is_wapiti(text, len);
  const char *p = text, *end = text + len;
  int32_t lineno = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    lineno++;
    const char *s = skip_blanks(p, le), *e = le;
    if (ts->wapiti) { /* `#` starts a comment anywhere */
      const char *hash = memchr(s, '#', (size_t)(le - s));
      if (hash) e = hash;
    }
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    if (e > s && *s != '#') {
      if (memchr(s, '\0', (size_t)(e - s))) {
        vt_errorf(err, errlen, NULL, "%s:%d: NUL byte in a template", name, lineno);
        st = VT_EFORMAT;
        goto fail;
      }
      st = parse_typed(&b, s, e, lineno, name, err, errlen);
      if (st != VT_OK) goto fail;
    }
    p = nl ? nl + 1 : end;
  }
  if (ts->n == 0 && !ts->plain_bigram) {
    vt_errorf(err, errlen, name, "no templates (a template is a %s line)",
              ts->wapiti ? "u, b or *" : "U or B");
    st = VT_EFORMAT;
    goto fail;
  }
  ts->n_items = b.n_items;
  ts->pool_len = b.pool_len;
  st = VT_ENOMEM;
  ts->u_idx = malloc(((size_t)ts->n + 1) * sizeof(int32_t));
  ts->b_idx = malloc(((size_t)ts->n + 1) * sizeof(int32_t));
  ts->u_ord = malloc(((size_t)ts->n + 1) * sizeof(int32_t));
  if (!ts->u_idx || !ts->b_idx || !ts->u_ord) goto fail;
  for (int32_t i = 0; i < ts->n; i++) {
    if (ts->t[i].bigram)
      ts->b_idx[ts->n_b++] = i;
    else
      ts->u_idx[ts->n_u++] = i;
  }
  order_unigrams(ts);
  return VT_OK;
fail:
  if (st == VT_ENOMEM) vt_errorf(err, errlen, name, "out of memory");
  vt_tmplset_free(ts);
  return st;
}

vt_status vt_tmplset_parse(vt_tmplset *ts, const char *text, size_t len, const char *name,
                           char *err, size_t errlen) {
  return tmplset_parse(ts, text, len, name, 0, err, errlen);
}

vt_status vt_tmplset_parse_crfpp(vt_tmplset *ts, const char *text, size_t len, const char *name,
                                 char *err, size_t errlen) {
  return tmplset_parse(ts, text, len, name, 1, err, errlen);
}

void vt_tmplset_free(vt_tmplset *ts) {
  free(ts->t);
  free(ts->items);
  free(ts->pool);
  free(ts->u_idx);
  free(ts->b_idx);
  free(ts->u_ord);
  memset(ts, 0, sizeof *ts);
  ts->max_col = -1;
}
