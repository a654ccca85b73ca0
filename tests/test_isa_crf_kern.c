/* tests/test_isa_crf_kern.c: every level of the CRF forward-backward family
 * (engine/train/crf_kern_<level>.c) gives the scalar level's bits: marginals, alpha-hat, beta-hat,
 * Y, the scale sums, the losses and the sparse form's transition counts, on random batches of
 * 1 to 40 sequences over 2 to 300 labels, with dense transitions (BLAS) and with their sparse
 * form, and weights up to far past exp's range; and the plans' state-feature loops at every
 * level against the plain feature-by-feature order. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_isa.h"
#include "test_util.h"
#include "train/crf_data.h"
#include "train/crf_fb.h"
#include "train/crf_kern.h"
#include "train/crf_plan.h"
#include "train/crf_sparse.h"
#include "vitesse.h"

/* A random problem of n sequences of 1..maxT items over L labels (attributes 0..A-1). */
static void problem_make(vt_crf_data *d, test_rng *r, int32_t L, int32_t A, int64_t n, int maxT) {
  memset(d, 0, sizeof *d);
  d->L = L;
  d->n_attr = A;
  d->n_sent = n;
  int64_t cap = n * maxT;
  d->sent_off = malloc(((size_t)n + 1) * sizeof *d->sent_off);
  d->gold = malloc((size_t)cap * sizeof *d->gold);
  d->tok_off = malloc(((size_t)cap + 1) * sizeof *d->tok_off);
  d->attr = malloc((size_t)cap * 3 * sizeof *d->attr);
  d->sent_off[0] = d->tok_off[0] = 0;
  int64_t tok = 0, occ = 0;
  for (int64_t s = 0; s < n; s++) {
    int T = 1 + test_int(r, maxT);
    if (T > d->max_T) d->max_T = T;
    for (int t = 0; t < T; t++, tok++) {
      d->gold[tok] = test_int(r, L);
      for (int i = 0; i < 3; i++) d->attr[occ++] = test_int(r, A);
      d->tok_off[tok + 1] = occ;
    }
    d->sent_off[s + 1] = tok;
  }
  d->n_tok = tok;
}

/* The outputs of one run. */
typedef struct run_out {
  double *P, *Al, *Be, *Y, *S, *loss, *G; /* G: sparse or dense transition counts */
  int rc;
  int dense_off; /* dense counts that differ from the whole batch's product past rounding */
} run_out;

static void run_free(run_out *o) {
  free(o->P);
  free(o->Al);
  free(o->Be);
  free(o->Y);
  free(o->S);
  free(o->loss);
  free(o->G);
}

static double *dup(const double *p, size_t n) {
  double *q = malloc((n ? n : 1) * sizeof *q);
  memcpy(q, p, n * sizeof *q);
  return q;
}

/* Runs level `ops` on the batch of sequences 0..n-1 and copies its outputs. */
static run_out run_level(const vt_crf_kern_ops *ops, const vt_crf_data *d, const vt_crf_feats *f,
                         const double *w, int sparse) {
  run_out o;
  memset(&o, 0, sizeof o);
  vt_crf_batch b;
  memset(&b, 0, sizeof b);
  vt_crf_sparse sp;
  memset(&sp, 0, sizeof sp);
  const size_t LL = (size_t)f->L * (size_t)f->L;
  double *M = malloc(LL * sizeof *M), mA;
  vt_crf_batch_set(&b, d, 0, d->n_sent);
  if (sparse) {
    vt_crf_sparse_init(&sp, f);
    vt_crf_sparse_set(&sp, w, 1.0, &mA);
    o.G = calloc((size_t)sp.nnz + 1, sizeof *o.G);
  } else {
    vt_crf_trans_exp(f, w, 1.0, M, &mA);
    o.G = calloc(LL + 1, sizeof *o.G); /* the dense counts, summed a position at a time */
  }
  vt_crf_fb_scores(&b, d, f, w, 1.0);
  o.rc = ops->fb_batch(&b, d, f, w, 1.0, M, sparse ? &sp : NULL, mA, o.G);
  const size_t cells = (size_t)b.rows * (size_t)f->L;
  o.P = dup(b.P, cells);
  o.Al = dup(b.Al, cells);
  o.Be = dup(b.Be, cells);
  o.Y = dup(b.Y, cells);
  o.S = dup(b.S, (size_t)b.rows);
  o.loss = dup(b.loss, (size_t)b.nb);
  if (!sparse) { /* against the whole batch's product, alphahat^T Y over every row at once */
    double *GA = calloc(LL + 1, sizeof *GA);
    vt_crf_fb_trans_grad(&b, f->L, 0, f->L, GA);
    for (size_t i = 0; i < LL; i++)
      o.dense_off += fabs(o.G[i] - GA[i]) > 1e-12 * (1.0 + fabs(GA[i]));
    free(GA);
  }
  vt_crf_sparse_free(&sp);
  vt_crf_batch_free(&b);
  free(M);
  return o;
}

TEST(levels_equal_scalar) {
  test_rng r = {21};
  const int32_t Ls[] = {2, 5, 17, 64, 150, 300};
  for (int i = 0; i < 6; i++)
    for (int rep = 0; rep < 4; rep++) {
      vt_crf_data d;
      problem_make(&d, &r, Ls[i], 50, 1 + test_int(&r, 40), 1 + test_int(&r, 30));
      vt_crf_feats f;
      vt_crf_featgen gen = {0, rep & 1, (rep >> 1) & 1, NULL};
      vt_crf_feats_build(&f, &d, &gen, NULL);
      double *w = malloc((size_t)(f.n + 1) * sizeof *w);
      const double scale = rep == 3 ? 60.0 : 2.0;
      for (int64_t k = 0; k < f.n; k++) w[k] = scale * (2 * test_unit(&r) - 1);
      for (int sparse = 0; sparse < 2; sparse++) {
        run_out ref = run_level(&vt_crf_kern_scalar, &d, &f, w, sparse);
        const size_t cells = (size_t)d.n_tok * (size_t)f.L;
        int64_t nnz = sparse ? f.n_trans : (int64_t)f.L * f.L;
        EXPECT(ref.dense_off == 0, "L=%d rep %d: %d dense counts differ from the batch's product",
               Ls[i], rep, ref.dense_off);
        for (vt_simd lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
          if (!isa_level_runs(lv)) continue;
          const vt_crf_kern_ops *ops = vt_crf_kern_get(lv);
          REQUIRE(ops && ops->level == lv, "level %s has no table", vt_simd_name(lv));
          run_out o = run_level(ops, &d, &f, w, sparse);
          EXPECT(o.rc == ref.rc, "L=%d rep %d sparse %d %s: rc", Ls[i], rep, sparse,
                 vt_simd_name(lv));
          EXPECT(isa_same(o.P, ref.P, cells * 8) && isa_same(o.Al, ref.Al, cells * 8) &&
                     isa_same(o.Be, ref.Be, cells * 8) && isa_same(o.Y, ref.Y, cells * 8),
                 "L=%d rep %d sparse %d %s: the tables differ", Ls[i], rep, sparse,
                 vt_simd_name(lv));
          EXPECT(isa_same(o.S, ref.S, (size_t)d.n_tok * 8) &&
                     isa_same(o.loss, ref.loss, (size_t)d.n_sent * 8) &&
                     isa_same(o.G, ref.G, (size_t)nnz * 8),
                 "L=%d rep %d sparse %d %s: sums, losses or counts differ", Ls[i], rep, sparse,
                 vt_simd_name(lv));
          run_free(&o);
        }
        run_free(&ref);
      }
      free(w);
      vt_crf_feats_free(&f);
      vt_crf_data_free(&d);
    }
}

/* The plans' state-feature loops at every level against the feature-by-feature order written
 * out here: the state scores and the expected counts (with and without attribute values), bit
 * for bit, whether an attribute is taken densely (a level's choice) or not. */
TEST(plan_loops_equal_the_plain_order) {
  test_rng r = {33};
  const int32_t Ls[] = {2, 5, 17, 22, 64, 150};
  for (int i = 0; i < 6; i++)
    for (int rep = 0; rep < 4; rep++) {
      vt_crf_data d;
      problem_make(&d, &r, Ls[i], 12 + 40 * (rep & 1), 1 + test_int(&r, 40), 1 + test_int(&r, 30));
      if (rep >= 2) { /* attribute values */
        d.val = malloc((size_t)d.tok_off[d.n_tok] * sizeof *d.val);
        for (int64_t k = 0; k < d.tok_off[d.n_tok]; k++) d.val[k] = 4 * test_unit(&r) - 2;
      }
      vt_crf_feats f;
      vt_crf_featgen gen = {0, rep & 1, 0, NULL};
      vt_crf_feats_build(&f, &d, &gen, NULL);
      double *w = malloc((size_t)(f.n + 1) * sizeof *w);
      for (int64_t k = 0; k < f.n; k++) w[k] = 2 * test_unit(&r) - 1;
      vt_crf_batch b;
      memset(&b, 0, sizeof b);
      vt_crf_plan p;
      int64_t *count = calloc((size_t)d.n_attr, sizeof *count);
      REQUIRE(vt_crf_batch_set(&b, &d, 0, d.n_sent) == VT_OK &&
                  vt_crf_plan_make(&p, &b, &d, &f, count, d.val == NULL) == VT_OK,
              "plan");
      const size_t cells = (size_t)b.rows * (size_t)f.L;
      double *E0 = calloc(cells, sizeof *E0), *E = calloc(cells, sizeof *E);
      double *P = malloc((cells + VT_CRF_ROW_PAD) * sizeof *P);
      double *scratch = malloc(((size_t)f.L + 32) * sizeof *scratch);
      double *g0 = calloc((size_t)f.n + 1, sizeof *g0), *g = calloc((size_t)f.n + 1, sizeof *g);
      double *out = malloc(((size_t)p.cnt[p.n] + 1) * sizeof *out);
      for (size_t c = 0; c < cells + VT_CRF_ROW_PAD; c++) P[c] = test_unit(&r);
      for (int32_t j = 0; j < p.n; j++) /* the plain order: feature by feature */
        for (int64_t q = f.st_off[p.attr[j]]; q < f.st_off[p.attr[j] + 1]; q++) {
          double sum = 0;
          for (int64_t o = p.off[j]; o < p.off[j + 1]; o++) {
            const size_t at = (size_t)p.row[o] * (size_t)f.L + (size_t)f.st_label[q];
            E0[at] += p.val ? w[q] * p.val[o] : w[q];
            sum += p.val ? p.val[o] * P[at] : P[at];
          }
          g0[q] += sum;
        }
      for (vt_simd lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
        if (!isa_level_runs(lv)) continue;
        const vt_crf_kern_ops *ops = vt_crf_kern_get(lv);
        memset(E, 0, cells * sizeof *E);
        memset(g, 0, ((size_t)f.n + 1) * sizeof *g);
        ops->plan_scores(&p, &f, w, f.L, E, scratch);
        memset(out, 0xff, ((size_t)p.cnt[p.n] + 1) * sizeof *out); /* NaN where none is written */
        ops->plan_counts(&p, &f, P, f.L, out, scratch);
        for (int32_t j = 0; j < p.n; j++) /* the counts back into feature order */
          for (int64_t q = f.st_off[p.attr[j]]; q < f.st_off[p.attr[j] + 1]; q++)
            g[q] += out[p.cnt[j] + q - f.st_off[p.attr[j]]];
        EXPECT(isa_same(E, E0, cells * 8), "L=%d rep %d %s: state scores differ", Ls[i], rep,
               vt_simd_name(lv));
        EXPECT(isa_same(g, g0, (size_t)f.n * 8), "L=%d rep %d %s: counts differ", Ls[i], rep,
               vt_simd_name(lv));
      }
      free(E0), free(E), free(P), free(scratch), free(g0), free(g), free(out), free(count), free(w);
      vt_crf_plan_free(&p);
      vt_crf_batch_free(&b);
      vt_crf_feats_free(&f);
      vt_crf_data_free(&d);
    }
}

/* CRFsuite's Viterbi at every level against the scalar table's: the same path, score and
 * tables, on real scores and on small integers (ties everywhere). */
TEST(viterbi_first_levels_equal_scalar) {
  test_rng r = {35};
  const vt_crf_kern_ops *ref = vt_crf_kern_get(VT_SIMD_SCALAR);
  for (int rep = 0; rep < 60; rep++) {
    const int32_t L = 1 + test_int(&r, rep < 30 ? 40 : 330), T = 1 + test_int(&r, 12);
    const size_t cells = (size_t)T * (size_t)L;
    double *S = malloc(cells * sizeof *S), *A = malloc((size_t)L * (size_t)L * sizeof *A);
    double *V0 = malloc(cells * sizeof *V0), *V = malloc(cells * sizeof *V);
    int32_t *b0 = malloc(cells * sizeof *b0), *b = malloc(cells * sizeof *b);
    int32_t *p0 = malloc((size_t)T * sizeof *p0), *p = malloc((size_t)T * sizeof *p);
    for (size_t i = 0; i < cells; i++) S[i] = rep % 2 ? test_int(&r, 3) : 4 * test_unit(&r) - 2;
    for (int32_t i = 0; i < L * L; i++) A[i] = rep % 2 ? test_int(&r, 3) : 4 * test_unit(&r) - 2;
    const double s0 = ref->viterbi_first(S, A, T, L, V0, b0, p0);
    for (vt_simd lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
      if (!isa_level_runs(lv)) continue;
      const double s1 = vt_crf_kern_get(lv)->viterbi_first(S, A, T, L, V, b, p);
      EXPECT(isa_same(&s1, &s0, 8) && isa_same(V, V0, cells * 8) &&
                 !memcmp(p, p0, (size_t)T * sizeof *p),
             "rep %d (L=%d T=%d) %s: another path or score", rep, L, T, vt_simd_name(lv));
    }
    free(S), free(A), free(V0), free(V), free(b0), free(b), free(p0), free(p);
  }
}

TEST_MAIN(CASE(levels_equal_scalar), CASE(plan_loops_equal_the_plain_order),
          CASE(viterbi_first_levels_equal_scalar))
