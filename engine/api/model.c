/* engine/api/model.c: the public vt_model (vitesse.h): opening the three model kinds, their
 * description, label names, and the decoder policy of taggers. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/model_impl.h"
#include "core/errmsg.h"
#include "models/chunk_model_file.h"
#include "models/crfsuite_file.h"
#include "models/model_file.h"
#include "models/peer_model.h"
#include "text/obsbigram.h"

/* Returns a NUL-terminated heap copy of the `len` bytes at `s`, or NULL. */
static char *dup_bytes(const char *s, size_t len) {
  char *p = malloc(len + 1);
  if (p) {
    if (len) memcpy(p, s, len);
    p[len] = '\0';
  }
  return p;
}

/* Sets m->names from the label strings; NULL entries mean out of memory. */
static vt_status names_alloc(char ***names, int32_t n) {
  *names = n > 0 ? calloc((size_t)n, sizeof **names) : NULL;
  return n > 0 && !*names ? VT_ENOMEM : VT_OK;
}

vt_status vt_model_finish(vt_model *m) {
  vt_model_info *in = &m->info;
  memset(in, 0, sizeof *in);
  in->kind = m->kind;
  vt_reader_opts_init(&in->reader);
  in->label_col = -1;
  in->decoder = "";
  if (m->kind == VT_MODEL_TAGGER) {
    const vt_textmodel *t = m->text;
    in->labels = t->L;
    if (names_alloc(&m->names, t->L) != VT_OK) return VT_ENOMEM;
    for (int32_t y = 0; y < t->L; y++) {
      size_t len;
      const char *s = vt_textmodel_label(t, y, &len);
      if (!(m->names[y] = dup_bytes(s, len))) return VT_ENOMEM;
    }
    if (!(m->tmpl = dup_bytes(t->tmpl_text, t->tmpl_len))) return VT_ENOMEM;
    in->templates = m->tmpl;
    vt_textmodel_reader_unpack(t->meta.reader, &in->reader);
    in->label_col = t->meta.label_col;
    in->columns = t->meta.ncols;
    in->epochs = t->meta.epochs;
    in->train_sentences = t->meta.train_sentences;
    in->train_tokens = t->meta.train_tokens;
    in->decoder = t->meta.decoder;
    in->obs_bigram = t->obs_bigram;
  } else if (m->kind == VT_MODEL_JOINT_CHUNK) {
    const vt_chunk_model *c = &m->chunk;
    in->labels = c->p;
    in->chunk_labels = 2 * c->c - 1;
    in->max_chunk = c->max_chunk;
    if (names_alloc(&m->names, c->p) != VT_OK ||
        names_alloc(&m->chunk_names, in->chunk_labels) != VT_OK)
      return VT_ENOMEM;
    for (int32_t y = 0; y < c->p; y++) {
      size_t len;
      const char *s = vt_featdict_str(&c->pos_names, y, &len);
      if (!(m->names[y] = dup_bytes(s, len))) return VT_ENOMEM;
    }
    if (!(m->chunk_names[0] = dup_bytes("O", 1))) return VT_ENOMEM;
    for (int32_t k = 1; k < c->c; k++) {
      size_t len;
      const char *s = vt_featdict_str(&c->chunk_names, k, &len);
      for (int b = 0; b < 2; b++) {
        char *p = malloc(len + 3);
        if (!p) return VT_ENOMEM;
        p[0] = b ? 'I' : 'B';
        p[1] = '-';
        memcpy(p + 2, s, len);
        p[len + 2] = '\0';
        m->chunk_names[2 * k - 1 + b] = p;
      }
    }
  } else if (m->kind == VT_MODEL_CRFSUITE) {
    const vt_crfs *c = m->crfs;
    in->labels = c->L;
    if (names_alloc(&m->names, c->L) != VT_OK) return VT_ENOMEM;
    for (int32_t y = 0; y < c->L; y++) {
      size_t len;
      const char *s = vt_crfs_label(c, y, &len);
      if (!(m->names[y] = dup_bytes(s, len))) return VT_ENOMEM;
    }
  } else {
    int32_t L = vt_trans_labels(m->trans);
    in->labels = L;
    if (names_alloc(&m->names, L) != VT_OK) return VT_ENOMEM;
    for (int32_t y = 0; y < L; y++) {
      char buf[16];
      int n = snprintf(buf, sizeof buf, "%d", y);
      if (!(m->names[y] = dup_bytes(buf, (size_t)n))) return VT_ENOMEM;
    }
  }
  return VT_OK;
}

/* 1 when `path` exists and is neither a regular file nor a directory (a pipe, /dev/stdin from
 * one, a character device): its bytes can be read only once. */
static int read_once(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The first 8 bytes of `path`, or fewer (*n); 0 when it cannot be read (the loader says why) or
 * can be read only once (reading would take bytes from the model). */
static int sniff(const char *path, unsigned char *head, size_t *n) {
  *n = 0;
  if (read_once(path)) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  *n = fread(head, 1, 8, f);
  fclose(f);
  return 1;
}

/* The kind of model the first `n` bytes of a file start, or 0 when none. */
static int kind_of(const unsigned char *head, size_t n) {
  if (vt_chunk_model_sniff_bytes(head, n)) return VT_MODEL_JOINT_CHUNK;
  if (n >= 6 && !memcmp(head, "\x93NUMPY", 6)) return VT_MODEL_TRANSITIONS;
  if (vt_crfs_sniff(head, n)) return VT_MODEL_CRFSUITE;
  if (vt_textmodel_sniff(head, n)) return VT_MODEL_TAGGER;
  return 0;
}

int vt_model_file_kind(const char *path) {
  unsigned char head[8];
  size_t n = 0;
  if (!sniff(path, head, &n)) return 0;
  int kind = kind_of(head, n);
  return kind ? kind : vt_peer_sniff(head, n) != VT_PEER_NONE ? VT_MODEL_TAGGER : 0;
}

/* Ends an open of `m` (named `name`) whose loader returned `st` (its message in err): on success
 * finishes the model and hands it out in *out, else frees it and records the message. */
static vt_status open_end(vt_model *m, vt_status st, const char *name, char *err, size_t errlen,
                          vt_model **out) {
  if (st == VT_OK && (st = vt_model_finish(m)) == VT_OK && !(m->name = strdup(name)))
    st = VT_ENOMEM;
  if (st == VT_ENOMEM) snprintf(err, errlen, "%s: out of memory", name);
  if (st != VT_OK) {
    vt_model_close(m);
    return vt_fail(st, "%s", err);
  }
  *out = m;
  return VT_OK;
}

/* Reads all of `path` (a file or a pipe) into *buf (*len bytes; the caller frees it). Returns
 * VT_OK, or VT_EIO / VT_ENOMEM with the message recorded. */
static vt_status read_whole(const char *path, char **buf_out, size_t *len_out) {
  vt_status st = VT_EIO;
  size_t len = 0, cap = 0;
  char *buf = NULL;
  *buf_out = NULL;
  *len_out = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    vt_fail(st, "%s: cannot open: %s", path, strerror(errno));
    goto done;
  }
  for (;;) {
    if (cap - len < 65536) {
      char *nb = cap < ((size_t)1 << 40) ? realloc(buf, cap = cap ? 2 * cap : 1 << 20) : NULL;
      if (!nb) {
        st = vt_fail(VT_ENOMEM, "%s: out of memory", path);
        goto done;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    vt_fail(st, "%s: read error: %s", path, strerror(errno));
    goto done;
  }
  st = VT_OK;
  *buf_out = buf;
  *len_out = len;
  buf = NULL;
done:
  if (f) fclose(f);
  free(buf);
  return st;
}

/* Opens a model that can be read only once (a pipe): all of it into memory, then as from there. */
static vt_status open_stream(vt_model **out, const char *path) {
  char *buf;
  size_t len;
  vt_status st = read_whole(path, &buf, &len);
  if (st == VT_OK) st = vt_model_open_memory(out, buf, len, path);
  free(buf);
  return st;
}

/* Opens the `size` bytes at `data` as a model of peer format `fmt` (engine/models/peer_model.h). */
static vt_status open_peer(vt_model **out, const void *data, size_t size, const char *name,
                           vt_peer_format fmt, double cost_factor) {
  char err[512];
  vt_model *m = calloc(1, sizeof *m);
  if (!m) return vt_fail(VT_ENOMEM, "%s: out of memory", name);
  err[0] = '\0';
  m->kind = VT_MODEL_TAGGER;
  vt_status st = vt_peer_load_mem(&m->text, fmt, data, size, name, cost_factor, err, sizeof err);
  return open_end(m, st, name, err, sizeof err, out);
}

vt_status vt_model_open(vt_model **out, const char *path) {
  char err[512];
  unsigned char head[8];
  size_t n = 0;
  vt_status st;
  *out = NULL;
  if (read_once(path)) return open_stream(out, path);
  vt_model *m = calloc(1, sizeof *m);
  if (!m) return vt_fail(VT_ENOMEM, "%s: out of memory", path);
  err[0] = '\0';
  sniff(path, head, &n);
  /* Anything but a joint model or a matrix goes to the tagger loader, which says what is wrong. */
  int kind = kind_of(head, n);
  if (!kind && vt_peer_sniff(head, n) != VT_PEER_NONE) { /* a peer's model: read, convert */
    free(m);
    return open_stream(out, path);
  }
  m->kind = kind ? (vt_model_kind)kind : VT_MODEL_TAGGER;
  if (m->kind == VT_MODEL_JOINT_CHUNK) {
    st = (vt_status)vt_chunk_model_load(&m->chunk, path, err, sizeof err);
  } else if (m->kind == VT_MODEL_TRANSITIONS) {
    st = vt_trans_load(&m->trans, path, NULL, NULL, NULL, NULL);
    if (st != VT_OK) snprintf(err, sizeof err, "%s", vt_last_error());
  } else if (m->kind == VT_MODEL_CRFSUITE) {
    st = (vt_status)vt_crfs_load(&m->crfs, path, err, sizeof err);
  } else {
    st = (vt_status)vt_textmodel_load(&m->text, path, err, sizeof err);
  }
  return open_end(m, st, path, err, sizeof err, out);
}

vt_status vt_model_open_memory(vt_model **out, const void *data, size_t size, const char *name) {
  char err[512];
  vt_status st;
  *out = NULL;
  if (!name) name = "memory";
  if (!data) size = 0;
  int kind = kind_of(data, size);
  vt_peer_format pf = kind ? VT_PEER_NONE : vt_peer_sniff(data, size);
  if (pf != VT_PEER_NONE) return open_peer(out, data, size, name, pf, 0.0);
  vt_model *m = calloc(1, sizeof *m);
  if (!m) return vt_fail(VT_ENOMEM, "%s: out of memory", name);
  err[0] = '\0';
  m->kind = kind ? (vt_model_kind)kind : VT_MODEL_TAGGER;
  if (m->kind == VT_MODEL_JOINT_CHUNK) {
    st = (vt_status)vt_chunk_model_load_mem(&m->chunk, data, size, name, err, sizeof err);
  } else if (m->kind == VT_MODEL_TRANSITIONS) {
    st = VT_EUNSUPPORTED;
    snprintf(err, sizeof err,
             "%s: a transition matrix in memory is opened from its arrays (vt_model_open_trans)",
             name);
  } else if (m->kind == VT_MODEL_CRFSUITE) {
    st = (vt_status)vt_crfs_load_mem(&m->crfs, data, size, name, err, sizeof err);
  } else {
    st = (vt_status)vt_textmodel_load_mem(&m->text, data, size, name, err, sizeof err);
  }
  return open_end(m, st, name, err, sizeof err, out);
}

vt_status vt_model_open_as(vt_model **out, const char *path, const char *format,
                           double cost_factor) {
  *out = NULL;
  int is_auto = !format || !strcmp(format, "auto");
  vt_peer_format pf = is_auto ? VT_PEER_NONE : vt_peer_format_named(format);
  const int crfsuite = !is_auto && !strcmp(format, "crfsuite");
  if (!is_auto && pf == VT_PEER_NONE && strcmp(format, "vitesse") && !crfsuite)
    return vt_fail(VT_EINVAL,
                   "unknown model format '%s' (expected auto, vitesse, crfpp, wapiti or crfsuite)",
                   format);
  if (!(cost_factor >= 0) || !isfinite(cost_factor))
    return vt_fail(VT_EINVAL, "cost factor must be positive");
  if (crfsuite) { /* a crf1d model (or its native conversion), nothing else */
    if (cost_factor > 0)
      return vt_fail(VT_EINVAL, "%s: a cost factor applies to CRF++ models only", path);
    vt_status st = vt_model_open(out, path);
    if (st == VT_OK && (*out)->kind != VT_MODEL_CRFSUITE) {
      vt_model_close(*out);
      *out = NULL;
      return vt_fail(VT_EFORMAT, "%s: not a CRFsuite model", path);
    }
    return st;
  }
  if (!is_auto && pf == VT_PEER_NONE) { /* "vitesse": a vitesse model file, nothing else */
    unsigned char head[8];
    size_t n = 0;
    if (cost_factor > 0)
      return vt_fail(VT_EINVAL, "%s: a cost factor applies to CRF++ models only", path);
    if (sniff(path, head, &n) && !kind_of(head, n) && vt_peer_sniff(head, n) != VT_PEER_NONE)
      return vt_fail(VT_EFORMAT, "%s: not a vitesse model file (a CRF++ or Wapiti model?)", path);
    return vt_model_open(out, path);
  }
  if (is_auto && cost_factor == 0) return vt_model_open(out, path);
  char *buf;
  size_t len;
  vt_status st = read_whole(path, &buf, &len);
  if (st != VT_OK) return st;
  if (is_auto) pf = vt_peer_sniff((const unsigned char *)buf, len);
  if (cost_factor > 0 && pf != VT_PEER_CRFPP)
    st = vt_fail(VT_EINVAL, "%s: a cost factor applies to CRF++ models only", path);
  else if (pf == VT_PEER_NONE)
    st = vt_model_open_memory(out, buf, len, path);
  else
    st = open_peer(out, buf, len, path, pf, cost_factor);
  free(buf);
  return st;
}

vt_status vt_model_save(const vt_model *m, const char *path) {
  char err[512];
  err[0] = '\0';
  vt_status st;
  if (m->kind == VT_MODEL_TAGGER)
    st = (vt_status)vt_textmodel_save(m->text, path, err, sizeof err);
  else if (m->kind == VT_MODEL_CRFSUITE)
    st = (vt_status)vt_crfs_write_native(path, m->crfs, err, sizeof err);
  else
    return vt_fail(VT_EINVAL, "%s: only tagger and CRFsuite models can be saved", path);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}

vt_status vt_model_open_trans(vt_model **out, int32_t L, const double *A, const double *S,
                              const double *F, const int32_t *rank) {
  vt_model *m = calloc(1, sizeof *m);
  vt_status st;
  *out = NULL;
  if (!m) return vt_fail(VT_ENOMEM, "out of memory");
  m->kind = VT_MODEL_TRANSITIONS;
  if ((st = vt_trans_create(&m->trans, L, A, S, F, rank)) != VT_OK ||
      (st = vt_model_finish(m)) != VT_OK ||
      (st = (m->name = strdup("transitions")) ? VT_OK : VT_ENOMEM) != VT_OK) {
    vt_model_close(m);
    return vt_fail(st, "transitions: %s", vt_strerror(st));
  }
  *out = m;
  return VT_OK;
}

void vt_model_close(vt_model *m) {
  if (!m) return;
  for (int32_t y = 0; m->names && y < m->info.labels; y++) free(m->names[y]);
  for (int32_t c = 0; m->chunk_names && c < m->info.chunk_labels; c++) free(m->chunk_names[c]);
  free(m->names);
  free(m->chunk_names);
  free(m->tmpl);
  free(m->name);
  vt_textmodel_free(m->text);
  vt_chunk_model_free(&m->chunk);
  vt_trans_destroy(m->trans);
  vt_crfs_free(m->crfs);
  free(m);
}

void vt_model_reader(const vt_model *m, const vt_tag_opts *o, vt_reader_opts *ro) {
  *ro = o->reader;
  if (!o->reader_from_model || m->kind != VT_MODEL_TAGGER) return;
  const vt_reader_opts *mr = &m->info.reader;
  if (!(o->reader_set & 1)) ro->sep = mr->sep;
  if (!(o->reader_set & 2)) ro->comments = mr->comments;
  if (!(o->reader_set & 4)) ro->conllu = mr->conllu;
  ro->comments |= o->reader.comments;
  ro->conllu |= o->reader.conllu;
}

void vt_model_describe(const vt_model *m, vt_model_info *info) { *info = m->info; }

const char *vt_model_label_name(const vt_model *m, int32_t y) {
  return y >= 0 && y < m->info.labels && m->names ? m->names[y] : NULL;
}

const char *vt_model_chunk_name(const vt_model *m, int32_t c) {
  return c >= 0 && c < m->info.chunk_labels && m->chunk_names ? m->chunk_names[c] : NULL;
}

const vt_trans *vt_model_trans(const vt_model *m) {
  if (m->kind == VT_MODEL_CRFSUITE) return m->crfs->trans;
  return m->kind == VT_MODEL_TAGGER ? m->text->trans : m->trans;
}

void vt_model_default_decoder(const vt_model *m, int32_t k, vt_decode_opts *opts) {
  vt_decode_opts_default(opts, m->info.labels, k);
  /* Observation-dependent bigrams: viterbi and kbest-viterbi are the fastest exact ones. */
  if (m->kind == VT_MODEL_TAGGER && m->text->obs_bigram)
    opts->algo = opts->k > 1 ? VT_ALGO_KBEST_VITERBI : VT_ALGO_VITERBI;
}

vt_status vt_model_check_decoder(const vt_model *m, const vt_decode_opts *opts) {
  if (m->kind == VT_MODEL_TAGGER && m->text->obs_bigram && !vt_obs_algo_supported(opts->algo))
    return vt_fail(VT_EUNSUPPORTED,
                   "--algo %s: this model has observation-dependent bigram templates; use "
                   "viterbi, viterbi-scalar, kbest-viterbi or beam",
                   vt_algo_name(opts->algo));
  if (opts->k < 1 || (opts->k > 1 && !vt_algo_kbest(opts->algo)))
    return vt_fail(VT_EINVAL, "-k %d: --algo %s returns one path", opts->k,
                   vt_algo_name(opts->algo));
  if (m->kind == VT_MODEL_JOINT_CHUNK && opts->k > 1)
    return vt_fail(VT_EUNSUPPORTED, "-k %d: the joint label-chunk decoder returns one structure",
                   opts->k);
  return VT_OK;
}
