/* tests/test_staggered.c: the staggered decoders against Viterbi on >= 100,000 random sentences
 * of many shapes: peaked emissions (as a trained tagger's), flat emissions (the worst case),
 * uniform noise, small-integer ties, dense -inf BIO-like transition constraints, and adversarial
 * magnitudes (1e15-scale offsets with small differences, where summation order matters);
 * T from 1 to 200, L in {1, 2, 3, 5, 17, 45, 64, 65, 319, 945, 2602}; rankings that are right,
 * random, or put the true winners last. Every staggered result must have exactly Viterbi's score
 * (so the paths are identical whenever the optimum is unique: the returned path's score is
 * recomputed along it), and a sentence has no finite path for one exactly when for the other.
 * VT_TEST_SCALE (default 1) scales the sentence counts, for the slower sanitizer build. */
#include <string.h>

#include "test_util.h"
#include "vitesse.h"

typedef enum { SH_PEAKED, SH_FLAT, SH_NOISE, SH_TIES, SH_BIO, SH_ADVERSARIAL, SH_COUNT } shape;
static const char *shape_name[SH_COUNT] = {"peaked", "flat", "noise", "ties", "bio", "adversarial"};

typedef enum { RK_TRUE, RK_RANDOM, RK_WORST, RK_COUNT } rank_mode;

static double gauss(test_rng *r) {
  double u = test_unit(r) + 1e-300, v = test_unit(r);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Transitions, start and end for shape `sh` (L labels). */
static void make_model(test_rng *r, shape sh, int L, double *A, double *S, double *F) {
  for (int i = 0; i < L; i++) {
    S[i] = sh == SH_TIES ? test_int(r, 3) - 1 : gauss(r);
    F[i] = sh == SH_TIES ? test_int(r, 3) - 1 : gauss(r);
    for (int j = 0; j < L; j++) {
      double v;
      switch (sh) {
      case SH_TIES: v = test_int(r, 5) - 2; break;
      case SH_NOISE: v = 10 * test_unit(r) - 5; break;
      case SH_ADVERSARIAL: v = (test_unit(r) < 0.5 ? 1e-3 : 1e3) * gauss(r); break;
      default: v = gauss(r); break;
      }
      A[(size_t)i * L + j] = v;
    }
  }
  if (sh == SH_BIO && L >= 3) {
    /* Label 0 = O; odd labels B-x, even labels >= 2 I-x of the B just before: I-x may only
     * follow B-x or I-x, and no sentence starts with I-x. */
    for (int j = 2; j < L; j += 2) {
      for (int i = 0; i < L; i++)
        if (i != j - 1 && i != j) A[(size_t)i * L + j] = -INFINITY;
      S[j] = -INFINITY;
    }
  }
}

/* Emissions of one sentence. `hot` returns the label that got the largest boost per token. */
static void make_sentence(test_rng *r, shape sh, int L, int T, double *E, int *hot) {
  for (int t = 0; t < T; t++) {
    double *row = E + (size_t)t * L;
    int h = test_int(r, L);
    hot[t] = h;
    for (int y = 0; y < L; y++) {
      switch (sh) {
      case SH_PEAKED: row[y] = 2.0 * gauss(r); break;
      case SH_FLAT: row[y] = 1e-3 * gauss(r); break;
      case SH_NOISE: row[y] = 10 * test_unit(r) - 5; break;
      case SH_TIES: row[y] = test_int(r, 5) - 2; break;
      case SH_BIO: row[y] = test_unit(r) < 0.1 ? -INFINITY : 3.0 * gauss(r); break;
      case SH_ADVERSARIAL: row[y] = 1e15 + 0.25 * test_int(r, 8) + 1e-3 * gauss(r); break;
      default: break;
      }
    }
    if (sh == SH_PEAKED) {
      row[h] += 12.0;
      for (int c = 0; c < 2; c++) row[test_int(r, L)] += 6.0;
    }
  }
}

/* rank: RK_TRUE puts the boosted labels first, RK_WORST last, RK_RANDOM shuffles. */
static void make_rank(test_rng *r, rank_mode rm, int L, const int *hot, int T, int32_t *rank) {
  int *count = calloc((size_t)L, sizeof *count);
  for (int t = 0; t < T; t++) count[hot[t]]++;
  for (int i = 0; i < L; i++) rank[i] = i;
  if (rm == RK_RANDOM) {
    for (int i = L - 1; i > 0; i--) {
      int j = test_int(r, i + 1), tmp = rank[i];
      rank[i] = rank[j];
      rank[j] = tmp;
    }
  } else {
    /* Insertion sort by count (descending for RK_TRUE, ascending for RK_WORST). */
    for (int i = 1; i < L; i++) {
      int32_t x = rank[i];
      int k = i;
      while (k > 0 && (rm == RK_TRUE ? count[rank[k - 1]] < count[x]
                                     : count[rank[k - 1]] > count[x])) {
        rank[k] = rank[k - 1];
        k--;
      }
      rank[k] = x;
    }
  }
  free(count);
}

int main(void) {
  const char *scale_env = getenv("VT_TEST_SCALE");
  double scale = scale_env ? atof(scale_env) : 1.0;
  if (!(scale > 0)) scale = 1.0;
  /* Sentences per label count and the longest sentence: large L gets fewer, shorter sentences
   * so the reference Viterbi (T L^2) stays affordable. */
  static const struct { int L, n, maxT; } plan[] = {
      {1, 6000, 200},  {2, 15000, 200}, {3, 15000, 200}, {5, 15000, 150}, {17, 15000, 120},
      {45, 12000, 80}, {64, 10000, 60}, {65, 10000, 60}, {319, 2400, 40}, {945, 300, 30},
      {2602, 36, 20}};
  vt_arena *ar;
  if (vt_arena_create(&ar, 0) != VT_OK) return 1;
  test_rng rng = {20101};
  long long checks = 0, sentences = 0, ties = 0, infeasible = 0;
  long long per_shape[SH_COUNT] = {0};
  for (size_t p = 0; p < sizeof plan / sizeof plan[0]; p++) {
    const int L = plan[p].L, maxT = plan[p].maxT;
    const int n = (int)(plan[p].n * scale) + 1;
    double *A = malloc(sizeof(double) * (size_t)L * L), *S = malloc(sizeof(double) * L),
           *F = malloc(sizeof(double) * L), *E = malloc(sizeof(double) * (size_t)maxT * L);
    int32_t *rank = malloc(sizeof(int32_t) * L), *yv = malloc(sizeof(int32_t) * maxT),
            *ys = malloc(sizeof(int32_t) * maxT);
    int *hot = malloc(sizeof(int) * maxT);
    /* A new model every 50 sentences (or every sentence for tiny L): many models, many inputs. */
    vt_trans *tr = NULL;
    shape sh = SH_PEAKED;
    for (int i = 0; i < n; i++) {
      if (i % 50 == 0) {
        vt_trans_destroy(tr);
        sh = (shape)((i / 50 + (int)p) % SH_COUNT);
        make_model(&rng, sh, L, A, S, F);
        /* The rank is fitted on a sample sentence, then kept for the model's sentences. */
        int T0 = 1 + test_int(&rng, maxT);
        make_sentence(&rng, sh, L, T0, E, hot);
        make_rank(&rng, (rank_mode)((i / 50) % RK_COUNT), L, hot, T0, rank);
        if (vt_trans_create(&tr, L, A, S, F, rank) != VT_OK) return 1;
      }
      int T = 1 + test_int(&rng, maxT);
      if (test_unit(&rng) < 0.5) T = 1 + test_int(&rng, maxT < 30 ? maxT : 30);
      make_sentence(&rng, sh, L, T, E, hot);
      vt_decode_opts o;
      vt_decode_opts_init(&o);
      double sv = 0, ss = 0;
      int32_t nv = 0, ns = 0;
      EXPECT_EQ_INT(vt_decode(tr, &o, ar, E, T, yv, &sv, &nv, NULL), VT_OK, "viterbi");
      vt_arena_reset(ar);
      infeasible += nv == 0;
      for (int a = 0; a < 2; a++) {
        o.algo = a ? VT_ALGO_STAGGERED_COL : VT_ALGO_STAGGERED;
        vt_status st = vt_decode(tr, &o, ar, E, T, ys, &ss, &ns, NULL);
        vt_arena_reset(ar);
        char c[160];
        snprintf(c, sizeof c, "%s L=%d T=%d shape=%s model=%d sentence=%d", vt_algo_name(o.algo),
                 L, T, shape_name[sh], i / 50, i);
        EXPECT_EQ_INT(st, VT_OK, c);
        EXPECT_EQ_INT(ns, nv, c);
        if (ns == nv && nv == 1) {
          EXPECT_EQ_DBL(ss, sv, c);
          if (memcmp(ys, yv, sizeof(int32_t) * T) != 0) {
            ties++;
            /* A different path is only allowed when the optimum is not unique: where k-best is
             * affordable, check that the second-best score equals the best. */
            if (L <= 17 && T <= 40) {
              vt_decode_opts k2;
              vt_decode_opts_init(&k2);
              k2.algo = VT_ALGO_KBEST_VITERBI;
              k2.k = 2;
              int32_t y2[2 * 40], n2 = 0;
              double s2[2];
              vt_decode(tr, &k2, ar, E, T, y2, s2, &n2, NULL);
              vt_arena_reset(ar);
              EXPECT(n2 == 2 && s2[1] == s2[0], "%s: path differs but the optimum is unique", c);
              checks++;
            }
          }
        }
        checks += 2;
        if (test_failures > 20) return test_finish("test_staggered", checks);
      }
      sentences++;
      per_shape[sh]++;
    }
    vt_trans_destroy(tr);
    free(A);
    free(S);
    free(F);
    free(E);
    free(rank);
    free(yv);
    free(ys);
    free(hot);
  }
  vt_arena_destroy(ar);
  printf("test_staggered: %lld sentences (", sentences);
  for (int s = 0; s < SH_COUNT; s++) printf("%s%s %lld", s ? ", " : "", shape_name[s], per_shape[s]);
  printf("), %lld with no finite path, %lld optimal ties resolved to another path\n", infeasible,
         ties);
  EXPECT(scale < 1.0 || sentences >= 100000, "only %lld sentences", sentences);
  return test_finish("test_staggered", checks);
}
