/* engine/api/tagger.c: the public vt_tagger (vitesse.h): one thread's state for tagging
 * sentences held in memory with a shared model. Its buffers grow to the longest sentence seen
 * and are kept, so the steady state allocates nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "api/model_impl.h"
#include "chunk/chunk_tag.h"
#include "core/errmsg.h"
#include "text/batch_tag.h"

/* Memory of the tagger's cache of local emission rows (engine/text/rowcache.h). */
#define ROW_CACHE_BYTES ((size_t)4 << 20)

struct vt_tagger {
  const vt_model *m;
  vt_decode_opts opts;
  vt_arena *arena;
  vt_rowcache *cache; /* taggers; NULL when it could not be made (the results are the same) */
  char *bytes;        /* the cells of the sentence, back to back */
  size_t cap_bytes;
  uint32_t *fields; /* (offset, length) per cell */
  size_t cap_fields;
  vt_text_conf conf; /* constraints (vt_tagger_constrain) */
};

vt_status vt_tagger_constrain(vt_tagger *t, const vt_constraints *c) {
  if (c && (t->m->kind != VT_MODEL_TAGGER || c->model != t->m->text))
    return vt_fail(VT_EINVAL, "the constraints were made for another model");
  t->conf.cons = c;
  return VT_OK;
}

vt_status vt_tagger_create(vt_tagger **out, const vt_model *m, const vt_decode_opts *opts) {
  vt_status st;
  *out = NULL;
  if (m->kind == VT_MODEL_TRANSITIONS)
    return vt_fail(VT_EUNSUPPORTED, "a transition model has no features to tag with: decode "
                                    "score lattices with vt_decode or vt_engine_decode");
  vt_tagger *t = calloc(1, sizeof *t);
  if (!t) return vt_fail(VT_ENOMEM, "out of memory");
  t->m = m;
  if (opts)
    t->opts = *opts;
  else
    vt_model_default_decoder(m, 1, &t->opts);
  if ((st = vt_model_check_decoder(m, &t->opts)) != VT_OK) goto fail;
  if ((st = vt_arena_create(&t->arena, 0)) != VT_OK) {
    vt_fail(st, "out of memory");
    goto fail;
  }
  if (m->kind == VT_MODEL_TAGGER)
    (void)vt_rowcache_create(&t->cache, m->text, ROW_CACHE_BYTES); /* NULL: no cache */
  *out = t;
  return VT_OK;
fail:
  vt_tagger_destroy(t);
  return st;
}

void vt_tagger_destroy(vt_tagger *t) {
  if (!t) return;
  vt_arena_destroy(t->arena);
  vt_rowcache_destroy(t->cache);
  free(t->bytes);
  free(t->fields);
  free(t);
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

/* Copies the cells into the tagger's buffers as a vt_tokens view. */
static vt_status pack_cells(vt_tagger *t, const char *const *cells, int32_t T, int32_t ncols,
                            vt_tokens *tk) {
  size_t n = (size_t)T * (size_t)ncols, total = 0;
  if (grow((void **)&t->fields, &t->cap_fields, 2 * n, sizeof *t->fields))
    return vt_fail(VT_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) { /* lengths first: one strlen per cell */
    size_t len = strlen(cells[i]);
    if (len > UINT32_MAX - total) return vt_fail(VT_EINVAL, "sentence too large");
    t->fields[2 * i] = (uint32_t)total;
    t->fields[2 * i + 1] = (uint32_t)len;
    total += len;
  }
  if (grow((void **)&t->bytes, &t->cap_bytes, total + 1, 1))
    return vt_fail(VT_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    memcpy(t->bytes + t->fields[2 * i], cells[i], t->fields[2 * i + 1]);
  tk->T = T;
  tk->ncols = ncols;
  tk->base = t->bytes;
  tk->fields = t->fields;
  return VT_OK;
}

/* A joint model's sentence: word observation ids and token types of column 0, then the
 * decoder; chunk ids "O" 0, B-X 2c-1, I-X 2c. */
static vt_status tag_joint(vt_tagger *t, const char *const *cells, int32_t T, int32_t ncols,
                           vt_tag_out *out) {
  const vt_chunk_model *cm = &t->m->chunk;
  int32_t *word = VT_ARENA_NEW(t->arena, int32_t, (size_t)T);
  int32_t *ctag = VT_ARENA_NEW(t->arena, int32_t, (size_t)T);
  uint8_t *type = VT_ARENA_NEW(t->arena, uint8_t, (size_t)T);
  uint8_t *begin = VT_ARENA_NEW(t->arena, uint8_t, (size_t)T);
  if (!word || !ctag || !type || !begin) return vt_fail(VT_ENOMEM, "out of memory");
  for (int32_t i = 0; i < T; i++) {
    const char *w = cells[(size_t)i * (size_t)ncols];
    size_t len = strlen(w);
    word[i] = vt_featdict_find(&cm->words, w, len);
    type[i] = (uint8_t)vt_chunk_token_type(w, len);
  }
  vt_chunk_x x = {T, word, type};
  vt_chunk_out o = {out->labels, ctag, begin, 0};
  vt_chunk_stats cs = {0, 0, 0};
  vt_status st = vt_chunk_tag_sentence(cm, &x, cm->max_chunk, t->arena, &o, &cs);
  if (st != VT_OK) return vt_fail(st, "decoding failed: %s", vt_strerror(st));
  out->stats.sentences += cs.sentences;
  out->stats.tokens += cs.tokens;
  out->stats.cells += cs.cells;
  out->n_paths = o.score > -INFINITY ? 1 : 0;
  if (out->scores) out->scores[0] = o.score;
  if (out->chunks)
    for (int32_t i = 0; i < T; i++)
      out->chunks[i] = ctag[i] == 0 ? 0 : 2 * ctag[i] - 1 + (begin[i] ? 0 : 1);
  return VT_OK;
}

vt_status vt_tagger_tag(vt_tagger *t, const char *const *cells, int32_t T, int32_t ncols,
                        vt_tag_out *out) {
  vt_status st;
  out->n_paths = 0;
  if (T < 0 || ncols < 1 || (T > 0 && !cells))
    return vt_fail(VT_EINVAL, "tag: T >= 0 tokens of ncols >= 1 columns expected");
  vt_arena_reset(t->arena);
  if (T == 0) {
    out->n_paths = 1;
    if (out->scores) out->scores[0] = 0;
    if (out->marg) out->logz = 0;
    return VT_OK;
  }
  if (t->m->kind == VT_MODEL_JOINT_CHUNK) return tag_joint(t, cells, T, ncols, out);
  if (t->m->kind == VT_MODEL_CRFSUITE)
    return vt_fail(VT_EUNSUPPORTED, "a CRFsuite model tags item lines: vt_tagger_tag_items");
  const vt_textmodel *m = t->m->text;
  if (ncols <= m->tmpl.max_col)
    return vt_fail(VT_EFORMAT, "%d column(s), but the model's templates read column %d", ncols,
                   m->tmpl.max_col);
  vt_tokens tk;
  if ((st = pack_cells(t, cells, T, ncols, &tk)) != VT_OK) return st;
  vt_tag_stats ts;
  memset(&ts, 0, sizeof ts);
  int32_t bad = 0;
  int why = 0;
  if (out->marg) out->logz = -INFINITY;
  st = vt_text_tag_tokens(m, &t->opts, &t->conf, t->arena, t->cache, &tk, out->labels, out->scores,
                          &out->n_paths, out->marg, out->marg ? &out->logz : NULL, &bad, &why, &ts);
  vt_decode_stats_add(&out->stats, &ts.decode);
  if (st == VT_EFORMAT && why)
    return vt_fail(st, "token %d: %s", bad,
                   why == 1   ? "no column for partial labels"
                   : why == 3 ? "no column for dictionary words"
                              : "the partial label is not a label of the model");
  if (st == VT_EUNSUPPORTED)
    return vt_fail(st, "marginals need a model without observation-dependent bigram templates");
  if (st != VT_OK) return vt_fail(st, "decoding failed: %s", vt_strerror(st));
  return VT_OK;
}

vt_status vt_tagger_tag_items(vt_tagger *t, const char *const *items, int32_t T, vt_tag_out *out) {
  char err[256];
  int32_t bad = -1;
  out->n_paths = 0;
  if (t->m->kind != VT_MODEL_CRFSUITE)
    return vt_fail(VT_EUNSUPPORTED, "item lines are tagged with a CRFsuite model only");
  if (T < 0 || (T > 0 && !items)) return vt_fail(VT_EINVAL, "tag: T >= 0 items expected");
  vt_arena_reset(t->arena);
  size_t *lens = VT_ARENA_NEW(t->arena, size_t, (size_t)T + 1);
  if (!lens) return vt_fail(VT_ENOMEM, "out of memory");
  for (int32_t i = 0; i < T; i++) lens[i] = strlen(items[i]);
  vt_status st =
      vt_crfs_tag(t->m->crfs, &t->opts, t->arena, items, lens, T, out->labels, out->scores,
                  &out->n_paths, out->marg, &out->logz, &bad, &out->stats, err, sizeof err);
  if (st == VT_EFORMAT) return vt_fail(st, "item %d: %s", bad + 1, err);
  if (st != VT_OK) return vt_fail(st, "decoding failed: %s", vt_strerror(st));
  return VT_OK;
}
