/* engine/train/train_mix.c: the exact mix of iterative parameter mixing (see train_mix.h; the
 * layout of a part in train_ipm.h).
 *
 * A mix follows a round of a few sentences a shard, so its cost follows what the round changed,
 * never the feature count or L^2. A process's part: the features some shard updated (their ids
 * gathered and sorted) in chunks of MIX_CHUNK, each chunk's records written by one thread into a
 * buffer of its own (a feature's deltas gathered over the shards, sorted by key and summed), then
 * the chunks, the transition cells some shard changed with their summed deltas, and the start and
 * end deltas copied after the header. Adding the parts: each chunk of features by one thread,
 * which finds in every part the chunk's first record (binary search over an index of the
 * records) and merges the parts feature by feature, key by key, adding each key's sum once; the
 * transition cells summed over the parts in a dense scratch, then added. The sums are of
 * integers below 2^53, exact in any order, so W gets the same bits however the deltas were
 * grouped into shards, processes and threads. */
#define _POSIX_C_SOURCE 200809L
#include "train/train_mix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/omp_tsan.h"

enum {
  HDR_BYTES = VT_MIX_HEAD, /* a part's header: 6 words (train_ipm.h) */
  REC_HEAD = 8,            /* a record's {f, n} */
  ENT_BYTES = 20,          /* an entry's {key, dw, du} */
  MIX_CHUNK = 1024,        /* features a task of the mix */
  CELL_BYTES = 20          /* a transition entry's {cell, dA, dAu} */
};

/* A growable byte buffer. */
typedef struct bytes {
  uint8_t *p;
  size_t n, cap;
} bytes;

/* Room for `more` bytes after b->n. VT_OK or VT_ENOMEM. */
static vt_status bytes_reserve(bytes *b, size_t more) {
  if (b->cap - b->n >= more) return VT_OK;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->n < more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) return VT_ENOMEM;
  b->p = p;
  b->cap = cap;
  return VT_OK;
}

/* Appends len bytes at src (room reserved; src may be NULL when len is 0). */
static void bytes_put(bytes *b, const void *src, size_t len) {
  if (!len) return;
  memcpy(b->p + b->n, src, len);
  b->n += len;
}

static int32_t get_i32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static double get_f64(const uint8_t *p) {
  double v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* v is an integer of magnitude below 2^53 (false for NaN and infinities). */
static int exact_int(double v) { return fabs(v) < 0x1p53 && v == (double)(int64_t)v; }

/* A feature's summed delta for one key. */
typedef struct ent {
  int32_t key;
  double w, u;
} ent;

/* Sorts the non-negative a[0..n) ascending: by insertion when short, else by a radix sort of 11
 * bits a pass through tmp[0..n) (a round lists a few hundred features and cells; qsort's merge
 * sort allocates and calls a comparison per step). */
static void ids_sort(int32_t *a, int64_t n, int32_t *tmp) {
  if (n <= 32) {
    for (int64_t i = 1; i < n; i++) {
      const int32_t x = a[i];
      int64_t j = i;
      for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
      a[j] = x;
    }
    return;
  }
  int32_t hi = 0;
  for (int64_t i = 0; i < n; i++) hi |= a[i];
  int32_t *src = a, *dst = tmp;
  for (int shift = 0; shift < 31 && (hi >> shift); shift += 11) {
    int64_t at[2048] = {0};
    for (int64_t i = 0; i < n; i++) at[(src[i] >> shift) & 2047]++;
    for (int64_t b = 0, sum = 0; b < 2048; b++) {
      const int64_t c = at[b];
      at[b] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; i++) dst[at[(src[i] >> shift) & 2047]++] = src[i];
    int32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

static int ent_by_key(const void *a, const void *b) {
  const int32_t x = ((const ent *)a)->key, y = ((const ent *)b)->key;
  return x < y ? -1 : x > y;
}

/* Sorts a[0..n) by key: in place by insertion when short (a feature's entries over a round's
 * shards are a few), else by qsort. */
static void ents_sort(ent *a, int64_t n) {
  if (n > 24) {
    qsort(a, (size_t)n, sizeof *a, ent_by_key);
    return;
  }
  for (int64_t i = 1; i < n; i++) {
    const ent x = a[i];
    int64_t j = i;
    for (; j > 0 && a[j - 1].key > x.key; j--) a[j] = a[j - 1];
    a[j] = x;
  }
}

/* The deltas of feature f over d[0..ns), summed per key (exact: integers), into (*e)[0..count)
 * by ascending key, without the keys whose dw and du both sum to 0 (*e grows; *cap its room).
 * Returns the count, or -1 without memory. */
static int64_t feature_sum(const vt_mix_deltas *d, int32_t ns, int32_t f, ent **e, int64_t *cap) {
  int64_t m = 0;
  for (int32_t s = 0; s < ns; s++) {
    const int32_t slot = d[s].own->slot[f];
    if (slot < 0) continue;
    const vt_wvec *v = &d[s].own->d[slot];
    if (m + v->n > *cap) {
      int64_t c = *cap ? *cap : 64;
      while (c < m + v->n) c *= 2;
      ent *g = realloc(*e, (size_t)c * sizeof *g);
      if (!g) return -1;
      *e = g;
      *cap = c;
    }
    for (int32_t i = 0; i < v->n; i++) {
      const double w = vt_wvec_w(v, i), u = v->u[i];
      if (w == 0 && u == 0) continue; /* a dense delta's untouched labels */
      (*e)[m++] = (ent){vt_wvec_key(v, i), w, u};
    }
  }
  ent *a = *e;
  ents_sort(a, m);
  int64_t k = 0;
  for (int64_t i = 0; i < m;) {
    ent sum = a[i++];
    while (i < m && a[i].key == sum.key) sum.w += a[i].w, sum.u += a[i++].u;
    if (sum.w != 0 || sum.u != 0) a[k++] = sum;
  }
  return k;
}

struct vt_mixer {
  int32_t L;
  bytes *chunk;       /* per MIX_CHUNK listed features: their records in this process's part */
  int64_t *chunk_rec; /* and their count */
  int32_t *feat;      /* the features some shard updated, ascending */
  int64_t n_feat, cap_feat;
  double *tsum;   /* per transition cell: summed dA, dAu (2 L^2; zero off the listed cells) */
  uint8_t *mark;  /* per cell: listed */
  int32_t *cells; /* the listed cells */
  int64_t n_cells;
  int32_t *tmp; /* L^2 cells of scratch to sort them */
  int32_t *ids; /* every shard's listed features, then sort scratch (list_features) */
  int64_t cap_ids;
  bytes part; /* this process's part */
};

void vt_mixer_destroy(vt_mixer *m) {
  if (!m) return;
  const int64_t n_chunk = m->chunk ? ((int64_t)m->cap_feat + MIX_CHUNK - 1) / MIX_CHUNK : 0;
  for (int64_t c = 0; c < n_chunk; c++) free(m->chunk[c].p);
  free(m->chunk);
  free(m->chunk_rec);
  free(m->feat);
  free(m->tsum);
  free(m->mark);
  free(m->cells);
  free(m->tmp);
  free(m->ids);
  free(m->part.p);
  free(m);
}

vt_mixer *vt_mixer_create(const vt_weights *W) {
  const size_t L = (size_t)W->L, n_chunk = ((size_t)W->n_feat + MIX_CHUNK - 1) / MIX_CHUNK;
  vt_mixer *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->L = W->L;
  m->cap_feat = W->n_feat; /* a feature is listed once */
  m->chunk = calloc(n_chunk + 1, sizeof *m->chunk);
  m->chunk_rec = calloc(n_chunk + 1, sizeof *m->chunk_rec);
  m->feat = malloc(((size_t)W->n_feat + 1) * sizeof *m->feat);
  m->tsum = calloc(2 * L * L + 1, sizeof *m->tsum);
  m->mark = calloc(L * L + 1, 1);
  m->cells = malloc((L * L + 1) * sizeof *m->cells);
  m->tmp = malloc((L * L + 1) * sizeof *m->tmp);
  if (!m->chunk || !m->chunk_rec || !m->feat || !m->tsum || !m->mark || !m->cells || !m->tmp) {
    vt_mixer_destroy(m);
    return NULL;
  }
  return m;
}

/* Lists (ascending, once each) the features some shard of d[0..ns) updated into m->feat; -1
 * when a scratch list cannot be had, else the count. */
static int64_t list_features(vt_mixer *m, const vt_mix_deltas *d, int32_t ns) {
  int64_t n = 0;
  for (int32_t s = 0; s < ns; s++) n += d[s].own->n;
  if (2 * n + 1 > m->cap_ids) { /* kept from round to round: the rounds come every few sentences */
    int32_t *grown = realloc(m->ids, (2 * (size_t)n + 1) * sizeof *grown);
    if (!grown) return -1;
    m->ids = grown;
    m->cap_ids = 2 * n + 1;
  }
  int32_t *all = m->ids; /* the list, then sort scratch */
  n = 0;
  for (int32_t s = 0; s < ns; s++) {
    if (!d[s].own->n) continue; /* an empty list may have no array at all */
    memcpy(all + n, d[s].own->feat, (size_t)d[s].own->n * sizeof *all);
    n += d[s].own->n;
  }
  ids_sort(all, n, all + n);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (k == 0 || all[i] != m->feat[k - 1]) m->feat[k++] = all[i];
  return m->n_feat = k;
}

/* Lists (ascending) the transition cells some shard of d[0..ns) changed into m->cells, and
 * returns how many of them have a nonzero summed delta, those sums left in m->tsum. */
static int64_t list_cells(vt_mixer *m, const vt_mix_deltas *d, int32_t ns) {
  const int64_t LL = (int64_t)m->L * m->L;
  m->n_cells = 0;
  for (int32_t s = 0; s < ns; s++)
    for (int64_t i = 0; i < d[s].n_cells; i++) {
      const int32_t c = d[s].cells[i];
      if (!m->mark[c]) m->mark[c] = 1, m->cells[m->n_cells++] = c;
    }
  ids_sort(m->cells, m->n_cells, m->tmp);
  int64_t nz = 0;
  for (int64_t i = 0; i < m->n_cells; i++) {
    const int32_t c = m->cells[i];
    double a = 0, au = 0;
    for (int32_t s = 0; s < ns; s++) a += d[s].dA[c], au += d[s].dAu[c];
    m->tsum[c] = a;
    m->tsum[LL + c] = au;
    m->mark[c] = 0;
    nz += a != 0 || au != 0;
  }
  return nz;
}

vt_status vt_mixer_part(vt_mixer *m, const vt_weights *W, const vt_mix_deltas *d, int32_t ns,
                        int nthreads, const void **part, size_t *len) {
  const int64_t LL = (int64_t)W->L * W->L;
  const int32_t L = W->L;
  const int64_t nf = list_features(m, d, ns);
  if (nf < 0) return VT_ENOMEM;
  const int64_t n_chunk = (nf + MIX_CHUNK - 1) / MIX_CHUNK;
  int bad = 0;
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
    ent *e = NULL;
    int64_t cap = 0;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < n_chunk; c++) {
      bytes *b = &m->chunk[c];
      b->n = 0;
      m->chunk_rec[c] = 0;
      const int64_t i1 = (c + 1) * MIX_CHUNK < nf ? (c + 1) * MIX_CHUNK : nf;
      for (int64_t i = c * MIX_CHUNK; i < i1; i++) {
        const int32_t f = m->feat[i];
        const int64_t k = feature_sum(d, ns, f, &e, &cap);
        if (k == 0) continue;
        if (k < 0 || bytes_reserve(b, REC_HEAD + (size_t)k * ENT_BYTES) != VT_OK) {
#pragma omp atomic write
          bad = 1;
          break;
        }
        const int32_t head[2] = {f, (int32_t)k};
        bytes_put(b, head, sizeof head);
        for (int64_t j = 0; j < k; j++) {
          bytes_put(b, &e[j].key, 4);
          bytes_put(b, &e[j].w, 8);
          bytes_put(b, &e[j].u, 8);
        }
        m->chunk_rec[c]++;
      }
    }
    free(e);
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  if (bad) return VT_ENOMEM;
  const int64_t n_tc = list_cells(m, d, ns);
  double se[4] = {0, 0, 0, 0}; /* dS, dSu, dF, dFu of one label */
  int64_t n_rec = 0, rec_bytes = 0;
  for (int64_t c = 0; c < n_chunk; c++) n_rec += m->chunk_rec[c], rec_bytes += m->chunk[c].n;
  const size_t tbytes = ns > 0 ? 8 + (size_t)n_tc * CELL_BYTES + 4 * (size_t)L * 8 : 0;
  m->part.n = 0;
  if (bytes_reserve(&m->part, HDR_BYTES + (size_t)rec_bytes + tbytes) != VT_OK) return VT_ENOMEM;
  const int64_t head[6] = {HDR_BYTES + rec_bytes + (int64_t)tbytes, 0, L, n_rec, rec_bytes, ns > 0};
  bytes_put(&m->part, head, sizeof head);
  for (int64_t c = 0; c < n_chunk; c++) bytes_put(&m->part, m->chunk[c].p, m->chunk[c].n);
  if (ns > 0) {
    bytes_put(&m->part, &n_tc, 8);
    for (int64_t i = 0; i < m->n_cells; i++) {
      const int32_t c = m->cells[i];
      if (m->tsum[c] != 0 || m->tsum[LL + c] != 0) {
        bytes_put(&m->part, &c, 4);
        bytes_put(&m->part, &m->tsum[c], 8);
        bytes_put(&m->part, &m->tsum[LL + c], 8);
      }
      m->tsum[c] = m->tsum[LL + c] = 0;
    }
    for (int j = 0; j < 4; j++)
      for (int32_t y = 0; y < L; y++) {
        se[j] = 0;
        for (int32_t s = 0; s < ns; s++) {
          const double *v = j == 0 ? d[s].dS : j == 1 ? d[s].dSu : j == 2 ? d[s].dF : d[s].dFu;
          se[j] += v[y];
        }
        bytes_put(&m->part, &se[j], 8);
      }
  }
  m->n_cells = 0;
  *part = m->part.p;
  *len = m->part.n;
  return VT_OK;
}

size_t vt_mix_fail_part(void *buf, int32_t L) {
  const int64_t head[6] = {HDR_BYTES, 1, L, 0, 0, 0};
  memcpy(buf, head, sizeof head);
  return sizeof head;
}

/* One process's part as received. */
typedef struct part {
  const uint8_t *rec; /* its records */
  int64_t n_rec;
  int64_t *at;          /* offset of each record in rec (ascending features) */
  const uint8_t *trans; /* its transition entries {cell, dA, dAu}, or NULL */
  int64_t n_trans;
  const uint8_t *se; /* its start and end deltas dS, dSu, dF, dFu (L doubles each), or NULL */
} part;

/* Splits the gathered parts all[0..len) into *parts (malloc'd, *np of them, each with its
 * record index malloc'd) and checks their layout; *failed: some process sent a failure.
 * VT_OK, VT_ENOMEM or VT_EFORMAT (free *parts either way with parts_free). */
static vt_status parts_read(const uint8_t *all, size_t len, const vt_weights *W, part **parts,
                            int64_t *np, int *failed) {
  const int64_t L = W->L, LL = L * L, se_bytes = 4 * L * (int64_t)sizeof(double);
  *parts = NULL;
  *np = 0;
  *failed = 0;
  int64_t cap = 0;
  for (size_t off = 0; off < len;) {
    int64_t h[6];
    if (len - off < HDR_BYTES) return VT_EFORMAT;
    memcpy(h, all + off, sizeof h);
    if (h[0] < HDR_BYTES || (uint64_t)h[0] > len - off) return VT_EFORMAT;
    const uint8_t *p = all + off;
    off += (size_t)h[0];
    if (h[1]) {
      *failed = 1;
      continue;
    }
    /* each record takes at least one entry; then the transitions, when present */
    if (h[2] != L || h[3] < 0 || h[4] < 0 || h[3] > h[4] / (REC_HEAD + ENT_BYTES) ||
        (h[5] != 0 && h[5] != 1) || h[4] > h[0] - HDR_BYTES)
      return VT_EFORMAT;
    int64_t nt = 0;
    if (h[5]) {
      if (h[0] - HDR_BYTES - h[4] < 8) return VT_EFORMAT;
      memcpy(&nt, p + HDR_BYTES + h[4], 8);
      if (nt < 0 || nt > LL) return VT_EFORMAT;
    }
    if (h[0] != HDR_BYTES + h[4] + (h[5] ? 8 + nt * CELL_BYTES + se_bytes : 0)) return VT_EFORMAT;
    if (*np == cap) {
      cap = cap ? 2 * cap : 8;
      part *g = realloc(*parts, (size_t)cap * sizeof *g);
      if (!g) return VT_ENOMEM;
      *parts = g;
    }
    part *q = &(*parts)[(*np)++];
    q->rec = p + HDR_BYTES;
    q->n_rec = h[3];
    q->trans = h[5] ? p + HDR_BYTES + h[4] + 8 : NULL;
    q->n_trans = nt;
    q->se = h[5] ? q->trans + nt * CELL_BYTES : NULL;
    q->at = malloc(((size_t)h[3] + 1) * sizeof *q->at);
    if (!q->at) return VT_ENOMEM;
    int64_t pos = 0;
    int32_t prev = -1;
    for (int64_t r = 0; r < h[3]; r++) {
      if (h[4] - pos < REC_HEAD) return VT_EFORMAT;
      const int32_t f = get_i32(q->rec + pos), n = get_i32(q->rec + pos + 4);
      if (f <= prev || f >= W->n_feat || n < 1 || (h[4] - pos - REC_HEAD) / ENT_BYTES < n)
        return VT_EFORMAT;
      q->at[r] = pos;
      pos += REC_HEAD + (int64_t)n * ENT_BYTES;
      prev = f;
    }
    if (pos != h[4]) return VT_EFORMAT;
  }
  return VT_OK;
}

static void parts_free(part *parts, int64_t np) {
  for (int64_t p = 0; parts && p < np; p++) free(parts[p].at);
  free(parts);
}

/* The first record of q for a feature >= f. */
static int64_t first_record(const part *q, int64_t f) {
  int64_t lo = 0, hi = q->n_rec;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (get_i32(q->rec + q->at[mid]) < f)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A mixing thread's place in the parts: per part, its next record, the entries left of the
 * feature being mixed, where the next is and the last key taken. */
typedef struct merge_pos {
  int64_t *cur, *left, *last;
  const uint8_t **ep;
} merge_pos;

/* W += the sum of the parts' deltas for the features of chunk c, each feature's keys in
 * ascending order, its parts merged by key; sets *bad_mem on a failed allocation, *bad_form on
 * a key out of range or out of order or a value that is not an integer. */
static void mix_chunk(vt_weights *W, const part *parts, int64_t np, int64_t c, merge_pos *m,
                      int *bad_mem, int *bad_form) {
  const int64_t nf = W->n_feat, f1 = (c + 1) * MIX_CHUNK < nf ? (c + 1) * MIX_CHUNK : nf;
  for (int64_t p = 0; p < np; p++) m->cur[p] = first_record(&parts[p], c * MIX_CHUNK);
  for (;;) {
    int64_t f = f1;
    for (int64_t p = 0; p < np; p++)
      if (m->cur[p] < parts[p].n_rec && get_i32(parts[p].rec + parts[p].at[m->cur[p]]) < f)
        f = get_i32(parts[p].rec + parts[p].at[m->cur[p]]);
    if (f == f1) return;
    for (int64_t p = 0; p < np; p++) {
      m->left[p] = 0;
      m->last[p] = -1;
      if (m->cur[p] >= parts[p].n_rec) continue;
      const uint8_t *r = parts[p].rec + parts[p].at[m->cur[p]];
      if (get_i32(r) != f) continue;
      m->left[p] = get_i32(r + 4);
      m->ep[p] = r + REC_HEAD;
      m->cur[p]++;
    }
    const int64_t nkeys = W->bigram[f] ? (int64_t)W->L * W->L : W->L;
    for (;;) { /* the smallest key left in any part, summed over the parts */
      int64_t key = nkeys;
      for (int64_t p = 0; p < np; p++)
        if (m->left[p] && get_i32(m->ep[p]) < key) key = get_i32(m->ep[p]);
      if (key == nkeys) break;
      double w = 0, u = 0;
      for (int64_t p = 0; p < np; p++) {
        if (!m->left[p] || get_i32(m->ep[p]) != key) continue;
        const double dw = get_f64(m->ep[p] + 4), du = get_f64(m->ep[p] + 12);
        if (key < 0 || key <= m->last[p] || !exact_int(dw) || !exact_int(du)) *bad_form = 1;
        w += dw;
        u += du;
        m->last[p] = key;
        m->ep[p] += ENT_BYTES;
        m->left[p]--;
      }
      if (key < 0) return; /* reported above */
      if ((w != 0 || u != 0) && vt_weights_add_wu(W, (int32_t)f, (int32_t)key, w, u) != VT_OK)
        *bad_mem = 1;
    }
    for (int64_t p = 0; p < np; p++)
      if (m->left[p]) *bad_form = 1; /* a key past the feature's range */
  }
}

/* W's transitions += the sum of the parts' transition deltas: each cell's sum gathered in
 * m->tsum (the cells listed in m->cells, which stay listed for vt_mixer_changed), then added.
 * VT_OK, or VT_EFORMAT for a cell out of range or out of order or a value that is not an
 * integer (W then unchanged). */
static vt_status mix_trans(vt_weights *W, vt_mixer *m, const part *parts, int64_t np) {
  const int64_t L = W->L, LL = L * L;
  int bad = 0;
  m->n_cells = 0;
  for (int64_t p = 0; p < np; p++) {
    int64_t prev = -1;
    for (int64_t i = 0; parts[p].trans && i < parts[p].n_trans; i++) {
      const uint8_t *e = parts[p].trans + i * CELL_BYTES;
      const int32_t c = get_i32(e);
      const double da = get_f64(e + 4), dau = get_f64(e + 12);
      if (c <= prev || c >= LL || !exact_int(da) || !exact_int(dau)) {
        bad = 1;
        break;
      }
      prev = c;
      if (!m->mark[c]) m->mark[c] = 1, m->cells[m->n_cells++] = c;
      m->tsum[c] += da;
      m->tsum[LL + c] += dau;
    }
  }
  for (int64_t p = 0; p < np && !bad; p++)
    for (int64_t i = 0; parts[p].se && i < 4 * L; i++)
      if (!exact_int(get_f64(parts[p].se + 8 * i))) bad = 1;
  for (int64_t i = 0; i < m->n_cells; i++) {
    const int32_t c = m->cells[i];
    if (!bad) W->A[c] += m->tsum[c], W->Au[c] += m->tsum[LL + c];
    m->tsum[c] = m->tsum[LL + c] = 0;
    m->mark[c] = 0;
  }
  if (bad) {
    m->n_cells = 0;
    return VT_EFORMAT;
  }
  for (int32_t y = 0; y < L; y++) {
    double t[4];
    for (int j = 0; j < 4; j++) {
      t[j] = 0;
      for (int64_t p = 0; p < np; p++)
        if (parts[p].se) t[j] += get_f64(parts[p].se + 8 * ((int64_t)j * L + y));
    }
    W->S[y] += t[0];
    W->Su[y] += t[1];
    W->F[y] += t[2];
    W->Fu[y] += t[3];
  }
  return VT_OK;
}

/* W += the sum of the parts' deltas for every weight, on `nthreads` threads, each chunk of
 * features by one (mix_chunk), then the transitions (mix_trans). VT_OK, VT_ENOMEM, or
 * VT_EFORMAT for a part out of order or with a value that is not an integer (W is then
 * undefined). */
static vt_status mix_parts(vt_weights *W, vt_mixer *mx, const part *parts, int64_t np,
                           int nthreads) {
  const int64_t nf = W->n_feat;
  const int64_t n_chunk = (nf + MIX_CHUNK - 1) / MIX_CHUNK;
  int bad_mem = 0, bad_form = 0;
#pragma omp parallel num_threads(nthreads)
  {
    VT_OMP_BEGIN();
    int tbad_mem = 0, tbad_form = 0;
    merge_pos m = {
        malloc(((size_t)np + 1) * sizeof *m.cur), malloc(((size_t)np + 1) * sizeof *m.left),
        malloc(((size_t)np + 1) * sizeof *m.last), malloc(((size_t)np + 1) * sizeof *m.ep)};
    if (!m.cur || !m.left || !m.last || !m.ep) tbad_mem = 1;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < n_chunk; c++)
      if (!tbad_mem) mix_chunk(W, parts, np, c, &m, &tbad_mem, &tbad_form);
    free(m.cur);
    free(m.left);
    free(m.last);
    free(m.ep);
    if (tbad_mem || tbad_form) {
#pragma omp critical
      bad_mem |= tbad_mem, bad_form |= tbad_form;
    }
    VT_OMP_END();
  }
  VT_OMP_JOINED();
  if (bad_mem) return VT_ENOMEM;
  if (bad_form) return VT_EFORMAT;
  return mix_trans(W, mx, parts, np);
}

vt_status vt_mix_add(vt_mixer *m, vt_weights *W, const void *all, size_t len, int nthreads,
                     int *failed) {
  part *parts = NULL;
  int64_t np = 0;
  m->n_cells = 0;
  vt_status st = parts_read(all, len, W, &parts, &np, failed);
  if (st == VT_OK && !*failed) st = mix_parts(W, m, parts, np, nthreads);
  parts_free(parts, np);
  return st;
}

int64_t vt_mixer_changed(const vt_mixer *m, const int32_t **cells) {
  *cells = m->cells;
  return m->n_cells;
}
