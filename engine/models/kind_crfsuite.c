/* engine/models/kind_crfsuite.c: the table of CRFsuite models (kind_ops.h): a crf1d model of
 * CRFsuite 0.12, or vitesse's native file of one, tagging CRFsuite item sequences as `crfsuite
 * tag` prints them (engine/text/crfs.h), saved as a native file or as a crf1d file again
 * (crfsuite_write.h). The model is read-only and small, so the workers of a corpus run share it
 * instead of a replica per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "models/crfsuite_file.h"
#include "models/crfsuite_write.h"
#include "models/kind_ops.h"

/* The kind's model (vt_model.impl). */
static vt_crfs *crfs(const vt_model *m) { return m->impl; }

static int sniff(const unsigned char *head, size_t n) { return vt_crfs_sniff(head, n); }

static vt_status load(vt_model *m, const char *path, char *err, size_t errlen) {
  vt_crfs *c = NULL;
  vt_status st = (vt_status)vt_crfs_load(&c, path, err, errlen);
  m->impl = c;
  return st;
}

static vt_status load_mem(vt_model *m, const void *data, size_t size, const char *name, char *err,
                          size_t errlen) {
  vt_crfs *c = NULL;
  vt_status st = (vt_status)vt_crfs_load_mem(&c, data, size, name, err, errlen);
  m->impl = c;
  return st;
}

static vt_status save(const vt_model *m, const char *path, char *err, size_t errlen) {
  return (vt_status)vt_crfs_write_native(path, crfs(m), err, errlen);
}

static vt_status save_crfsuite(const vt_model *m, const char *path, char *err, size_t errlen) {
  return (vt_status)vt_crfs_write_crf1d(path, crfs(m), err, errlen);
}

static vt_status describe(vt_model *m) {
  const vt_crfs *c = crfs(m);
  m->info.labels = c->L;
  if (vt_kind_names_alloc(&m->names, c->L) != VT_OK) return VT_ENOMEM;
  for (int32_t y = 0; y < c->L; y++) {
    size_t len;
    const char *s = vt_crfs_label(c, y, &len);
    if (!(m->names[y] = vt_kind_dup(s, len))) return VT_ENOMEM;
  }
  return VT_OK;
}

static void model_free(vt_model *m) { vt_crfs_free(crfs(m)); }

static vt_trans *trans(const vt_model *m) { return crfs(m)->trans; }

static vt_status tag_items(const vt_model *m, const vt_decode_opts *opts, vt_cells_scratch *s,
                           const char *const *items, int32_t T, vt_tag_out *out, char *err,
                           size_t errlen) {
  char why[256];
  int32_t bad = -1;
  size_t *lens = VT_ARENA_NEW(s->arena, size_t, (size_t)T + 1);
  if (!lens) return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
  for (int32_t i = 0; i < T; i++) lens[i] = strlen(items[i]);
  vt_status st = vt_crfs_tag(crfs(m), opts, s->arena, items, lens, T, out->labels, out->scores,
                             &out->n_paths, out->marg, &out->logz, out->path, &out->path_score,
                             &bad, &out->stats, NULL, why, sizeof why);
  if (st == VT_EFORMAT) return vt_fail_into(err, errlen, st, "item %d: %s", bad + 1, why);
  if (st != VT_OK) return vt_fail_into(err, errlen, st, "decoding failed: %s", vt_strerror(st));
  return VT_OK;
}

/* ---- corpus runs: item files cut into batches of whole sequences (io/crfs_items.h); each
 * sequence tagged (emissions, decoder, marginals when asked) and formatted as `crfsuite tag`
 * prints it. ---- */

typedef struct crfs_worker {
  vt_decode_stats stats;
  double seconds[2]; /* emissions, decoder (vt_crfs_tag) */
} crfs_worker;

static vt_status tag_batch(const vt_corpus_work *w) {
  const vt_crfs *m = crfs(w->m);
  const vt_decode_opts *opts = &w->o->decode;
  const int flags = w->o->crfsuite_out & (VT_CRFS_PROB | VT_CRFS_MARG | VT_CRFS_MARG_ALL);
  const int ref = w->o->crfsuite_out & VT_CRFS_REF;
  const vt_items_batch *ib = w->ib;
  const int32_t L = m->L, k = opts->k;
  int64_t item = 0; /* the sequence's first item in the batch */
  vt_textbuf *out = w->out;
  char err[200];
  for (int32_t s = 0; s < ib->n_seq; s++) {
    int32_t T = ib->n_items[s], n_paths = 0, bad = -1;
    vt_arena_reset(w->arena);
    const char **lines = VT_ARENA_NEW(w->arena, const char *, (size_t)T);
    const size_t *lens = ib->lens + item;
    int32_t *labels = VT_ARENA_NEW(w->arena, int32_t, (size_t)k * (size_t)T);
    double *scores = VT_ARENA_NEW(w->arena, double, (size_t)k);
    double *marg = flags ? VT_ARENA_NEW(w->arena, double, (size_t)T *(size_t)L) : NULL;
    double logz = 0;
    if (!lines || !labels || !scores || (flags && !marg)) {
      snprintf(w->err, w->errlen, "out of memory");
      return VT_ENOMEM;
    }
    for (int32_t t = 0; t < T; t++) lines[t] = ib->src + ib->at[item + t];
    item += T;
    crfs_worker *cw = w->worker;
    vt_status st = vt_crfs_tag(m, opts, w->arena, lines, lens, T, labels, scores, &n_paths, marg,
                               &logz, NULL, NULL, &bad, &cw->stats, cw->seconds, err, sizeof err);
    if (st == VT_EFORMAT) {
      vt_errorf(w->err, w->errlen, NULL, "%s:%llu: %s", ib->file,
                (unsigned long long)(ib->line0[s] + (uint64_t)bad), err);
      return st;
    }
    if (st != VT_OK) {
      snprintf(w->err, w->errlen, "decoding failed: %s", vt_strerror(st));
      return st;
    }
    if (vt_crfs_format(m, flags | ref, k, T, labels, scores, n_paths, marg, logz, lines, lens,
                       &out->p, &out->len, &out->cap)) {
      snprintf(w->err, w->errlen, "out of memory");
      return VT_ENOMEM;
    }
  }
  return VT_OK;
}

static void corpus_report(const void *worker, vt_run_report *rep) {
  const crfs_worker *cw = worker;
  const vt_decode_stats *w = &cw->stats;
  rep->feature_seconds += cw->seconds[0];
  rep->decode_seconds += cw->seconds[1];
  rep->decode.sentences += w->sentences;
  rep->decode.tokens += w->tokens;
  rep->decode.cells += w->cells;
  rep->decode.iterations += w->iterations;
  rep->decode.fallbacks += w->fallbacks;
  rep->decode.budget_fallbacks += w->budget_fallbacks;
}

static const vt_corpus_ops corpus = {
    .items = 1,
    .worker_size = sizeof(crfs_worker),
    .tag_batch = tag_batch,
    .report = corpus_report,
};

const vt_kind_ops vt_kind_crfsuite = {
    .kind = VT_MODEL_CRFSUITE,
    .name = "crfsuite",
    .can = VT_CAN_ITEMS | VT_CAN_MARGINALS | VT_CAN_KBEST | VT_CAN_SAVE | VT_CAN_SAVE_CRFSUITE |
           VT_CAN_OPEN_MEMORY,
    .sniff = sniff,
    .load = load,
    .load_mem = load_mem,
    .save = save,
    .save_crfsuite = save_crfsuite,
    .describe = describe,
    .free = model_free,
    .trans = trans,
    .decoder_default = vt_kind_decoder_default,
    .decoder_check = vt_kind_decoder_check,
    .tag_items = tag_items,
    .corpus = &corpus,
};
