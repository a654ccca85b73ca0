/* io/model_file.c: writes and loads the binary model file (see model_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "model_file.h"
#include "binfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "outfile.h"
#include "strhash.h"

static const unsigned char MAGIC[8] = {0x89, 'V', 'T', 'M', 'O', 'D', 'L', '\n'};

enum { SEC_META = 1, SEC_LABELS, SEC_TEMPLATES, SEC_FEATURES, SEC_HASH, SEC_TRANS, N_SEC = 6 };
static const char *const SEC_NAME[N_SEC + 1] = {"",         "META", "LABELS", "TEMPLATES",
                                                "FEATURES", "HASH", "TRANS"};
#define HEADER_SIZE 64
#define ENTRY_SIZE 32
#define META_SIZE 128
#define MAX_LABELS 46340 /* L * L fits in an int32 pair key */


/* ---- writing ----------------------------------------------------------------------------------
 */

typedef struct piece {
  const void *p;
  uint64_t n;
} piece;

typedef struct section {
  uint32_t id;
  piece parts[4];
  int n_parts;
  uint64_t size, offset;
  uint32_t crc;
} section;

static void sec_add(section *s, const void *p, uint64_t n) {
  s->parts[s->n_parts++] = (piece){p, n};
  s->size += n;
  s->crc = vt_bin_crc(s->crc, p, n);
}

static int fwrite_all(FILE *fp, const void *p, uint64_t n) {
  return n == 0 || fwrite(p, 1, (size_t)n, fp) == (size_t)n ? 0 : -1;
}

int vt_textmodel_write(const char *path, const vt_textmodel_image *img, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  const int32_t L = img->L;
  unsigned char meta[META_SIZE], header[HEADER_SIZE + N_SEC * ENTRY_SIZE];
  unsigned char *labels_head = NULL;
  uint32_t *slots = NULL;
  float *trans = NULL;
  vt_outfile of;
  memset(&of, 0, sizeof of);
  if (L < 1 || L > MAX_LABELS || img->recs_len / 4 + 1 >= UINT32_MAX) {
    vt_io_errorf(err, errlen, path, "model too large to write");
    return VT_EINVAL;
  }

  memset(meta, 0, sizeof meta);
  int off_bits = 1;
  while (off_bits < 32 && ((uint64_t)1 << off_bits) <= img->recs_len / 4 + 1) off_bits++;
  int hash_bits = 4;
  while (((uint64_t)1 << hash_bits) < 2 * (uint64_t)img->n_feat + 2) hash_bits++;
  if (hash_bits > 31) {
    vt_io_errorf(err, errlen, path, "too many features to write");
    return VT_EINVAL;
  }
  vt_bin_put32(meta + 0, (uint32_t)L);
  vt_bin_put32(meta + 4, img->n_feat);
  vt_bin_put32(meta + 8, (uint32_t)img->key_bytes);
  vt_bin_put32(meta + 12, (uint32_t)hash_bits);
  vt_bin_put32(meta + 16, (uint32_t)off_bits);
  vt_bin_put32(meta + 20, img->obs_bigram ? 1u : 0u);
  vt_bin_put32(meta + 24, (uint32_t)img->meta.label_col);
  vt_bin_put32(meta + 28, (uint32_t)img->meta.ncols);
  vt_bin_put32(meta + 32, (uint32_t)img->meta.epochs);
  vt_bin_put32(meta + 36, img->meta.reader);
  vt_bin_put64(meta + 40, img->meta.seed);
  vt_bin_put64(meta + 48, img->meta.train_sentences);
  vt_bin_put64(meta + 56, img->meta.train_tokens);
  memcpy(meta + 64, img->meta.decoder, sizeof img->meta.decoder);
  meta[64 + sizeof img->meta.decoder - 1] = 0;

  /* LABELS: frequencies, rank and name offsets in one buffer, then the names. */
  size_t lh = (size_t)L * 8 + (size_t)L * 4 + ((size_t)L + 1) * 4;
  labels_head = malloc(lh);
  /* HASH: every record's string, at its hash. */
  size_t n_slots = (size_t)1 << hash_bits;
  slots = calloc(n_slots, sizeof *slots);
  size_t tn = (size_t)L * (size_t)L + 2 * (size_t)L;
  trans = malloc(tn * sizeof *trans);
  if (!labels_head || !slots || !trans) goto fail;
  memcpy(labels_head, img->label_freq, (size_t)L * 8);
  memcpy(labels_head + (size_t)L * 8, img->rank, (size_t)L * 4);
  memcpy(labels_head + (size_t)L * 12, img->label_off, ((size_t)L + 1) * 4);
  uint64_t pos = 0;
  for (uint32_t f = 0; f < img->n_feat; f++) {
    vt_feat ft;
    vt_feat_read(img->recs + pos, img->key_bytes, &ft);
    uint64_t h = vt_strhash(ft.str, ft.len);
    uint32_t i = (uint32_t)h & (uint32_t)(n_slots - 1);
    while (slots[i]) i = (i + 1) & (uint32_t)(n_slots - 1);
    slots[i] = vt_textmodel_tag(h, off_bits) << (off_bits & 31) | (uint32_t)(pos / 4 + 1);
    if (off_bits >= 32) slots[i] = (uint32_t)(pos / 4 + 1);
    pos += vt_feat_size(ft.len, ft.nnz, vt_feat_key_bytes(&ft, img->key_bytes));
  }
  memcpy(trans, img->A, (size_t)L * (size_t)L * sizeof *trans);
  memcpy(trans + (size_t)L * L, img->S, (size_t)L * sizeof *trans);
  memcpy(trans + (size_t)L * L + L, img->F, (size_t)L * sizeof *trans);

  section sec[N_SEC];
  memset(sec, 0, sizeof sec);
  for (int i = 0; i < N_SEC; i++) sec[i].id = (uint32_t)(i + 1);
  sec_add(&sec[0], meta, META_SIZE);
  sec_add(&sec[1], labels_head, lh);
  sec_add(&sec[1], img->label_bytes, img->label_off[L]);
  sec_add(&sec[2], img->tmpl_text, img->tmpl_len);
  sec_add(&sec[3], img->recs, img->recs_len);
  sec_add(&sec[4], slots, n_slots * 4);
  sec_add(&sec[5], trans, tn * 4);
  uint64_t off = vt_bin_align64(HEADER_SIZE + N_SEC * ENTRY_SIZE);
  for (int i = 0; i < N_SEC; i++) {
    sec[i].offset = off;
    off = vt_bin_align64(off + sec[i].size);
  }
  uint64_t file_size = sec[N_SEC - 1].offset + sec[N_SEC - 1].size;

  memset(header, 0, sizeof header);
  memcpy(header, MAGIC, 8);
  vt_bin_put32(header + 8, VT_MODEL_VERSION);
  vt_bin_put32(header + 12, N_SEC);
  vt_bin_put64(header + 16, file_size);
  for (int i = 0; i < N_SEC; i++) {
    unsigned char *e = header + HEADER_SIZE + i * ENTRY_SIZE;
    vt_bin_put32(e, sec[i].id);
    vt_bin_put64(e + 8, sec[i].offset);
    vt_bin_put64(e + 16, sec[i].size);
    vt_bin_put32(e + 24, sec[i].crc);
  }
  vt_bin_put32(header + 24, vt_bin_crc(0, header, sizeof header));

  st = vt_outfile_open(&of, path, err, errlen);
  if (st != VT_OK) goto fail;
  st = VT_EIO;
  static const unsigned char zeros[64];
  uint64_t at = sizeof header;
  if (fwrite_all(of.fp, header, sizeof header)) goto ioerr;
  for (int i = 0; i < N_SEC; i++) {
    if (fwrite_all(of.fp, zeros, sec[i].offset - at)) goto ioerr;
    for (int k = 0; k < sec[i].n_parts; k++)
      if (fwrite_all(of.fp, sec[i].parts[k].p, sec[i].parts[k].n)) goto ioerr;
    at = sec[i].offset + sec[i].size;
  }
  st = vt_outfile_commit(&of, err, errlen);
  goto done;
ioerr:
  vt_io_errorf(err, errlen, path, "write error: %s", strerror(errno));
fail:
  if (st == VT_ENOMEM) vt_io_errorf(err, errlen, path, "out of memory");
  vt_outfile_abort(&of);
done:
  free(labels_head);
  free(slots);
  free(trans);
  return st;
}

/* ---- loading ----------------------------------------------------------------------------------
 */

#define BAD(...)                                                                                   \
  do {                                                                                             \
    vt_io_errorf(err, errlen, path, __VA_ARGS__);                                                  \
    st = VT_EFORMAT;                                                                               \
    goto fail;                                                                                     \
  } while (0)

/* Reads a whole non-mappable file (a pipe) into 64-byte aligned memory. */
static int read_all(int fd, void **out, size_t *len) {
  size_t cap = 1 << 20, n = 0;
  char *buf = aligned_alloc(64, cap);
  if (!buf) return VT_ENOMEM;
  for (;;) {
    if (n == cap) {
      char *nb = aligned_alloc(64, cap * 2);
      if (!nb) {
        free(buf);
        return VT_ENOMEM;
      }
      memcpy(nb, buf, n);
      free(buf);
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      free(buf);
      return VT_EIO;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  *out = buf;
  *len = n;
  return VT_OK;
}

static int finite_all(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Walks the feature records: bounds, keys, values; marks record starts in `starts`. */
static const char *check_records(const vt_textmodel *m, uint8_t *starts) {
  uint64_t pos = 0;
  const uint64_t L2 = (uint64_t)m->L * (uint64_t)m->L;
  for (uint32_t f = 0; f < m->n_feat; f++) {
    if (m->recs_len - pos < 8) return "feature record past the end of its section";
    vt_feat ft;
    vt_feat_read(m->recs + pos, m->key_bytes, &ft);
    if (ft.bigram && !m->obs_bigram) return "bigram feature in a model without bigram templates";
    if (ft.dense && (ft.bigram || ft.nnz != (uint32_t)m->L)) return "malformed dense record";
    int kb = vt_feat_key_bytes(&ft, m->key_bytes);
    uint64_t size = vt_feat_size(ft.len, ft.nnz, kb);
    if (size > m->recs_len - pos) return "feature record past the end of its section";
    starts[pos / 4 / 8] |= (uint8_t)(1u << (pos / 4 % 8));
    uint64_t lim = ft.bigram ? L2 : (uint64_t)m->L;
    for (uint32_t k = 0; k < ft.nnz && kb; k++) {
      uint64_t key = kb == 2 ? ((const uint16_t *)ft.keys)[k] : ((const uint32_t *)ft.keys)[k];
      if (key >= lim) return "feature weight for a label out of range";
    }
    if (!finite_all(ft.vals, ft.nnz)) return "non-finite feature weight";
    pos += size;
  }
  if (pos != m->recs_len) return "feature section size does not match its records";
  return NULL;
}

int vt_textmodel_sniff(const unsigned char *head, size_t n) {
  return n >= 8 && memcmp(head, MAGIC, 8) == 0;
}

int vt_textmodel_load(vt_textmodel **out, const char *path, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  *out = NULL;
  uint8_t *starts = NULL;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    vt_io_errorf(err, errlen, path, "cannot open: %s", strerror(errno));
    return VT_EIO;
  }
  vt_textmodel *m = calloc(1, sizeof *m);
  if (!m) goto fail;
  m->tmpl.max_col = -1;
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    vt_io_errorf(err, errlen, path, "cannot stat: %s", strerror(errno));
    st = VT_EIO;
    goto fail;
  }
  if (S_ISDIR(sb.st_mode)) {
    vt_io_errorf(err, errlen, path, "is a directory");
    st = VT_EIO;
    goto fail;
  }
  if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      m->map = p;
      m->map_len = (size_t)sb.st_size;
    }
  }
  if (!m->map) {
    st = read_all(fd, &m->map, &m->map_len);
    if (st != VT_OK) {
      vt_io_errorf(err, errlen, path, "cannot read: %s",
                   st == VT_EIO ? strerror(errno) : "no memory");
      goto fail;
    }
    m->map_is_heap = 1;
  }
  close(fd);
  fd = -1;

  const unsigned char *b = m->map;
  const uint64_t size = m->map_len;
  if (size < HEADER_SIZE || memcmp(b, MAGIC, 8) != 0) {
    if (size >= 8 && memcmp(b, MAGIC, 8) == 0)
      BAD("truncated model file (%llu bytes)", (unsigned long long)size);
    BAD("not a vitesse model file (bad magic)");
  }
  uint32_t version = vt_bin_get32(b + 8);
  if (version != VT_MODEL_VERSION)
    BAD("model file version %u; this vitesse reads version %d", version, VT_MODEL_VERSION);
  uint64_t fsize = vt_bin_get64(b + 16);
  if (fsize != size)
    BAD("truncated or extended model file: %llu bytes, the header says %llu",
        (unsigned long long)size, (unsigned long long)fsize);
  uint32_t n_sec = vt_bin_get32(b + 12);
  if (n_sec < 1 || n_sec > 64 || HEADER_SIZE + (uint64_t)n_sec * ENTRY_SIZE > size)
    BAD("corrupted model file: bad section count %u", n_sec);
  {
    uint32_t want = vt_bin_get32(b + 24);
    unsigned char hz[HEADER_SIZE];
    memcpy(hz, b, HEADER_SIZE);
    vt_bin_put32(hz + 24, 0);
    uint32_t crc =
        vt_bin_crc(vt_bin_crc(0, hz, HEADER_SIZE), b + HEADER_SIZE, (uint64_t)n_sec * ENTRY_SIZE);
    if (crc != want) BAD("corrupted model file: header checksum mismatch");
  }
  const unsigned char *sp[N_SEC + 1] = {0};
  uint64_t sz[N_SEC + 1] = {0};
  for (uint32_t i = 0; i < n_sec; i++) {
    const unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
    uint32_t id = vt_bin_get32(e);
    uint64_t off = vt_bin_get64(e + 8), n = vt_bin_get64(e + 16);
    if (off % 8 || off > size || n > size - off)
      BAD("corrupted model file: section %u out of bounds", id);
    if (id < 1 || id > N_SEC) continue; /* unknown sections are skipped */
    if (sp[id]) BAD("corrupted model file: section %s twice", SEC_NAME[id]);
    if (vt_bin_crc(0, b + off, n) != vt_bin_get32(e + 24))
      BAD("corrupted model file: checksum mismatch in section %s", SEC_NAME[id]);
    sp[id] = b + off;
    sz[id] = n;
  }
  for (int id = 1; id <= N_SEC; id++)
    if (!sp[id]) BAD("corrupted model file: no %s section", SEC_NAME[id]);

  /* META */
  if (sz[SEC_META] != META_SIZE) BAD("corrupted model file: META section size");
  const unsigned char *mt = sp[SEC_META];
  m->L = (int32_t)vt_bin_get32(mt);
  m->n_feat = vt_bin_get32(mt + 4);
  m->key_bytes = (int)vt_bin_get32(mt + 8);
  uint32_t hash_bits = vt_bin_get32(mt + 12);
  m->off_bits = (int)vt_bin_get32(mt + 16);
  m->obs_bigram = (int)(vt_bin_get32(mt + 20) & 1);
  m->meta.label_col = (int32_t)vt_bin_get32(mt + 24);
  m->meta.ncols = (int32_t)vt_bin_get32(mt + 28);
  m->meta.epochs = (int32_t)vt_bin_get32(mt + 32);
  m->meta.reader = vt_bin_get32(mt + 36);
  m->meta.seed = vt_bin_get64(mt + 40);
  m->meta.train_sentences = vt_bin_get64(mt + 48);
  m->meta.train_tokens = vt_bin_get64(mt + 56);
  memcpy(m->meta.decoder, mt + 64, sizeof m->meta.decoder);
  m->meta.decoder[sizeof m->meta.decoder - 1] = 0;
  const int32_t L = m->L;
  if (L < 1 || L > MAX_LABELS) BAD("corrupted model file: %d labels", L);
  if (!(m->key_bytes == 4 || (m->key_bytes == 2 && L <= 65535)))
    BAD("corrupted model file: key width %d", m->key_bytes);
  if (hash_bits < 4 || hash_bits > 31 || m->off_bits < 1 || m->off_bits > 32)
    BAD("corrupted model file: hash parameters");

  /* LABELS */
  uint64_t lh = (uint64_t)L * 16 + 4;
  if (sz[SEC_LABELS] < lh) BAD("corrupted model file: LABELS section size");
  m->label_freq = (const uint64_t *)(const void *)sp[SEC_LABELS];
  m->rank = (const int32_t *)(const void *)(sp[SEC_LABELS] + (size_t)L * 8);
  m->label_off = (const uint32_t *)(const void *)(sp[SEC_LABELS] + (size_t)L * 12);
  m->label_bytes = (const char *)sp[SEC_LABELS] + lh;
  if (m->label_off[0] != 0 || m->label_off[L] != sz[SEC_LABELS] - lh)
    BAD("corrupted model file: label names");
  for (int32_t y = 0; y < L; y++)
    if (m->label_off[y] > m->label_off[y + 1]) BAD("corrupted model file: label names");
  {
    starts = calloc((size_t)L, 1);
    if (!starts) goto nomem;
    for (int32_t r = 0; r < L; r++) {
      int32_t y = m->rank[r];
      if (y < 0 || y >= L || starts[y]) BAD("corrupted model file: rank is not a permutation");
      starts[y] = 1;
    }
    free(starts);
    starts = NULL;
  }

  /* TEMPLATES */
  m->tmpl_text = (const char *)sp[SEC_TEMPLATES];
  m->tmpl_len = sz[SEC_TEMPLATES];
  {
    char terr[256];
    st = vt_tmplset_parse(&m->tmpl, m->tmpl_text, m->tmpl_len, "templates", terr, sizeof terr);
    if (st == VT_ENOMEM) goto nomem;
    if (st != VT_OK) BAD("corrupted model file: %s", terr);
    if ((m->tmpl.n_b > 0) != m->obs_bigram) BAD("corrupted model file: template flags");
  }

  /* FEATURES and HASH */
  m->recs = sp[SEC_FEATURES];
  m->recs_len = sz[SEC_FEATURES];
  if (m->recs_len % 4 || m->recs_len / 4 + 1 >= ((uint64_t)1 << m->off_bits))
    BAD("corrupted model file: FEATURES section size");
  if (sz[SEC_HASH] != (uint64_t)4 << hash_bits || ((uint64_t)1 << hash_bits) <= m->n_feat)
    BAD("corrupted model file: HASH section size");
  m->slots = (const uint32_t *)(const void *)sp[SEC_HASH];
  m->slot_mask = (uint32_t)(((uint64_t)1 << hash_bits) - 1);
  starts = calloc((size_t)(m->recs_len / 32 + 1), 1);
  if (!starts) goto nomem;
  {
    const char *why = check_records(m, starts);
    if (why) BAD("corrupted model file: %s", why);
    uint32_t omask = m->off_bits >= 32 ? 0xFFFFFFFFu : (1u << m->off_bits) - 1;
    uint64_t used = 0;
    for (uint64_t i = 0; i <= m->slot_mask; i++) {
      uint32_t v = m->slots[i];
      if (!v) continue;
      used++;
      uint64_t w = (uint64_t)(v & omask);
      if (w == 0 || w - 1 >= m->recs_len / 4 || !(starts[(w - 1) / 8] & (1u << ((w - 1) % 8))))
        BAD("corrupted model file: hash slot points outside the feature records");
    }
    if (used != m->n_feat)
      BAD("corrupted model file: hash table holds %llu of %u features", (unsigned long long)used,
          m->n_feat);
  }
  free(starts);
  starts = NULL;

  /* TRANS */
  size_t LL = (size_t)L * (size_t)L;
  if (sz[SEC_TRANS] != (LL + 2 * (size_t)L) * 4) BAD("corrupted model file: TRANS section size");
  const float *tf = (const float *)(const void *)sp[SEC_TRANS];
  if (!finite_all(tf, LL + 2 * (size_t)L)) BAD("corrupted model file: non-finite transition");
  m->A = malloc(LL * sizeof(double));
  m->S = malloc((size_t)L * sizeof(double));
  m->F = malloc((size_t)L * sizeof(double));
  if (!m->A || !m->S || !m->F) goto nomem;
  for (size_t i = 0; i < LL; i++) m->A[i] = tf[i];
  for (int32_t y = 0; y < L; y++) {
    m->S[y] = tf[LL + (size_t)y];
    m->F[y] = tf[LL + (size_t)L + (size_t)y];
  }
  st = vt_textmodel_bind(m);
  if (st != VT_OK) {
    vt_io_errorf(err, errlen, path, "cannot bind the transition model: %s", vt_strerror(st));
    goto fail;
  }
  *out = m;
  return VT_OK;
nomem:
  st = VT_ENOMEM;
  vt_io_errorf(err, errlen, path, "out of memory");
fail:
  if (fd >= 0) close(fd);
  free(starts);
  vt_textmodel_free(m);
  return st;
}
