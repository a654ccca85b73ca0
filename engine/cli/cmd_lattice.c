/* engine/cli/cmd_lattice.c: `vitesse lattice`, the score lattices a model gives a corpus, as the
 * .npy files `vitesse decode` reads (E, N, A, S, F, R). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "cli.h"
#include "model_file.h"
#include "npy.h"
#include "tagger.h"
#include "text_cli.h"

static void lattice_usage(FILE *f) {
  fputs("usage: vitesse lattice -m MODEL -o DIR [corpus options] FILE...\n"
        "\n"
        "Writes the score lattices of the sentences of FILE... (- for stdin) under MODEL into\n"
        "DIR (created if missing): E.npy float32 (tokens, L) emissions, N.npy int64 sentence\n"
        "lengths, A.npy float32 (L, L) transitions, S.npy / F.npy float32 (L,) start and end\n"
        "scores, R.npy int32 (L,) labels by decreasing training frequency. Then:\n"
        "  vitesse decode --emissions DIR/E.npy --lengths DIR/N.npy --transitions DIR/A.npy \\\n"
        "     --start DIR/S.npy --end DIR/F.npy --rank DIR/R.npy --algo viterbi\n"
        "decodes them as vitesse tag would (E is rounded to float32).\n",
        f);
  fputs(VT_CORPUS_HELP, f);
}

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

/* Adds the lattices of every sentence of `path`; returns a CLI exit status. */
static int add_file(const vt_textmodel *m, const char *path, const vt_conll_opts *ro, vt_arena *arena,
                    grow_buf *E, grow_buf *N) {
  char err[512];
  lattice_ctx x = {m, arena, E, N};
  vt_status st = vt_cli_corpus_each(path, ro, add_batch, &x, err, sizeof err);
  if (st == VT_OK) return VT_EXIT_OK;
  vt_cli_error("%s", st == VT_ENOMEM ? "lattice: out of memory" : err);
  return st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
}

int vt_cmd_lattice(int argc, char **argv) {
  static const struct option longopts[] = {{"model", required_argument, 0, 'm'},
                                           {"output", required_argument, 0, 'o'},
                                           {"help", no_argument, 0, 'h'},
                                           VT_CORPUS_LONGOPTS,
                                           {0, 0, 0, 0}};
  const char *model_path = NULL, *dir = NULL;
  int rc = VT_EXIT_USAGE;
  vt_conll_opts ro;
  vt_cli_reader reader;
  vt_cli_reader_init(&reader);
  vt_textmodel *m = NULL;
  vt_arena *arena = NULL;
  grow_buf E = {0}, N = {0};
  float *tf = NULL;
  char err[512], path[4096];

  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "m:o:h", longopts, NULL)) != -1) {
    int h = vt_cli_reader_opt(&reader, c, optarg);
    if (h < 0) goto done;
    if (h > 0) continue;
    switch (c) {
    case 'm': model_path = optarg; break;
    case 'o': dir = optarg; break;
    case 'h':
      lattice_usage(stdout);
      rc = VT_EXIT_OK;
      goto done;
    default: lattice_usage(stderr); goto done;
    }
  }
  if (!model_path || !dir || optind == argc) {
    vt_cli_error("lattice: -m MODEL, -o DIR and at least one FILE are required");
    goto done;
  }
  int st = vt_textmodel_load(&m, model_path, err, sizeof err);
  if (st != VT_OK) {
    vt_cli_error("%s", err);
    rc = st == VT_ENOMEM ? VT_EXIT_FAIL : VT_EXIT_USAGE;
    goto done;
  }
  if (m->obs_bigram) {
    vt_cli_error("%s: observation-dependent bigram templates make transitions depend on the "
                 "position; such a model has no single A.npy",
                 model_path);
    goto done;
  }
  vt_cli_reader_for_model(&reader, m->meta.reader, &ro);
  rc = VT_EXIT_FAIL;
  if (vt_arena_create(&arena, 0) != VT_OK) goto nomem;
  for (int i = optind; i < argc; i++)
    if ((rc = add_file(m, argv[i], &ro, arena, &E, &N)) != VT_EXIT_OK) goto done;
  rc = VT_EXIT_FAIL;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    vt_cli_error("%s: cannot create directory: %s", dir, strerror(errno));
    goto done;
  }
  const int32_t L = m->L;
  size_t LL = (size_t)L * (size_t)L;
  tf = malloc((LL + 2 * (size_t)L) * sizeof *tf);
  int32_t *R = malloc((size_t)L * sizeof *R);
  if (!tf || !R) {
    free(R);
    goto nomem;
  }
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
  } files[] = {
      {"E.npy", VT_NPY_F32, 2, shapeE, E.p},         {"N.npy", VT_NPY_I64, 1, shapeN, N.p},
      {"A.npy", VT_NPY_F32, 2, shapeA, tf},          {"S.npy", VT_NPY_F32, 1, shapeL, tf + LL},
      {"F.npy", VT_NPY_F32, 1, shapeL, tf + LL + L}, {"R.npy", VT_NPY_I32, 1, shapeL, R}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
    if (vt_npy_write(path, files[i].dt, files[i].ndim, files[i].shape, files[i].data, err,
                     sizeof err) != VT_OK) {
      vt_cli_error("%s", err);
      free(R);
      goto done;
    }
  }
  free(R);
  fprintf(stderr, "vitesse lattice: %lld sentences, %lld tokens, %d labels -> %s/\n",
          (long long)n_sent, (long long)shapeE[0], L, dir);
  rc = VT_EXIT_OK;
  goto done;
nomem:
  vt_cli_error("lattice: out of memory");
  rc = VT_EXIT_FAIL;
done:
  vt_arena_destroy(arena);
  vt_textmodel_free(m);
  free(E.p);
  free(N.p);
  free(tf);
  return rc;
}
