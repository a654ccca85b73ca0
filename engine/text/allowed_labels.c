/* engine/text/allowed_labels.c: tag dictionaries and partial labels (see allowed_labels.h). */
#define _POSIX_C_SOURCE 200809L
#include "text/allowed_labels.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "text/strhash.h"

static uint32_t table_size(int64_t n) {
  uint32_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  return cap;
}

vt_status vt_constraints_init(struct vt_constraints *c, const vt_textmodel *m) {
  memset(c, 0, sizeof *c);
  c->key = vt_hash_key();
  c->L = m->L;
  c->model = m;
  c->partial_col = -1;
  uint32_t cap = table_size(m->L);
  c->lslot = calloc(cap, sizeof *c->lslot);
  c->woff = calloc(1, sizeof *c->woff);
  c->loff = calloc(1, sizeof *c->loff);
  c->wmask = 15;
  c->wslot = calloc(16, sizeof *c->wslot);
  if (!c->lslot || !c->woff || !c->loff || !c->wslot) goto fail;
  c->lmask = cap - 1;
  for (int32_t y = 0; y < m->L; y++) {
    size_t n;
    const char *s = vt_textmodel_label(m, y, &n);
    uint32_t h = (uint32_t)vt_strhash_keyed(s, n, c->key) & c->lmask;
    while (c->lslot[h]) h = (h + 1) & c->lmask;
    c->lslot[h] = y + 1;
  }
  return VT_OK;
fail:
  vt_constraints_free(c);
  return VT_ENOMEM;
}

void vt_constraints_free(struct vt_constraints *c) {
  free(c->lslot);
  free(c->wbytes);
  free(c->woff);
  free(c->loff);
  free(c->labs);
  free(c->wslot);
  memset(c, 0, sizeof *c);
}

int32_t vt_constraints_label(const struct vt_constraints *c, const char *s, size_t n) {
  uint32_t h = (uint32_t)vt_strhash_keyed(s, n, c->key) & c->lmask;
  for (; c->lslot[h]; h = (h + 1) & c->lmask) {
    size_t ln;
    const char *name = vt_textmodel_label(c->model, c->lslot[h] - 1, &ln);
    if (ln == n && memcmp(name, s, n) == 0) return c->lslot[h] - 1;
  }
  return -1;
}

/* The word [w, w + n), or -1. */
static int32_t find_word(const struct vt_constraints *c, const char *w, size_t n) {
  uint32_t h = (uint32_t)vt_strhash_keyed(w, n, c->key) & c->wmask;
  for (; c->wslot[h]; h = (h + 1) & c->wmask) {
    int32_t i = c->wslot[h] - 1;
    if (c->woff[i + 1] - c->woff[i] == n && memcmp(c->wbytes + c->woff[i], w, n) == 0) return i;
  }
  return -1;
}

/* Grows *p (of *cap elements of `size` bytes) to hold `need`; 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * size);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

vt_status vt_constraints_add(struct vt_constraints *c, const char *w, size_t n, const int32_t *lab,
                             int32_t nl) {
  if (nl < 1 || find_word(c, w, n) >= 0) return VT_EINVAL;
  size_t wc = (size_t)c->words_cap;
  if ((size_t)c->nwords + 2 > wc) {
    size_t w2 = wc, l2 = wc;
    if (grow((void **)&c->woff, &w2, (size_t)c->nwords + 2, sizeof *c->woff) ||
        grow((void **)&c->loff, &l2, (size_t)c->nwords + 2, sizeof *c->loff))
      return VT_ENOMEM;
    c->words_cap = (int32_t)(w2 < l2 ? w2 : l2);
  }
  if (grow((void **)&c->wbytes, &c->wbytes_cap, c->wbytes_len + n + 1, 1) ||
      grow((void **)&c->labs, &c->labs_cap, c->nlabs + (size_t)nl, sizeof *c->labs))
    return VT_ENOMEM;
  if ((uint32_t)(c->nwords + 1) * 2 > c->wmask) { /* rehash at half full */
    uint32_t cap = (c->wmask + 1) * 2;
    int32_t *slot = calloc(cap, sizeof *slot);
    if (!slot) return VT_ENOMEM;
    for (int32_t i = 0; i < c->nwords; i++) {
      uint32_t h =
          (uint32_t)vt_strhash_keyed(c->wbytes + c->woff[i], c->woff[i + 1] - c->woff[i], c->key) &
          (cap - 1);
      while (slot[h]) h = (h + 1) & (cap - 1);
      slot[h] = i + 1;
    }
    free(c->wslot);
    c->wslot = slot;
    c->wmask = cap - 1;
  }
  memcpy(c->wbytes + c->wbytes_len, w, n);
  c->wbytes_len += n;
  memcpy(c->labs + c->nlabs, lab, (size_t)nl * sizeof *lab);
  c->nlabs += (size_t)nl;
  int32_t i = c->nwords++;
  c->woff[i + 1] = c->wbytes_len;
  c->loff[i + 1] = c->nlabs;
  uint32_t h = (uint32_t)vt_strhash_keyed(w, n, c->key) & c->wmask;
  while (c->wslot[h]) h = (h + 1) & c->wmask;
  c->wslot[h] = i + 1;
  return VT_OK;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

vt_status vt_constraints_read(struct vt_constraints *c, const char *path, char *err,
                              size_t errlen) {
  vt_status st = VT_EIO;
  char *line = NULL;
  size_t cap = 0;
  int32_t *lab = malloc((size_t)c->L * sizeof *lab + sizeof *lab);
  FILE *f = fopen(path, "r");
  if (!f || !lab) {
    st = lab ? VT_EIO : VT_ENOMEM;
    vt_errorf(err, errlen, path, "%s", lab ? strerror(errno) : "out of memory");
    goto done;
  }
  uint64_t lineno = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    char *p = line, *end = line + len;
    while (p < end && is_blank(*p)) p++;
    if (p == end) continue;
    if (memchr(line, '\0', (size_t)len)) {
      st = VT_EFORMAT;
      vt_errorf(err, errlen, NULL, "%s:%llu: a NUL byte", path, (unsigned long long)lineno);
      goto done;
    }
    char *w = p;
    while (p < end && !is_blank(*p)) p++;
    size_t wn = (size_t)(p - w);
    int32_t nl = 0;
    for (;;) {
      while (p < end && is_blank(*p)) p++;
      if (p == end) break;
      char *s = p;
      while (p < end && !is_blank(*p)) p++;
      int32_t y = vt_constraints_label(c, s, (size_t)(p - s));
      if (y < 0) {
        st = VT_EFORMAT;
        vt_errorf(err, errlen, NULL, "%s:%llu: '%.*s' is not a label of the model", path,
                  (unsigned long long)lineno, (int)(p - s > 64 ? 64 : p - s), s);
        goto done;
      }
      int dup = 0;
      for (int32_t i = 0; i < nl; i++) dup |= lab[i] == y;
      if (!dup) lab[nl++] = y;
    }
    if (nl == 0) {
      st = VT_EFORMAT;
      vt_errorf(err, errlen, NULL, "%s:%llu: word '%.*s' has no labels (expected: WORD LABEL...)",
                path, (unsigned long long)lineno, (int)(wn > 64 ? 64 : wn), w);
      goto done;
    }
    st = vt_constraints_add(c, w, wn, lab, nl);
    if (st != VT_OK) {
      if (st == VT_EINVAL) st = VT_EFORMAT;
      vt_errorf(err, errlen, NULL, "%s:%llu: %s", path, (unsigned long long)lineno,
                st == VT_ENOMEM ? "out of memory" : "the word is listed twice");
      goto done;
    }
  }
  if (ferror(f)) {
    st = VT_EIO;
    vt_errorf(err, errlen, path, "read error: %s", strerror(errno));
    goto done;
  }
  st = VT_OK;
done:
  if (f) fclose(f);
  free(line);
  free(lab);
  return st;
}

/* Keeps only labels keep[0, n) of row e (L entries); the others become -inf. tmp: n doubles. */
static void keep_only(double *e, int32_t L, const int32_t *keep, int32_t n, double *tmp) {
  for (int32_t i = 0; i < n; i++) tmp[i] = e[keep[i]];
  for (int32_t y = 0; y < L; y++) e[y] = -INFINITY;
  for (int32_t i = 0; i < n; i++) e[keep[i]] = tmp[i];
}

vt_status vt_constraints_apply(const struct vt_constraints *c, const vt_tokens *tk, double *E,
                               double *tmp, int32_t *bad, int *why) {
  const int32_t L = c->L;
  for (int32_t t = 0; t < tk->T; t++) {
    double *e = E + (size_t)t * L;
    if (c->partial_col >= 0) {
      if (c->partial_col >= tk->ncols) {
        *bad = t;
        *why = 1;
        return VT_EFORMAT;
      }
      size_t f = (size_t)t * tk->ncols + (size_t)c->partial_col;
      const char *s = tk->base + tk->fields[2 * f];
      size_t n = tk->fields[2 * f + 1];
      if (n > 0 && !(n == 1 && s[0] == '_')) {
        int32_t y = vt_constraints_label(c, s, n);
        if (y < 0) {
          *bad = t;
          *why = 2;
          return VT_EFORMAT;
        }
        keep_only(e, L, &y, 1, tmp);
        continue;
      }
    }
    if (c->nwords && c->word_col >= tk->ncols) {
      *bad = t;
      *why = 3;
      return VT_EFORMAT;
    }
    if (c->nwords) {
      size_t f = (size_t)t * tk->ncols + (size_t)c->word_col;
      int32_t w = find_word(c, tk->base + tk->fields[2 * f], tk->fields[2 * f + 1]);
      if (w >= 0)
        keep_only(e, L, c->labs + c->loff[w], (int32_t)(c->loff[w + 1] - c->loff[w]), tmp);
    }
  }
  return VT_OK;
}
