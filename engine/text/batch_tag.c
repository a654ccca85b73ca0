/* engine/text/batch_tag.c: emissions from a model and the per-batch tagging step (see batch_tag.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "text/batch_tag.h"
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "core/errmsg.h"
#include "core/rowadd.h"
#include "decode/decoders.h"
#include "text/crfpp_search.h"
#include "text/rowcache.h"
#include "text/strhash.h"
#include "text/tmpl_index.h"
#include "text/tmpl_rows.h"

int vt_textbuf_reserve(vt_textbuf *b, size_t more) {
  if (b->len + more <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 65536;
  while (cap < b->len + more) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) return -1;
  b->p = p;
  b->cap = cap;
  return 0;
}

void vt_textbuf_free(vt_textbuf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* The record `v` (a non-empty slot) points to, when its hash tag matches `h`, else NULL. */
static const uint8_t *slot_record(const vt_textmodel *m, uint32_t v, uint64_t h) {
  if (m->off_bits >= 32) return m->recs + 4 * (uint64_t)(v - 1);
  if (v >> m->off_bits != vt_textmodel_tag(h, m->off_bits)) return NULL;
  return m->recs + 4 * (uint64_t)((v & ((1u << m->off_bits) - 1)) - 1);
}

/* Adds the records of lookups [i0, i1) (recs from the slot pass; strings in sbuf at soff) into
 * emission row `row`; returns how many feature strings the model lacks. */
static int64_t add_features(const vt_textmodel *m, const uint8_t *const *recs, const char *sbuf,
                            const uint32_t *soff, const uint8_t *exact, size_t i0, size_t i1,
                            double *row, vt_rowadd_f32_fn add) {
  int64_t unknown = 0;
  for (size_t i = i0; i < i1; i++) {
    const uint8_t *rec = recs[i];
    if (!rec) {
      unknown++;
      continue;
    }
    if (exact[i]) { /* found through the index: the template's string is the record's */
      vt_feat_add_unigram(rec, m->key_bytes, row, add);
      continue;
    }
    const char *s = sbuf + soff[i];
    const size_t n = soff[i + 1] - soff[i];
    const uint32_t *hd = (const uint32_t *)(const void *)rec;
    if (rec == (const uint8_t *)1 || hd[0] != n || !vt_bytes_eq((const char *)rec + 8, s, n)) {
      rec = vt_textmodel_find(m, s, n); /* a collision in the first slot: the general probe */
      if (!rec) {
        unknown++;
        continue;
      }
    }
    vt_feat_add_unigram(rec, m->key_bytes, row, add);
  }
  return unknown;
}

/* Sets lat's L, T, A, S, F and E: model m's, T tokens, emissions E. */
static void lattice_frame(const vt_textmodel *m, int32_t T, double *E, vt_obs_lattice *lat) {
  lat->L = m->L;
  lat->T = T;
  lat->A = m->A;
  lat->S = m->S;
  lat->F = m->F;
  lat->E = E;
}

/* Fills lat (deltas from `arena`, and L, T, A, S, F, E) with the observation-dependent bigram
 * features of tk (value ids cid when m->tix is not NULL; buf: room for the longest feature
 * string). Returns VT_OK or VT_ENOMEM. */
static vt_status obs_deltas(const vt_textmodel *m, const vt_tokens *tk, vt_arena *arena, double *E,
                            vt_obs_lattice *lat, const int32_t *cid, char *buf) {
  const vt_tmplset *ts = &m->tmpl;
  const vt_tmpl_index *x = m->tix;
  const int32_t T = tk->T;
  /* Bigram templates: the records of each position, then their entries as deltas. */
  const size_t nb = (size_t)ts->n_b;
  const uint8_t **brec = VT_ARENA_NEW(arena, const uint8_t *, (size_t)T *nb + 1);
  int64_t *doff = VT_ARENA_NEW(arena, int64_t, (size_t)T + 1);
  if (!brec || !doff) return VT_ENOMEM;
  int64_t total = 0;
  doff[0] = 0;
  for (int32_t t = 0; t < T; t++) {
    for (size_t k = 0; k < nb; k++) {
      const uint8_t *rec = NULL;
      if (t > 0) {
        if (x && x->fast[ts->b_idx[k]]) {
          rec = vt_tix_record(m, cid, ts->b_idx[k], t, T);
        } else {
          size_t n = vt_tmpl_expand(ts, ts->b_idx[k], tk, t, buf);
          rec = vt_textmodel_find(m, buf, n);
        }
        if (rec) {
          vt_feat f;
          vt_feat_read(rec, m->key_bytes, &f);
          total += f.nnz;
        }
      }
      brec[(size_t)t * nb + k] = rec;
    }
    doff[t + 1] = total;
  }
  int32_t *dkey = VT_ARENA_NEW(arena, int32_t, (size_t)total + 1);
  double *dval = VT_ARENA_NEW(arena, double, (size_t)total + 1);
  if (!dkey || !dval) return VT_ENOMEM;
  int64_t d = 0;
  for (size_t r = 0; r < (size_t)T * nb; r++) {
    if (!brec[r]) continue;
    vt_feat f;
    vt_feat_read(brec[r], m->key_bytes, &f);
    const uint32_t *k = f.keys;
    for (uint32_t e = 0; e < f.nnz; e++, d++) {
      dkey[d] = (int32_t)k[e];
      dval[d] = f.vals[e];
    }
  }
  lattice_frame(m, T, E, lat);
  lat->doff = doff;
  lat->dkey = dkey;
  lat->dval = dval;
  lat->Mt = NULL;
  return VT_OK;
}

/* Fills lat (and L, T, A, S, F, E) with the observation-dependent edges of the T tokens whose
 * value ids are cid as one matrix per position, the index's (tmpl_index.h: obs_mats), picked by
 * the value of template obs_k's cell there. Returns VT_OK or VT_ENOMEM. */
static vt_status obs_matrices(const vt_textmodel *m, const int32_t *cid, int32_t T, vt_arena *arena,
                              double *E, vt_obs_lattice *lat) {
  const vt_tmpl_index *x = m->tix;
  const double **Mt = VT_ARENA_NEW(arena, const double *, (size_t)T + 1);
  if (!Mt) return VT_ENOMEM;
  const double *none = x->obs_mats + (size_t)x->obs_n * x->obs_stride;
  const vt_tix_cell *cl = x->cells + x->cell0[x->obs_k];
  Mt[0] = none; /* never read: position 0 has no edge */
  for (int32_t t = 1; t < T; t++) {
    const int32_t v = vt_tix_cell_id(x, &m->tmpl, cl, cid, t, T);
    const int32_t i = v >= 0 ? x->obs_map[v] : -1;
    Mt[t] = i >= 0 ? x->obs_mats + (size_t)i * x->obs_stride : none;
  }
  lattice_frame(m, T, E, lat);
  lat->doff = NULL;
  lat->dkey = NULL;
  lat->dval = NULL;
  lat->Mt = Mt;
  return VT_OK;
}

vt_status vt_text_emissions(const vt_textmodel *m, const vt_tokens *tk, vt_arena *arena, double *E,
                            vt_obs_lattice *lat, vt_rowcache *cache, vt_tag_stats *stats) {
  const vt_tmplset *ts = &m->tmpl;
  const int32_t L = m->L, T = tk->T, nu = ts->n_u;
  size_t maxf = 0;
  for (size_t f = 0; f < (size_t)T * (size_t)tk->ncols; f++)
    if (tk->fields[2 * f + 1] > maxf) maxf = tk->fields[2 * f + 1];
  size_t need = 1; /* the longest single string */
  for (int32_t i = 0; i < ts->n; i++) {
    size_t b = vt_tmpl_bound(ts, i, maxf);
    if (b > need) need = b;
  }
  const vt_tmpl_index *x = m->tix;
  if (x && x->all_fast && !cache) { /* every unigram row through the index */
    int32_t *cid = vt_tix_cells(x, ts, tk, NULL, arena);
    int64_t unknown = 0;
    if (!cid || vt_tix_emissions(m, cid, T, arena, E, &unknown) != VT_OK) return VT_ENOMEM;
    if (stats) {
      stats->lookups += (int64_t)T * nu;
      stats->unknown_features += unknown;
    }
    if (!lat || ts->n_b == 0) return VT_OK;
    if (x->obs_mats) return obs_matrices(m, cid, T, arena, E, lat);
    char *buf = VT_ARENA_NEW(arena, char, need);
    return buf ? obs_deltas(m, tk, arena, E, lat, cid, buf) : VT_ENOMEM;
  }
  /* Local templates first (see rowcache.h), then the others. A token found in the cache gets
   * its local row copied and only its other templates expanded (and sized). */
  const int32_t *ord = ts->u_ord, nloc = ts->n_local;
  const uint32_t cols = ts->local_cols;
  if (cache && (cache->model != m || cols == UINT32_MAX || nloc == 0)) cache = NULL;
  int64_t *hit = VT_ARENA_NEW(arena, int64_t, (size_t)T + 1);
  int64_t *fill = VT_ARENA_NEW(arena, int64_t, (size_t)T + 1);
  uint64_t *khash = VT_ARENA_NEW(arena, uint64_t, (size_t)T + 1);
  uint32_t *first = VT_ARENA_NEW(arena, uint32_t, (size_t)T + 1);
  if (!hit || !fill || !khash || !first) return VT_ENOMEM;
  for (int32_t t = 0; t < T; t++) {
    hit[t] = fill[t] = -1;
    if (cache) hit[t] = vt_rowcache_probe(cache, tk, t, cols, &fill[t], &khash[t]);
  }
  int32_t *cid = NULL;
  if (x && (x->any_fast || ts->n_b) && !(cid = vt_tix_cells(x, ts, tk, cache ? hit : NULL, arena)))
    return VT_ENOMEM;
  /* the strings to expand together (none when the index finds every unigram template) */
  const size_t all = x && x->all_fast ? 0 : vt_tmpl_bound_unigrams(ts, tk);
  if (all > UINT32_MAX) return VT_ENOMEM;
  const size_t nl = (size_t)T * (size_t)nu;
  char *sbuf = VT_ARENA_NEW(arena, char, all + need + 8); /* + 8: vt_strhash_padded's reads */
  uint32_t *soff = VT_ARENA_NEW(arena, uint32_t, nl + 1);
  uint64_t *hh = VT_ARENA_NEW(arena, uint64_t, nl + 1);
  const uint8_t **recs = VT_ARENA_NEW(arena, const uint8_t *, nl + 1);
  uint8_t *exact = VT_ARENA_NEW(arena, uint8_t, nl + 1);
  uint32_t *at = x ? VT_ARENA_NEW(arena, uint32_t, nl + 1) : NULL;
  if (!sbuf || !soff || !hh || !recs || !exact || (x && !at)) return VT_ENOMEM;
  /* Every feature of the sentence first: a template the index finds gets its key (no string),
   * the others their string, hashed; each prefetches its hash slot. Then each slot, prefetching
   * the record it points to; then the records: the cache misses of one sentence overlap instead
   * of following one another. */
  int32_t tail[VT_TIX_MAX_CELLS];
  size_t pos = 0, i = 0;
  for (int32_t t = 0; t < T; t++) {
    first[t] = (uint32_t)i;
    for (int32_t k = hit[t] >= 0 ? nloc : 0; k < nu; k++, i++) {
      soff[i] = (uint32_t)pos;
      if (x && x->fast[ord[k]]) {
        exact[i] = 1;
        uint64_t key;
        if (vt_tix_key_at(x, ts, ord[k], cid, t, T, &key, tail)) {
          hh[i] = key;
          at[i] = vt_tix_slot(x, key);
          __builtin_prefetch(&x->slots[at[i]]);
        } else {
          hh[i] = UINT64_MAX; /* a cell no record holds */
        }
        continue;
      }
      exact[i] = 0;
      size_t n = vt_tmpl_expand(ts, ord[k], tk, t, sbuf + pos);
      hh[i] = vt_strhash_padded(sbuf + pos, n);
      __builtin_prefetch(&m->slots[(uint32_t)hh[i] & m->slot_mask]);
      pos += n;
    }
  }
  const size_t ni = i;
  first[T] = (uint32_t)ni;
  soff[ni] = (uint32_t)pos;
  memset(sbuf + pos, 0, 8); /* the padding the last string's hash read (masked) */
  for (int32_t t = 0; t < T; t++)
    for (i = first[t]; i < first[t + 1]; i++) {
      if (exact[i]) {
        const uint8_t *rec = NULL;
        if (hh[i] != UINT64_MAX) {
          const int32_t k = ord[(int64_t)nu - (int64_t)(first[t + 1] - i)];
          const uint32_t n_tail = x->ncell[k] > 2 ? x->ncell[k] - 2u : 0;
          uint64_t key = hh[i];
          if (n_tail) vt_tix_key_at(x, ts, k, cid, t, T, &key, tail);
          const vt_tix_entry *e = vt_tix_find(x, at[i], key, tail, n_tail);
          if (e) {
            rec = vt_tix_rec(m, e->rec);
            __builtin_prefetch(rec);
            __builtin_prefetch(rec + 64);
          }
        }
        recs[i] = rec;
        continue;
      }
      uint32_t v = m->slots[(uint32_t)hh[i] & m->slot_mask];
      const uint8_t *rec = v ? slot_record(m, v, hh[i]) : NULL;
      recs[i] = v ? rec : NULL;
      if (rec) {
        __builtin_prefetch(rec);
        __builtin_prefetch(rec + 64);
      } else if (v) {
        recs[i] = (const uint8_t *)1; /* tag mismatch: probe further below */
      }
    }
  vt_rowadd_f32_fn add = vt_rowadd_f32();
  int64_t unknown = 0;
  for (int32_t t = 0; t < T; t++) {
    double *row = E + (size_t)t * (size_t)L;
    size_t i0 = first[t], i1 = first[t + 1];
    if (hit[t] >= 0) {
      memcpy(row, cache->rows + (size_t)hit[t] * cache->ld, (size_t)L * sizeof *row);
      unknown += cache->entries[hit[t]].unknown;
      cache->hits++;
      if (stats) stats->cache_hits++;
    } else {
      memset(row, 0, (size_t)L * sizeof *row);
      int64_t u = add_features(m, recs, sbuf, soff, exact, i0, i0 + (size_t)nloc, row, add);
      unknown += u;
      i0 += (size_t)nloc;
      if (fill[t] >= 0) { /* the local sum is complete: remember it */
        vt_rowcache_entry *en = &cache->entries[fill[t]];
        en->hash = khash[t];
        en->klen = vt_rowcache_key(tk, t, cols, en->key);
        en->unknown = (int32_t)u;
        en->uses = 0;
        memcpy(cache->rows + (size_t)fill[t] * cache->ld, row, (size_t)L * sizeof *row);
        cache->misses++;
      }
    }
    unknown += add_features(m, recs, sbuf, soff, exact, i0, i1, row, add);
  }
  if (stats) {
    stats->lookups += (int64_t)nl;
    stats->unknown_features += unknown;
  }
  if (!lat || ts->n_b == 0) return VT_OK;
  return obs_deltas(m, tk, arena, E, lat, cid, sbuf + pos);
}

vt_status vt_text_check(const vt_textmodel *m, const vt_sentbatch *b, int32_t s, char *err,
                        size_t errlen) {
  const vt_sentence *se = &b->sents[s];
  if (se->T == 0 || se->ncols > m->tmpl.max_col) return VT_OK;
  vt_errorf(err, errlen, NULL, "%s:%llu: %d column(s), but the model's templates read column %d",
            se->file, (unsigned long long)vt_sentbatch_lineno(b, s, 0), se->ncols, m->tmpl.max_col);
  return VT_EFORMAT;
}

/* Appends "/P" (marginal p, %f as crf_test -v1 prints it) to out; 0 or -1. */
static int put_prob(vt_textbuf *out, double p) {
  if (vt_textbuf_reserve(out, 32)) return -1;
  out->len += (size_t)snprintf(out->p + out->len, 32, "/%f", p);
  return 0;
}

/* Appends token `t`'s columns of `tk` as crf_test prints them: the non-empty ones, each followed
 * by a tab (the label comes next). 0 or -1. */
static int put_joined(const vt_tokens *tk, int32_t t, vt_textbuf *out) {
  for (int32_t c = 0; c < tk->ncols; c++) {
    const uint32_t *f = tk->fields + 2 * ((size_t)t * (size_t)tk->ncols + (size_t)c);
    if (f[1] == 0) continue;
    if (vt_textbuf_reserve(out, (size_t)f[1] + 1)) return -1;
    memcpy(out->p + out->len, tk->base + f[0], f[1]);
    out->len += f[1];
    out->p[out->len++] = '\t';
  }
  return 0;
}

/* put_sentence without marginals: room for the whole sentence is made once, and its lines are
 * copied without a check per field. 0 or -1. */
static int put_plain(const vt_textmodel *m, const vt_sentbatch *b, const vt_sentence *se,
                     const vt_tokens *tk, const int32_t *y, char sep, int join, vt_textbuf *out) {
  size_t room = 0; /* a line, the label it gets (or "_"), a tab a column joined, sep and '\n' */
  for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
    const vt_sentline *ln = &b->lines[l];
    size_t llen = 1;
    if (ln->tok >= 0 && y) vt_textmodel_label(m, y[ln->tok], &llen);
    room += ln->len + llen + (join ? (size_t)tk->ncols : 0) + 2;
  }
  if (vt_textbuf_reserve(out, room)) return -1;
  char *o = out->p + out->len;
  for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
    const vt_sentline *ln = &b->lines[l];
    if (ln->tok < 0) {
      vt_bytes_copy(o, b->bytes + ln->off, ln->len);
      o += ln->len;
      *o++ = '\n';
      continue;
    }
    if (join) { /* crf_test's token line: the non-empty columns, each followed by a tab */
      const uint32_t *f = tk->fields + 2 * ((size_t)ln->tok * (size_t)tk->ncols);
      for (int32_t c = 0; c < tk->ncols; c++, f += 2) {
        if (f[1] == 0) continue;
        vt_bytes_copy(o, tk->base + f[0], f[1]);
        o += f[1];
        *o++ = '\t';
      }
    } else {
      vt_bytes_copy(o, b->bytes + ln->off, ln->len);
      o += ln->len;
      *o++ = sep;
    }
    size_t llen = 1;
    const char *lab = y ? vt_textmodel_label(m, y[ln->tok], &llen) : "_";
    vt_bytes_copy(o, lab, llen);
    o += llen;
    *o++ = '\n';
  }
  out->len = (size_t)(o - out->p);
  return 0;
}

/* Appends the lines of sentence `se` with the labels of path y (NULL: "_") after the byte `sep`
 * (0: the line's separator); with `marg` (T*L, verbose >= 1) each label gets its marginal, and
 * with verbose 2 every label of the model follows with its own. With `join` (tk: the sentence's
 * tokens) token lines are crf_test's: the columns joined by tabs, then the label. */
static int put_sentence(const vt_textmodel *m, const vt_sentbatch *b, const vt_sentence *se,
                        const vt_tokens *tk, const int32_t *y, const double *marg, int verbose,
                        char sep, int join, vt_textbuf *out) {
  if (!sep) sep = se->sep;
  if (!verbose) return put_plain(m, b, se, tk, y, sep, join, out);
  for (uint32_t l = se->line0; l < se->line0 + se->nlines; l++) {
    const vt_sentline *ln = &b->lines[l];
    size_t llen = 0;
    const char *lab = "_";
    if (ln->tok >= 0) {
      if (y)
        lab = vt_textmodel_label(m, y[ln->tok], &llen);
      else
        llen = 1;
    }
    if (join && ln->tok >= 0) {
      if (put_joined(tk, ln->tok, out) || vt_textbuf_reserve(out, llen + 2)) return -1;
    } else {
      if (vt_textbuf_reserve(out, (size_t)ln->len + llen + 2)) return -1;
      memcpy(out->p + out->len, b->bytes + ln->off, ln->len);
      out->len += ln->len;
      if (ln->tok >= 0) out->p[out->len++] = sep;
    }
    if (ln->tok >= 0) {
      memcpy(out->p + out->len, lab, llen);
      out->len += llen;
      if (verbose) {
        const double *mr = marg + (size_t)ln->tok * (size_t)m->L;
        if (put_prob(out, y ? mr[y[ln->tok]] : 0.0)) return -1;
        for (int32_t j = 0; verbose > 1 && j < m->L; j++) {
          const char *nm = vt_textmodel_label(m, j, &llen);
          if (vt_textbuf_reserve(out, llen + 1)) return -1;
          out->p[out->len++] = sep;
          memcpy(out->p + out->len, nm, llen);
          out->len += llen;
          if (put_prob(out, y ? mr[j] : 0.0)) return -1;
        }
      }
    }
    if (vt_textbuf_reserve(out, 1)) return -1;
    out->p[out->len++] = '\n';
  }
  return 0;
}

/* The probability exp(score - logz) of a path, at most 1. */
static double path_prob(double score, double logz) {
  double p = logz > -INFINITY ? exp(score - logz) : 0.0;
  return p > 1.0 ? 1.0 : p;
}

vt_status vt_text_tag_tokens(const vt_textmodel *m, const vt_decode_opts *opts,
                             const vt_text_conf *cf, vt_arena *arena, vt_rowcache *cache,
                             const vt_tokens *tk, int32_t *labels, double *scores, int32_t *n_paths,
                             double *marg, double *logz, const int32_t *path, double *path_score,
                             int32_t *bad, int *why, vt_tag_stats *stats) {
  const int32_t T = tk->T;
  double t0 = vt_clock_seconds();
  double *E = VT_ARENA_NEW(arena, double, (size_t)T *(size_t)m->L);
  if (!E) return VT_ENOMEM;
  vt_obs_lattice lat;
  vt_status st = vt_text_emissions(m, tk, arena, E, m->obs_bigram ? &lat : NULL, cache, stats);
  if (st != VT_OK) return st;
  if (cf && cf->cons) {
    double *tmp = VT_ARENA_NEW(arena, double, (size_t)m->L);
    if (!tmp) return VT_ENOMEM;
    if ((st = vt_constraints_apply(cf->cons, tk, E, tmp, bad, why)) != VT_OK) return st;
  }
  double t1 = vt_clock_seconds();
  if (m->obs_bigram)
    st = vt_obs_decode(&lat, opts, arena, labels, scores, n_paths, stats ? &stats->decode : NULL);
  else
    st = vt_decode_cancelable(m->trans, opts, cf ? cf->cancel : NULL, arena, E, T, labels, scores,
                              n_paths, stats ? &stats->decode : NULL);
  if (st == VT_OK && logz)
    st = m->obs_bigram ? VT_EUNSUPPORTED : vt_posteriors(m->trans, arena, E, T, marg, logz);
  if (st == VT_OK && path) {
    if (m->obs_bigram)
      st = VT_EUNSUPPORTED;
    else
      *path_score = vt_path_score(m->trans, E, T, path);
  }
  if (stats) {
    double t2 = vt_clock_seconds();
    stats->feature_seconds += t1 - t0;
    stats->decode_seconds += t2 - t1;
  }
  return st;
}

vt_status vt_text_tag_batch(const vt_textmodel *m, const vt_decode_opts *opts,
                            const vt_text_conf *cf, vt_arena *arena, vt_rowcache *cache,
                            const vt_sentbatch *b, int32_t s0, int32_t s1, vt_textbuf *out,
                            vt_tag_stats *stats, char *err, size_t errlen) {
  const int32_t k = opts->k;
  const int verbose = cf ? cf->verbose : 0;
  const char sep = cf ? (char)cf->label_sep : 0;
  if (m->obs_bigram && !vt_obs_algo_supported(opts->algo)) {
    vt_errorf(err, errlen, NULL,
              "--algo %s: this model has observation-dependent bigram "
              "templates; use viterbi, viterbi-scalar, kbest-viterbi or beam",
              vt_algo_name(opts->algo));
    return VT_EUNSUPPORTED;
  }
  const int crfpp = cf && cf->crfpp_search && (k > 1 || verbose);
  const int join = cf && cf->join_tabs;
  if (m->obs_bigram && verbose && !crfpp) {
    vt_errorf(err, errlen, NULL,
              "marginals (-v) need a model without observation-dependent bigram templates");
    return VT_EUNSUPPORTED;
  }
  for (int32_t s = s0; s < s1; s++) {
    const vt_sentence *se = &b->sents[s];
    const int32_t T = se->T;
    /* A canceled run stops at the next sentence, features included, not only inside a search. */
    if (cf && cf->cancel && atomic_load_explicit(cf->cancel, memory_order_relaxed))
      return VT_ECANCELED;
    vt_status st = vt_text_check(m, b, s, err, errlen);
    if (st != VT_OK) return st;
    vt_arena_reset(arena);
    int32_t np = 0, bad = 0;
    int why = 0;
    int32_t *labels = NULL;
    double *scores = NULL, *marg = NULL, logz = 0.0;
    vt_tokens tk;
    vt_sentbatch_tokens(b, s, &tk);
    if (T > 0) {
      labels = VT_ARENA_NEW(arena, int32_t, (size_t)T * k);
      scores = VT_ARENA_NEW(arena, double, k);
      if (verbose) marg = VT_ARENA_NEW(arena, double, (size_t)T *(size_t)m->L);
      if (!labels || !scores || (verbose && !marg)) goto nomem;
      if (crfpp) { /* scores: crf_test's path probabilities */
        double t0 = vt_clock_seconds();
        st = vt_crfpp_search(m, &tk, k, arena, labels, &np, scores, marg);
        if (stats) stats->decode_seconds += vt_clock_seconds() - t0;
      } else {
        st = vt_text_tag_tokens(m, opts, cf, arena, cache, &tk, labels, scores, &np, marg,
                                verbose ? &logz : NULL, NULL, NULL, &bad, &why, stats);
      }
      if (st == VT_ENOMEM) goto nomem;
      if (st == VT_EFORMAT && why) {
        size_t f = ((size_t)bad * (size_t)tk.ncols + (size_t)cf->cons->partial_col) * 2;
        if (why == 1)
          vt_errorf(err, errlen, NULL, "%s:%llu: no column %d for partial labels (%d columns)",
                    se->file, (unsigned long long)vt_sentbatch_lineno(b, s, bad),
                    cf->cons->partial_col, tk.ncols);
        else if (why == 3)
          vt_errorf(err, errlen, NULL, "%s:%llu: no column %d for dictionary words (%d columns)",
                    se->file, (unsigned long long)vt_sentbatch_lineno(b, s, bad),
                    cf->cons->word_col, tk.ncols);
        else
          vt_errorf(err, errlen, NULL, "%s:%llu: partial label '%.*s' is not a label of the model",
                    se->file, (unsigned long long)vt_sentbatch_lineno(b, s, bad),
                    (int)(tk.fields[f + 1] > 64 ? 64 : tk.fields[f + 1]), tk.base + tk.fields[f]);
        return st;
      }
      if (st == VT_ECANCELED) return st; /* the engine run was canceled: no message */
      if (st != VT_OK) {
        vt_errorf(err, errlen, NULL, "%s:%llu: decoding failed: %s", se->file,
                  (unsigned long long)vt_sentbatch_lineno(b, s, 0), vt_strerror(st));
        return st;
      }
    }
    if (T == 0 || (k == 1 && !verbose)) {
      if (put_sentence(m, b, se, &tk, np > 0 ? labels : NULL, marg, verbose, sep, join, out))
        goto nomem;
    } else {
      for (int32_t p = 0; p < (np > 0 ? np : 1); p++) {
        const double prob = np <= 0 ? 0.0 : crfpp ? scores[p] : path_prob(scores[p], logz);
        if (vt_textbuf_reserve(out, 64)) goto nomem;
        if (!verbose && !crfpp)
          out->len += (size_t)snprintf(out->p + out->len, 64, "# %d %.9g\n", p,
                                       np > 0 ? scores[p] : -INFINITY);
        else if (k == 1)
          out->len += (size_t)snprintf(out->p + out->len, 64, "# %f\n", prob);
        else
          out->len += (size_t)snprintf(out->p + out->len, 64, "# %d %f\n", p, prob);
        if (put_sentence(m, b, se, &tk, np > 0 ? labels + (size_t)p * T : NULL, marg, verbose, sep,
                         join, out))
          goto nomem;
        if (p + 1 < np) {
          if (vt_textbuf_reserve(out, 1)) goto nomem;
          out->p[out->len++] = '\n';
        }
      }
    }
    if (vt_textbuf_reserve(out, 1)) goto nomem;
    out->p[out->len++] = '\n';
  }
  return VT_OK;
nomem:
  vt_errorf(err, errlen, NULL, "out of memory while tagging");
  return VT_ENOMEM;
}
