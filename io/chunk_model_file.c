/* io/chunk_model_file.c: writes and loads the joint label-chunk model file (see
 * chunk_model_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "chunk_model_file.h"
#include "binfmt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "outfile.h"

static const unsigned char MAGIC[8] = {0x89, 'V', 'T', 'C', 'H', 'N', 'K', '\n'};

enum { SEC_META = 1, SEC_POS, SEC_CHUNKS, SEC_WORDS, SEC_ROWS, SEC_OUTS, SEC_WEIGHTS, N_SEC = 7 };
#define HEADER_SIZE 64
#define ENTRY_SIZE 32
#define META_SIZE 64
#define MAX_TAGS 4096


/* ---- writing ----------------------------------------------------------------------------------
 */

/* A names section: u32 offsets[n + 1], then the bytes. */
static unsigned char *names_pack(const vt_featdict *d, uint64_t *size) {
  const uint64_t head = 4 * ((uint64_t)d->n + 1), bytes = d->off[d->n];
  if (bytes > UINT32_MAX) return NULL;
  unsigned char *p = malloc((size_t)(head + bytes) + 1);
  if (!p) return NULL;
  for (int32_t i = 0; i <= d->n; i++) vt_bin_put32(p + 4 * (size_t)i, (uint32_t)d->off[i]);
  memcpy(p + head, d->pool, (size_t)bytes);
  *size = head + bytes;
  return p;
}

int vt_chunk_model_write(const char *path, const vt_chunk_model *m, char *err, size_t errlen) {
  int st = VT_ENOMEM;
  unsigned char meta[META_SIZE], header[HEADER_SIZE + N_SEC * ENTRY_SIZE];
  unsigned char *names[3] = {NULL, NULL, NULL};
  uint64_t names_size[3] = {0, 0, 0};
  vt_outfile of;
  memset(&of, 0, sizeof of);
  names[0] = names_pack(&m->pos_names, &names_size[0]);
  names[1] = names_pack(&m->chunk_names, &names_size[1]);
  names[2] = names_pack(&m->words, &names_size[2]);
  if (!names[0] || !names[1] || !names[2]) {
    vt_io_errorf(err, errlen, path, "out of memory (or over 4 GiB of words)");
    goto fail;
  }
  memset(meta, 0, sizeof meta);
  vt_bin_put32(meta + 0, (uint32_t)m->c);
  vt_bin_put32(meta + 4, (uint32_t)m->p);
  vt_bin_put32(meta + 8, (uint32_t)m->collapse);
  vt_bin_put32(meta + 12, (uint32_t)m->max_chunk);
  vt_bin_put32(meta + 16, VT_CHUNK_NTMPL);
  vt_bin_put32(meta + 20, (uint32_t)m->words.n);
  vt_bin_put64(meta + 24, (uint64_t)m->n_rows);
  vt_bin_put64(meta + 32, (uint64_t)m->n_feat);
  const void *data[N_SEC] = {meta, names[0], names[1], names[2], m->rowptr, m->outs, m->w};
  const uint64_t size[N_SEC] = {META_SIZE,
                                names_size[0],
                                names_size[1],
                                names_size[2],
                                8 * ((uint64_t)m->n_rows + 1),
                                4 * (uint64_t)m->n_feat,
                                8 * (uint64_t)m->n_feat};
  uint64_t offset[N_SEC], at = vt_bin_align64(sizeof header);
  memset(header, 0, sizeof header);
  memcpy(header, MAGIC, 8);
  vt_bin_put32(header + 8, VT_CHUNK_MODEL_VERSION);
  vt_bin_put32(header + 12, N_SEC);
  for (int i = 0; i < N_SEC; i++) {
    unsigned char *e = header + HEADER_SIZE + i * ENTRY_SIZE;
    offset[i] = at;
    vt_bin_put32(e, (uint32_t)(i + 1));
    vt_bin_put64(e + 8, at);
    vt_bin_put64(e + 16, size[i]);
    vt_bin_put32(e + 24, vt_bin_crc(0, data[i], size[i]));
    at = vt_bin_align64(at + size[i]);
  }
  vt_bin_put64(header + 16, offset[N_SEC - 1] + size[N_SEC - 1]);
  vt_bin_put32(header + 24, vt_bin_crc(0, header, sizeof header));
  if ((st = vt_outfile_open(&of, path, err, errlen)) != VT_OK) goto fail;
  static const unsigned char zeros[64];
  at = sizeof header;
  int bad = fwrite(header, 1, sizeof header, of.fp) != sizeof header;
  for (int i = 0; i < N_SEC && !bad; i++) {
    bad |= fwrite(zeros, 1, (size_t)(offset[i] - at), of.fp) != (size_t)(offset[i] - at);
    bad |= size[i] && fwrite(data[i], 1, (size_t)size[i], of.fp) != (size_t)size[i];
    at = offset[i] + size[i];
  }
  if (bad) {
    vt_io_errorf(err, errlen, path, "write error: %s", strerror(errno));
    st = VT_EIO;
    goto fail;
  }
  st = vt_outfile_commit(&of, err, errlen);
  goto done;
fail:
  vt_outfile_abort(&of);
done:
  for (int i = 0; i < 3; i++) free(names[i]);
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

int vt_chunk_model_sniff(const char *path) {
  unsigned char head[8];
  FILE *fp = fopen(path, "rb");
  if (!fp) return 0;
  int ok = fread(head, 1, 8, fp) == 8 && !memcmp(head, MAGIC, 8);
  fclose(fp);
  return ok;
}

/* Reads the whole file into *out (size *len). Returns 0, or -1 with errno set. */
static int read_file(const char *path, unsigned char **out, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, fp);
    if (n < cap) break;
    unsigned char *nb = realloc(buf, cap *= 2);
    if (!nb) free(buf);
    buf = nb;
  }
  int failed = !buf || ferror(fp);
  if (!buf) errno = ENOMEM;
  fclose(fp);
  if (failed) {
    free(buf);
    return -1;
  }
  *out = buf;
  *len = n;
  return 0;
}

/* Loads a names section of `count` names into dictionary d; NULL or a problem. */
static const char *names_load(vt_featdict *d, const unsigned char *p, uint64_t size,
                              uint64_t count) {
  if (size < 4 * (count + 1)) return "is too short";
  const uint64_t head = 4 * (count + 1);
  uint32_t prev = vt_bin_get32(p);
  if (prev != 0 || head + vt_bin_get32(p + 4 * count) != size) return "has bad offsets";
  vt_featdict_free(d);
  if (vt_featdict_init(d) != VT_OK) return "out of memory";
  for (uint64_t i = 0; i < count; i++) {
    uint32_t next = vt_bin_get32(p + 4 * (i + 1));
    if (next < prev) return "has bad offsets";
    int32_t id;
    if (vt_featdict_add(d, (const char *)p + head + prev, next - prev, &id) != VT_OK)
      return "out of memory";
    if ((uint64_t)id != i) return "has a name twice";
    prev = next;
  }
  return NULL;
}

int vt_chunk_model_load(vt_chunk_model *m, const char *path, char *err, size_t errlen) {
  int st = VT_EFORMAT;
  unsigned char *buf = NULL;
  size_t len = 0;
  vt_chunk_model_free(m);
  if ((st = vt_chunk_model_init(m)) != VT_OK) {
    vt_io_errorf(err, errlen, path, "out of memory");
    return st;
  }
  if (read_file(path, &buf, &len)) {
    vt_io_errorf(err, errlen, path, "cannot read: %s", strerror(errno));
    return errno == ENOMEM ? VT_ENOMEM : VT_EIO;
  }
  unsigned char header[HEADER_SIZE + N_SEC * ENTRY_SIZE];
  if (len < 8 || memcmp(buf, MAGIC, 8)) BAD("not a joint label-chunk model (bad magic)");
  if (len < sizeof header) BAD("truncated model (%zu bytes)", len);
  memcpy(header, buf, sizeof header);
  if (vt_bin_get32(header + 8) != VT_CHUNK_MODEL_VERSION)
    BAD("model version %u, this vitesse reads version %d", vt_bin_get32(header + 8),
        VT_CHUNK_MODEL_VERSION);
  if (vt_bin_get32(header + 12) != N_SEC) BAD("corrupt model: %u sections", vt_bin_get32(header + 12));
  if (vt_bin_get64(header + 16) != len)
    BAD("truncated or padded model: %zu bytes, header says %llu", len,
        (unsigned long long)vt_bin_get64(header + 16));
  const uint32_t hcrc = vt_bin_get32(header + 24);
  vt_bin_put32(header + 24, 0);
  if (vt_bin_crc(0, header, sizeof header) != hcrc) BAD("corrupt model: header checksum mismatch");
  const unsigned char *sec[N_SEC + 1];
  uint64_t size[N_SEC + 1];
  for (int i = 0; i < N_SEC; i++) {
    const unsigned char *e = header + HEADER_SIZE + i * ENTRY_SIZE;
    const uint64_t off = vt_bin_get64(e + 8), sz = vt_bin_get64(e + 16);
    if (vt_bin_get32(e) != (uint32_t)(i + 1) || off % 64 || off > len || sz > len - off)
      BAD("corrupt model: section %d out of bounds", i + 1);
    if (vt_bin_crc(0, buf + off, sz) != vt_bin_get32(e + 24))
      BAD("corrupt model: section %d checksum mismatch", i + 1);
    sec[i + 1] = buf + off;
    size[i + 1] = sz;
  }
  if (size[SEC_META] != META_SIZE) BAD("corrupt model: META size");
  const unsigned char *mt = sec[SEC_META];
  const uint32_t c = vt_bin_get32(mt), p = vt_bin_get32(mt + 4), words = vt_bin_get32(mt + 20);
  const uint64_t n_rows = vt_bin_get64(mt + 24), n_feat = vt_bin_get64(mt + 32);
  if (c < 1 || c > MAX_TAGS || p < 1 || p > MAX_TAGS) BAD("corrupt model: %u x %u tags", c, p);
  if (vt_bin_get32(mt + 8) > VT_COLLAPSE_PAPER || vt_bin_get32(mt + 12) > INT32_MAX ||
      vt_bin_get32(mt + 16) != VT_CHUNK_NTMPL || words < 2 || words > INT32_MAX - 1)
    BAD("corrupt model: META fields");
  m->c = (int32_t)c;
  m->p = (int32_t)p;
  m->collapse = (int32_t)vt_bin_get32(mt + 8);
  m->max_chunk = (int32_t)vt_bin_get32(mt + 12);
  const char *why;
  if ((why = names_load(&m->pos_names, sec[SEC_POS], size[SEC_POS], p)))
    BAD("corrupt model: POS names %s", why);
  if ((why = names_load(&m->chunk_names, sec[SEC_CHUNKS], size[SEC_CHUNKS], c)))
    BAD("corrupt model: chunk names %s", why);
  if ((why = names_load(&m->words, sec[SEC_WORDS], size[SEC_WORDS], words)))
    BAD("corrupt model: words %s", why);
  size_t nl;
  const char *o = vt_featdict_str(&m->chunk_names, 0, &nl);
  if (nl != 1 || *o != 'O') BAD("corrupt model: chunk tag 0 is not O");
  m->row0[0] = 0;
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) m->row0[k + 1] = m->row0[k] + vt_chunk_tmpl_values(m, k);
  if (n_rows != (uint64_t)m->row0[VT_CHUNK_NTMPL] || size[SEC_ROWS] != 8 * (n_rows + 1) ||
      n_feat > (uint64_t)INT64_MAX / 8 || size[SEC_OUTS] != 4 * n_feat ||
      size[SEC_WEIGHTS] != 8 * n_feat)
    BAD("corrupt model: feature table sizes");
  m->n_rows = (int64_t)n_rows;
  m->n_feat = (int64_t)n_feat;
  m->rowptr = malloc((size_t)size[SEC_ROWS]);
  m->outs = malloc((size_t)size[SEC_OUTS] + 4);
  m->w = malloc((size_t)size[SEC_WEIGHTS] + 8);
  if (!m->rowptr || !m->outs || !m->w) {
    vt_io_errorf(err, errlen, path, "out of memory");
    st = VT_ENOMEM;
    goto fail;
  }
  memcpy(m->rowptr, sec[SEC_ROWS], (size_t)size[SEC_ROWS]);
  memcpy(m->outs, sec[SEC_OUTS], (size_t)size[SEC_OUTS]);
  memcpy(m->w, sec[SEC_WEIGHTS], (size_t)size[SEC_WEIGHTS]);
  if (m->rowptr[0] != 0 || m->rowptr[n_rows] != m->n_feat) BAD("corrupt model: row table");
  for (int k = 0; k < VT_CHUNK_NTMPL; k++) {
    const int64_t dim = vt_chunk_tmpl_dim(m, k);
    for (int64_t r = m->row0[k]; r < m->row0[k + 1]; r++) {
      if (m->rowptr[r + 1] < m->rowptr[r] || m->rowptr[r + 1] - m->rowptr[r] > dim)
        BAD("corrupt model: row table");
      for (int64_t e = m->rowptr[r]; e < m->rowptr[r + 1]; e++)
        if (m->outs[e] < 0 || m->outs[e] >= dim ||
            (e > m->rowptr[r] && m->outs[e] <= m->outs[e - 1]))
          BAD("corrupt model: feature outputs");
    }
  }
  for (int64_t e = 0; e < m->n_feat; e++)
    if (!isfinite(m->w[e])) BAD("corrupt model: a weight is not finite");
  st = VT_OK;
fail:
  free(buf);
  return st;
}
