/* tests/test_sparse.c: the sparse route (engine/decode/sparse.c), where every exact decoder goes
 * over each column's finite labels only on a constrained lattice. On random dictionary-like
 * lattices (1 to 8 allowed labels a column, some columns free or empty, ties, -inf transitions,
 * start and end scores) at 2 to 300 labels: the sparse decode gives exactly the labels and scores
 * of the dense references (the scalar Viterbi for k = 1, k-best Viterbi for k > 1, called
 * directly so that they cannot take the route themselves); every exact decoder through vt_decode
 * gives the reference scores, and its labels too whenever it took the route; the route is taken
 * where it is cheap and never on a lattice without -inf emissions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/arena.h"
#include "decode/decoders.h"
#include "test_util.h"
#include "vitesse.h"

#define MAXK 5

typedef struct lattice {
  int32_t L, T;
  double *A, *S, *F, *E;
  vt_trans *tr;
} lattice;

/* A random constrained lattice: each column free with probability pfree, empty (no allowed
 * label) with probability pempty, else 1 to 8 allowed labels; integer scores when `ties`. */
static int lattice_make(lattice *g, test_rng *r, int32_t L, int32_t T, double pfree, double pempty,
                        int ties) {
  g->L = L;
  g->T = T;
  g->A = malloc(sizeof(double) * (size_t)L * L);
  g->S = malloc(sizeof(double) * (size_t)L);
  g->F = malloc(sizeof(double) * (size_t)L);
  g->E = malloc(sizeof(double) * (size_t)L * T);
  g->tr = NULL;
  if (!g->A || !g->S || !g->F || !g->E) return -1;
  const score_mode m = ties ? SCORE_INT : SCORE_REAL;
  for (int32_t i = 0; i < L * L; i++) g->A[i] = test_unit(r) < 0.1 ? -INFINITY : test_score(r, m);
  for (int32_t y = 0; y < L; y++) {
    g->S[y] = test_unit(r) < 0.05 ? -INFINITY : test_score(r, m);
    g->F[y] = test_unit(r) < 0.05 ? -INFINITY : test_score(r, m);
  }
  for (int32_t t = 0; t < T; t++) {
    double *row = g->E + (size_t)t * L;
    const double u = test_unit(r);
    for (int32_t y = 0; y < L; y++) row[y] = u < pfree ? test_score(r, m) : -INFINITY;
    if (u >= pfree && u < pfree + pempty) continue;
    if (u >= pfree) {
      const int n = 1 + test_int(r, L < 8 ? L : 8);
      for (int c = 0; c < n; c++) row[test_int(r, L)] = test_score(r, m);
    }
  }
  return vt_trans_create(&g->tr, L, g->A, g->S, g->F, NULL) == VT_OK ? 0 : -1;
}

static void lattice_free(lattice *g) {
  vt_trans_destroy(g->tr);
  free(g->A);
  free(g->S);
  free(g->F);
  free(g->E);
}

/* The dense reference, bypassing vt_decode's route: the scalar Viterbi or k-best Viterbi. */
static int32_t reference(const lattice *g, int32_t k, vt_arena *ar, int32_t *y, double *sc) {
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  o.k = k;
  vt_decode_stats st = {0};
  vt_budget none = {INFINITY, NULL, 0, 0, 0, 0};
  vt_paths out = {k, y, sc, 0};
  vt_status s = k > 1 ? vt_kbest_viterbi_decode(g->tr, &o, ar, g->E, g->T, &out, &st, &none)
                      : vt_viterbi_ref_decode(g->tr, &o, ar, g->E, g->T, &out, &st, &none);
  if (s != VT_OK) return -1;
  for (int32_t p = 0; p < out.n; p++)
    sc[p] = vt_path_score(g->tr, g->E, g->T, y + (size_t)p * g->T);
  return out.n;
}

static const vt_algo exact_algos[] = {
    VT_ALGO_VITERBI,  VT_ALGO_KBEST_VITERBI, VT_ALGO_STAGGERED,     VT_ALGO_STAGGERED_COL,
    VT_ALGO_ASTAR,    VT_ALGO_ITER_ASTAR,    VT_ALGO_VITERBI_ASTAR, VT_ALGO_ITER_VITERBI_ASTAR,
    VT_ALGO_CARPEDIEM};

/* Checks every exact decoder on g against the reference; counts sentences that took the route. */
static void check_lattice(const lattice *g, int32_t k, vt_arena *ar, int64_t *routed,
                          const char *what) {
  const size_t T = (size_t)g->T;
  int32_t *ry = malloc(sizeof(int32_t) * MAXK * (T ? T : 1));
  int32_t *y = malloc(sizeof(int32_t) * MAXK * (T ? T : 1));
  double rs[MAXK], sc[MAXK];
  if (!ry || !y) {
    EXPECT(0, "memory");
    goto done;
  }
  const int32_t rn = reference(g, k, ar, ry, rs);
  EXPECT(rn >= 0, "%s: reference", what);
  /* The route itself, forced (no cost limit). */
  vt_decode_stats st = {0};
  vt_paths out = {k, y, sc, 0};
  int taken = 0;
  EXPECT_EQ_INT(vt_sparse_decode(g->tr, k, INFINITY, ar, g->E, g->T, &out, &st, &taken), VT_OK,
                what);
  if (taken) {
    EXPECT_EQ_INT(out.n, rn, what);
    for (int32_t p = 0; p < out.n && p < rn; p++) {
      EXPECT_EQ_DBL(vt_path_score(g->tr, g->E, g->T, y + p * T), rs[p], what);
      EXPECT(memcmp(y + p * T, ry + p * T, sizeof(int32_t) * T) == 0, "%s: path %d labels", what,
             (int)p);
    }
  }
  for (size_t a = 0; a < sizeof exact_algos / sizeof exact_algos[0]; a++) {
    const vt_algo algo = exact_algos[a];
    if (k > 1 && !vt_algo_kbest(algo)) continue;
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = algo;
    o.k = k;
    vt_decode_stats ds = {0};
    int32_t n = -1;
    EXPECT_EQ_INT(vt_decode(g->tr, &o, ar, g->E, g->T, y, sc, &n, &ds), VT_OK, vt_algo_name(algo));
    EXPECT(n == rn, "%s %s k=%d: %d paths, reference %d", what, vt_algo_name(algo), (int)k, (int)n,
           (int)rn);
    for (int32_t p = 0; p < n && p < rn; p++) {
      EXPECT(sc[p] == rs[p], "%s %s k=%d path %d: %.17g != %.17g", what, vt_algo_name(algo), (int)k,
             (int)p, sc[p], rs[p]);
      if (ds.sparse)
        EXPECT(memcmp(y + p * T, ry + p * T, sizeof(int32_t) * T) == 0, "%s %s routed: labels",
               what, vt_algo_name(algo));
    }
    *routed += ds.sparse;
  }
done:
  free(ry);
  free(y);
}

TEST(random_constrained_lattices) {
  static const int32_t Ls[] = {2, 3, 5, 17, 64, 300};
  test_rng r = {0x5eed5};
  vt_arena *ar = NULL;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  int64_t routed = 0, cases = 0;
  for (int rep = 0; rep < 60; rep++)
    for (size_t li = 0; li < sizeof Ls / sizeof Ls[0]; li++) {
      const int32_t L = Ls[li], T = 1 + test_int(&r, 30);
      const double pfree = rep % 3 == 0 ? 0.0 : 0.15, pempty = rep % 10 == 9 ? 0.05 : 0.0;
      lattice g;
      REQUIRE(lattice_make(&g, &r, L, T, pfree, pempty, rep % 2) == 0, "lattice");
      char what[64];
      snprintf(what, sizeof what, "rep %d L %d T %d", rep, (int)L, (int)T);
      for (int32_t k = 1; k <= MAXK; k += 2) check_lattice(&g, k, ar, &routed, what);
      vt_arena_reset(ar);
      lattice_free(&g);
      cases++;
    }
  /* Not vacuous: most constrained sentences go the sparse way. */
  EXPECT(routed > cases * 3, "routed %lld decodes of %lld lattices", (long long)routed,
         (long long)cases);
  vt_arena_destroy(ar);
}

/* A lattice without a -inf emission never takes the route, whatever its size. */
TEST(unconstrained_never_routed) {
  test_rng r = {42};
  vt_arena *ar = NULL;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  for (int32_t L = 1; L <= 40; L += 3) {
    lattice g;
    REQUIRE(lattice_make(&g, &r, L, 12, 1.0, 0.0, L % 2) == 0, "lattice");
    for (size_t a = 0; a < sizeof exact_algos / sizeof exact_algos[0]; a++) {
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      o.algo = exact_algos[a];
      vt_decode_stats ds = {0};
      int32_t y[12], n = 0;
      double sc[1];
      EXPECT_EQ_INT(vt_decode(g.tr, &o, ar, g.E, 12, y, sc, &n, &ds), VT_OK, "decode");
      EXPECT_EQ_INT(ds.sparse, 0, vt_algo_name(o.algo));
    }
    vt_arena_reset(ar);
    lattice_free(&g);
  }
  vt_arena_destroy(ar);
}

/* A dictionary lattice at 945 labels (one allowed label in most columns): every exact decoder
 * takes the route; the scalar reference and beam never do. */
TEST(dictionary_lattice_routes_every_exact_decoder) {
  test_rng r = {7};
  vt_arena *ar = NULL;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  lattice g;
  REQUIRE(lattice_make(&g, &r, 945, 25, 0.04, 0.0, 0) == 0, "lattice");
  int32_t ry[25], y[25], n = 0;
  double rs[1], sc[1];
  REQUIRE(reference(&g, 1, ar, ry, rs) >= 0, "reference");
  for (int a = 0; a < VT_ALGO_COUNT_; a++) {
    if (!vt_algo_available((vt_algo)a)) continue;
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = (vt_algo)a;
    vt_decode_stats ds = {0};
    EXPECT_EQ_INT(vt_decode(g.tr, &o, ar, g.E, 25, y, sc, &n, &ds), VT_OK, vt_algo_name(o.algo));
    const int reference_only = a == VT_ALGO_VITERBI_SCALAR || a == VT_ALGO_BEAM;
    EXPECT_EQ_INT(ds.sparse, !reference_only, vt_algo_name(o.algo));
    if (!reference_only) {
      EXPECT_EQ_INT(n, 1, vt_algo_name(o.algo));
      EXPECT(memcmp(y, ry, sizeof y) == 0, "%s: labels", vt_algo_name(o.algo));
    }
  }
  vt_arena_reset(ar);
  lattice_free(&g);
  vt_arena_destroy(ar);
}

TEST_MAIN(CASE(random_constrained_lattices), CASE(unconstrained_never_routed),
          CASE(dictionary_lattice_routes_every_exact_decoder))
