/* tests/test_crfpp_lattice.c: the CRF++ lattice of crf_learn's MIRA and of its bigram templates
 * with macros, on problems the tests make: the objective and the Viterbi errors against
 * brute-force enumeration of every labelling (unigram and bigram strings shared between tokens,
 * some missing), the gradient against central finite differences, and MIRA's first pass from
 * zero weights against its step worked out by hand (mu = e / ||d||^2, cut to C), its bound, its
 * log and its stopping once no margin is violated. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"
#include "train/crfpp_lattice.h"
#include "train/crfpp_mira.h"
#include "vitesse.h"

/* A problem's arrays (the problem points into them). */
typedef struct owned {
  int64_t *sent_off;
  int32_t *gold, *ufeat, *bfeat;
} owned;

/* A random problem: n sentences of 1..maxT tokens, L labels, n_u unigram and n_b bigram
 * templates whose strings come from pools of nU and nB (a fifth of them missing, -1); unigram
 * string i owns weights [i * L, + L), bigram string j [nU * L + j * L * L, + L * L). */
static void problem_make(vt_crfpp_problem *p, owned *o, test_rng *r, int32_t L, int32_t n_u,
                         int32_t n_b, int nU, int nB, int64_t n, int maxT) {
  memset(p, 0, sizeof *p);
  const int64_t cap = n * maxT;
  o->sent_off = malloc(((size_t)n + 1) * sizeof *o->sent_off);
  o->gold = malloc((size_t)cap * sizeof *o->gold);
  o->ufeat = malloc((size_t)(cap * n_u + 1) * sizeof *o->ufeat);
  o->bfeat = malloc((size_t)(cap * n_b + 1) * sizeof *o->bfeat);
  o->sent_off[0] = 0;
  int64_t tok = 0;
  for (int64_t s = 0; s < n; s++) {
    const int T = 1 + test_int(r, maxT);
    if (T > p->max_T) p->max_T = T;
    for (int t = 0; t < T; t++, tok++) {
      o->gold[tok] = test_int(r, L);
      for (int k = 0; k < n_u; k++)
        o->ufeat[tok * n_u + k] = test_int(r, 5) == 0 ? -1 : test_int(r, nU) * L;
      for (int k = 0; k < n_b; k++)
        o->bfeat[tok * n_b + k] =
            t == 0 || test_int(r, 5) == 0 ? -1 : nU * L + test_int(r, nB) * L * L;
    }
    o->sent_off[s + 1] = tok;
  }
  p->L = L;
  p->n_sent = n;
  p->n_tok = tok;
  p->sent_off = o->sent_off;
  p->gold = o->gold;
  p->n_u = n_u;
  p->n_b = n_b;
  p->ufeat = o->ufeat;
  p->bfeat = o->bfeat;
  p->n = (int64_t)nU * L + (int64_t)nB * L * L;
}

static void owned_free(owned *o) {
  free(o->sent_off);
  free(o->gold);
  free(o->ufeat);
  free(o->bfeat);
}

/* The score of labelling y of sentence s, from the problem's definition. */
static double path_score(const vt_crfpp_problem *p, const double *w, int64_t s, const int32_t *y) {
  const int64_t t0 = p->sent_off[s], T = p->sent_off[s + 1] - t0;
  double sc = 0;
  for (int64_t t = 0; t < T; t++) {
    for (int k = 0; k < p->n_u; k++) {
      const int32_t f = p->ufeat[(t0 + t) * p->n_u + k];
      if (f >= 0) sc += w[f + y[t]];
    }
    for (int k = 0; t > 0 && k < p->n_b; k++) {
      const int32_t f = p->bfeat[(t0 + t) * p->n_b + k];
      if (f >= 0) sc += w[f + y[t - 1] * p->L + y[t]];
    }
  }
  return sc;
}

/* The objective (L2) by enumeration (long double) and the errors of the best labelling. */
static double brute(const vt_crfpp_problem *p, const double *w, double C, int64_t *tok_err,
                    int64_t *sent_err) {
  long double total = 0;
  *tok_err = *sent_err = 0;
  for (int64_t s = 0; s < p->n_sent; s++) {
    const int64_t t0 = p->sent_off[s], T = p->sent_off[s + 1] - t0;
    int32_t y[8] = {0}, best[8] = {0};
    double mx = -INFINITY;
    do {
      const double sc = path_score(p, w, s, y);
      if (sc > mx) {
        mx = sc;
        memcpy(best, y, sizeof y);
      }
    } while (test_next_labelling(y, T, p->L));
    long double z = 0;
    memset(y, 0, sizeof y);
    do z += expl((long double)path_score(p, w, s, y) - mx);
    while (test_next_labelling(y, T, p->L));
    total += (long double)mx + logl(z) - path_score(p, w, s, p->gold + t0);
    int64_t wrong = 0;
    for (int64_t t = 0; t < T; t++) wrong += best[t] != p->gold[t0 + t];
    *tok_err += wrong;
    *sent_err += wrong > 0;
  }
  long double reg = 0;
  for (int64_t i = 0; i < p->n; i++) reg += (long double)w[i] * w[i];
  return (double)(total + reg / (2 * C));
}

static int close_rel(double a, double b, double tol) {
  return fabs(a - b) <= tol * (1 + fabs(a) + fabs(b));
}

TEST(objective_against_brute_force) {
  test_rng r = {11};
  for (int rep = 0; rep < 12; rep++) {
    const int32_t L = 2 + test_int(&r, 3);
    vt_crfpp_problem p;
    owned o;
    problem_make(&p, &o, &r, L, 1 + rep % 3, rep % 4, 6, 3, 8, 5);
    double *w = malloc((size_t)p.n * sizeof *w);
    for (int64_t i = 0; i < p.n; i++) w[i] = 2 * test_unit(&r) - 1;
    vt_crfpp_lattice lat;
    REQUIRE(vt_crfpp_lattice_init(&lat, L, p.max_T) == VT_OK, "lattice");
    const double C = 0.25 + 3 * test_unit(&r);
    int64_t te, se, bte, bse;
    const double got = vt_crfpp_problem_objective(&p, &lat, w, NULL, C, 0, &te, &se);
    const double want = brute(&p, w, C, &bte, &bse);
    EXPECT(close_rel(got, want, 1e-12), "rep %d: %.17g vs brute %.17g", rep, got, want);
    EXPECT_EQ_INT(te, bte, "token errors");
    EXPECT_EQ_INT(se, bse, "sentence errors");
    vt_crfpp_lattice_free(&lat);
    free(w);
    owned_free(&o);
  }
}

TEST(gradient_against_finite_differences) {
  test_rng r = {23};
  vt_crfpp_problem p;
  owned o;
  problem_make(&p, &o, &r, 3, 2, 2, 5, 3, 10, 6);
  double *w = malloc((size_t)p.n * sizeof *w), *g = malloc((size_t)p.n * sizeof *g);
  for (int64_t i = 0; i < p.n; i++) w[i] = test_unit(&r) - 0.5;
  vt_crfpp_lattice lat;
  REQUIRE(vt_crfpp_lattice_init(&lat, p.L, p.max_T) == VT_OK, "lattice");
  const double C = 0.7;
  int64_t te, se;
  vt_crfpp_problem_objective(&p, &lat, w, g, C, 0, &te, &se);
  double worst = 0;
  for (int64_t i = 0; i < p.n; i++) {
    const double h = 1e-5, keep = w[i];
    w[i] = keep + h;
    const double up = vt_crfpp_problem_objective(&p, &lat, w, NULL, C, 0, &te, &se);
    w[i] = keep - h;
    const double down = vt_crfpp_problem_objective(&p, &lat, w, NULL, C, 0, &te, &se);
    w[i] = keep;
    const double fd = (up - down) / (2 * h), e = fabs(fd - g[i]) / (1 + fabs(fd));
    if (e > worst) worst = e;
  }
  EXPECT(worst < 1e-7, "worst relative gradient error %.3g", worst);
  /* L1: the smooth part's gradient, the L2 one less w / C */
  double *g1 = malloc((size_t)p.n * sizeof *g1);
  vt_crfpp_problem_objective(&p, &lat, w, g1, C, 1, &te, &se);
  for (int64_t i = 0; i < p.n; i++)
    EXPECT(close_rel(g1[i], g[i] - w[i] / C, 1e-12), "L1 gradient %lld", (long long)i);
  free(g1);
  vt_crfpp_lattice_free(&lat);
  free(w);
  free(g);
  owned_free(&o);
}

/* What the MIRA callback saw. */
typedef struct seen {
  int n;
  vt_crfpp_iteration last[64];
} seen;

static int on_iter(void *ctx, const vt_crfpp_iteration *it) {
  seen *s = ctx;
  if (s->n < 64) s->last[s->n] = *it;
  s->n++;
  return 0;
}

/* One sentence of 3 tokens, 2 labels, gold 1 0 1; token t has unigram string t (weights 2t,
 * 2t + 1) and, from token 1 on, the one bigram string (weights 6..9). From zero weights Viterbi
 * says 0 0 0 (the first of equal scores): e = 2 wrong tokens, a score difference of 0, and
 * d = gold's counts less 0 0 0's: +1 at (t0, 1), (t2, 1), (1,0), (0,1), -1 at (t0, 0), (t2, 0)
 * and twice at (0,0): ||d||^2 = 1 + 1 + 1 + 1 + 1 + 1 + 4 = 10, so mu = 2 / 10. */
TEST(mira_first_step_by_hand) {
  const int64_t sent_off[2] = {0, 3};
  const int32_t gold[3] = {1, 0, 1}, ufeat[3] = {0, 2, 4}, bfeat[3] = {-1, 6, 6};
  vt_crfpp_problem p = {2, 1, 3, sent_off, gold, 1, 1, ufeat, bfeat, 10, 3};
  const double cost[2] = {1, 0.05};
  for (int k = 0; k < 2; k++) {
    double w[10] = {0};
    vt_crfpp_learn_opts o;
    vt_crfpp_learn_opts_init(&o);
    o.algorithm = VT_CRFPP_MIRA;
    o.maxiter = 1;
    o.cost = cost[k];
    seen sn;
    memset(&sn, 0, sizeof sn);
    o.on_iteration = on_iter;
    o.ctx = &sn;
    vt_crfpp_learn_report r;
    memset(&r, 0, sizeof r);
    char err[256];
    REQUIRE(vt_crfpp_mira(&p, w, &o, &r, err, sizeof err) == VT_OK, "mira: %s", err);
    /* the step, cut to C = 0.05 (held as a float) in the second run */
    const double mu = k == 0 ? 0.2 : (double)(float)0.05;
    const double want[10] = {-mu, mu, 0, 0, -mu, mu, -2 * mu, mu, mu, 0};
    for (int i = 0; i < 10; i++)
      EXPECT(w[i] == want[i], "C %g: w[%d] %.17g, want %.17g", cost[k], i, w[i], want[i]);
    EXPECT_EQ_INT(sn.n, 1, "one pass");
    EXPECT_EQ_INT(r.iterations, 1, "one pass reported");
    EXPECT_EQ_INT(sn.last[0].act, 1, "one sentence visited");
    EXPECT_EQ_INT(sn.last[0].uact, k, "the step cut by C");
    EXPECT(sn.last[0].terr == 2.0 / 3 && sn.last[0].serr == 1, "errors of the pass");
    EXPECT(close_rel(sn.last[0].obj, 10 * mu * mu, 1e-14), "obj ||w||^2 %.17g", sn.last[0].obj);
    EXPECT(close_rel(sn.last[0].kkt, k == 0 ? 2 : 0, 1e-15), "kkt %.17g", sn.last[0].kkt);
  }
}

TEST(mira_stops_once_no_margin_is_violated) {
  /* labels the unigram strings decide alone: separable, so MIRA ends with no error */
  test_rng r = {5};
  vt_crfpp_problem p;
  owned o;
  problem_make(&p, &o, &r, 3, 1, 1, 6, 2, 20, 6);
  for (int64_t t = 0; t < p.n_tok; t++) {
    if (o.ufeat[t] < 0) o.ufeat[t] = 0;
    o.gold[t] = (o.ufeat[t] / 3) % 3;
  }
  double *w = calloc((size_t)p.n, sizeof *w);
  vt_crfpp_learn_opts op;
  vt_crfpp_learn_opts_init(&op);
  op.algorithm = VT_CRFPP_MIRA;
  op.cost = 100;
  seen sn;
  memset(&sn, 0, sizeof sn);
  op.on_iteration = on_iter;
  op.ctx = &sn;
  vt_crfpp_learn_report rep;
  memset(&rep, 0, sizeof rep);
  char err[256];
  REQUIRE(vt_crfpp_mira(&p, w, &op, &rep, err, sizeof err) == VT_OK, "mira: %s", err);
  REQUIRE(sn.n >= 2 && sn.n <= 64, "%d passes", sn.n);
  EXPECT(strstr(rep.stop, "converged") != NULL, "stopped: %s", rep.stop);
  EXPECT(sn.last[sn.n - 1].kkt <= 0 && sn.last[sn.n - 2].kkt <= 0, "two passes without violation");
  EXPECT(sn.last[sn.n - 1].terr == 0, "no training error at the end");
  EXPECT_EQ_INT(sn.last[sn.n - 1].act, p.n_sent, "the shrinking reset: every sentence visited");
  vt_crfpp_lattice lat;
  REQUIRE(vt_crfpp_lattice_init(&lat, p.L, p.max_T) == VT_OK, "lattice");
  int64_t te = 0;
  for (int64_t s = 0; s < p.n_sent; s++) {
    vt_crfpp_lattice_score(&lat, &p, s, w);
    te += vt_crfpp_lattice_viterbi(&lat, p.gold + p.sent_off[s]);
  }
  EXPECT_EQ_INT(te, 0, "the weights tag the training data right");
  vt_crfpp_lattice_free(&lat);
  free(w);
  owned_free(&o);
}

TEST_MAIN(CASE(objective_against_brute_force), CASE(gradient_against_finite_differences),
          CASE(mira_first_step_by_hand), CASE(mira_stops_once_no_margin_is_violated))
