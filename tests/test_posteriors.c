/* tests/test_posteriors.c: forward-backward (vt_posteriors) against brute-force enumeration of
 * all L^T paths in long double on small lattices (real scores, ties, -inf patterns with
 * sentences that have no path, scores in the thousands), and against a long-double forward-
 * backward written here on larger ones; at every SIMD level the CPU runs. */
#include <string.h>

#include "test_util.h"
#include "vitesse.h"

#define MAXT 6
#define MAXL 5

/* log(exp(a) + exp(b)) in long double, -inf aware. */
static long double lse2(long double a, long double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  long double m = a > b ? a : b;
  return m + logl(expl(a - m) + expl(b - m));
}

/* Brute force: *z = log sum exp(score) over every path, marg[t*L+y] the marginals. */
static void brute(const double *A, const double *S, const double *F, const double *E, int L, int T,
                  long double *z, long double *marg) {
  int32_t y[MAXT] = {0};
  long double lz = -INFINITY;
  static long double ps[15625];
  static int32_t paths[15625][MAXT];
  int n = 0;
  for (;;) {
    long double s = (long double)S[y[0]] + E[y[0]];
    for (int t = 1; t < T; t++) s += (long double)A[y[t - 1] * L + y[t]] + E[t * L + y[t]];
    s += F[y[T - 1]];
    lz = lse2(lz, s);
    ps[n] = s;
    memcpy(paths[n++], y, sizeof y);
    int t = T - 1;
    while (t >= 0 && ++y[t] == L) y[t--] = 0;
    if (t < 0) break;
  }
  *z = lz;
  for (int i = 0; i < T * L; i++) marg[i] = 0;
  if (lz == -INFINITY) return;
  for (int p = 0; p < n; p++)
    if (ps[p] != -INFINITY)
      for (int t = 0; t < T; t++) marg[t * L + paths[p][t]] += expl(ps[p] - lz);
}

static int close_to(double got, long double want, double tol) {
  if (want == -INFINITY || got == -INFINITY) return got == want;
  return fabsl((long double)got - want) <= tol;
}

/* Rounding in log space is absolute and grows with the partial path scores: a bound on their
 * magnitude (at least 1), which the tolerances scale by. */
static double magnitude(const double *A, const double *S, const double *F, const double *E, int L,
                        int T) {
  double ma = 0, ms = 0, mf = 0, me = 0;
  for (int i = 0; i < L * L; i++)
    if (isfinite(A[i])) ma = fmax(ma, fabs(A[i]));
  for (int i = 0; i < L; i++) {
    if (isfinite(S[i])) ms = fmax(ms, fabs(S[i]));
    if (isfinite(F[i])) mf = fmax(mf, fabs(F[i]));
  }
  for (int i = 0; i < T * L; i++)
    if (isfinite(E[i])) me = fmax(me, fabs(E[i]));
  return fmax(1.0, ms + mf + T * (ma + me));
}

static void check_small(vt_simd level, double tol) {
  test_rng rng = {777};
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  double A[MAXL * MAXL], S[MAXL], F[MAXL], E[MAXT * MAXL], marg[MAXT * MAXL];
  long double bz, bm[MAXT * MAXL];
  int none = 0;
  for (int scale = 1; scale <= 1000; scale *= 1000)
    for (int mode = SCORE_REAL; mode <= SCORE_NEGINF; mode++)
      for (int L = 1; L <= MAXL; L++)
        for (int T = 1; T <= MAXT; T++)
          for (int rep = 0; rep < 12; rep++) {
            for (int i = 0; i < L * L; i++) A[i] = scale * test_score(&rng, (score_mode)mode);
            for (int i = 0; i < L; i++) {
              S[i] = rep % 4 == 0 ? 0 : scale * test_score(&rng, (score_mode)mode);
              F[i] = rep % 4 == 1 ? 0 : scale * test_score(&rng, (score_mode)mode);
            }
            for (int i = 0; i < T * L; i++) E[i] = scale * test_score(&rng, (score_mode)mode);
            vt_trans *tr;
            REQUIRE(vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK, "trans");
            double z = 0;
            vt_status st = vt_posteriors(tr, ar, E, T, marg, &z);
            vt_arena_reset(ar);
            brute(A, S, F, E, L, T, &bz, bm);
            const double tl = tol * magnitude(A, S, F, E, L, T);
            char c[128];
            snprintf(c, sizeof c, "%s scale=%d mode=%d L=%d T=%d rep=%d", vt_simd_name(level),
                     scale, mode, L, T, rep);
            EXPECT_EQ_INT(st, VT_OK, c);
            EXPECT(close_to(z, bz, tl), "%s: logz %.17g, brute force %.17Lg", c, z, bz);
            none += bz == -INFINITY;
            for (int i = 0; i < T * L; i++) {
              EXPECT(fabsl(marg[i] - bm[i]) <= tl, "%s: marg[%d] %.17g, brute force %.17Lg", c, i,
                     marg[i], bm[i]);
              /* a forbidden label is exactly 0 */
              if (E[i] == -INFINITY)
                EXPECT(marg[i] == 0.0, "%s: forbidden marg[%d] %g", c, i, marg[i]);
            }
            vt_trans_destroy(tr);
          }
  EXPECT(none > 10, "the stream holds sentences without a path (%d)", none);
  vt_arena_destroy(ar);
}

/* Every level the CPU runs, against brute force. */
TEST(small_against_brute_force) {
  for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
    if (!vt_simd_supported((vt_simd)lv)) continue;
    REQUIRE(vt_simd_force((vt_simd)lv) == VT_OK, "force");
    check_small((vt_simd)lv, 1e-14);
  }
  vt_simd_force(VT_SIMD_SCALAR);
}

/* Long-double forward-backward: O(T L^2), the reference of larger lattices. */
static void ref_fb(const double *A, const double *S, const double *F, const double *E, int L, int T,
                   long double *z, long double *marg) {
  long double *al = calloc((size_t)T * L, sizeof *al), *be = calloc((size_t)T * L, sizeof *be);
  for (int j = 0; j < L; j++) al[j] = (long double)S[j] + E[j];
  for (int t = 1; t < T; t++)
    for (int j = 0; j < L; j++) {
      long double s = -INFINITY;
      for (int i = 0; i < L; i++) s = lse2(s, al[(t - 1) * L + i] + A[i * L + j]);
      al[t * L + j] = s + E[t * L + j];
    }
  long double lz = -INFINITY;
  for (int j = 0; j < L; j++) lz = lse2(lz, al[(T - 1) * L + j] + F[j]);
  for (int j = 0; j < L; j++) be[(T - 1) * L + j] = F[j];
  for (int t = T - 2; t >= 0; t--)
    for (int i = 0; i < L; i++) {
      long double s = -INFINITY;
      for (int j = 0; j < L; j++)
        s = lse2(s, (long double)A[i * L + j] + E[(t + 1) * L + j] + be[(t + 1) * L + j]);
      be[t * L + i] = s;
    }
  *z = lz;
  for (int i = 0; i < T * L; i++) {
    long double x = al[i] + be[i];
    marg[i] = lz == -INFINITY || x == -INFINITY ? 0 : expl(x - lz);
  }
  free(al);
  free(be);
}

/* L = 45 and 300, T = 25, real scores and scores in the thousands, a third of the emissions of
 * half the columns -inf (a dictionary's allowed sets): every level against the reference. */
TEST(large_against_long_double) {
  test_rng rng = {4242};
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  const int Ls[2] = {45, 300}, T = 25;
  for (int li = 0; li < 2; li++)
    for (int scale = 1; scale <= 1000; scale *= 1000) {
      const int L = Ls[li];
      double *A = malloc(sizeof(double) * L * L), *S = malloc(sizeof(double) * L);
      double *F = malloc(sizeof(double) * L), *E = malloc(sizeof(double) * T * L);
      double *marg = malloc(sizeof(double) * T * L);
      long double *rm = malloc(sizeof(long double) * T * L), rz;
      for (int i = 0; i < L * L; i++)
        A[i] = test_unit(&rng) < 0.05 ? -INFINITY : scale * test_score(&rng, SCORE_REAL);
      for (int i = 0; i < L; i++) {
        S[i] = scale * test_score(&rng, SCORE_REAL);
        F[i] = scale * test_score(&rng, SCORE_REAL);
      }
      for (int t = 0; t < T; t++)
        for (int j = 0; j < L; j++)
          E[t * L + j] =
              t % 2 && test_int(&rng, 3) == 0 ? -INFINITY : scale * test_score(&rng, SCORE_REAL);
      vt_trans *tr;
      REQUIRE(vt_trans_create(&tr, L, A, S, F, NULL) == VT_OK, "trans");
      ref_fb(A, S, F, E, L, T, &rz, rm);
      for (int lv = VT_SIMD_SCALAR; lv <= VT_SIMD_AVX512; lv++) {
        if (!vt_simd_supported((vt_simd)lv)) continue;
        vt_simd_force((vt_simd)lv);
        double z;
        const double tl = 1e-14 * magnitude(A, S, F, E, L, T);
        char c[96];
        snprintf(c, sizeof c, "%s L=%d scale=%d", vt_simd_name((vt_simd)lv), L, scale);
        EXPECT_EQ_INT(vt_posteriors(tr, ar, E, T, marg, &z), VT_OK, c);
        vt_arena_reset(ar);
        EXPECT(close_to(z, rz, tl), "%s: logz %.17g, reference %.17Lg", c, z, rz);
        double worst = 0;
        for (int i = 0; i < T * L; i++) {
          double d = (double)fabsl(marg[i] - rm[i]);
          if (d > worst) worst = d;
          if (E[i] == -INFINITY) EXPECT(marg[i] == 0.0, "%s: forbidden label", c);
        }
        EXPECT(worst <= tl, "%s: marginals off by %g", c, worst);
        for (int t = 0; t < T; t++) {
          double s = 0;
          for (int j = 0; j < L; j++) s += marg[t * L + j];
          EXPECT(fabs(s - 1) <= tl * L, "%s: column %d sums to %.17g", c, t, s);
        }
      }
      vt_simd_force(VT_SIMD_SCALAR);
      vt_trans_destroy(tr);
      free(A), free(S), free(F), free(E), free(marg), free(rm);
    }
  vt_arena_destroy(ar);
}

/* Edge cases: T = 0; L = 1; float emissions; logz without marginals; bad arguments. */
TEST(edges) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  double A[4] = {0, -INFINITY, -INFINITY, 0}, z = 5, m[6];
  vt_trans *tr;
  REQUIRE(vt_trans_create(&tr, 2, A, NULL, NULL, NULL) == VT_OK, "trans");
  EXPECT_EQ_INT(vt_posteriors(tr, ar, NULL, 0, NULL, &z), VT_OK, "T=0");
  EXPECT_EQ_DBL(z, 0.0, "T=0: the empty path has probability 1");
  /* two paths, 0 0 0 and 1 1 1, scores 0 and 3*log 2: P(1) = 8/9 */
  const double E[6] = {0, log(2), 0, log(2), 0, log(2)};
  const float Ef[6] = {0, (float)log(2), 0, (float)log(2), 0, (float)log(2)};
  EXPECT_EQ_INT(vt_posteriors(tr, ar, E, 3, m, &z), VT_OK, "T=3");
  EXPECT(fabs(z - log(9.0)) < 1e-15, "logz %.17g", z);
  EXPECT(fabs(m[1] - 8.0 / 9) < 1e-15 && fabs(m[4] - 1.0 / 9) < 1e-15, "marg %g %g", m[1], m[4]);
  double zf;
  EXPECT_EQ_INT(vt_posteriors_f32(tr, ar, Ef, 3, NULL, &zf), VT_OK, "f32");
  EXPECT(fabs(zf - log(9.0)) < 1e-6, "f32 logz %.17g", zf);
  EXPECT_EQ_INT(vt_posteriors(tr, ar, E, -1, m, &z), VT_EINVAL, "T<0");
  EXPECT_EQ_INT(vt_posteriors(tr, ar, E, 1, m, NULL), VT_EINVAL, "logz NULL");
  /* no path: 0 then 1 is forbidden */
  const double Eno[4] = {0, -INFINITY, -INFINITY, 0};
  EXPECT_EQ_INT(vt_posteriors(tr, ar, Eno, 2, m, &z), VT_OK, "no path");
  EXPECT(z == -INFINITY && m[0] == 0 && m[1] == 0 && m[2] == 0 && m[3] == 0, "no path: %g", z);
  vt_trans_destroy(tr);
  vt_arena_destroy(ar);
}

typedef struct membuf {
  char *p;
  size_t n;
} membuf;

static vt_status mem_sink(void *ctx, const char *data, size_t len) {
  membuf *b = ctx;
  b->p = realloc(b->p, b->n + len);
  memcpy(b->p + b->n, data, len);
  b->n += len;
  return VT_OK;
}

/* vt_engine_decode_conf: the posteriors stream is a .npy whose rows are vt_posteriors' marginals
 * rounded to float, the logz column is vt_posteriors' log Z; the same bytes for 1 and 2 workers. */
TEST(engine_posteriors) {
  vt_lattices *lat;
  vt_trans *tr;
  REQUIRE(vt_lattices_synth(&lat, 23, 30, 12, 9) == VT_OK, "synth");
  REQUIRE(vt_lattices_synth_trans(lat, &tr) == VT_OK, "trans");
  membuf out[2] = {{0}}, post[2] = {{0}};
  for (int th = 1; th <= 2; th++) {
    vt_engine_opts eo;
    vt_engine_opts_init(&eo);
    eo.threads = th;
    eo.bind = VT_BIND_NONE;
    eo.batch_tokens = 5;
    vt_engine *e;
    REQUIRE(vt_engine_create(&e, &eo) == VT_OK, "engine");
    vt_conf_opts c;
    vt_conf_opts_init(&c);
    c.logz = 1;
    c.post_sink = mem_sink;
    c.post_ctx = &post[th - 1];
    EXPECT_EQ_INT(vt_engine_decode_conf(e, tr, NULL, &c, lat, mem_sink, &out[th - 1], NULL), VT_OK,
                  "run");
    vt_engine_destroy(e);
  }
  EXPECT(out[0].n == out[1].n && memcmp(out[0].p, out[1].p, out[0].n) == 0, "lines differ");
  EXPECT(post[0].n == post[1].n && memcmp(post[0].p, post[1].p, post[0].n) == 0,
         "posteriors differ");
  const size_t hl = (size_t)(unsigned char)post[0].p[8] + 10;
  const float *rows = (const float *)(void *)(post[0].p + hl);
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  int64_t tok = 0;
  const char *line = out[0].p;
  for (int64_t s = 0; s < vt_lattices_sentences(lat); s++) {
    int32_t T;
    const float *E = vt_lattices_rows(lat, s, &T);
    double *m = malloc(sizeof(double) * ((size_t)T * 23 + 1)), z;
    REQUIRE(vt_posteriors_f32(tr, ar, E, T, m, &z) == VT_OK, "posteriors");
    vt_arena_reset(ar);
    int ok = 1;
    for (int i = 0; i < T * 23; i++) ok &= rows[tok * 23 + i] == (float)m[i];
    EXPECT(ok, "sentence %lld: rows differ", (long long)s);
    tok += T;
    /* the line's fifth field is log Z */
    const char *f = line;
    for (int k = 0; k < 4; k++) f = strchr(f, '\t') + 1;
    char want[40];
    snprintf(want, sizeof want, "%.9g\t", z);
    EXPECT(strncmp(f, want, strlen(want)) == 0, "sentence %lld: logz %.20s, want %s", (long long)s,
           f, want);
    line = strchr(line, '\n') + 1;
    free(m);
  }
  EXPECT_EQ_INT((int)(post[0].n - hl), (int)(tok * 23 * 4), "rows");
  vt_arena_destroy(ar);
  for (int i = 0; i < 2; i++) free(out[i].p), free(post[i].p);
  vt_trans_destroy(tr);
  vt_lattices_close(lat);
}

TEST_MAIN(CASE(small_against_brute_force), CASE(large_against_long_double), CASE(edges),
          CASE(engine_posteriors))
