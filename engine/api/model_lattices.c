/* engine/api/model_lattices.c: vt_model_write_lattices (vitesse.h), the score lattices a tagger
 * model gives a corpus, written as the .npy files `vitesse decode` reads. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc/arena.h"
#include "api/model_impl.h"
#include "core/errmsg.h"
#include "io/conll.h"
#include "io/npy.h"
#include "text/batch_tag.h"

typedef struct grow_buf {
  void *p;
  size_t len, cap; /* bytes */
} grow_buf;

static int buf_add(grow_buf *g, const void *src, size_t n) {
  if (g->len + n > g->cap) {
    size_t cap = g->cap ? g->cap : (1u << 20);
    while (cap < g->len + n) cap *= 2;
    void *np = realloc(g->p, cap);
    if (!np) return -1;
    g->p = np;
    g->cap = cap;
  }
  memcpy((char *)g->p + g->len, src, n);
  g->len += n;
  return 0;
}

typedef struct lattice_ctx {
  const vt_textmodel *m;
  vt_arena *arena;
  grow_buf *E, *N;
} lattice_ctx;

/* Appends the lattices of the sentences of one batch. */
static vt_status add_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  lattice_ctx *x = ctx;
  const vt_textmodel *m = x->m;
  vt_status st = VT_OK;
  for (int32_t s = 0; s < b->n_sents && st == VT_OK; s++) {
    const int32_t T = b->sents[s].T;
    if (T == 0) continue;
    if ((st = vt_text_check(m, b, s, err, errlen)) != VT_OK) break;
    vt_arena_reset(x->arena);
    vt_tokens tk;
    vt_sentbatch_tokens(b, s, &tk);
    double *e = VT_ARENA_NEW(x->arena, double, (size_t)T * m->L);
    float *f = VT_ARENA_NEW(x->arena, float, (size_t)T * m->L);
    st = e && f ? vt_text_emissions(m, &tk, x->arena, e, NULL, NULL, NULL) : VT_ENOMEM;
    if (st != VT_OK) break;
    for (size_t i = 0; i < (size_t)T * m->L; i++) f[i] = (float)e[i];
    int64_t len = T;
    if (buf_add(x->E, f, (size_t)T * m->L * sizeof *f) || buf_add(x->N, &len, sizeof len)) {
      st = VT_ENOMEM;
      snprintf(err, errlen, "out of memory");
    }
  }
  return st;
}

vt_status vt_model_write_lattices(const vt_model *mdl, const vt_tag_opts *o,
                                  const char *const *files, int n_files, const char *dir,
                                  vt_run_report *rep) {
  char err[VT_ERR_LINE], path[4096];
  vt_status st = VT_ENOMEM;
  vt_arena *arena = NULL;
  grow_buf E = {0}, N = {0};
  float *tf = NULL;
  int32_t *R = NULL;
  vt_run_report local;
  vt_reader_opts ro;
  vt_tag_opts dflt;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  if (!o) {
    vt_tag_opts_init(&dflt);
    o = &dflt;
  }
  const vt_textmodel *m = vt_kind_features(mdl);
  if (!m)
    return vt_fail(VT_EUNSUPPORTED, "%s: only a tagger model has score lattices of this form",
                   mdl->name);
  if (m->obs_bigram)
    return vt_fail(VT_EUNSUPPORTED,
                   "%s: observation-dependent bigram templates make transitions depend on the "
                   "position; such a model has no single A.npy",
                   mdl->name);
  if (n_files < 1) return vt_fail(VT_EINVAL, "lattice: no corpus file");
  vt_model_reader(mdl, o, &ro);
  if (vt_arena_create(&arena, 0) != VT_OK) goto done;
  lattice_ctx x = {m, arena, &E, &N};
  for (int i = 0; i < n_files; i++) {
    st = vt_conll_each(files[i], &ro, add_batch, &x, err, sizeof err);
    if (st != VT_OK) goto done;
  }
  st = VT_EIO;
  rep->write_errno = EIO; /* from here on a failure is the output's */
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    snprintf(err, sizeof err, "%s: cannot create directory: %s", dir, strerror(errno));
    goto done;
  }
  st = VT_ENOMEM;
  const int32_t L = m->L;
  size_t LL = (size_t)L * (size_t)L;
  tf = malloc((LL + 2 * (size_t)L) * sizeof *tf);
  R = malloc((size_t)L * sizeof *R);
  if (!tf || !R) goto done;
  for (size_t i = 0; i < LL; i++) tf[i] = (float)m->A[i];
  for (int32_t y = 0; y < L; y++) {
    tf[LL + (size_t)y] = (float)m->S[y];
    tf[LL + (size_t)L + (size_t)y] = (float)m->F[y];
    R[y] = m->rank[y];
  }
  int64_t n_sent = (int64_t)(N.len / sizeof(int64_t));
  int64_t shapeE[2] = {(int64_t)(E.len / sizeof(float) / (size_t)L), L}, shapeN[1] = {n_sent};
  int64_t shapeA[2] = {L, L}, shapeL[1] = {L};
  struct {
    const char *name;
    vt_npy_dtype dt;
    int ndim;
    const int64_t *shape;
    const void *data;
  } out[] = {
      {"E.npy", VT_NPY_F32, 2, shapeE, E.p},         {"N.npy", VT_NPY_I64, 1, shapeN, N.p},
      {"A.npy", VT_NPY_F32, 2, shapeA, tf},          {"S.npy", VT_NPY_F32, 1, shapeL, tf + LL},
      {"F.npy", VT_NPY_F32, 1, shapeL, tf + LL + L}, {"R.npy", VT_NPY_I32, 1, shapeL, R}};
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, out[i].name);
    st = (vt_status)vt_npy_write(path, out[i].dt, out[i].ndim, out[i].shape, out[i].data, err,
                                 sizeof err);
    if (st != VT_OK) goto done;
  }
  st = VT_EIO; /* labels.txt: one name per line, label 0 first (decode --labels) */
  snprintf(path, sizeof path, "%s/labels.txt", dir);
  FILE *lf = fopen(path, "wb");
  for (int32_t y = 0; lf && y < L; y++) fprintf(lf, "%s\n", vt_model_label_name(mdl, y));
  if (!lf || ferror(lf) | fclose(lf)) {
    snprintf(err, sizeof err, "%.400s: cannot write: %s", path, strerror(errno));
    goto done;
  }
  rep->sentences = n_sent;
  rep->tokens = shapeE[0];
  rep->write_errno = 0;
  st = VT_OK;
done:
  if (st == VT_ENOMEM)
    vt_fail(st, "lattice: out of memory");
  else if (st != VT_OK)
    vt_fail(st, "%s", err);
  vt_arena_destroy(arena);
  free(E.p);
  free(N.p);
  free(tf);
  free(R);
  return st;
}
