/* engine/models/kind_tagger.c: the table of tagger models (kind_ops.h): feature templates, features
 * and labels, trained by vitesse or converted from a CRF++ or Wapiti model. Tagging is
 * engine/text/'s (features, emissions, decoding, text). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "models/kind_ops.h"
#include "models/model_file.h"
#include "models/peer_model.h"
#include "text/model_replica.h"
#include "text/obsbigram.h"
#include "text/tmpl_index.h"

/* Memory of each worker's cache of local emission rows (engine/text/rowcache.h). */
#define ROW_CACHE_BYTES ((size_t)4 << 20)

/* The kind's model (vt_model.impl). */
static vt_textmodel *text(const void *m) { return ((const vt_model *)m)->impl; }

static int sniff(const unsigned char *head, size_t n) { return vt_textmodel_sniff(head, n); }

static vt_status load(vt_model *m, const char *path, char *err, size_t errlen) {
  vt_textmodel *t = NULL;
  vt_status st = (vt_status)vt_textmodel_load(&t, path, err, errlen);
  m->impl = t;
  return st;
}

static vt_status load_mem(vt_model *m, const void *data, size_t size, const char *name, char *err,
                          size_t errlen) {
  vt_textmodel *t = NULL;
  vt_status st = (vt_status)vt_textmodel_load_mem(&t, data, size, name, err, errlen);
  m->impl = t;
  return st;
}

static vt_status save(const vt_model *m, const char *path, char *err, size_t errlen) {
  return (vt_status)vt_textmodel_save(text(m), path, err, errlen);
}

static vt_status describe(vt_model *m) {
  vt_model_info *in = &m->info;
  const vt_textmodel *t = text(m);
  in->labels = t->L;
  if (vt_kind_names_alloc(&m->names, t->L) != VT_OK) return VT_ENOMEM;
  for (int32_t y = 0; y < t->L; y++) {
    size_t len;
    const char *s = vt_textmodel_label(t, y, &len);
    if (!(m->names[y] = vt_kind_dup(s, len))) return VT_ENOMEM;
  }
  if (!(m->tmpl = vt_kind_dup(t->tmpl_text, t->tmpl_len))) return VT_ENOMEM;
  in->templates = m->tmpl;
  vt_textmodel_reader_unpack(t->meta.reader, &in->reader);
  in->label_col = t->meta.label_col;
  in->columns = t->meta.ncols;
  in->epochs = t->meta.epochs;
  in->train_sentences = t->meta.train_sentences;
  in->train_tokens = t->meta.train_tokens;
  in->decoder = t->meta.decoder;
  in->obs_bigram = t->obs_bigram;
  in->origin = t->meta.origin == VT_ORIGIN_CRFPP    ? VT_MODEL_FROM_CRFPP
               : t->meta.origin == VT_ORIGIN_WAPITI ? VT_MODEL_FROM_WAPITI
                                                    : VT_MODEL_FROM_VITESSE;
  in->label_sep = t->meta.origin == VT_ORIGIN_CRFPP ? '\t' : 0; /* crf_test's layout */
  return VT_OK;
}

static void model_free(vt_model *m) { vt_textmodel_free(text(m)); }

static vt_trans *trans(const vt_model *m) { return text(m)->trans; }

static vt_textmodel *features(const vt_model *m) { return text(m); }

static void decoder_default(const vt_model *m, int32_t k, vt_decode_opts *o) {
  vt_kind_decoder_default(m, k, o);
  /* Observation-dependent bigrams: viterbi and kbest-viterbi are the fastest exact ones. */
  if (text(m)->obs_bigram) o->algo = o->k > 1 ? VT_ALGO_KBEST_VITERBI : VT_ALGO_VITERBI;
}

static vt_status decoder_check(const vt_model *m, const vt_decode_opts *o, char *err,
                               size_t errlen) {
  if (text(m)->obs_bigram && !vt_obs_algo_supported(o->algo))
    return vt_fail_into(err, errlen, VT_EUNSUPPORTED,
                        "--algo %s: this model has observation-dependent bigram templates; use "
                        "viterbi, viterbi-scalar, kbest-viterbi or beam",
                        vt_algo_name(o->algo));
  return vt_kind_decoder_check(m, o, err, errlen);
}

/* Grows `*p` (of *cap elements of `size` bytes) to hold n. Returns 0 or -1. */
static int grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n <= *cap) return 0;
  size_t c = *cap ? *cap : 256;
  while (c < n) c *= 2;
  void *q = realloc(*p, c * size);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Copies the cells into the scratch buffers as a vt_tokens view. */
static vt_status pack_cells(vt_cells_scratch *t, const char *const *cells, int32_t T, int32_t ncols,
                            vt_tokens *tk, char *err, size_t errlen) {
  size_t n = (size_t)T * (size_t)ncols, total = 0;
  if (grow((void **)&t->fields, &t->cap_fields, 2 * n, sizeof *t->fields))
    return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) { /* lengths first: one strlen per cell */
    size_t len = strlen(cells[i]);
    if (len > UINT32_MAX - total) return vt_fail_into(err, errlen, VT_EINVAL, "sentence too large");
    t->fields[2 * i] = (uint32_t)total;
    t->fields[2 * i + 1] = (uint32_t)len;
    total += len;
  }
  if (grow((void **)&t->bytes, &t->cap_bytes, total + 1, 1))
    return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    memcpy(t->bytes + t->fields[2 * i], cells[i], t->fields[2 * i + 1]);
  tk->T = T;
  tk->ncols = ncols;
  tk->base = t->bytes;
  tk->fields = t->fields;
  return VT_OK;
}

static vt_status tag_cells(const vt_model *mdl, const vt_decode_opts *opts, vt_cells_scratch *s,
                           const char *const *cells, int32_t T, int32_t ncols, vt_tag_out *out,
                           char *err, size_t errlen) {
  const vt_textmodel *m = text(mdl);
  vt_status st;
  if (ncols <= m->tmpl.max_col)
    return vt_fail_into(err, errlen, VT_EFORMAT,
                        "%d column(s), but the model's templates read column %d", ncols,
                        m->tmpl.max_col);
  if (!s->cache && vt_tix_rowcache_pays(m->tix, &m->tmpl, m->L)) /* else the index is faster */
    (void)vt_rowcache_create(&s->cache, m, ROW_CACHE_BYTES);     /* NULL: no cache */
  vt_tokens tk;
  if ((st = pack_cells(s, cells, T, ncols, &tk, err, errlen)) != VT_OK) return st;
  vt_tag_stats ts;
  memset(&ts, 0, sizeof ts);
  int32_t bad = 0;
  int why = 0;
  if (out->marg) out->logz = -INFINITY;
  st = vt_text_tag_tokens(m, opts, &s->conf, s->arena, s->cache, &tk, out->labels, out->scores,
                          &out->n_paths, out->marg, out->marg ? &out->logz : NULL, out->path,
                          &out->path_score, &bad, &why, &ts);
  vt_decode_stats_add(&out->stats, &ts.decode);
  if (st == VT_EFORMAT && why)
    return vt_fail_into(err, errlen, st, "token %d: %s", bad,
                        why == 1   ? "no column for partial labels"
                        : why == 3 ? "no column for dictionary words"
                                   : "the partial label is not a label of the model");
  if (st == VT_EUNSUPPORTED)
    return vt_fail_into(err, errlen, st,
                        "marginals and path scores need a model without observation-dependent "
                        "bigram templates");
  if (st != VT_OK) return vt_fail_into(err, errlen, st, "decoding failed: %s", vt_strerror(st));
  return VT_OK;
}

/* ---- corpus runs ---- */

typedef struct tagger_worker {
  vt_tag_stats stats;
  vt_rowcache *cache; /* made on the worker's first batch (NULL: none) */
} tagger_worker;

/* `model`: the vt_model; the replica: a copy of its features in `mem` (mem NULL: its own). */
static vt_status corpus_clone(const void *model, const vt_mem *mem, void **out) {
  if (!mem) { /* one NUMA node: the model's own features */
    *out = text(model);
    return VT_OK;
  }
  vt_textmodel *m = NULL;
  vt_status st = vt_textmodel_clone_to(&m, text(model), mem);
  *out = m;
  return st;
}

static void corpus_clone_free(void *replica, const vt_mem *mem) {
  if (mem) vt_textmodel_clone_free(replica, mem);
}

static vt_status tag_batch(const vt_corpus_work *w) {
  const vt_textmodel *m = w->replica;
  tagger_worker *k = w->worker;
  const vt_tag_opts *o = w->o;
  const int crfpp = m->meta.origin == VT_ORIGIN_CRFPP;
  const vt_text_conf conf = {o->verbose,
                             o->constraints,
                             o->label_sep,
                             w->cancel,
                             crfpp && o->peer_search && !o->constraints,
                             crfpp && o->label_sep == '\t'};
  if (!k->cache && vt_tix_rowcache_pays(m->tix, &m->tmpl, m->L)) /* else the index is faster */
    (void)vt_rowcache_create(&k->cache, m, ROW_CACHE_BYTES);     /* NULL: no cache */
  return vt_text_tag_batch(m, &o->decode, &conf, w->arena, k->cache, w->sb, 0, w->sb->n_sents,
                           w->out, &k->stats, w->err, w->errlen);
}

static void corpus_report(const void *worker, vt_run_report *rep) {
  const vt_tag_stats *s = &((const tagger_worker *)worker)->stats;
  rep->feature_seconds += s->feature_seconds;
  rep->decode_seconds += s->decode_seconds;
  rep->unknown_features += s->unknown_features;
  rep->lookups += s->lookups;
  rep->cache_hits += s->cache_hits;
  vt_decode_stats_add(&rep->decode, &s->decode);
}

static void corpus_worker_free(void *worker) {
  vt_rowcache_destroy(((tagger_worker *)worker)->cache);
}

static const vt_corpus_ops corpus = {
    .items = 0,
    .worker_size = sizeof(tagger_worker),
    .clone = corpus_clone,
    .clone_free = corpus_clone_free,
    .tag_batch = tag_batch,
    .report = corpus_report,
    .worker_free = corpus_worker_free,
};

const vt_kind_ops vt_kind_tagger = {
    .kind = VT_MODEL_TAGGER,
    .name = "tagger",
    .can = VT_CAN_COLUMNS | VT_CAN_MARGINALS | VT_CAN_KBEST | VT_CAN_CONSTRAIN | VT_CAN_SAVE |
           VT_CAN_OPEN_MEMORY,
    .sniff = sniff,
    .load = load,
    .load_mem = load_mem,
    .save = save,
    .describe = describe,
    .free = model_free,
    .trans = trans,
    .features = features,
    .reader_from_model = 1,
    .decoder_default = decoder_default,
    .decoder_check = decoder_check,
    .tag_cells = tag_cells,
    .corpus = &corpus,
};

vt_status vt_kind_tagger_load_peer(vt_model *m, int fmt, const void *data, size_t size,
                                   const char *name, double cost_factor, char *err, size_t errlen) {
  vt_textmodel *t = NULL;
  m->ops = &vt_kind_tagger;
  vt_status st =
      vt_peer_load_mem(&t, (vt_peer_format)fmt, data, size, name, cost_factor, err, errlen);
  m->impl = t;
  return st;
}
