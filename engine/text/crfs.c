/* engine/text/crfs.c: tagging CRFsuite item sequences with a crf1d model (see crfs.h). */
#define _POSIX_C_SOURCE 200809L
#include "text/crfs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/clock.h"
#include "core/errmsg.h"
#include "text/crfs_rows.h"
#include "text/strhash.h"

vt_status vt_crfs_bind(vt_crfs *m) {
  vt_status st = VT_ENOMEM;
  int64_t *count = calloc((size_t)m->L, sizeof *count);
  int32_t *rank = malloc((size_t)m->L * sizeof *rank);
  if (!count || !rank) goto done;
  for (uint32_t f = 0; f < m->n_state; f++) count[m->st_label[f]]++;
  if ((st = vt_rank_from_counts(count, m->L, rank)) != VT_OK) goto done;
  st = vt_trans_create(&m->trans, m->L, m->tw, NULL, NULL, rank);
done:
  free(count);
  free(rank);
  return st;
}

void vt_crfs_free(vt_crfs *m) {
  if (!m) return;
  vt_trans_destroy(m->trans);
  vt_crfs_index_free(&m->idx);
  for (int i = 0; i < m->n_own; i++) free(m->own[i]);
  vt_filemap_close(&m->file);
  free(m);
}

uint64_t vt_crfs_slot_count(uint64_t A) {
  uint64_t n = 16;
  while (n < 2 * A + 2) n *= 2;
  return n;
}

/* The id of the `len` bytes at s in a table of mask + 1 slots (hash key `key`) over the pool, or
 * -1. */
static int64_t find_in(const uint32_t *slots, uint32_t mask, uint64_t key, const uint32_t *off,
                       const char *pool, const char *s, size_t len) {
  uint32_t i = (uint32_t)vt_strhash_keyed(s, len, key) & mask;
  for (uint32_t v; (v = slots[i]) != 0; i = (i + 1) & mask) {
    uint32_t a = v - 1, n = off[a + 1] - off[a];
    if (n == len && !memcmp(pool + off[a], s, len)) return a;
  }
  return -1;
}

uint32_t vt_crfs_hash_fill(uint32_t *slots, uint64_t n_slots, const uint32_t *off, const char *pool,
                           uint32_t A, uint64_t key) {
  uint32_t mask = (uint32_t)(n_slots - 1);
  for (uint32_t a = 0; a < A; a++) {
    const char *s = pool + off[a];
    size_t len = off[a + 1] - off[a];
    if (find_in(slots, mask, key, off, pool, s, len) >= 0) return a;
    uint32_t i = (uint32_t)vt_strhash_keyed(s, len, key) & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = a + 1;
  }
  return A;
}

int64_t vt_crfs_attr_find(const vt_crfs *m, const char *s, size_t len) {
  if (m->idx.slots) return vt_crfs_index_find(&m->idx, s, len);
  return find_in(m->slots, m->mask, m->key, m->attr_off, m->attr_pool, s, len);
}

int vt_crfs_item_row(const vt_crfs *m, const char *line, size_t len, char *scratch, double *row,
                     int32_t *known, char *err, size_t errlen) {
  size_t pos = 0;
  int first = 1;
  int32_t found = 0;
  if (memchr(line, '\0', len)) {
    vt_errorf(err, errlen, NULL, "a NUL byte in the item");
    return -1;
  }
  for (;;) {
    while (pos < len && line[pos] == '\t') pos++;
    if (pos >= len) break;
    size_t an, vn;
    int has_value;
    char *val = vt_crfs_attr_next(line, len, &pos, scratch, &an, &vn, &has_value);
    if (first) { /* the label field */
      first = 0;
      continue;
    }
    int64_t a = vt_crfs_attr_find(m, scratch, an);
    double v = 1.0;
    if (has_value && vt_crfs_value_parse(val, vn, &v)) {
      scratch[an] = '\0';
      val[vn] = '\0';
      vt_errorf(err, errlen, NULL, "attribute '%.64s': value '%.64s' is not a finite number",
                scratch, val);
      return -1;
    }
    if (a < 0) continue;
    found++;
    for (uint32_t f = m->st_off[a]; f < m->st_off[a + 1]; f++)
      row[m->st_label[f]] += m->st_w[f] * v;
  }
  for (int32_t y = 0; y < m->L; y++)
    if (!isfinite(row[y])) {
      vt_errorf(err, errlen, NULL, "the attribute values make a label's score overflow");
      return -1;
    }
  if (known) *known = found;
  return 0;
}

/* The rows of T item lines by the reference reader, for a model built without its index (one
 * made in memory rather than loaded): vt_crfs_rows's contract. */
static int rows_reference(const vt_crfs *m, vt_arena *arena, const char *const *lines,
                          const size_t *lens, int32_t T, double *E, int32_t *bad, char *err,
                          size_t errlen) {
  size_t longest = 0;
  for (int32_t t = 0; t < T; t++)
    if (lens[t] > longest) longest = lens[t];
  char *scratch = vt_arena_alloc(arena, longest + 2);
  if (!scratch) return -2;
  for (int32_t t = 0; t < T; t++)
    if (vt_crfs_item_row(m, lines[t], lens[t], scratch, E + (size_t)t * (size_t)m->L, NULL, err,
                         errlen)) {
      *bad = t;
      return -1;
    }
  return 0;
}

vt_status vt_crfs_tag(const vt_crfs *m, const vt_decode_opts *opts, vt_arena *arena,
                      const char *const *lines, const size_t *lens, int32_t T, int32_t *labels,
                      double *scores, int32_t *n_paths, double *marg, double *logz,
                      const int32_t *path, double *path_score, int32_t *bad, vt_decode_stats *stats,
                      double *seconds, char *err, size_t errlen) {
  const int32_t L = m->L;
  const double t0 = seconds ? vt_clock_seconds() : 0;
  *n_paths = 0;
  *bad = -1;
  if (T < 0) return VT_EINVAL;
  const size_t n_e = (size_t)T * (size_t)L + VT_CRFS_ROW_PAD; /* crfs_rows.h */
  double *E = VT_ARENA_NEW(arena, double, n_e);
  if (!E) return VT_ENOMEM;
  memset(E, 0, n_e * sizeof *E); /* arena memory is not zeroed */
  const int rc = m->idx.slots ? vt_crfs_rows(&m->idx, L, arena, lines, lens, T, E, bad, err, errlen)
                              : rows_reference(m, arena, lines, lens, T, E, bad, err, errlen);
  if (rc == -2) return VT_ENOMEM;
  if (rc) return VT_EFORMAT;
  const double t1 = seconds ? vt_clock_seconds() : 0;
  vt_status st = vt_decode(m->trans, opts, arena, E, T, labels, scores, n_paths, stats);
  if (st == VT_OK && marg) st = vt_posteriors(m->trans, arena, E, T, marg, logz);
  if (st == VT_OK && path) *path_score = vt_path_score(m->trans, E, T, path);
  if (seconds) {
    seconds[0] += t1 - t0;
    seconds[1] += vt_clock_seconds() - t1;
  }
  /* A sum of finite scores can still overflow: a path's score or log Z of +inf or NaN is refused,
   * never printed (-inf is a log Z with no path left, as --bio can make it). */
  int over = st == VT_OK && marg && !(*logz < INFINITY);
  for (int32_t p = 0; st == VT_OK && p < *n_paths; p++) over |= !(scores[p] < INFINITY);
  if (over) {
    *bad = 0;
    vt_errorf(err, errlen, NULL, "the sequence's score overflows (weights or values too large)");
    return VT_EFORMAT;
  }
  return st;
}

/* Makes room for `n` more bytes (and a NUL) in the buffer; 0 or -1. */
static int reserve(char **buf, size_t *len, size_t *cap, size_t n) {
  if (*cap - *len >= n + 1) return 0;
  size_t c = *cap ? *cap : 4096;
  while (c - *len < n + 1) c *= 2;
  char *p = realloc(*buf, c);
  if (!p) return -1;
  *buf = p;
  *cap = c;
  return 0;
}

/* Appends the `n` bytes at s to the buffer; 0 or -1. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, size_t n) {
  if (reserve(buf, len, cap, n)) return -1;
  memcpy(*buf + *len, s, n);
  *len += n;
  return 0;
}

/* Appends printf-style text of any length (a %f of 1e308 has 316 characters); 0 or -1. */
__attribute__((format(printf, 4, 5))) static int putf(char **buf, size_t *len, size_t *cap,
                                                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = reserve(buf, len, cap, 64) ? -1 : vsnprintf(*buf + *len, *cap - *len, fmt, ap);
  va_end(ap);
  if (n < 0) return -1;
  if ((size_t)n >= *cap - *len) { /* it did not fit: make room and format again */
    if (reserve(buf, len, cap, (size_t)n)) return -1;
    va_start(ap, fmt);
    vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
  }
  *len += (size_t)n;
  return 0;
}

/* Appends item `line`'s reference label (its first field, escapes undone) as the model names it,
 * or "(null)" when the model has no such label, then a tab. Returns 0 or -1. */
static int put_reference(const vt_crfs *m, const char *line, size_t n, char **buf, size_t *len,
                         size_t *cap) {
  char small[256], *scratch = n + 2 <= sizeof small ? small : malloc(n + 2);
  if (!scratch) return -1;
  size_t pos = 0, an, vn;
  int has_value;
  (void)vt_crfs_attr_next(line, n, &pos, scratch, &an, &vn, &has_value);
  const char *name = "(null)"; /* crfsuite prints a NULL label so (glibc) */
  size_t name_len = 6;
  for (int32_t y = 0; y < m->L; y++) {
    size_t yn;
    const char *ys = vt_crfs_label(m, y, &yn);
    if (yn == an && !memcmp(ys, scratch, an)) {
      name = ys;
      name_len = yn;
      break;
    }
  }
  int rc = put(buf, len, cap, name, name_len) || put(buf, len, cap, "\t", 1) ? -1 : 0;
  if (scratch != small) free(scratch);
  return rc;
}

int vt_crfs_format(const vt_crfs *m, int flags, int32_t k, int32_t T, const int32_t *labels,
                   const double *scores, int32_t n_paths, const double *marg, double logz,
                   const char *const *lines, const size_t *lens, char **buf, size_t *len,
                   size_t *cap) {
  int32_t paths = n_paths > 0 ? n_paths : 1;
  for (int32_t p = 0; p < paths; p++) {
    const int32_t *lab = n_paths > 0 ? labels + (size_t)p * (size_t)T : NULL;
    double score = n_paths > 0 ? scores[p] : -INFINITY;
    if (k > 1 && putf(buf, len, cap, "# %d %.9g\n", p + 1, score)) return -1;
    if ((flags & VT_CRFS_PROB) && putf(buf, len, cap, "@score\t%f\t%f\n@probability\t%f\n", score,
                                       logz, n_paths > 0 ? exp(score - logz) : 0.0))
      return -1;
    for (int32_t t = 0; t < T; t++) {
      size_t n = 1;
      const char *s = lab ? vt_crfs_label(m, lab[t], &n) : "_";
      const double *mt = marg ? marg + (size_t)t * (size_t)m->L : NULL;
      if ((flags & VT_CRFS_REF) && put_reference(m, lines[t], lens[t], buf, len, cap)) return -1;
      if (put(buf, len, cap, s, n)) return -1;
      if ((flags & VT_CRFS_MARG) && putf(buf, len, cap, ":%f", lab && mt ? mt[lab[t]] : 0.0))
        return -1;
      for (int32_t y = 0; (flags & VT_CRFS_MARG_ALL) && y < m->L; y++) {
        const char *ys = vt_crfs_label(m, y, &n);
        if (put(buf, len, cap, "\t", 1) || put(buf, len, cap, ys, n) ||
            putf(buf, len, cap, ":%f", mt ? mt[y] : 0.0))
          return -1;
      }
      if (put(buf, len, cap, "\n", 1)) return -1;
    }
    if (put(buf, len, cap, "\n", 1)) return -1;
  }
  return 0;
}
