/* tests/test_isa_degen_ops.c: the degenerate lattice's row operations (degen_ops.h) of every
 * level the CPU runs against the scalar ones, bit for bit: scan above a threshold (at -inf,
 * +inf, tied and zero thresholds; nothing past n), row_step, row_join, row_join_c, gather (a
 * reversed and a random permutation; the scalar one against the textbook loop), row_add,
 * row_raise (ties keep the old node), row_keys (the keys, their scan and the largest below a
 * second threshold), row_integral and row_prune (cut, tied and -inf bounds; the count and the
 * live prefix), on lengths around the vector widths with real, tied and -inf values. */
#include "decode/degen_ops.h"
#include "test_isa.h"

/* The inputs of one case: five rows of n values and two scalars. */
typedef struct rows {
  int n;
  double *x, *P, *E, *Q, *M;
  double p, tau;
} rows;

static void rows_make(test_rng *r, rows *v, int n, score_mode m) {
  v->n = n;
  v->x = malloc(sizeof(double) * (size_t)n * 5);
  isa_fill(r, v->x, 5 * n, m);
  v->P = v->x + n;
  v->E = v->x + 2 * n;
  v->Q = v->x + 3 * n;
  v->M = v->x + 4 * n;
  v->p = test_score(r, m == SCORE_NEGINF ? SCORE_INT : m);
  v->tau = test_score(r, m);
}

/* Two output rows (scalar, level) of n + ISA_PAD doubles and ints, set to the same sentinels. */
typedef struct outs {
  double *d0, *d1;
  int32_t *i0, *i1;
  size_t w;
} outs;

static void outs_reset(outs *o, const double *init, int n) {
  for (size_t j = 0; j < o->w; j++) {
    o->d0[j] = o->d1[j] = (int)j < n && init ? init[j] : 12345.0;
    o->i0[j] = o->i1[j] = -7;
  }
}

static void rowops_case(test_rng *r, const vt_degen_ops *k, int n, score_mode m) {
  const vt_degen_ops *s = &vt_degen_ops_scalar;
  rows v;
  rows_make(r, &v, n, m);
  outs o = {.w = (size_t)n + ISA_PAD};
  o.d0 = malloc(sizeof(double) * o.w);
  o.d1 = malloc(sizeof(double) * o.w);
  o.i0 = malloc(sizeof(int32_t) * o.w);
  o.i1 = malloc(sizeof(int32_t) * o.w);
  char c[96];
  snprintf(c, sizeof c, "%s n=%d mode=%d", vt_simd_name(k->level), n, (int)m);
  const size_t dw = sizeof(double) * o.w, iw = sizeof(int32_t) * o.w;

  const double thrs[] = {-INFINITY, INFINITY, v.x[test_int(r, n)], v.x[test_int(r, n)], 0.0};
  for (size_t h = 0; h < sizeof thrs / sizeof thrs[0]; h++) {
    outs_reset(&o, NULL, 0);
    const int32_t c0 = s->scan_above(v.x, n, thrs[h], o.i0);
    const int32_t c1 = k->scan_above(v.x, n, thrs[h], o.i1);
    EXPECT_EQ_INT(c1, c0, c);
    EXPECT(c1 == c0 && isa_same(o.i0, o.i1, sizeof(int32_t) * (size_t)c0), "%s: scan %g", c,
           thrs[h]);
    int past = 1;
    for (size_t j = (size_t)n; j < o.w; j++) past &= o.i1[j] == -7;
    EXPECT(past, "%s: scan wrote past n", c);
  }

  /* row_keys: the keys of g = P over h = Q, scanned above and split below tied, real and
   * infinite thresholds. */
  const double los[] = {-INFINITY, INFINITY, v.P[test_int(r, n)] + v.Q[0] + v.tau, 0.0};
  for (size_t h = 0; h < sizeof thrs / sizeof thrs[0]; h++)
    for (size_t l = 0; l < sizeof los / sizeof los[0]; l++) {
      outs_reset(&o, NULL, 0);
      double b0 = 7.0, b1 = 8.0;
      const int32_t c0 = s->row_keys(o.d0, v.P, v.Q, v.tau, n, thrs[h], los[l], o.i0, &b0);
      const int32_t c1 = k->row_keys(o.d1, v.P, v.Q, v.tau, n, thrs[h], los[l], o.i1, &b1);
      EXPECT_EQ_INT(c1, c0, c);
      EXPECT(c1 == c0 && isa_same(o.i0, o.i1, sizeof(int32_t) * (size_t)c0) &&
                 isa_same(o.d0, o.d1, dw) && b0 == b1,
             "%s: row_keys thr=%g lo=%g", c, thrs[h], los[l]);
      int past = 1;
      for (size_t j = (size_t)n; j < o.w; j++) past &= o.i1[j] == -7;
      EXPECT(past, "%s: row_keys wrote past n", c);
    }

  /* row_integral at scales that make the row integral or not (integer and tied modes are). */
  const double scales[] = {1.0, 0.5, 0x1p-20, 0x1p20};
  for (size_t h = 0; h < sizeof scales / sizeof scales[0]; h++)
    EXPECT(k->row_integral(v.x, n, scales[h]) == s->row_integral(v.x, n, scales[h]),
           "%s: row_integral scale %g", c, scales[h]);

  outs_reset(&o, NULL, 0);
  s->row_step(o.d0, v.p, v.M, v.E, n);
  k->row_step(o.d1, v.p, v.M, v.E, n);
  EXPECT(isa_same(o.d0, o.d1, dw), "%s: row_step", c);
  s->row_join(o.d0, v.P, v.E, v.Q, v.tau, n);
  k->row_join(o.d1, v.P, v.E, v.Q, v.tau, n);
  EXPECT(isa_same(o.d0, o.d1, dw), "%s: row_join", c);
  s->row_join_c(o.d0, v.p, v.E, v.Q, v.tau, n);
  k->row_join_c(o.d1, v.p, v.E, v.Q, v.tau, n);
  EXPECT(isa_same(o.d0, o.d1, dw), "%s: row_join_c", c);
  int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
  for (int rep = 0; rep < 2; rep++) {
    for (int j = 0; j < n; j++) perm[j] = n - 1 - j;
    for (int j = n - 1; rep && j > 0; j--) { /* Fisher-Yates */
      int u = test_int(r, j + 1), t = perm[j];
      perm[j] = perm[u];
      perm[u] = t;
    }
    outs_reset(&o, NULL, 0);
    s->gather(o.d0, v.x, perm, n);
    k->gather(o.d1, v.x, perm, n);
    int ref = 1;
    for (int j = 0; j < n; j++) ref &= isa_same(&o.d0[j], &v.x[perm[j]], sizeof(double));
    EXPECT(ref && isa_same(o.d0, o.d1, dw), "%s: gather %s", c, rep ? "random" : "reversed");
  }
  free(perm);
  s->row_add(o.d0, v.P, v.E, n);
  k->row_add(o.d1, v.P, v.E, n);
  EXPECT(isa_same(o.d0, o.d1, dw), "%s: row_add", c);

  /* row_raise over a row with values and pointers already there (ties keep them). */
  for (int rep = 0; rep < 2; rep++) {
    const double a = rep ? v.p : -INFINITY;
    outs_reset(&o, v.Q, n);
    for (int j = 0; j < n; j++) o.i0[j] = o.i1[j] = j;
    s->row_raise(o.d0, o.i0, a, v.M, 999, n);
    k->row_raise(o.d1, o.i1, a, v.M, 999, n);
    EXPECT(isa_same(o.d0, o.d1, dw) && isa_same(o.i0, o.i1, iw), "%s: row_raise a=%g", c, a);
  }

  /* row_prune at cuts below everything, at a tied value, above everything. */
  const double cuts[] = {-INFINITY, v.P[test_int(r, n)] + v.E[0] + v.Q[0], 0.0, INFINITY};
  for (size_t h = 0; h < sizeof cuts / sizeof cuts[0]; h++) {
    double *P0 = malloc(dw), *P1 = malloc(dw);
    for (size_t j = 0; j < o.w; j++) P0[j] = P1[j] = (int)j < n ? v.P[j] : 12345.0;
    outs_reset(&o, v.Q, n);
    int64_t pr0 = 3, pr1 = 3;
    const int32_t h0 = s->row_prune(P0, v.E, o.d0, n, cuts[h], &pr0);
    const int32_t h1 = k->row_prune(P1, v.E, o.d1, n, cuts[h], &pr1);
    EXPECT_EQ_INT(h1, h0, c);
    EXPECT_EQ_INT(pr1, pr0, c);
    EXPECT(isa_same(P0, P1, dw) && isa_same(o.d0, o.d1, dw), "%s: row_prune cut=%g", c, cuts[h]);
    free(P0);
    free(P1);
  }
  free(v.x);
  free(o.d0);
  free(o.d1);
  free(o.i0);
  free(o.i1);
}

TEST(row_ops_same_bits) {
  test_rng r = {31};
  for (int lv = VT_SIMD_AVX2; lv <= VT_SIMD_AVX512; lv++) {
    if (!isa_level_runs((vt_simd)lv)) continue;
    const vt_degen_ops *k = vt_degen_ops_for((vt_simd)lv);
    REQUIRE(k != NULL && k->level == (vt_simd)lv, "no row ops for %s", vt_simd_name((vt_simd)lv));
    for (int li = 0; li < ISA_N_LENGTHS; li++)
      for (int m = SCORE_REAL; m <= SCORE_NEGINF; m++)
        for (int rep = 0; rep < 3; rep++) rowops_case(&r, k, isa_lengths[li], (score_mode)m);
  }
}

/* The scalar reference itself on a small row: what the contract says. */
TEST(row_prune_and_raise_contract) {
  const vt_degen_ops *s = vt_degen_ops_for(VT_SIMD_SCALAR);
  REQUIRE(s == &vt_degen_ops_scalar, "scalar table");
  double P[5] = {1, 5, -INFINITY, 4, 0}, Q[5] = {0, 0, 0, 0, 0};
  const double E[5] = {0, 0, 9, -1, -10};
  int64_t pruned = 0;
  /* bounds 1, 5, -inf, 3, -10 against cut 3: node 0 and 4 cut, node 2 dead (not counted) */
  EXPECT_EQ_INT(s->row_prune(P, E, Q, 5, 3.0, &pruned), 4, "1 + the last node kept");
  EXPECT_EQ_INT(pruned, 2, "cut nodes, not the dead one");
  EXPECT(P[0] == -INFINITY && Q[0] == -INFINITY && P[1] == 5 && P[3] == 4, "P and Q of cut nodes");
  double row[3] = {1, 2, 3};
  int32_t ptr[3] = {0, 1, 2};
  const double M[3] = {0, 1, 3};
  s->row_raise(row, ptr, 1.0, M, 9, 3); /* 1, 2, 4: only the last is above */
  EXPECT(ptr[0] == 0 && ptr[1] == 1 && ptr[2] == 9 && row[2] == 4, "ties keep the old node");
  int32_t idx[3];
  EXPECT_EQ_INT(s->scan_above(row, 3, 1.0, idx), 2, "strictly above");
  /* keys (1 + 1) + 0.5, (2 - 1) + 0.5, -inf: 2.5 above 1.0, 1.5 the largest below 2.0 */
  const double g[3] = {1, 2, -INFINITY}, hh[3] = {1, -1, 0};
  double key[3], below = 0;
  EXPECT_EQ_INT(s->row_keys(key, g, hh, 0.5, 3, 1.5, 2.0, idx, &below), 1, "keys above thr");
  EXPECT(idx[0] == 0 && key[0] == 2.5 && key[1] == 1.5 && key[2] == -INFINITY && below == 1.5,
         "row_keys: keys, index, the largest below lo");
  s->row_keys(key, g, hh, 0.5, 3, 1.5, 1.5, idx, &below);
  EXPECT(below == -INFINITY, "row_keys: strictly below lo, -inf when none is");
  const double ints[3] = {3, -INFINITY, -8}, halves[3] = {3, 0.5, -1};
  EXPECT(s->row_integral(ints, 3, 1.0) && s->row_integral(halves, 3, 2.0) &&
             !s->row_integral(halves, 3, 1.0) && !s->row_integral(ints, 3, 0.25),
         "row_integral: integers and -inf pass, a half fails at scale 1, 3 at 1/4");
}

TEST(dispatcher_tables) {
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++)
    EXPECT((vt_degen_ops_for((vt_simd)lv) != NULL) == vt_simd_supported((vt_simd)lv),
           "%s: a table exactly when supported", vt_simd_name((vt_simd)lv));
}

TEST_MAIN(CASE(row_ops_same_bits), CASE(row_prune_and_raise_contract), CASE(dispatcher_tables))
