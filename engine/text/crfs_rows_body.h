/* engine/text/crfs_rows_body.h: the emission rows of a sequence of CRFsuite items through the
 * attribute index (crfs_index.h), the body of one kernel family (cmake/VtIsa.cmake): included
 * once by each crfs_rows_<level>.c, whose flags vectorize its row additions; every level gives
 * the same bits (one addition per label and attribute, in item order, no contraction).
 *
 * Each line's tabs, colons and backslashes are found 16 bytes at a time (32 with AVX2, 64 with
 * AVX-512 BW, one compare to a mask for each word of tab bits); a line without ':',
 * '\\' or NUL is split at its tabs in one pass, and a field of another line without a backslash
 * is used where it lies (one with one is unescaped by vt_crfs_attr_next); a value is parsed only
 * after a colon. The attributes are looked up a group at a time: every name hashed and its slot
 * prefetched, then every slot probed and its record prefetched, then the records checked and
 * their weights added, so the cache misses of a group overlap. Each label's sum runs over the
 * attributes in item order, as vt_crfs_item_row's does: the same bits, and the same errors for
 * the same item. */
#ifndef VT_TEXT_CRFS_ROWS_BODY_H
#define VT_TEXT_CRFS_ROWS_BODY_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "alloc/arena.h"
#include "core/errmsg.h"
#include "text/crfs_fields.h"
#include "text/crfs_index.h"

#define GROUP 64 /* attributes looked up together */

/* An attribute waiting for its lookup. */
typedef struct pending {
  const char *s;
  uint32_t n;
  uint32_t at; /* its slot, once probed */
  int32_t t;   /* its item */
  double v;
  uint64_t h;
  const vt_crfs_rec *r; /* the first record whose fingerprint matches */
} pending;

#if defined(__AVX512BW__)
/* The mask of the first n bytes of a 64-byte vector (n <= 64): a masked load of them reads no
 * byte past them. */
static inline __mmask64 first_bytes(size_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
#endif

/* Bits of the tab, ':' and '\' bytes among the `avail` (at most 64) bytes at p, of a line that
 * starts `back` bytes before p. */
static uint64_t specials64(const char *p, size_t avail, size_t back) {
  uint64_t bits = 0;
#if defined(__SSE2__)
  const __m128i tab = _mm_set1_epi8('\t'), colon = _mm_set1_epi8(':'), bs = _mm_set1_epi8('\\');
  size_t k = 0;
  for (; k + 16 <= avail; k += 16) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + k));
    const __m128i e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, colon)),
                                   _mm_cmpeq_epi8(v, bs));
    bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(e) << k;
  }
  if (k < avail && back + avail >= 16) { /* the line's last 16 bytes, shifted into place */
    const size_t rest = avail - k;
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + avail - 16));
    const __m128i e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, colon)),
                                   _mm_cmpeq_epi8(v, bs));
    bits |= ((uint64_t)(uint32_t)_mm_movemask_epi8(e) >> (16 - rest)) << k;
    k = avail;
  }
  for (; k < avail; k++) /* a line shorter than 16 bytes */
    bits |= (uint64_t)(p[k] == '\t' || p[k] == ':' || p[k] == '\\') << k;
#else
  for (size_t k = 0; k < avail; k++)
    bits |= (uint64_t)(p[k] == '\t' || p[k] == ':' || p[k] == '\\') << k;
  (void)back;
#endif
  return bits;
}

/* A line's special bytes, 64 at a time. */
typedef struct scan {
  const char *line;
  size_t len, blk;
  uint64_t bits;
} scan;

/* The place of the first tab, ':' or '\' at or after pos, or the line's length. */
static inline size_t next_special(scan *sc, size_t pos) {
  while (pos < sc->len) {
    const size_t blk = pos & ~(size_t)63;
    if (blk != sc->blk) {
      sc->blk = blk;
      sc->bits = specials64(sc->line + blk, sc->len - blk < 64 ? sc->len - blk : 64, blk);
    }
    const uint64_t m = sc->bits >> (pos - blk);
    if (m) return pos + (size_t)__builtin_ctzll(m);
    pos = blk + 64;
  }
  return sc->len;
}

#define LINE_WORDS 64 /* lines of up to 64 * 64 bytes take the one-pass path */

/* The tabs of line[0, len) (len <= 64 * LINE_WORDS) as bits, 64 bytes a word, into tabs[];
 * returns 0 when the line holds no ':', '\\' or NUL byte, so that its fields are the spans
 * between tabs, each an attribute of value 1 used where it lies. */
static int line_tabs(const char *line, size_t len, uint64_t *tabs) {
#if defined(__AVX512BW__) /* 64 bytes a step, each word of tabs one compare */
  const __m512i tab = _mm512_set1_epi8('\t'), colon = _mm512_set1_epi8(':'),
                bs = _mm512_set1_epi8('\\');
  __mmask64 o = 0;
  for (size_t k = 0; k < len; k += 64) { /* the last step's masked load reads no byte past it */
    const size_t left = len - k;
    const __mmask64 m = first_bytes(left);
    const __m512i v = _mm512_maskz_loadu_epi8(m, line + k);
    tabs[k / 64] = _mm512_mask_cmpeq_epi8_mask(m, v, tab);
    o |= _mm512_mask_cmpeq_epi8_mask(m, v, colon) | _mm512_mask_cmpeq_epi8_mask(m, v, bs) |
         _mm512_mask_testn_epi8_mask(m, v, v); /* a NUL byte */
  }
  return o != 0;
#else
  memset(tabs, 0, ((len + 63) / 64) * sizeof *tabs);
  size_t k = 0;
  int other = 0;
#if defined(__AVX2__) /* 32 bytes a step while they last, then the 16-byte steps below */
  {
    const __m256i tab = _mm256_set1_epi8('\t'), colon = _mm256_set1_epi8(':'),
                  bs = _mm256_set1_epi8('\\'), nul = _mm256_setzero_si256();
    __m256i o = _mm256_setzero_si256();
    for (; k + 32 <= len; k += 32) {
      const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(line + k));
      tabs[k / 64] |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, tab))
                      << (k % 64);
      o = _mm256_or_si256(
          o, _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, colon), _mm256_cmpeq_epi8(v, bs)),
                             _mm256_cmpeq_epi8(v, nul)));
    }
    other = _mm256_movemask_epi8(o) != 0;
  }
#endif
#if defined(__SSE2__)
  const __m128i tab = _mm_set1_epi8('\t'), colon = _mm_set1_epi8(':'), bs = _mm_set1_epi8('\\'),
                nul = _mm_setzero_si128();
  __m128i o = _mm_setzero_si128();
  for (; k + 16 <= len; k += 16) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(line + k));
    tabs[k / 64] |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, tab)) << (k % 64);
    o = _mm_or_si128(o, _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, bs)),
                                     _mm_cmpeq_epi8(v, nul)));
  }
  if (k < len && len >= 16) { /* the last 16 bytes, the new ones shifted into place */
    const size_t rest = len - k;
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(line + len - 16));
    tabs[k / 64] |= ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, tab)) >> (16 - rest))
                    << (k % 64);
    o = _mm_or_si128(o, _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, bs)),
                                     _mm_cmpeq_epi8(v, nul)));
    k = len;
  }
  other |= _mm_movemask_epi8(o) != 0;
#endif
  for (; k < len; k++) { /* a line shorter than 16 bytes, or no SSE2 */
    tabs[k / 64] |= (uint64_t)(line[k] == '\t') << (k % 64);
    other |= line[k] == ':' || line[k] == '\\' || line[k] == '\0';
  }
  return other;
#endif
}

/* A block of dense weights, as wide a vector as the level has (or several). */
typedef double vt_crfs_block __attribute__((vector_size(8 * VT_CRFS_ROW_PAD)));

/* Adds record r's weights times v into row[0, L) (a dense row also into the next VT_CRFS_ROW_PAD
 * labels after it, zeros): vectors and plain loops, compiled for the level. */
static inline void rec_add(const vt_crfs_rec *r, double v, double *restrict row) {
  const double *restrict w = vt_crfs_rec_w(r);
  const uint32_t n = r->n;
  if (r->dense) { /* the filler 0.0 times v is a zero: it changes no row (crfs_index.h) */
    const vt_crfs_block vv = {v, v, v, v, v, v, v, v};
    for (uint32_t y = 0; y < n; y += VT_CRFS_ROW_PAD) { /* whole blocks: one vector step each */
      vt_crfs_block a, b;
      memcpy(&a, row + y, sizeof a);
      memcpy(&b, w + y, sizeof b);
      a += b * vv; /* w * 1.0 is w, bit for bit */
      memcpy(row + y, &a, sizeof a);
    }
    return;
  }
  const uint32_t *lab = (const uint32_t *)(const void *)(w + n);
  if (v == 1.0)
    for (uint32_t f = 0; f < n; f++) row[lab[f]] += w[f];
  else
    for (uint32_t f = 0; f < n; f++) row[lab[f]] += w[f] * v;
}

/* Whether record r is named by the `n` bytes at s: with AVX-512, a name of up to 64 bytes is one
 * masked compare (the masked loads read no byte past either name). */
static inline int rec_named(const vt_crfs_rec *r, const char *s, size_t n) {
#if defined(__AVX512BW__)
  if (n <= 64) {
    const __mmask64 m = first_bytes(n);
    const __m512i a = _mm512_maskz_loadu_epi8(m, vt_crfs_rec_name(r));
    const __m512i b = _mm512_maskz_loadu_epi8(m, s);
    return r->len == n && !_mm512_cmpneq_epi8_mask(a, b);
  }
#endif
  return vt_crfs_rec_is(r, s, n);
}

/* Looks up the group's attributes and adds their rows into E. */
static void group_flush(const vt_crfs_index *x, pending *g, int n, double *E, int32_t L) {
  for (int i = 0; i < n; i++) { /* probe by fingerprint only; prefetch the record */
    const uint32_t fp = (uint32_t)(g[i].h >> 32);
    uint32_t j = (uint32_t)g[i].h & x->mask;
    const vt_crfs_rec *r = NULL;
    for (uint64_t v; (v = x->slots[j]) != 0; j = (j + 1) & x->mask)
      if ((uint32_t)(v >> 32) == fp) {
        r = vt_crfs_index_rec(x, v);
        __builtin_prefetch(r); /* and its next line: a name of 20-40 bytes pushes the weights */
        __builtin_prefetch((const char *)r + 64);
        break;
      }
    g[i].r = r;
    g[i].at = j;
  }
  for (int i = 0; i < n; i++) {
    const vt_crfs_rec *r = g[i].r;
    if (r && !rec_named(r, g[i].s, g[i].n)) { /* a fingerprint's collision: go on */
      uint32_t at = (g[i].at + 1) & x->mask;
      r = vt_crfs_index_probe(x, g[i].h, g[i].s, g[i].n, &at);
    }
    if (r) rec_add(r, g[i].v, E + (size_t)g[i].t * (size_t)L);
  }
}

/* vt_crfs_index_hash at this level: with AVX-512, a name of up to 64 bytes is one masked load,
 * one addition of the key, one multiply of each word's halves and their sum. */
static inline uint64_t index_hash(const vt_crfs_index *x, const char *s, size_t n) {
#if defined(__AVX512BW__)
  if (n <= 64) {
    const __mmask64 m = first_bytes(n);
    const __m512i v =
        _mm512_add_epi32(_mm512_maskz_loadu_epi8(m, s), _mm512_loadu_si512((const void *)x->key.k));
    const __m512i p = _mm512_mul_epu32(v, _mm512_srli_epi64(v, 32));
    /* the sum mod 2^64 in unsigned lanes (the compiler's reduce adds signed ones) */
    const __m256i s4 = _mm256_add_epi64(_mm512_castsi512_si256(p), _mm512_extracti64x4_epi64(p, 1));
    const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(s4), _mm256_extracti128_si256(s4, 1));
    const uint64_t sum = (uint64_t)_mm_cvtsi128_si64(s2) + (uint64_t)_mm_extract_epi64(s2, 1);
    return vt_nh_final(&x->key, sum, n);
  }
#endif
  return vt_crfs_index_hash(x, s, n);
}

/* Queues the attribute named by the `n` bytes at s, value v, of item t: hashes it and prefetches
 * its slot; the group is looked up when full. */
static inline void push(const vt_crfs_index *x, pending *g, int *ng, const char *s, size_t n,
                        int32_t t, double v, double *E, int32_t L) {
  pending *p = &g[(*ng)++];
  p->s = s;
  p->n = (uint32_t)n;
  p->t = t;
  p->v = v;
  p->h = index_hash(x, s, n);
  __builtin_prefetch(&x->slots[(uint32_t)p->h & x->mask]);
  if (*ng == GROUP) {
    group_flush(x, g, *ng, E, L);
    *ng = 0;
  }
}

/* The first of items [0, T) whose row holds a score that is not finite (every exponent bit set:
 * an infinity or a NaN), or -1. */
static int32_t first_overflow(const double *E, int32_t T, int32_t L) {
  const uint64_t EXP = 0x7FF0000000000000ull;
  for (int32_t t = 0; t < T; t++) {
    const double *row = E + (size_t)t * (size_t)L;
    uint64_t bad = 0;
    for (int32_t y = 0; y < L; y++) {
      uint64_t b;
      memcpy(&b, row + y, 8);
      bad |= (uint64_t)((b & EXP) == EXP);
    }
    if (bad) return t;
  }
  return -1;
}

/* vt_crfs_rows at this file's level (crfs_rows.h). */
static int crfs_rows_level(const vt_crfs_index *x, int32_t L, vt_arena *arena,
                           const char *const *lines, const size_t *lens, int32_t T, double *E,
                           int32_t *bad, char *err, size_t errlen) {
  pending g[GROUP];
  int ng = 0;
  int32_t fail = -1; /* the item with a NUL or a bad value */
  char why[200] = "";
  char *vbuf = NULL; /* a value, NUL-terminated for strtod */
  size_t vcap = 0;
  int any_value = 0; /* a value other than 1 was read */
  uint32_t most = 0; /* the most attributes of an item */
  uint64_t tabs[LINE_WORDS];
  for (int32_t t = 0; t < T && fail < 0; t++) {
    const char *line = lines[t];
    const size_t len = lens[t];
    uint32_t n_attr = 0;
    if (len <= 64 * LINE_WORDS && !line_tabs(line, len, tabs)) { /* fields between tabs */
      size_t start = 0;
      int first = 1; /* the label field comes first */
      for (size_t w = 0; w * 64 < len; w++)
        for (uint64_t m = tabs[w]; m; m &= m - 1) {
          const size_t e = w * 64 + (size_t)__builtin_ctzll(m);
          if (e > start) {
            if (!first) {
              push(x, g, &ng, line + start, e - start, t, 1.0, E, L);
              n_attr++;
            }
            first = 0;
          }
          start = e + 1;
        }
      if (len > start && !first) {
        push(x, g, &ng, line + start, len - start, t, 1.0, E, L);
        n_attr++;
      }
      if (n_attr > most) most = n_attr;
      continue;
    }
    if (memchr(line, '\0', len)) {
      fail = t;
      vt_errorf(why, sizeof why, NULL, "a NUL byte in the item");
      break;
    }
    scan sc = {line, len, SIZE_MAX, 0};
    size_t pos = 0;
    int first = 1;
    for (;;) {
      while (pos < len && line[pos] == '\t') pos++;
      if (pos >= len) break;
      const size_t start = pos, e = next_special(&sc, pos);
      const char *name = line + pos, *val = NULL;
      size_t an = e - pos, vn = 0;
      int has_value = 0, escaped = e < len && line[e] == '\\';
      if (!escaped) {
        pos = e;
        if (pos < len && line[pos] == ':') {
          const size_t vs = pos + 1, ve = next_special(&sc, vs);
          has_value = 1;
          escaped = ve < len && line[ve] == '\\';
          val = line + vs;
          vn = ve - vs;
          pos = ve;
        }
      }
      if (escaped) { /* undo the escapes into memory of the sequence's arena */
        char *buf = vt_arena_alloc(arena, len - start + 2);
        if (!buf) return -2;
        pos = start;
        val = vt_crfs_attr_next(line, len, &pos, buf, &an, &vn, &has_value);
        name = buf;
      }
      if (first) { /* the label field */
        first = 0;
        continue;
      }
      double v = 1.0;
      if (has_value && vn) {
        if (vn + 1 > vcap) {
          vcap = len + 2;
          if (!(vbuf = vt_arena_alloc(arena, vcap))) return -2;
        }
        memcpy(vbuf, val, vn);
        if (vt_crfs_value_parse(vbuf, vn, &v)) {
          fail = t;
          vt_errorf(why, sizeof why, NULL, "attribute '%.*s': value '%.*s' is not a finite number",
                    (int)(an < 64 ? an : 64), name, (int)(vn < 64 ? vn : 64), val);
          break;
        }
      }
      any_value |= v != 1.0;
      n_attr++;
      push(x, g, &ng, name, an, t, v, E, L);
    }
    if (n_attr > most) most = n_attr;
  }
  group_flush(x, g, ng, E, L);
  /* Sums of at most `most` weights of magnitude wmax or less, each rounding by a factor of
   * 1 + 2^-53 at most, cannot overflow while most * wmax is well under DBL_MAX. */
  const int may_overflow = any_value || (double)most * x->wmax > DBL_MAX / 4;
  const int32_t over = may_overflow ? first_overflow(E, fail < 0 ? T : fail, L) : -1;
  if (over >= 0) {
    *bad = over;
    vt_errorf(err, errlen, NULL, "the attribute values make a label's score overflow");
    return -1;
  }
  if (fail >= 0) {
    *bad = fail;
    vt_errorf(err, errlen, NULL, "%s", why);
    return -1;
  }
  return 0;
}

#endif
