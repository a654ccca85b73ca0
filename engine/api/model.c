/* engine/api/model.c: the public vt_model (vitesse.h): opening a model of any kind (recognised by
 * its first bytes, or a peer's format converted), its description, label names and decoder
 * policy, each asked of the kind's table (engine/models/kind_ops.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc/heap_trim.h"
#include "api/model_impl.h"
#include "core/errmsg.h"
#include "io/filemap.h"
#include "models/peer_model.h"
#include "text/featdict.h"

vt_status vt_model_finish(vt_model *m) {
  vt_model_info *in = &m->info;
  memset(in, 0, sizeof *in);
  in->kind = m->ops->kind;
  in->can = m->ops->can;
  vt_reader_opts_init(&in->reader);
  in->label_col = -1;
  in->decoder = "";
  return m->ops->describe(m);
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

int vt_model_file_kind(const char *path) {
  unsigned char head[8];
  size_t n = 0;
  if (!sniff(path, head, &n)) return 0;
  const vt_kind_ops *k = vt_kind_ops_sniff(head, n);
  if (!k && vt_peer_sniff(head, n) != VT_PEER_NONE) k = &vt_kind_tagger; /* as open_peer */
  return k ? (int)k->kind : 0;
}

/* Ends an open of `m` (named `name`) whose loader returned `st` (its message in err): on success
 * finishes the model and hands it out in *out, else frees it and records the message. */
/* Refuses label names holding a control byte (a newline would forge a sentence break in the
 * output, a tab a column): VT_EFORMAT with "NAME: label Y ..." in err, else VT_OK. */
static vt_status names_check(const vt_model *m, const char *name, char *err, size_t errlen) {
  for (int pass = 0; pass < 2; pass++) {
    char **names = pass ? m->chunk_names : m->names;
    const int32_t n = pass ? m->info.chunk_labels : m->info.labels;
    for (int32_t y = 0; names && y < n; y++) {
      const unsigned char *c = vt_label_control((const unsigned char *)names[y], strlen(names[y]));
      if (c) {
        snprintf(err, errlen, "%s: %slabel %d holds the control byte 0x%02x", name,
                 pass ? "chunk " : "", (int)y, *c);
        return VT_EFORMAT;
      }
    }
  }
  return VT_OK;
}

static vt_status open_end(vt_model *m, vt_status st, const char *name, char *err, size_t errlen,
                          vt_model **out) {
  if (st == VT_OK && (st = vt_model_finish(m)) == VT_OK) st = names_check(m, name, err, errlen);
  if (st == VT_OK && !(m->name = strdup(name))) st = VT_ENOMEM;
  if (st == VT_ENOMEM) snprintf(err, errlen, "%s: out of memory", name);
  if (st != VT_OK) {
    vt_model_close(m);
    return vt_fail(st, "%s", err);
  }
  *out = m;
  vt_heap_trim(); /* the loader's scratch is not kept resident through tagging */
  return VT_OK;
}

/* Opens a model as from all of its bytes in memory: a peer's model converted, or one that can be
 * read only once (a pipe). A regular file is mapped (its page cache, not a copy of it), anything
 * else read (io/filemap.h). */
static vt_status open_stream(vt_model **out, const char *path) {
  char err[VT_ERR_LINE];
  vt_filemap fm;
  vt_status st = vt_filemap_open(&fm, path, err, sizeof err);
  if (st != VT_OK) return vt_fail(st, "%s", err);
  st = vt_model_open_memory(out, fm.p, fm.len, path);
  vt_filemap_close(&fm);
  if (st == VT_OK) vt_heap_trim();
  return st;
}

/* Opens the `size` bytes at `data` as a model of peer format `fmt` (engine/models/peer_model.h). */
static vt_status open_peer(vt_model **out, const void *data, size_t size, const char *name,
                           vt_peer_format fmt, double cost_factor) {
  char err[VT_ERR_LINE];
  vt_model *m = calloc(1, sizeof *m);
  if (!m) return vt_fail(VT_ENOMEM, "%s: out of memory", name);
  err[0] = '\0';
  vt_status st =
      vt_kind_tagger_load_peer(m, (int)fmt, data, size, name, cost_factor, err, sizeof err);
  return open_end(m, st, name, err, sizeof err, out);
}

vt_status vt_model_open(vt_model **out, const char *path) {
  char err[VT_ERR_LINE];
  unsigned char head[8];
  size_t n = 0;
  vt_status st;
  *out = NULL;
  if (read_once(path)) return open_stream(out, path);
  vt_model *m = calloc(1, sizeof *m);
  if (!m) return vt_fail(VT_ENOMEM, "%s: out of memory", path);
  err[0] = '\0';
  sniff(path, head, &n);
  /* A file of no kind goes to the tagger loader, which says what is wrong. */
  const vt_kind_ops *k = vt_kind_ops_sniff(head, n);
  if (!k && vt_peer_sniff(head, n) != VT_PEER_NONE) { /* a peer's model: read, convert */
    free(m);
    return open_stream(out, path);
  }
  m->ops = k ? k : &vt_kind_tagger;
  st = m->ops->load(m, path, err, sizeof err);
  return open_end(m, st, path, err, sizeof err, out);
}

vt_status vt_model_open_memory(vt_model **out, const void *data, size_t size, const char *name) {
  char err[VT_ERR_LINE];
  vt_status st;
  *out = NULL;
  if (!name) name = "memory";
  if (!data) size = 0;
  const vt_kind_ops *k = vt_kind_ops_sniff(data, size);
  vt_peer_format pf = k ? VT_PEER_NONE : vt_peer_sniff(data, size);
  if (pf != VT_PEER_NONE) return open_peer(out, data, size, name, pf, 0.0);
  vt_model *m = calloc(1, sizeof *m);
  if (!m) return vt_fail(VT_ENOMEM, "%s: out of memory", name);
  err[0] = '\0';
  m->ops = k ? k : &vt_kind_tagger;
  st = m->ops->load_mem(m, data, size, name, err, sizeof err);
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
    if (st == VT_OK && (*out)->ops != &vt_kind_crfsuite) {
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
    if (sniff(path, head, &n) && !vt_kind_ops_sniff(head, n) &&
        vt_peer_sniff(head, n) != VT_PEER_NONE)
      return vt_fail(VT_EFORMAT, "%s: not a vitesse model file (a CRF++ or Wapiti model?)", path);
    return vt_model_open(out, path);
  }
  if (is_auto && cost_factor == 0) return vt_model_open(out, path);
  char *buf;
  size_t len;
  vt_status st = vt_file_read(path, 0, &buf, &len);
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
  char err[VT_ERR_LINE];
  err[0] = '\0';
  if (!m->ops->save)
    return vt_fail(VT_EINVAL, "%s: only tagger and CRFsuite models can be saved", path);
  vt_status st = m->ops->save(m, path, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}

vt_status vt_model_save_as(const vt_model *m, const char *path, const char *format) {
  char err[VT_ERR_LINE];
  err[0] = '\0';
  if (!format || !strcmp(format, "vitesse")) return vt_model_save(m, path);
  if (strcmp(format, "crfsuite"))
    return vt_fail(VT_EINVAL, "unknown output format '%s' (expected vitesse or crfsuite)", format);
  if (!m->ops->save_crfsuite)
    return vt_fail(VT_EINVAL, "%s: only CRFsuite models can be written as CRFsuite models", path);
  vt_status st = m->ops->save_crfsuite(m, path, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}

vt_status vt_model_open_trans(vt_model **out, int32_t L, const double *A, const double *S,
                              const double *F, const int32_t *rank) {
  vt_model *m = calloc(1, sizeof *m);
  vt_status st;
  *out = NULL;
  if (!m) return vt_fail(VT_ENOMEM, "out of memory");
  if ((st = vt_kind_transitions_make(m, L, A, S, F, rank)) != VT_OK ||
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
  if (m->ops) m->ops->free(m);
  free(m);
}

void vt_model_reader(const vt_model *m, const vt_tag_opts *o, vt_reader_opts *ro) {
  *ro = o->reader;
  if (!o->reader_from_model || !m->ops->reader_from_model) return;
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

const vt_trans *vt_model_trans(const vt_model *m) { return m->ops->trans(m); }

void vt_model_default_decoder(const vt_model *m, int32_t k, vt_decode_opts *opts) {
  m->ops->decoder_default(m, k, opts);
}

vt_status vt_model_check_decoder(const vt_model *m, const vt_decode_opts *opts) {
  char err[VT_ERR_LINE];
  vt_status st = m->ops->decoder_check(m, opts, err, sizeof err);
  return st == VT_OK ? st : vt_fail(st, "%s", err);
}
