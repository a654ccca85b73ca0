/* engine/text/template_expand.c: expands a template into its feature string at one position. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text/regex.h"
#include "text/strhash.h"
#include "text/template.h"

/* Longest sentinel: "_B-" or "_B+" and up to 10 digits. */
#define SENTINEL_MAX VT_TMPL_SENTINEL_MAX

size_t vt_tmpl_bound(const vt_tmplset *ts, int32_t i, size_t max_field) {
  const vt_tmpl *tm = &ts->t[i];
  size_t per = max_field > SENTINEL_MAX ? max_field : SENTINEL_MAX;
  return tm->lit_len + (size_t)tm->n_macros * per + 1;
}

/* The token index item `it` reads at position t of a T-token sentence (outside [0, T): a
 * sentinel). Wapiti's absolute @n: n - 1, or T + n when n < 0. */
static inline int64_t item_pos(const vt_tmpl_item *it, int32_t t, int32_t T) {
  if (!it->abs) return (int64_t)t + it->row;
  return it->row < 0 ? (int64_t)T + it->row : (int64_t)it->row - 1;
}

size_t vt_tmpl_bound_at(const vt_tmplset *ts, int32_t i, const vt_tokens *s, int32_t t) {
  const vt_tmpl *tm = &ts->t[i];
  const vt_tmpl_item *it = ts->items + tm->item0;
  size_t n = tm->lit_len + 1;
  for (uint32_t k = 0; k < tm->n; k++, it++) {
    if (it->kind == VT_TI_LIT) continue;
    int64_t idx = item_pos(it, t, s->T);
    size_t f = 0;
    if (idx >= 0 && idx < s->T)
      f = s->fields[2 * ((size_t)idx * (size_t)s->ncols + (size_t)it->col) + 1];
    n += f > SENTINEL_MAX ? f : SENTINEL_MAX;
  }
  return n;
}

size_t vt_tmpl_bound_unigrams(const vt_tmplset *ts, const vt_tokens *s) {
  const size_t T = (size_t)s->T;
  size_t n = 0;
  for (int32_t k = 0; k < ts->n_u; k++) {
    const vt_tmpl *tm = &ts->t[ts->u_idx[k]];
    const vt_tmpl_item *it = ts->items + tm->item0;
    n += T * (tm->lit_len + 1);
    for (uint32_t j = 0; j < tm->n; j++, it++) {
      if (it->kind == VT_TI_LIT) continue;
      n += T * SENTINEL_MAX; /* plus every field of its column: each position reads one */
      for (size_t t = 0; t < T; t++)
        n += s->fields[2 * (t * (size_t)s->ncols + (size_t)it->col) + 1];
    }
  }
  return n;
}

/* Writes the sentinel of a token index `idx` outside [0, T) into buf; returns its length.
 * CRF++: _B-1, _B-2, ... and _B+1, ...; Wapiti: _x-1 .. _x-4, then _x-# (and _x+...). */
static size_t sentinel(int wapiti, int64_t idx, int32_t T, char *buf) {
  const long long n = idx < 0 ? -idx : idx - T + 1;
  const char sign = idx < 0 ? '-' : '+';
  if (wapiti && n > 4) return (size_t)snprintf(buf, SENTINEL_MAX, "_x%c#", sign);
  if (n <= 9) { /* the usual one digit, without snprintf (0.5% of a tag run) */
    buf[0] = '_';
    buf[1] = wapiti ? 'x' : 'B';
    buf[2] = sign;
    buf[3] = (char)('0' + n);
    return 4;
  }
  return (size_t)snprintf(buf, SENTINEL_MAX, "_B%c%lld", sign, n);
}

size_t vt_tmpl_sentinel(int wapiti, int64_t idx, int32_t T, char *buf) {
  return sentinel(wapiti, idx, T, buf);
}

static void lower(char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] >= 'A' && p[i] <= 'Z') p[i] = (char)(p[i] - 'A' + 'a');
}

/* What macro `it` makes of the value [*v, *v + *vlen) (before lower-casing): the value, "true"
 * or "false" (%t), or the part its regex matches (%m); into *v and *vlen. */
static inline void item_value(const vt_tmplset *ts, const vt_tmpl_item *it, const char **v,
                              size_t *vlen) {
  if (it->fast) {
    /* "^.?.?..." and "....?$" always match: the first or last min(n, vlen) bytes. */
    size_t ml = *vlen < it->fast_n ? *vlen : it->fast_n;
    if (it->kind == VT_TI_T) {
      *v = "true";
      *vlen = 4;
    } else {
      if (it->fast == 2) *v += *vlen - ml;
      *vlen = ml;
    }
  } else if (it->kind == VT_TI_T) {
    size_t ms, ml;
    int hit = vt_regex_search(ts->pool + it->off, *v, *vlen, &ms, &ml);
    *v = hit ? "true" : "false";
    *vlen = hit ? 4 : 5;
  } else if (it->kind == VT_TI_M) {
    size_t ms = 0, ml = 0;
    if (!vt_regex_search(ts->pool + it->off, *v, *vlen, &ms, &ml)) ml = 0;
    *v += ms;
    *vlen = ml;
  }
}

size_t vt_tmpl_item_text(const vt_tmplset *ts, const vt_tmpl_item *it, const char *v, size_t n,
                         char *buf, const char **out) {
  item_value(ts, it, &v, &n);
  if (it->caps) {
    vt_bytes_copy(buf, v, n);
    lower(buf, n);
    v = buf;
  }
  *out = v;
  return n;
}

size_t vt_tmpl_expand(const vt_tmplset *ts, int32_t i, const vt_tokens *s, int32_t t, char *buf) {
  const vt_tmpl *tm = &ts->t[i];
  const vt_tmpl_item *it = ts->items + tm->item0;
  char sent[SENTINEL_MAX];
  size_t n = 0;
  for (uint32_t k = 0; k < tm->n; k++, it++) {
    if (it->kind == VT_TI_LIT) {
      vt_bytes_copy(buf + n, ts->pool + it->off, it->len);
      n += it->len;
      continue;
    }
    int64_t idx = item_pos(it, t, s->T);
    const char *v;
    size_t vlen;
    if (idx < 0 || idx >= s->T) {
      vlen = sentinel(ts->wapiti, idx, s->T, sent);
      v = sent;
    } else {
      const uint32_t *f = s->fields + 2 * ((size_t)idx * (size_t)s->ncols + (size_t)it->col);
      v = s->base + f[0];
      vlen = f[1];
    }
    item_value(ts, it, &v, &vlen);
    vt_bytes_copy(buf + n, v, vlen);
    if (it->caps) lower(buf + n, vlen);
    n += vlen;
  }
  return n;
}
