/* tests/peer_write.h: small CRF++ and Wapiti models written by the tests themselves, and a
 * brute-force scorer implementing each peer's own scoring (as crf_test and wapiti label score),
 * for tests/test_peer.c (which also writes the fuzz seeds of fuzz_crfpp and fuzz_wapiti with it).
 *
 * A model is: labels in the peer's order, templates (a subset of each peer's syntax:
 * `%x[row,col]`, `%X`, Wapiti's `@` and blanks inside the brackets), and a feature table built by
 * expanding the templates over the given sentences exactly as the peer does (CRF++: `_B-n` /
 * `_B+n`; Wapiti: `_x-1`..`_x-4`, `_x-#`), plus a few strings no sentence produces. Weights are
 * multiples of 1/8 so every sum is exact in float and double: ties are real ties. */
#ifndef VT_TESTS_PEER_WRITE_H
#define VT_TESTS_PEER_WRITE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PW_MAXF = 4096, PW_MAXT = 8, PW_NCOLS = 2, PW_MAXL = 6, PW_STR = 96 };

typedef struct pw_sent {
  int T;
  const char *tok[PW_MAXT][PW_NCOLS];
} pw_sent;

typedef struct pw_model {
  int wapiti; /* 0: CRF++, 1: Wapiti */
  int L;
  const char *labels[PW_MAXL];
  int n_tmpl;
  const char *tmpl[16];
  /* features: string, kind (1 unigram, 2 bigram, 3 both: Wapiti `*`), weight offset */
  int n_feat;
  char str[PW_MAXF][PW_STR];
  int kind[PW_MAXF];
  uint64_t off[PW_MAXF], boff[PW_MAXF];
  uint64_t n_w;
  double *w;
  double A[PW_MAXL * PW_MAXL]; /* the macro-free bigram weights (CRF++ "B", Wapiti "b") */
  uint64_t a_off;              /* their offset in w (CRF++ "B" / Wapiti "b" feature) */
} pw_model;

/* ---- expansion, as each peer does it ------------------------------------------------------- */

/* Expands template `tp` at position t of `s` into out (PW_STR bytes); returns its length, -1 on
 * a template outside the supported subset. */
static int pw_expand(const pw_model *m, const char *tp, const pw_sent *s, int t, char *out) {
  int n = 0;
  for (const char *p = tp; *p;) {
    if (*p != '%') {
      if (n < PW_STR - 1) out[n++] = *p;
      p++;
      continue;
    }
    int caps = p[1] == 'X';
    p += 3; /* %x[ */
    while (*p == ' ') p++;
    int abs = 0;
    if (*p == '@') abs = 1, p++;
    int row = (int)strtol(p, (char **)&p, 10);
    p++; /* , */
    while (*p == ' ') p++;
    int col = (int)strtol(p, (char **)&p, 10);
    if (*p++ != ']') return -1;
    int idx = abs ? (row < 0 ? s->T + row : row - 1) : t + row;
    char v[32];
    if (idx < 0 || idx >= s->T) {
      int k = idx < 0 ? -idx : idx - s->T + 1;
      char sign = idx < 0 ? '-' : '+';
      if (!m->wapiti)
        snprintf(v, sizeof v, "_B%c%d", sign, k);
      else if (k > 4)
        snprintf(v, sizeof v, "_x%c#", sign);
      else
        snprintf(v, sizeof v, "_x%c%d", sign, k);
    } else {
      snprintf(v, sizeof v, "%s", s->tok[idx][col]);
    }
    for (char *q = v; *q && n < PW_STR - 1; q++)
      out[n++] = (char)(caps && *q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
  }
  out[n] = '\0';
  return n;
}

/* The type of template `tp`: 1 unigram, 2 bigram, 3 both (Wapiti `*`). */
static int pw_type(const char *tp) {
  return tp[0] == 'U' || tp[0] == 'u' ? 1 : tp[0] == 'B' || tp[0] == 'b' ? 2 : 3;
}

static int pw_find(const pw_model *m, const char *s) {
  for (int f = 0; f < m->n_feat; f++)
    if (!strcmp(m->str[f], s)) return f;
  return -1;
}

static uint64_t pw_rand(uint64_t *st) {
  *st = *st * 6364136223846793005ull + 1442695040888963407ull;
  return *st >> 33;
}

/* Weight kinds: multiples of 1/8 (sums exact: ties are real ties), all zero, or floats with
 * every mantissa bit in use (sums round: for checking a peer's arithmetic to the last digit). */
enum { PW_EIGHTHS = 0, PW_ZERO = 1, PW_FINE = 2 };

/* A weight of kind `kind`: k/8 for k in -8..8 or a float in (-2, 2), a quarter of them 0. */
static double pw_weight(uint64_t *st, int kind) {
  if (kind == PW_ZERO) return 0.0;
  int k = (int)(pw_rand(st) % 17) - 8;
  if (kind == PW_FINE) k = (int)(pw_rand(st) % 4000001) - 2000000;
  if (pw_rand(st) % 4 == 0) return 0.0;
  return kind == PW_FINE ? (double)(float)(k / 1e6 * 0.987654321) : k / 8.0;
}

/* Builds the feature table of `m` (labels and templates set) over sentences s[0..n), ids as the
 * peer numbers them in training (CRF++: offsets by first occurrence, L or L*L each; Wapiti:
 * observations in order, `u` L, `b` L*L, `*` both), with seeded weights of `kind` (PW_*). */
static void pw_build(pw_model *m, const pw_sent *s, int n, uint64_t seed, int kind) {
  const uint64_t L = (uint64_t)m->L;
  uint64_t st = seed, n_w = 0;
  m->n_feat = 0;
  for (int i = 0; i < n; i++)
    for (int t = 0; t < s[i].T; t++)
      for (int k = 0; k < m->n_tmpl; k++) {
        int ty = pw_type(m->tmpl[k]);
        if (ty == 2 && t == 0) continue; /* bigram features exist for t >= 1 only */
        char buf[PW_STR];
        pw_expand(m, m->tmpl[k], &s[i], t, buf);
        if (pw_find(m, buf) >= 0 || m->n_feat >= PW_MAXF - 4) continue;
        int f = m->n_feat++;
        snprintf(m->str[f], PW_STR, "%s", buf);
        m->kind[f] = ty;
      }
  /* strings no sentence produces: kept in the model, never fire */
  const char *extra[2][2] = {{"U01:never", "B01:never"}, {"u01:never", "*02:never"}};
  for (int e = 0; e < 2; e++) {
    int f = m->n_feat++;
    snprintf(m->str[f], PW_STR, "%s", extra[m->wapiti][e]);
    m->kind[f] = pw_type(m->str[f]);
  }
  for (int f = 0; f < m->n_feat; f++) {
    m->off[f] = m->boff[f] = UINT64_MAX;
    if (m->kind[f] & 1) m->off[f] = n_w, n_w += L;
    if (m->kind[f] & 2) m->boff[f] = n_w, n_w += L * L;
  }
  m->n_w = n_w;
  m->w = calloc(n_w + 1, sizeof *m->w);
  for (uint64_t i = 0; i < n_w; i++) m->w[i] = pw_weight(&st, kind);
}

/* The feature each template gives at each position of s (-1: unseen, dropped as the peers do). */
typedef struct pw_prep {
  int fid[PW_MAXT][16];
} pw_prep;

static void pw_prepare(const pw_model *m, const pw_sent *s, pw_prep *p) {
  for (int t = 0; t < s->T; t++)
    for (int k = 0; k < m->n_tmpl; k++) {
      char buf[PW_STR];
      pw_expand(m, m->tmpl[k], s, t, buf);
      p->fid[t][k] = pw_find(m, buf);
    }
}

/* The peer's score of path y over sentence s: unigram features at every t, bigram features at
 * t >= 1 (weight [prev][cur]), no start or end weights. */
static double pw_score(const pw_model *m, const pw_sent *s, const pw_prep *p, const int *y) {
  const uint64_t L = (uint64_t)m->L;
  double sc = 0.0;
  for (int t = 0; t < s->T; t++)
    for (int k = 0; k < m->n_tmpl; k++) {
      int ty = pw_type(m->tmpl[k]), f = p->fid[t][k];
      if (f < 0) continue;
      if ((ty & 1) && m->off[f] != UINT64_MAX) sc += m->w[m->off[f] + (uint64_t)y[t]];
      if ((ty & 2) && t > 0 && m->boff[f] != UINT64_MAX)
        sc += m->w[m->boff[f] + (uint64_t)y[t - 1] * L + (uint64_t)y[t]];
    }
  return sc;
}

/* ---- writers ------------------------------------------------------------------------------- */

static int pw_cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* CRF++ text model (crf_learn -t): header, labels, templates, "id string" lines sorted by
 * string, then maxid weights "%.16f". */
static int pw_write_crfpp_text(const pw_model *m, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "version: 100\ncost-factor: 1\nmaxid: %llu\nxsize: %d\n\n", (unsigned long long)m->n_w,
          PW_NCOLS);
  for (int y = 0; y < m->L; y++) fprintf(f, "%s\n", m->labels[y]);
  fputc('\n', f);
  for (int k = 0; k < m->n_tmpl; k++) fprintf(f, "%s\n", m->tmpl[k]);
  fputc('\n', f);
  const char **order = malloc((size_t)m->n_feat * sizeof *order);
  for (int i = 0; i < m->n_feat; i++) order[i] = m->str[i];
  qsort(order, (size_t)m->n_feat, sizeof *order, pw_cmp_str);
  for (int i = 0; i < m->n_feat; i++) {
    int fi = pw_find(m, order[i]);
    fprintf(f, "%llu %s\n", (unsigned long long)(m->kind[fi] & 1 ? m->off[fi] : m->boff[fi]),
            order[i]);
  }
  free(order);
  fputc('\n', f);
  for (uint64_t i = 0; i < m->n_w; i++) fprintf(f, "%.16f\n", m->w[i]);
  return fclose(f);
}

/* A Darts double array (CRF++'s feature trie): unit {int32 base; uint32 check}. */
typedef struct pw_da {
  int32_t *base;
  uint32_t *check;
  char *used, *base_used;
  int size;
} pw_da;

static void pw_da_grow(pw_da *d, int need) {
  if (need < d->size) return;
  int ns = d->size ? d->size : 1024;
  while (ns <= need) ns *= 2;
  d->base = realloc(d->base, (size_t)ns * sizeof *d->base);
  d->check = realloc(d->check, (size_t)ns * sizeof *d->check);
  d->used = realloc(d->used, (size_t)ns);
  d->base_used = realloc(d->base_used, (size_t)ns);
  for (int i = d->size; i < ns; i++)
    d->base[i] = 0, d->check[i] = 0, d->used[i] = d->base_used[i] = 0;
  d->size = ns;
}

/* Places the node of keys[lo..hi) (sorted, sharing their first `depth` bytes); returns its
 * base. ids[i] is key i's value. */
static int pw_da_node(pw_da *d, const char **keys, const int *ids, int lo, int hi, int depth) {
  int codes[257], n = 0;
  for (int i = lo; i < hi; i++) {
    int c = keys[i][depth] ? (unsigned char)keys[i][depth] + 1 : 0;
    if (n == 0 || codes[n - 1] != c) codes[n++] = c;
  }
  int b = 1;
  for (;; b++) {
    pw_da_grow(d, b + 258);
    if (d->base_used[b]) continue;
    int ok = 1;
    for (int j = 0; j < n && ok; j++) ok = !d->used[b + codes[j]];
    if (ok) break;
  }
  d->base_used[b] = 1;
  for (int j = 0; j < n; j++) d->used[b + codes[j]] = 1, d->check[b + codes[j]] = (uint32_t)b;
  for (int i = lo; i < hi;) {
    int c = keys[i][depth] ? (unsigned char)keys[i][depth] + 1 : 0;
    int e = i;
    while (e < hi && (keys[e][depth] ? (unsigned char)keys[e][depth] + 1 : 0) == c) e++;
    if (c == 0)
      d->base[b] = -ids[i] - 1;
    else
      d->base[b + c] = pw_da_node(d, keys, ids, i, e, depth + 1);
    i = e;
  }
  return b;
}

/* CRF++ binary model (crf_learn without -t): header, labels, templates, double array, float
 * weights. `version` is normally 100. */
static int pw_write_crfpp_binary(const pw_model *m, const char *path, uint32_t version) {
  const char **keys = malloc((size_t)m->n_feat * sizeof *keys);
  int *ids = malloc((size_t)m->n_feat * sizeof *ids);
  for (int i = 0; i < m->n_feat; i++) keys[i] = m->str[i];
  qsort(keys, (size_t)m->n_feat, sizeof *keys, pw_cmp_str);
  for (int i = 0; i < m->n_feat; i++) {
    int fi = pw_find(m, keys[i]);
    ids[i] = (int)(m->kind[fi] & 1 ? m->off[fi] : m->boff[fi]);
  }
  pw_da d;
  memset(&d, 0, sizeof d);
  pw_da_grow(&d, 512);
  d.base[0] = pw_da_node(&d, keys, ids, 0, m->n_feat, 0);
  int units = d.size;
  while (units > 1 && !d.used[units - 1]) units--;
  units += 1;
  char ys[512], ts[2048];
  uint32_t yn = 0, tn = 0;
  for (int y = 0; y < m->L; y++) {
    memcpy(ys + yn, m->labels[y], strlen(m->labels[y]) + 1);
    yn += (uint32_t)strlen(m->labels[y]) + 1;
  }
  for (int k = 0; k < m->n_tmpl; k++) {
    memcpy(ts + tn, m->tmpl[k], strlen(m->tmpl[k]) + 1);
    tn += (uint32_t)strlen(m->tmpl[k]) + 1;
  }
  while ((yn + tn) % 4) ts[tn++] = '\0';
  FILE *f = fopen(path, "wb");
  int32_t type = 0;
  double cf = 1.0;
  uint32_t maxid = (uint32_t)m->n_w, xsize = PW_NCOLS, dsize = (uint32_t)units * 8;
  fwrite(&version, 4, 1, f);
  fwrite(&type, 4, 1, f);
  fwrite(&cf, 8, 1, f);
  fwrite(&maxid, 4, 1, f);
  fwrite(&xsize, 4, 1, f);
  fwrite(&dsize, 4, 1, f);
  fwrite(&yn, 4, 1, f);
  fwrite(ys, 1, yn, f);
  fwrite(&tn, 4, 1, f);
  fwrite(ts, 1, tn, f);
  for (int i = 0; i < units; i++) {
    fwrite(&d.base[i], 4, 1, f);
    fwrite(&d.check[i], 4, 1, f);
  }
  for (uint64_t i = 0; i < m->n_w; i++) {
    float w = (float)m->w[i];
    fwrite(&w, 4, 1, f);
  }
  free(keys);
  free(ids);
  free(d.base);
  free(d.check);
  free(d.used);
  free(d.base_used);
  return fclose(f);
}

/* Wapiti 1.5 text model: #mdl#, #rdr# with the patterns as netstrings, the label and
 * observation quarks, then the non-zero weights "f=%la" in ascending f. */
static int pw_write_wapiti(const pw_model *m, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  uint64_t nact = 0;
  for (uint64_t i = 0; i < m->n_w; i++) nact += m->w[i] != 0.0;
  fprintf(f, "#mdl#2#%llu\n#rdr#%d/%d/0\n", (unsigned long long)nact, m->n_tmpl, PW_NCOLS - 1);
  for (int k = 0; k < m->n_tmpl; k++) fprintf(f, "%zu:%s,\n", strlen(m->tmpl[k]), m->tmpl[k]);
  fprintf(f, "#qrk#%d\n", m->L);
  for (int y = 0; y < m->L; y++) fprintf(f, "%zu:%s,\n", strlen(m->labels[y]), m->labels[y]);
  fprintf(f, "#qrk#%d\n", m->n_feat);
  for (int i = 0; i < m->n_feat; i++) fprintf(f, "%zu:%s,\n", strlen(m->str[i]), m->str[i]);
  for (uint64_t i = 0; i < m->n_w; i++)
    if (m->w[i] != 0.0) fprintf(f, "%llu=%la\n", (unsigned long long)i, m->w[i]);
  return fclose(f);
}

#endif
