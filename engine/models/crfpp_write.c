/* engine/models/crfpp_write.c: CRF++ model files written, and the text one read back
 * (crfpp_write.h). The layout is CRF++ 0.58's feature_index.cpp: for the binary file, version
 * 100, type 0, the cost factor (double), maxid, xsize, the trie's size in bytes, the labels
 * (NUL-terminated, with their total size first), the templates likewise and padded with NULs so
 * that labels and templates together take a multiple of 4 bytes, the trie's units, then maxid
 * floats; all little-endian as the machine writes them. */
#include "models/crfpp_write.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "models/crfpp_trie.h"

enum { MODEL_VERSION = 100 };

typedef struct key_ent {
  char *key;
  size_t len;
  int32_t id;
} key_ent;

static int key_cmp(const void *a, const void *b) {
  const key_ent *x = a, *y = b;
  const size_t m = x->len < y->len ? x->len : y->len;
  const int c = memcmp(x->key, y->key, m);
  if (c) return c;
  return (x->len > y->len) - (x->len < y->len);
}

int vt_crfpp_keys_sort(char **keys, size_t *lens, int32_t *ids, int64_t n) {
  key_ent *e = malloc((size_t)(n ? n : 1) * sizeof *e);
  if (!e) return -1;
  for (int64_t i = 0; i < n; i++) e[i] = (key_ent){keys[i], lens[i], ids[i]};
  qsort(e, (size_t)n, sizeof *e, key_cmp);
  for (int64_t i = 0; i < n; i++) {
    keys[i] = e[i].key;
    lens[i] = e[i].len;
    ids[i] = e[i].id;
  }
  free(e);
  return 0;
}

/* Checks that every feature's weights lie in [0, maxid); NULL or what is wrong. */
static const char *image_check(const vt_crfpp_image *img) {
  const uint64_t L = (uint64_t)img->L;
  for (int64_t k = 0; k < img->n_keys; k++) {
    if (img->key_lens[k] == 0 || (img->keys[k][0] != 'U' && img->keys[k][0] != 'B'))
      return "a feature string starts with neither U nor B";
    const uint64_t width = img->keys[k][0] == 'U' ? L : L * L;
    if (img->ids[k] < 0 || (uint64_t)img->ids[k] + width > img->maxid)
      return "a feature's weights pass maxid";
  }
  return NULL;
}

vt_status vt_crfpp_write_binary(FILE *f, const vt_crfpp_image *img, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  vt_crfpp_unit *units = NULL;
  size_t n_units = 0;
  const char *why = image_check(img);
  if (why) return vt_fail_into(err, errlen, VT_EINVAL, "CRF++ model: %s", why);
  st = vt_crfpp_trie_build((const char *const *)img->keys, img->key_lens, img->ids,
                           (size_t)img->n_keys, &units, &n_units);
  if (st == VT_EINVAL)
    return vt_fail_into(err, errlen, st, "CRF++ model: feature strings unsorted or repeated");
  if (st != VT_OK) return vt_fail_into(err, errlen, st, "CRF++ model: out of memory (trie)");
  uint64_t ysize = 0, tsize = 0;
  for (int32_t y = 0; y < img->L; y++) ysize += strlen(img->labels[y]) + 1;
  for (int32_t t = 0; t < img->n_tmpl; t++) tsize += strlen(img->tmpl[t]) + 1;
  const uint64_t pad = (4 - (ysize + tsize) % 4) % 4;
  tsize += pad;
  const uint64_t dsize = (uint64_t)n_units * sizeof *units;
  if (ysize > UINT32_MAX || tsize > UINT32_MAX || dsize > UINT32_MAX) {
    st = vt_fail_into(err, errlen, VT_EINVAL, "CRF++ model: too large for the format");
    goto done;
  }
  const uint32_t version = MODEL_VERSION, maxid = img->maxid, xsize = img->xsize;
  const int32_t type = 0;
  const uint32_t d32 = (uint32_t)dsize, y32 = (uint32_t)ysize, t32 = (uint32_t)tsize;
  fwrite(&version, 4, 1, f);
  fwrite(&type, 4, 1, f);
  fwrite(&img->cost_factor, 8, 1, f);
  fwrite(&maxid, 4, 1, f);
  fwrite(&xsize, 4, 1, f);
  fwrite(&d32, 4, 1, f);
  fwrite(&y32, 4, 1, f);
  for (int32_t y = 0; y < img->L; y++) fwrite(img->labels[y], strlen(img->labels[y]) + 1, 1, f);
  fwrite(&t32, 4, 1, f);
  for (int32_t t = 0; t < img->n_tmpl; t++) fwrite(img->tmpl[t], strlen(img->tmpl[t]) + 1, 1, f);
  for (uint64_t i = 0; i < pad; i++) fputc('\0', f);
  if (n_units) fwrite(units, sizeof *units, n_units, f);
  for (uint32_t i = 0; i < img->maxid; i++) {
    const float v = (float)img->w[i];
    fwrite(&v, 4, 1, f);
  }
  st = ferror(f)
           ? vt_fail_into(err, errlen, VT_EIO, "CRF++ model: write failed: %s", strerror(errno))
           : VT_OK;
done:
  free(units);
  return st;
}

vt_status vt_crfpp_write_text(FILE *f, const vt_crfpp_image *img, char *err, size_t errlen) {
  fprintf(f, "version: %d\ncost-factor: %g\nmaxid: %u\nxsize: %u\n\n", MODEL_VERSION,
          img->cost_factor, img->maxid, img->xsize);
  for (int32_t y = 0; y < img->L; y++) fprintf(f, "%s\n", img->labels[y]);
  fputc('\n', f);
  for (int32_t t = 0; t < img->n_tmpl; t++) fprintf(f, "%s\n", img->tmpl[t]);
  fputc('\n', f);
  for (int64_t k = 0; k < img->n_keys; k++) {
    fprintf(f, "%d ", img->ids[k]);
    fwrite(img->keys[k], 1, img->key_lens[k], f);
    fputc('\n', f);
  }
  fputc('\n', f);
  for (uint32_t i = 0; i < img->maxid; i++) fprintf(f, "%.16f\n", img->w[i]);
  if (ferror(f))
    return vt_fail_into(err, errlen, VT_EIO, "CRF++ text model: write failed: %s", strerror(errno));
  return VT_OK;
}

void vt_crfpp_image_free(vt_crfpp_image *img) {
  free(img->labels);
  free(img->tmpl);
  free(img->keys);
  free(img->key_lens);
  free(img->ids);
  free(img->w);
  free(img->arena);
  memset(img, 0, sizeof *img);
}

/* The lines of a text model, cut in place: each is NUL-terminated (a CR before the newline
 * dropped). */
typedef struct lines {
  char *p, *end;
  uint64_t no; /* the number of the line last returned */
} lines;

static char *next_line(lines *r) {
  if (r->p >= r->end) return NULL;
  char *s = r->p, *nl = memchr(s, '\n', (size_t)(r->end - s));
  char *e = nl ? nl : r->end;
  r->p = nl ? nl + 1 : r->end;
  if (e > s && e[-1] == '\r') e--;
  *e = '\0';
  r->no++;
  return s;
}

/* Parses an unsigned decimal filling s into *v (< 2^32). 0 or -1. */
static int parse_u32(const char *s, uint32_t *v) {
  uint64_t x = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    x = x * 10 + (uint64_t)(*s - '0');
    if (x > UINT32_MAX) return -1;
  }
  *v = (uint32_t)x;
  return 0;
}

#define BAD(...)                                                                                   \
  do {                                                                                             \
    st = VT_EFORMAT;                                                                               \
    vt_errorf(err, errlen, NULL, __VA_ARGS__);                                                     \
    goto done;                                                                                     \
  } while (0)

/* Appends p to the growing array *arr (of *n, room *cap); 0 or -1. */
static int push(char ***arr, int64_t *n, int64_t *cap, char *p) {
  if (*n == *cap) {
    int64_t c = *cap ? *cap * 2 : 64;
    char **a = realloc(*arr, (size_t)c * sizeof *a);
    if (!a) return -1;
    *arr = a;
    *cap = c;
  }
  (*arr)[(*n)++] = p;
  return 0;
}

vt_status vt_crfpp_read_text(vt_crfpp_image *img, const char *data, size_t size, const char *name,
                             char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  memset(img, 0, sizeof *img);
  int64_t n_lab = 0, cap_lab = 0, n_t = 0, cap_t = 0, cap_k = 0;
  if (!(img->arena = malloc(size + 1))) goto nomem;
  memcpy(img->arena, data, size);
  img->arena[size] = '\0';
  if (memchr(img->arena, '\0', size)) BAD("%s: a NUL byte in a CRF++ text model", name);
  lines r = {img->arena, img->arena + size, 0};
  char *s;
  int have[4] = {0, 0, 0, 0};
  uint32_t version = 0, maxid = 0, xsize = 0;
  img->cost_factor = 1;
  while ((s = next_line(&r)) && *s) {
    char *v = strchr(s, ' ');
    if (!v) BAD("%s:%llu: expected \"KEY: VALUE\"", name, (unsigned long long)r.no);
    *v++ = '\0';
    if (!strcmp(s, "version:")) {
      have[0] = !parse_u32(v, &version);
    } else if (!strcmp(s, "cost-factor:")) {
      char *e;
      img->cost_factor = strtod(v, &e);
      have[1] = *v && !*e && isfinite(img->cost_factor) && img->cost_factor > 0;
      if (!have[1]) BAD("%s:%llu: bad cost-factor", name, (unsigned long long)r.no);
    } else if (!strcmp(s, "maxid:")) {
      have[2] = !parse_u32(v, &maxid);
    } else if (!strcmp(s, "xsize:")) {
      have[3] = !parse_u32(v, &xsize);
    } else {
      BAD("%s:%llu: unknown header line '%.40s'", name, (unsigned long long)r.no, s);
    }
  }
  if (!s) BAD("%s: truncated CRF++ text model (header)", name);
  if (!have[0] || version / 100 != 1)
    BAD("%s: not a CRF++ text model of version 1xx (a bad or missing version line)", name);
  if (!have[2] || maxid == 0 || !have[3] || xsize == 0)
    BAD("%s: a bad or missing maxid or xsize line", name);
  img->maxid = maxid;
  img->xsize = xsize;
  while ((s = next_line(&r)) && *s)
    if (push(&img->labels, &n_lab, &cap_lab, s)) goto nomem;
  if (!s || n_lab == 0) BAD("%s: truncated CRF++ text model (labels)", name);
  img->L = (int32_t)n_lab;
  while ((s = next_line(&r)) && *s) {
    if (s[0] != 'U' && s[0] != 'B')
      BAD("%s:%llu: a template starts with U or B", name, (unsigned long long)r.no);
    if (push(&img->tmpl, &n_t, &cap_t, s)) goto nomem;
  }
  if (!s) BAD("%s: truncated CRF++ text model (templates)", name);
  img->n_tmpl = (int32_t)n_t;
  while ((s = next_line(&r)) && *s) {
    char *sp = strchr(s, ' ');
    uint32_t id;
    if (!sp) BAD("%s:%llu: expected \"ID STRING\"", name, (unsigned long long)r.no);
    *sp = '\0';
    if (parse_u32(s, &id) || id > INT32_MAX)
      BAD("%s:%llu: bad feature id '%.20s'", name, (unsigned long long)r.no, s);
    const int64_t old_cap = cap_k;
    if (push(&img->keys, &img->n_keys, &cap_k, sp + 1)) goto nomem;
    if (cap_k != old_cap) { /* lengths and ids grow with the keys */
      size_t *nl = realloc(img->key_lens, (size_t)cap_k * sizeof *nl);
      if (nl) img->key_lens = nl;
      int32_t *ni = nl ? realloc(img->ids, (size_t)cap_k * sizeof *ni) : NULL;
      if (!ni) goto nomem;
      img->ids = ni;
    }
    img->key_lens[img->n_keys - 1] = strlen(sp + 1);
    img->ids[img->n_keys - 1] = (int32_t)id;
  }
  if (!s) BAD("%s: truncated CRF++ text model (features)", name);
  if (!(img->w = malloc((size_t)maxid * sizeof *img->w))) goto nomem;
  for (uint32_t i = 0; i < maxid; i++) {
    if (!(s = next_line(&r)))
      BAD("%s: truncated CRF++ text model: %u of %u weights", name, i, maxid);
    char *e;
    img->w[i] = strtod(s, &e);
    if (e == s || *e || !isfinite(img->w[i]))
      BAD("%s:%llu: a weight that is not a finite number", name, (unsigned long long)r.no);
  }
  while ((s = next_line(&r)))
    if (*s) BAD("%s:%llu: data after the %u weights", name, (unsigned long long)r.no, maxid);
  if (vt_crfpp_keys_sort(img->keys, img->key_lens, img->ids, img->n_keys)) goto nomem;
  for (int64_t k = 1; k < img->n_keys; k++)
    if (img->key_lens[k] == img->key_lens[k - 1] &&
        !memcmp(img->keys[k], img->keys[k - 1], img->key_lens[k]))
      BAD("%s: the feature '%.40s' is listed twice", name, img->keys[k]);
  const char *why = image_check(img);
  if (why) BAD("%s: %s", name, why);
  return VT_OK;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, NULL, "%s: out of memory", name);
done:
  vt_crfpp_image_free(img);
  return st;
}
