/* engine/train/pipeline_crfpp.c: crf_learn from start to model file (pipeline.h), behind the
 * public vt_crfpp_learn and vt_crfpp_convert of engine/api/crfpp_learn.c: the templates checked as
 * CRF++ reads them, the corpus compiled by the template trainer's machinery (train_corpus.h: one
 * feature id per unigram string, in order of first appearance), the weights trained with CRF++'s
 * objective (crfpp_train.h), then laid out in CRF++'s weight ids (labels sorted bytewise; a unigram
 * string owns L weights, the plain bigram L * L; ids in order of first appearance, or of the sorted
 * strings once -f drops some, as crf_learn numbers them) and written as CRF++'s binary model (and
 * text model) by crfpp_write.h. Templates whose bigrams are more than one plain B line (B lines
 * with macros, several B lines), and MIRA, train on the problem in crf_learn's own ids
 * (crfpp_problem.h), every B line's strings features of their own. Failures come back as a status
 * and one line in `why`. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/outfile.h"
#include "io/readall.h"
#include "models/crfpp_write.h"
#include "train/corpus_src.h"
#include "train/crf_tmpl.h"
#include "train/crfpp_mira.h"
#include "train/crfpp_problem.h"
#include "train/crfpp_train.h"
#include "train/pipeline.h"
#include "train/train_corpus.h"
#include "vitesse.h"

#define MAX_TEMPLATE_BYTES ((size_t)64 << 20)

/* The template lines as crf_learn reads them: empty lines and those starting with '#' skipped,
 * every other one a `U` or a `B` line (trailing blanks and CR dropped, as vitesse's expansion
 * drops them); U lines to u[], B lines to b[] (pointers into text, cut in place). */
typedef struct tmpl_lines {
  char **u, **b;
  int32_t n_u, n_b;
} tmpl_lines;

static vt_status tmpl_lines_read(tmpl_lines *t, char *text, size_t len, const char *name, char *why,
                                 size_t whylen) {
  memset(t, 0, sizeof *t);
  size_t n_lines = 1;
  for (size_t i = 0; i < len; i++) n_lines += text[i] == '\n';
  t->u = malloc(n_lines * sizeof *t->u);
  t->b = malloc(n_lines * sizeof *t->b);
  if (!t->u || !t->b) return vt_fail_into(why, whylen, VT_ENOMEM, "%s: out of memory", name);
  char *p = text, *end = text + len;
  for (uint64_t no = 1; p < end; no++) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *e = nl ? nl : end;
    char *s = p;
    p = nl ? nl + 1 : end;
    while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
    *e = '\0';
    if (s == e || s[0] == '#') continue;
    if (s[0] == 'U') {
      t->u[t->n_u++] = s;
    } else if (s[0] == 'B') {
      t->b[t->n_b++] = s;
    } else {
      return vt_fail_into(why, whylen, VT_EFORMAT,
                          "%s:%llu: a template line starts with U or B, not '%c'", name,
                          (unsigned long long)no, s[0]);
    }
  }
  return VT_OK;
}

/* Checks that every macro of ts is one crf_learn expands: %x[row,col] with row in -8..8 (CRF++'s
 * context; crf_learn stops on any other, and crf_test would refuse the model). Returns VT_OK or
 * VT_EFORMAT ("NAME:LINE: ..." in why). */
static vt_status macros_check(const vt_tmplset *ts, const char *name, char *why, size_t whylen) {
  for (int32_t i = 0; i < ts->n; i++) {
    const vt_tmpl *tm = &ts->t[i];
    for (uint32_t k = 0; k < tm->n; k++) {
      const vt_tmpl_item *it = &ts->items[tm->item0 + k];
      if (it->kind == VT_TI_LIT) continue;
      if (it->kind != VT_TI_X || it->caps || it->abs)
        return vt_fail_into(why, whylen, VT_EFORMAT,
                            "%s:%d: crf_learn's templates have %%x[row,col] macros only", name,
                            tm->line);
      if (it->row < -8 || it->row > 8)
        return vt_fail_into(why, whylen, VT_EFORMAT,
                            "%s:%d: the row %d is outside crf_learn's -8..8", name, tm->line,
                            it->row);
    }
  }
  return VT_OK;
}

static vt_status compile_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  void **x = ctx;
  return vt_trainset_compile(x[0], x[1], b, err, errlen);
}

/* Whether label x sorts before label y, bytewise (std::string's order, as crf_learn's set). */
static int label_less(const vt_featdict *labels, int32_t x, int32_t y) {
  size_t lx, ly;
  const char *sx = vt_featdict_str(labels, x, &lx);
  const char *sy = vt_featdict_str(labels, y, &ly);
  const int c = memcmp(sx, sy, lx < ly ? lx : ly);
  return c ? c < 0 : lx < ly;
}

/* The labels sorted by name, bytewise: order[i] is the i-th, rank[y] label y's place (both
 * malloc'd). Returns 0 or -1 (no memory). */
static int label_ranks(const vt_featdict *labels, int32_t L, int32_t **order, int32_t **rank) {
  const size_t Ls = (size_t)(L ? L : 1);
  *order = malloc(Ls * sizeof **order);
  *rank = malloc(Ls * sizeof **rank);
  if (!*order || !*rank) return -1;
  for (int32_t y = 0; y < L; y++) { /* insertion sort: labels are few, and no global state */
    int32_t i = y;
    for (; i > 0 && label_less(labels, y, (*order)[i - 1]); i--) (*order)[i] = (*order)[i - 1];
    (*order)[i] = y;
  }
  for (int32_t i = 0; i < L; i++) (*rank)[(*order)[i]] = i;
  return 0;
}

/* Starts the image of a model over d's L labels (label i is order[i]) and tl's templates with
 * room for n_keys features: header, labels and templates filled, keys, key_lens and ids
 * allocated. Returns 0 or -1 (no memory). */
static int image_start(vt_crfpp_image *img, const vt_trainset *d, const tmpl_lines *tl, int32_t L,
                       int64_t n_keys, const int32_t *order) {
  const size_t Ls = (size_t)L;
  memset(img, 0, sizeof *img);
  /* crf_learn writes the columns before the label, or fewer: one past the last a macro reads */
  img->xsize = (uint32_t)(d->ncols - 1);
  if (d->ts->max_col >= 0 && (uint32_t)d->ts->max_col + 1 < img->xsize)
    img->xsize = (uint32_t)d->ts->max_col + 1;
  img->cost_factor = 1;
  img->L = L;
  img->n_tmpl = tl->n_u + tl->n_b;
  img->n_keys = n_keys;
  const size_t nk = (size_t)(img->n_keys ? img->n_keys : 1);
  img->labels = malloc((Ls ? Ls : 1) * sizeof *img->labels);
  img->tmpl = malloc((size_t)(img->n_tmpl ? img->n_tmpl : 1) * sizeof *img->tmpl);
  img->keys = malloc(nk * sizeof *img->keys);
  img->key_lens = malloc(nk * sizeof *img->key_lens);
  img->ids = malloc(nk * sizeof *img->ids);
  size_t lab_bytes = 0;
  for (int32_t y = 0; y < L; y++) {
    size_t l;
    vt_featdict_str(&d->labels, y, &l);
    lab_bytes += l + 1;
  }
  img->arena = malloc(lab_bytes ? lab_bytes : 1);
  if (!img->labels || !img->tmpl || !img->keys || !img->key_lens || !img->ids || !img->arena)
    return -1;
  char *lp = img->arena;
  for (int32_t i = 0; i < L; i++) {
    size_t l;
    const char *s = vt_featdict_str(&d->labels, order[i], &l);
    memcpy(lp, s, l);
    lp[l] = '\0';
    img->labels[i] = lp;
    lp += l + 1;
  }
  for (int32_t i = 0; i < tl->n_u; i++) img->tmpl[i] = tl->u[i];
  for (int32_t i = 0; i < tl->n_b; i++) img->tmpl[tl->n_u + i] = tl->b[i];
  return 0;
}

/* Builds the image of the trained weights w (over f, whose label y is order[y]) in CRF++'s ids.
 * Returns VT_OK or VT_ENOMEM (its line in why). */
static vt_status image_build(vt_crfpp_image *img, const vt_trainset *d, const vt_tcorpus *tc,
                             const tmpl_lines *tl, const vt_crf_feats *f, const double *w,
                             int32_t freq, int with_b, const int32_t *order, char *why,
                             size_t whylen) {
  const int32_t L = f->L, A = f->n_attr;
  const size_t Ls = (size_t)L;
  if (image_start(img, d, tl, L, (int64_t)A + with_b, order)) goto nomem;
  for (int32_t a = 0; a < A; a++) {
    img->keys[a] = (char *)vt_featdict_str(&d->feats, d->dict_of[a], &img->key_lens[a]);
    img->ids[a] = -1;
  }
  if (with_b) {
    img->keys[A] = tl->b[0];
    img->key_lens[A] = strlen(tl->b[0]);
    img->ids[A] = -1;
  }
  const int64_t wU = L, wB = (int64_t)L * L;
  int64_t next = 0;
  if (freq <= 1) { /* crf_learn's order: a sentence's unigram strings, then its bigram */
    for (int64_t s = 0; s < tc->n_sent; s++) {
      for (int64_t t = tc->sent_off[s]; t < tc->sent_off[s + 1]; t++)
        for (int32_t k = 0; k < tc->n_u; k++) {
          const int32_t a = tc->ufeat[t * tc->n_u + k];
          if (a >= 0 && img->ids[a] < 0) {
            img->ids[a] = (int32_t)next;
            next += wU;
          }
        }
      if (with_b && img->ids[A] < 0 && tc->sent_off[s + 1] - tc->sent_off[s] >= 2) {
        img->ids[A] = (int32_t)next;
        next += wB;
      }
    }
    if (vt_crfpp_keys_sort(img->keys, img->key_lens, img->ids, img->n_keys)) goto nomem;
  } else { /* after crf_learn's shrink: in the order of the sorted strings */
    if (vt_crfpp_keys_sort(img->keys, img->key_lens, img->ids, img->n_keys)) goto nomem;
    for (int64_t k = 0; k < img->n_keys; k++) {
      img->ids[k] = (int32_t)next;
      next += img->keys[k][0] == 'B' ? wB : wU;
    }
  }
  img->maxid = (uint32_t)next;
  if (!(img->w = calloc((size_t)(next ? next : 1), sizeof *img->w))) goto nomem;
  for (int64_t k = 0; k < img->n_keys; k++) {
    const int64_t id = img->ids[k];
    if (img->keys[k][0] == 'B') {
      for (size_t i = 0; i < Ls * Ls; i++) img->w[id + (int64_t)i] = w[f->tr_id[i]];
      continue;
    }
    /* the attribute of this key: its dictionary id's weight id */
    const int32_t did = vt_featdict_find(&d->feats, img->keys[k], img->key_lens[k]);
    const int32_t a = did >= 0 ? d->remap[did] : -1;
    if (a < 0) continue;
    for (int32_t y = 0; y < L; y++) img->w[id + y] = w[f->st_off[a] + y];
  }
  return VT_OK;
nomem:
  return vt_fail_into(why, whylen, VT_ENOMEM, "crf_learn: out of memory");
}

/* Builds the image of weights *w, trained in crf_learn's ids (ids[k] the first of weight id k's,
 * maxid in all), taking *w (set to NULL). Returns VT_OK or VT_ENOMEM (its line in why). */
static vt_status image_build_ids(vt_crfpp_image *img, const vt_trainset *d, const tmpl_lines *tl,
                                 int32_t L, const int32_t *ids, int64_t maxid, double **w,
                                 const int32_t *order, char *why, size_t whylen) {
  const int32_t n = d->n_weights;
  if (image_start(img, d, tl, L, n, order))
    return vt_fail_into(why, whylen, VT_ENOMEM, "crf_learn: out of memory");
  for (int32_t a = 0; a < n; a++) {
    img->keys[a] = (char *)vt_featdict_str(&d->feats, d->dict_of[a], &img->key_lens[a]);
    img->ids[a] = ids[a];
  }
  if (vt_crfpp_keys_sort(img->keys, img->key_lens, img->ids, img->n_keys))
    return vt_fail_into(why, whylen, VT_ENOMEM, "crf_learn: out of memory");
  img->maxid = (uint32_t)maxid;
  img->w = *w;
  *w = NULL;
  return VT_OK;
}

/* Writes the image to path, binary or text, atomically. */
static vt_status image_write(const vt_crfpp_image *img, const char *path, int text, vt_outfile *of,
                             char *why, size_t whylen) {
  char err[VT_ERR_LINE];
  vt_status st = vt_outfile_open(of, path, err, sizeof err);
  if (st != VT_OK) return vt_fail_into(why, whylen, st, "%s", err);
  st = text ? vt_crfpp_write_text(of->fp, img, err, sizeof err)
            : vt_crfpp_write_binary(of->fp, img, err, sizeof err);
  if (st != VT_OK) {
    vt_outfile_abort(of);
    return vt_fail_into(why, whylen, st, "%s: %s", path, err);
  }
  return VT_OK;
}

vt_status vt_pipeline_crfpp_learn(const char *templates, const char *train, const char *model,
                                  const vt_crfpp_learn_opts *o, vt_crfpp_learn_report *r, char *why,
                                  size_t whylen) {
  vt_status st = VT_OK;
  vt_crfpp_learn_report rep;
  memset(&rep, 0, sizeof rep);
  if (!r) r = &rep;
  memset(r, 0, sizeof *r);
  char err[VT_ERR_LINE];
  char *text = NULL, *txt_path = NULL;
  size_t text_len = 0;
  tmpl_lines tl;
  memset(&tl, 0, sizeof tl);
  vt_tmplset ts;
  memset(&ts, 0, sizeof ts);
  vt_trainset d;
  memset(&d, 0, sizeof d);
  int d_init = 0;
  vt_tcorpus tc;
  memset(&tc, 0, sizeof tc);
  vt_crf_data td;
  memset(&td, 0, sizeof td);
  vt_crf_feats f;
  memset(&f, 0, sizeof f);
  vt_crfpp_image img;
  memset(&img, 0, sizeof img);
  vt_outfile of_bin, of_txt;
  memset(&of_bin, 0, sizeof of_bin);
  memset(&of_txt, 0, sizeof of_txt);
  double *w = NULL;
  int32_t *order = NULL, *rank = NULL, *cids = NULL;
  vt_crfpp_problem P;
  memset(&P, 0, sizeof P);
  if (!templates || !train || !model || !o)
    return vt_fail_into(why, whylen, VT_EINVAL,
                        "crf_learn: a template file, a training file and a model file");
  if (o->freq < 0 || o->maxiter < 0 || !(o->cost > 0) || !isfinite(o->cost) || !(o->eta > 0) ||
      !isfinite(o->eta) || o->threads < 0 || o->shrinking_size < 0 ||
      (o->algorithm != VT_CRFPP_L2 && o->algorithm != VT_CRFPP_L1 && o->algorithm != VT_CRFPP_MIRA))
    return vt_fail_into(why, whylen, VT_EINVAL,
                        "crf_learn: freq and maxiter >= 0, cost and eta > 0, threads and "
                        "shrinking_size >= 0 and the algorithm CRF-L2, CRF-L1 or MIRA");
  if ((st = vt_read_file(templates, MAX_TEMPLATE_BYTES, &text, &text_len, why, whylen)) != VT_OK)
    return st;
  /* vitesse's parser reads its own copy; the lines are cut in place for the model file. One plain
   * B line at most is the transition matrix of the CRF trainer; other bigram templates, and MIRA,
   * train on the problem in crf_learn's ids, every B line a template of its own */
  if ((st = vt_tmplset_parse_crfpp(&ts, text, text_len, templates, err, sizeof err)) != VT_OK) {
    st = vt_fail_into(why, whylen, st, "%s", err);
    goto done;
  }
  const int general = o->algorithm == VT_CRFPP_MIRA || ts.n_b > 1 ||
                      (ts.n_b == 1 && ts.t[ts.b_idx[0]].n_macros > 0);
  if (!general) {
    vt_tmplset_free(&ts);
    if ((st = vt_tmplset_parse(&ts, text, text_len, templates, err, sizeof err)) != VT_OK) {
      st = vt_fail_into(why, whylen, st, "%s", err);
      goto done;
    }
  }
  if ((st = macros_check(&ts, templates, why, whylen)) != VT_OK ||
      (st = tmpl_lines_read(&tl, text, text_len, templates, why, whylen)) != VT_OK)
    goto done;
  if (tl.n_u != ts.n_u ||
      (general ? ts.n_b != tl.n_b : ts.n_b != 0 || ts.plain_bigram != (tl.n_b > 0))) {
    st = vt_fail_into(why, whylen, VT_EFORMAT, "%s: templates that are not CRF++'s", templates);
    goto done;
  }
  if (vt_trainset_init(&d, &ts, -1) != VT_OK) goto nomem;
  d_init = 1;
  const char *files[1] = {train};
  vt_corpus_src src;
  memset(&src, 0, sizeof src);
  src.files = files;
  src.n_files = 1;
  vt_reader_opts ro;
  vt_reader_opts_init(&ro);
  void *cctx[2] = {&d, &tc};
  if ((st = vt_corpus_src_each(&src, &ro, compile_batch, cctx, err, sizeof err)) != VT_OK) {
    st = vt_fail_into(why, whylen, st, "%s", err);
    goto done;
  }
  if (tc.n_sent == 0) {
    st = vt_fail_into(why, whylen, VT_EFORMAT, "%s: no sentence to train on", train);
    goto done;
  }
  if (d.ncols < 2) {
    st = vt_fail_into(why, whylen, VT_EFORMAT,
                      "%s: one column: a token needs a column before its label", train);
    goto done;
  }
  const uint32_t min_count = o->freq > 1 ? (uint32_t)o->freq : 1;
  const int64_t b_count = tc.n_tok - tc.n_sent; /* positions 1.. of every sentence */
  const int with_b = tl.n_b > 0 && b_count >= (int64_t)min_count;
  if (vt_trainset_freeze(&d, &tc, min_count) != VT_OK) goto nomem;
  const int32_t L = d.labels.n;
  int64_t maxid = (int64_t)d.n_weights * L + (with_b ? (int64_t)L * L : 0);
  if (general) {
    if (!(cids = malloc((size_t)(d.n_weights ? d.n_weights : 1) * sizeof *cids))) goto nomem;
    if (vt_crfpp_ids(&d, &tc, L, o->freq, cids, &maxid) == VT_ENOMEM) goto nomem;
  }
  if (maxid > INT32_MAX) {
    st = vt_fail_into(why, whylen, VT_EINVAL,
                      "crf_learn: %lld weights: CRF++'s model holds at most %d", (long long)maxid,
                      INT32_MAX);
    goto done;
  }
  if (label_ranks(&d.labels, L, &order, &rank)) goto nomem;
  /* the problem's labels in crf_learn's order: its weights are then laid out as the model's,
   * and Viterbi's ties go to the same label as crf_learn's */
  if (general) {
    for (int64_t t = 0; t < tc.n_tok; t++) tc.gold[t] = rank[tc.gold[t]];
    vt_crfpp_problem_from(&P, &tc, cids, L, maxid);
  } else {
    if (vt_crf_from_tcorpus(&td, &tc, L, d.n_weights) != VT_OK ||
        vt_crfpp_feats(&f, d.n_weights, L, with_b) != VT_OK)
      goto nomem;
    for (int64_t t = 0; t < td.n_tok; t++) td.gold[t] = rank[td.gold[t]];
  }
  r->sentences = tc.n_sent;
  r->tokens = tc.n_tok;
  r->labels = L;
  r->features = maxid;
  r->threads = o->threads;
  /* see now, not after training, that the model cannot be written */
  if ((st = vt_outfile_probe(model, err, sizeof err)) != VT_OK) {
    st = vt_fail_into(why, whylen, st, "%s", err);
    goto done;
  }
  if (o->text_model) {
    const size_t ml = strlen(model);
    if (!(txt_path = malloc(ml + 5))) goto nomem;
    memcpy(txt_path, model, ml);
    memcpy(txt_path + ml, ".txt", 5);
    if ((st = vt_outfile_probe(txt_path, err, sizeof err)) != VT_OK) {
      st = vt_fail_into(why, whylen, st, "%s", err);
      goto done;
    }
  }
  if (o->on_start) o->on_start(o->ctx, r);
  const int64_t n_w = general ? maxid : f.n;
  if (!(w = calloc((size_t)(n_w ? n_w : 1), sizeof *w))) goto nomem;
  st = !general                        ? vt_crfpp_train(&td, &f, w, o, r, err, sizeof err)
       : o->algorithm == VT_CRFPP_MIRA ? vt_crfpp_mira(&P, w, o, r, err, sizeof err)
                                       : vt_crfpp_train_problem(&P, w, o, r, err, sizeof err);
  if (st != VT_OK) {
    st = vt_fail_into(why, whylen, st, "%s", err);
    goto done;
  }
  st = general ? image_build_ids(&img, &d, &tl, L, cids, maxid, &w, order, why, whylen)
               : image_build(&img, &d, &tc, &tl, &f, w, o->freq, with_b, order, why, whylen);
  if (st != VT_OK) goto done;
  if ((st = image_write(&img, model, 0, &of_bin, why, whylen)) != VT_OK) goto done;
  if (txt_path && (st = image_write(&img, txt_path, 1, &of_txt, why, whylen)) != VT_OK) goto done;
  if ((st = vt_outfile_commit(&of_bin, err, sizeof err)) != VT_OK ||
      (txt_path && (st = vt_outfile_commit(&of_txt, err, sizeof err)) != VT_OK))
    st = vt_fail_into(why, whylen, st, "%s", err);
  goto done;
nomem:
  st = vt_fail_into(why, whylen, VT_ENOMEM, "crf_learn: out of memory");
done:
  vt_outfile_abort(&of_bin);
  vt_outfile_abort(&of_txt);
  vt_crfpp_image_free(&img);
  free(order);
  free(rank);
  free(cids);
  free(w);
  vt_crf_feats_free(&f);
  vt_crf_data_free(&td);
  vt_tcorpus_free(&tc);
  if (d_init) vt_trainset_free(&d);
  vt_tmplset_free(&ts);
  free(tl.u);
  free(tl.b);
  free(text);
  free(txt_path);
  return st;
}

vt_status vt_pipeline_crfpp_convert(const char *text_path, const char *model, char *why,
                                    size_t whylen) {
  char err[VT_ERR_LINE];
  size_t len = 0;
  vt_crfpp_image img;
  vt_outfile of;
  memset(&of, 0, sizeof of);
  char *text = NULL;
  vt_status st = vt_read_file(text_path, 0, &text, &len, why, whylen);
  if (st != VT_OK) return st;
  st = vt_crfpp_read_text(&img, text, len, text_path, err, sizeof err);
  free(text);
  if (st != VT_OK) return vt_fail_into(why, whylen, st, "%s", err);
  if ((st = vt_outfile_open(&of, model, err, sizeof err)) != VT_OK) {
    st = vt_fail_into(why, whylen, st, "%s", err);
    goto done;
  }
  if ((st = vt_crfpp_write_binary(of.fp, &img, err, sizeof err)) != VT_OK ||
      (st = vt_outfile_commit(&of, err, sizeof err)) != VT_OK)
    st = vt_fail_into(why, whylen, st, "%s: %s", model, err);
done:
  vt_outfile_abort(&of);
  vt_crfpp_image_free(&img);
  return st;
}
