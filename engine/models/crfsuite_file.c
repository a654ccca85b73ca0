/* engine/models/crfsuite_file.c: loads crf1d and native CRFsuite models, writes native ones (see
 * crfsuite_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "models/crfsuite_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/prefault.h"
#include "core/errmsg.h"
#include "core/memlimit.h"
#include "io/binfile.h"
#include "io/filemap.h"
#include "io/outfile.h"
#include "text/strhash.h"

#define CRF1D_HEADER 48
#define CRF1D_VERSION 100
#define CQDB_HEADER (24 + 256 * 8)
#define CQDB_BYTEORDER 0x62445371u
#define MAX_LABELS 46340 /* L * L transition weights stay addressable in 32 bits */

enum { SEC_META = 1, SEC_LABELS, SEC_ATTRS, SEC_HASH, SEC_STATE, SEC_TRANS, N_SEC = 6 };
static const char *const SEC_NAME[N_SEC + 1] = {"",     "META",  "LABELS", "ATTRS",
                                                "HASH", "STATE", "TRANS"};
static const vt_binfile_format FORMAT = {
    {0x89, 'V', 'T', 'C', 'R', 'F', 'S', '\n'}, 1, "vitesse CRFsuite model file", N_SEC, SEC_NAME};
#define META_SIZE 64

int vt_crfs_sniff(const unsigned char *head, size_t n) {
  if (n >= 4 && !memcmp(head, "lCRF", 4)) return 1;
  if (n >= 8 && !memcmp(head, FORMAT.magic, 8)) return 2;
  return 0;
}

static vt_crfs *crfs_new(void) { return calloc(1, sizeof(vt_crfs)); }

/* Takes a heap block of n bytes into m's ownership; NULL when out of memory. */
static void *own(vt_crfs *m, size_t n) {
  void *p = vt_mem_alloc_big(n);
  if (p) m->own[m->n_own++] = p;
  vt_mem_prefault(p, n); /* each block is written whole right after */
  return p;
}

/* ---- crf1d ----------------------------------------------------------------------------------- */

/* Reads the CQDB chunk at `off` of the crf1d bytes d[0, size) holding ids 0..n-1 into *off_out
 * (n + 1 offsets) and *pool (the keys without their NUL), blocks owned by m. Returns NULL or
 * what is wrong. */
static const char *cqdb_read(vt_crfs *m, const unsigned char *d, uint64_t size, uint64_t off,
                             uint32_t n, const uint32_t **off_out, const char **pool_out) {
  if (off > size || size - off < CQDB_HEADER || memcmp(d + off, "CQDB", 4))
    return "no CQDB chunk where the header says";
  const unsigned char *c = d + off;
  uint64_t csize = vt_bin_get32(c + 4);
  if (csize > size - off || csize < CQDB_HEADER) return "CQDB chunk size out of the file";
  if (vt_bin_get32(c + 12) != CQDB_BYTEORDER) return "CQDB byte order mark is wrong";
  uint64_t bwd_n = vt_bin_get32(c + 16), bwd_off = vt_bin_get32(c + 20);
  if (bwd_n != n) return "CQDB holds another number of strings than the header says";
  if (bwd_off > csize || (csize - bwd_off) / 4 < bwd_n) return "CQDB backward array out of it";
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t r = vt_bin_get32(c + bwd_off + 4 * (uint64_t)i);
    if (r < CQDB_HEADER || r > csize || csize - r < 8) return "CQDB record out of the chunk";
    uint64_t ksize = vt_bin_get32(c + r + 4);
    if (vt_bin_get32(c + r) != i) return "CQDB record has another id";
    if (ksize < 1 || ksize > csize - r - 8) return "CQDB key out of the chunk";
    const unsigned char *k = c + r + 8;
    if (k[ksize - 1] != 0 || memchr(k, 0, ksize - 1)) return "CQDB key is not one string";
    total += ksize - 1;
  }
  if (total >= UINT32_MAX) return "CQDB keys too large";
  uint32_t *o = own(m, ((size_t)n + 1) * 4);
  char *pool = own(m, (size_t)total);
  if (!o || !pool) return NULL; /* the caller sees the missing pointer */
  uint32_t at = 0;
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char *r = c + vt_bin_get32(c + bwd_off + 4 * (uint64_t)i);
    uint32_t ks = vt_bin_get32(r + 4) - 1;
    o[i] = at;
    memcpy(pool + at, r + 8, ks);
    at += ks;
  }
  o[n] = at;
  *off_out = o;
  *pool_out = pool;
  return NULL;
}

/* What refs_check returns when it cannot get memory (not a damaged file). */
static const char refs_nomem[] = "out of memory";

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Checks the list of feature ids < n_feat at absolute offset r. Returns NULL or what is wrong. */
static const char *ref_list_check(const unsigned char *d, uint64_t size, uint64_t r,
                                  uint64_t n_feat) {
  if (r > size || size - r < 4 || (size - r - 4) / 4 < vt_bin_get32(d + r))
    return "reference list out of the file";
  const uint64_t k = vt_bin_get32(d + r);
  for (uint64_t j = 0; j < k; j++)
    if (vt_bin_get32(d + r + 4 + 4 * j) >= n_feat) return "reference to no feature";
  return NULL;
}

/* Checks a reference chunk ("LFRF" or "AFRF") at off: `num` entries, the first `used` of them
 * absolute offsets of lists of feature ids < n_feat. Each distinct list is checked once (a file
 * whose entries all point at one long list would otherwise cost used x its length): CRFsuite
 * writes the lists in order, read so in one pass; a file that does not has its offsets sorted
 * first. Returns NULL or what is wrong. */
static const char *refs_check(const unsigned char *d, uint64_t size, uint64_t off,
                              const char *magic, uint64_t num, uint64_t used, uint64_t n_feat) {
  if (off > size || size - off < 12 || memcmp(d + off, magic, 4))
    return "no reference chunk where the header says";
  if (vt_bin_get32(d + off + 8) != num) return "reference chunk has another number of entries";
  if ((size - off - 12) / 4 < num) return "reference chunk out of the file";
  const char *why = NULL;
  uint64_t i = 0, last = 0;
  for (; i < used && !why; i++) { /* in order: each list checked where it first appears */
    const uint64_t r = vt_bin_get32(d + off + 12 + 4 * i);
    if (i > 0 && r < last) break;
    if (i == 0 || r != last) why = ref_list_check(d, size, r, n_feat);
    last = r;
  }
  if (why || i == used) return why;
  uint64_t *at = malloc((size_t)used * sizeof *at); /* out of order: sorted, then checked */
  if (!at) return refs_nomem;
  for (uint64_t j = 0; j < used; j++) at[j] = vt_bin_get32(d + off + 12 + 4 * j);
  qsort(at, (size_t)used, sizeof *at, cmp_u64);
  for (uint64_t j = 0; j < used && !why; j++)
    if (j == 0 || at[j] != at[j - 1]) why = ref_list_check(d, size, at[j], n_feat);
  free(at);
  return why;
}

#define BAD(...) VT_BAD(fail, name, __VA_ARGS__)

/* Asks the model memory bound for a model of L labels (its transitions in double, and what the
 * engine binds from them). */
static int model_memory(uint64_t L, const char *name, char *err, size_t errlen) {
  char what[64];
  snprintf(what, sizeof what, "a model of %llu labels", (unsigned long long)L);
  return vt_memlimit_check(L * L * (VT_MEM_PER_LABEL_PAIR + 8), name, what, err, errlen);
}

static int load_crf1d(vt_crfs **out, const unsigned char *d, uint64_t size, const char *name,
                      char *err, size_t errlen) {
  int st = VT_ENOMEM;
  const char *why;
  vt_crfs *m = crfs_new();
  if (!m) goto nomem;
  if (size < CRF1D_HEADER) BAD("truncated CRFsuite model: %llu bytes", (unsigned long long)size);
  if (memcmp(d, "lCRF", 4) || memcmp(d + 8, "FOMC", 4)) BAD("not a CRFsuite crf1d model");
  if (vt_bin_get32(d + 12) != CRF1D_VERSION)
    BAD("CRFsuite model version %u, only %d (CRFsuite 0.12) is read", vt_bin_get32(d + 12),
        CRF1D_VERSION);
  if (vt_bin_get32(d + 4) != size)
    BAD("truncated or padded CRFsuite model: the header says %u bytes, the file has %llu",
        vt_bin_get32(d + 4), (unsigned long long)size);
  uint64_t L = vt_bin_get32(d + 20), A = vt_bin_get32(d + 24);
  uint64_t off_feat = vt_bin_get32(d + 28), off_lab = vt_bin_get32(d + 32);
  uint64_t off_att = vt_bin_get32(d + 36), off_lref = vt_bin_get32(d + 40);
  uint64_t off_aref = vt_bin_get32(d + 44);
  if (L < 1 || L > MAX_LABELS) BAD("corrupt CRFsuite model: %llu labels", (unsigned long long)L);
  if ((st = model_memory(L, name, err, errlen)) != VT_OK) goto fail;
  if (off_feat > size || size - off_feat < 12 || memcmp(d + off_feat, "FEAT", 4))
    BAD("corrupt CRFsuite model: no FEAT chunk where the header says");
  uint64_t nf = vt_bin_get32(d + off_feat + 8);
  if ((size - off_feat - 12) / 20 < nf || vt_bin_get32(d + off_feat + 4) < 12 + 20 * nf)
    BAD("corrupt CRFsuite model: FEAT chunk out of the file");
  m->L = (int32_t)L;
  m->A = (uint32_t)A;
  if ((why = cqdb_read(m, d, size, off_lab, (uint32_t)L, &m->label_off, &m->label_pool)) ||
      (why = cqdb_read(m, d, size, off_att, (uint32_t)A, &m->attr_off, &m->attr_pool)))
    BAD("corrupt CRFsuite model: %s", why);
  if (!m->label_off || !m->attr_off) goto nomem;
  if ((why = refs_check(d, size, off_lref, "LFRF", L + 2, L, nf)) ||
      (why = refs_check(d, size, off_aref, "AFRF", A, A, nf))) {
    if (why == refs_nomem) goto nomem;
    BAD("corrupt CRFsuite model: %s", why);
  }

  /* Features: transitions into tw (a later one for the same pair wins, as CRFsuite's labelref
   * loop assigns), state features grouped by attribute in file order. CRFsuite writes them
   * grouped, in attribute order: they are copied in the one pass that checks them; a file whose
   * state features are not in attribute order is grouped after it (a counting sort). */
  double *tw = own(m, (size_t)(L * L) * sizeof(double));
  uint32_t *so = own(m, ((size_t)A + 1) * 4);
  uint32_t *sl = own(m, (size_t)(nf ? nf : 1) * 4);
  double *sw = own(m, (size_t)(nf ? nf : 1) * sizeof(double));
  if (!tw || !so || !sl || !sw) goto nomem;
  memset(tw, 0, (size_t)(L * L) * sizeof(double));
  memset(so, 0, ((size_t)A + 1) * 4);
  uint64_t ns = 0;
  uint32_t last = 0;
  int grouped = 1; /* the state features so far are in attribute order */
  for (uint64_t f = 0; f < nf; f++) {
    const unsigned char *r = d + off_feat + 12 + 20 * f;
    uint32_t type = vt_bin_get32(r), src = vt_bin_get32(r + 4), dst = vt_bin_get32(r + 8);
    double w;
    memcpy(&w, r + 12, 8);
    if (!isfinite(w))
      BAD("corrupt CRFsuite model: feature %llu has weight %g", (unsigned long long)f, w);
    if (type == 0) {
      if (src >= A || dst >= L)
        BAD("corrupt CRFsuite model: state feature %llu out of range", (unsigned long long)f);
      so[src + 1]++;
      grouped &= src >= last;
      last = src;
      sl[ns] = dst;
      sw[ns] = w;
      ns++;
    } else if (type == 1) {
      if (src >= L || dst >= L)
        BAD("corrupt CRFsuite model: transition feature %llu out of range", (unsigned long long)f);
      tw[src * L + dst] = w;
    } else {
      BAD("corrupt CRFsuite model: feature %llu has type %u", (unsigned long long)f, type);
    }
  }
  for (uint64_t a = 0; a < A; a++) so[a + 1] += so[a];
  if (!grouped) {
    uint32_t *fill = calloc((size_t)A + 1, 4);
    if (!fill) goto nomem;
    for (uint64_t f = 0; f < nf; f++) {
      const unsigned char *r = d + off_feat + 12 + 20 * f;
      if (vt_bin_get32(r) != 0) continue;
      uint32_t a = vt_bin_get32(r + 4), at = so[a] + fill[a]++;
      sl[at] = vt_bin_get32(r + 8);
      memcpy(&sw[at], r + 12, 8);
    }
    free(fill);
  }
  m->n_state = (uint32_t)ns;
  m->st_off = so;
  m->st_label = sl;
  m->st_w = sw;
  m->tw = tw;
  /* The names are the file's: the index built from them (index_finish) takes the process's hash
   * key, so they cannot flood it; a native copy gets its unkeyed table when written. */
  m->key = vt_hash_key();
  m->mask = (uint32_t)(vt_crfs_slot_count(A) - 1);
  if ((st = vt_crfs_bind(m)) != VT_OK) {
    if (st == VT_ENOMEM) goto nomem;
    BAD("corrupt CRFsuite model: cannot bind the transitions: %s", vt_strerror(st));
  }
  *out = m;
  return VT_OK;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, name, "out of memory");
fail:
  vt_crfs_free(m);
  return st;
}

/* ---- native ---------------------------------------------------------------------------------- */

/* Points m's arrays into the checked container `bf` (taken on success). */
static int load_native(vt_crfs **out, vt_binfile *bf, const char *name, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  vt_crfs *m = crfs_new();
  if (!m) goto nomem;
  const vt_binsec *s = bf->sec;
  if (s[SEC_META].size < META_SIZE) BAD("corrupt model file: META section size");
  const unsigned char *meta = s[SEC_META].p;
  uint64_t L = vt_bin_get32(meta), A = vt_bin_get32(meta + 4), ns = vt_bin_get32(meta + 8);
  uint64_t n_slots = vt_crfs_slot_count(A);
  if (L < 1 || L > MAX_LABELS) BAD("corrupt model file: %llu labels", (unsigned long long)L);
  if ((st = model_memory(L, name, err, errlen)) != VT_OK) goto fail;
  /* LABELS, ATTRS: offsets then names; HASH: slots; STATE: weights, offsets, labels. */
  const unsigned char *lo = vt_binsec_at(s[SEC_LABELS], 0, (L + 1) * 4);
  const unsigned char *ao = vt_binsec_at(s[SEC_ATTRS], 0, (A + 1) * 4);
  if (!lo || !vt_binsec_offsets_ok(lo, L, s[SEC_LABELS].size - (L + 1) * 4))
    BAD("corrupt model file: label names");
  if (!ao || !vt_binsec_offsets_ok(ao, A, s[SEC_ATTRS].size - (A + 1) * 4))
    BAD("corrupt model file: attribute names");
  if (s[SEC_HASH].size != n_slots * 4) BAD("corrupt model file: HASH section size");
  if (s[SEC_STATE].size != ns * 12 + (A + 1) * 4) BAD("corrupt model file: STATE section size");
  if (s[SEC_TRANS].size != L * L * 8) BAD("corrupt model file: TRANS section size");
  m->L = (int32_t)L;
  m->A = (uint32_t)A;
  m->n_state = (uint32_t)ns;
  m->mask = (uint32_t)(n_slots - 1);
  m->label_off = (const uint32_t *)(const void *)lo;
  m->label_pool = (const char *)lo + (L + 1) * 4;
  m->attr_off = (const uint32_t *)(const void *)ao;
  m->attr_pool = (const char *)ao + (A + 1) * 4;
  m->slots = (const uint32_t *)(const void *)s[SEC_HASH].p;
  m->st_w = (const double *)(const void *)s[SEC_STATE].p;
  m->st_off = (const uint32_t *)(const void *)(s[SEC_STATE].p + ns * 8);
  m->st_label = m->st_off + A + 1;
  m->tw = (const double *)(const void *)s[SEC_TRANS].p;
  if (!vt_binsec_offsets_ok((const unsigned char *)m->st_off, A, ns))
    BAD("corrupt model file: state feature offsets");
  for (uint64_t f = 0; f < ns; f++)
    if (m->st_label[f] >= L || !isfinite(m->st_w[f]))
      BAD("corrupt model file: state feature %llu", (unsigned long long)f);
  uint64_t used = 0;
  for (uint64_t i = 0; i < n_slots; i++) {
    if (m->slots[i] > A) BAD("corrupt model file: hash slot out of range");
    used += m->slots[i] != 0;
  }
  if (used != A)
    BAD("corrupt model file: hash table holds %llu of %llu attributes", (unsigned long long)used,
        (unsigned long long)A);
  uint64_t longest = vt_slots_longest_run(m->slots, n_slots);
  if (longest > VT_HASH_MAX_RUN)
    BAD("hash table has a run of %llu occupied slots (at most %d): names made to share a hash?",
        (unsigned long long)longest, VT_HASH_MAX_RUN);
  if ((st = vt_crfs_bind(m)) != VT_OK) {
    if (st == VT_ENOMEM) goto nomem;
    BAD("corrupt model file: cannot bind the transitions: %s", vt_strerror(st));
  }
  vt_binfile_release(bf, &m->file);
  *out = m;
  return VT_OK;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, name, "out of memory");
fail:
  vt_crfs_free(m);
  vt_binfile_close(bf);
  return st;
}

int vt_crfs_write_native(const char *path, const vt_crfs *m, char *err, size_t errlen) {
  unsigned char meta[META_SIZE];
  uint64_t L = (uint64_t)m->L, A = m->A, ns = m->n_state;
  const uint64_t n_slots = (uint64_t)m->mask + 1;
  uint32_t *plain = NULL; /* the table unkeyed, as files hold it, when m's has a key */
  if (m->key) {
    if (!(plain = calloc((size_t)n_slots, 4))) {
      vt_errorf(err, errlen, path, "out of memory");
      return VT_ENOMEM;
    }
    vt_crfs_hash_fill(plain, n_slots, m->attr_off, m->attr_pool, (uint32_t)A, 0);
  }
  memset(meta, 0, sizeof meta);
  vt_bin_put32(meta, (uint32_t)L);
  vt_bin_put32(meta + 4, (uint32_t)A);
  vt_bin_put32(meta + 8, (uint32_t)ns);
  vt_binfile_section sec[N_SEC];
  memset(sec, 0, sizeof sec);
  vt_binfile_section_add(&sec[0], meta, META_SIZE);
  vt_binfile_section_add(&sec[1], m->label_off, (L + 1) * 4);
  vt_binfile_section_add(&sec[1], m->label_pool, m->label_off[L]);
  vt_binfile_section_add(&sec[2], m->attr_off, (A + 1) * 4);
  vt_binfile_section_add(&sec[2], m->attr_pool, m->attr_off[A]);
  vt_binfile_section_add(&sec[3], plain ? plain : m->slots, n_slots * 4);
  vt_binfile_section_add(&sec[4], m->st_w, ns * 8);
  vt_binfile_section_add(&sec[4], m->st_off, (A + 1) * 4);
  vt_binfile_section_add(&sec[4], m->st_label, ns * 4);
  vt_binfile_section_add(&sec[5], m->tw, L * L * 8);
  int st = vt_binfile_write(path, &FORMAT, sec, err, errlen);
  free(plain);
  return st;
}

/* ---- entry points ---------------------------------------------------------------------------- */

/* Builds the tagger's index of *out, a `kind` of model ("model file" or "CRFsuite model") loaded
 * as `name` (status st), after the file's bytes were freed (so that they and the index never take
 * memory at once); on failure frees the model. Returns st, or the index's failure (two
 * attributes with one name: the model is corrupt). */
static int index_finish(vt_crfs **out, int st, const char *kind, const char *name, char *err,
                        size_t errlen) {
  if (st != VT_OK) return st;
  const vt_crfs *m = *out;
  const vt_crfs_attrs a = {m->A, m->L, m->attr_off, m->attr_pool, m->st_off, m->st_label, m->st_w};
  uint32_t dup = m->A;
  st = vt_crfs_index_build(&(*out)->idx, &a, &dup);
  if (st == VT_EFORMAT)
    vt_errorf(err, errlen, name, "corrupt %s: attribute %u listed twice", kind, dup);
  else if (st != VT_OK)
    vt_errorf(err, errlen, name, "out of memory");
  if (st != VT_OK) {
    vt_crfs_free(*out);
    *out = NULL;
  }
  return st;
}

int vt_crfs_load_mem(vt_crfs **out, const void *data, size_t size, const char *name, char *err,
                     size_t errlen) {
  *out = NULL;
  if (!data) size = 0;
  if (vt_crfs_sniff(data, size) == 2) {
    vt_binfile bf;
    int st = vt_binfile_open_mem(&bf, data, size, name, &FORMAT, err, errlen);
    st = st != VT_OK ? st : load_native(out, &bf, name, err, errlen);
    return index_finish(out, st, "model file", name, err, errlen);
  }
  return index_finish(out, load_crf1d(out, data, size, name, err, errlen), "CRFsuite model", name,
                      err, errlen);
}

int vt_crfs_load(vt_crfs **out, const char *path, char *err, size_t errlen) {
  unsigned char head[8];
  size_t n = 0;
  int st = VT_EIO;
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    vt_errorf(err, errlen, path, "cannot open: %s", strerror(errno));
    return VT_EIO;
  }
  n = fread(head, 1, sizeof head, f);
  if (vt_crfs_sniff(head, n) == 2) {
    fclose(f);
    vt_binfile bf;
    st = vt_binfile_open(&bf, path, &FORMAT, err, errlen);
    st = st != VT_OK ? st : load_native(out, &bf, path, err, errlen);
    return index_finish(out, st, "model file", path, err, errlen);
  }
  fclose(f);
  /* Mapped, not read: the loader reads every byte once, from the page cache. */
  vt_filemap map;
  if ((st = vt_filemap_open(&map, path, err, errlen)) == VT_OK)
    st = load_crf1d(out, map.p, map.len, path, err, errlen);
  vt_filemap_close(&map);
  return index_finish(out, st, "CRFsuite model", path, err, errlen);
}
