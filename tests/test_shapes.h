/* tests/test_shapes.h: random sentence shapes shared by the large exactness tests: peaked
 * emissions (as a trained tagger's), flat emissions (the worst case), uniform noise, small-integer
 * ties, dense -inf BIO-like transition constraints, and adversarial magnitudes (1e15-scale offsets
 * with small differences, where summation order matters); rankings that are right, random, or put
 * the true winners last. */
#ifndef VT_TESTS_TEST_SHAPES_H
#define VT_TESTS_TEST_SHAPES_H

#include "test_util.h"
#include "vitesse.h"

/* The sentence-count scale from VT_TEST_SCALE (default 1; the sanitizer builds set less). */
static inline double test_scale(void) {
  const char *env = getenv("VT_TEST_SCALE");
  double scale = env ? atof(env) : 1.0;
  return scale > 0 ? scale : 1.0;
}

typedef enum { SH_PEAKED, SH_FLAT, SH_NOISE, SH_TIES, SH_BIO, SH_ADVERSARIAL, SH_COUNT } shape;
static const char *shape_name[SH_COUNT] = {"peaked", "flat", "noise", "ties", "bio", "adversarial"};

typedef enum { RK_TRUE, RK_RANDOM, RK_WORST, RK_COUNT } rank_mode;

static inline double gauss(test_rng *r) {
  double u = test_unit(r) + 1e-300, v = test_unit(r);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Transitions, start and end for shape `sh` (L labels). */
static inline void make_model(test_rng *r, shape sh, int L, double *A, double *S, double *F) {
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
static inline void make_sentence(test_rng *r, shape sh, int L, int T, double *E, int *hot) {
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
static inline void make_rank(test_rng *r, rank_mode rm, int L, const int *hot, int T,
                             int32_t *rank) {
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
      while (k > 0 &&
             (rm == RK_TRUE ? count[rank[k - 1]] < count[x] : count[rank[k - 1]] > count[x])) {
        rank[k] = rank[k - 1];
        k--;
      }
      rank[k] = x;
    }
  }
  free(count);
}

/* A stream of random sentences over L labels: a new model (shape, transitions, rank fitted on a
 * sample sentence) every `per_model` sentences; lengths 1..maxT, half of them at most short_T. */
typedef struct test_stream {
  int L, maxT, short_T, per_model, shape_offset, index;
  double *A, *S, *F, *E; /* E: the current sentence, T x L */
  int32_t *rank;
  int *hot;
  vt_trans *tr; /* the current model */
  shape sh;     /* its shape */
} test_stream;

/* Allocates a stream; shapes cycle starting at shape_offset. Returns 0, or -1 out of memory. */
static inline int test_stream_init(test_stream *st, int L, int maxT, int short_T, int per_model,
                                   int shape_offset) {
  st->L = L;
  st->maxT = maxT;
  st->short_T = short_T;
  st->per_model = per_model;
  st->shape_offset = shape_offset;
  st->index = 0;
  st->tr = NULL;
  st->sh = SH_PEAKED;
  st->A = malloc(sizeof(double) * (size_t)L * L);
  st->S = malloc(sizeof(double) * L);
  st->F = malloc(sizeof(double) * L);
  st->E = malloc(sizeof(double) * (size_t)maxT * L);
  st->rank = malloc(sizeof(int32_t) * L);
  st->hot = malloc(sizeof(int) * maxT);
  return st->A && st->S && st->F && st->E && st->rank && st->hot ? 0 : -1;
}

/* Draws the next sentence into st->E (and a new model when due); returns its length, or -1 when
 * the model cannot be bound. The model index of the sentence is (st->index - 1) / per_model. */
static inline int test_stream_next(test_stream *st, test_rng *rng) {
  const int L = st->L, maxT = st->maxT, m = st->index / st->per_model;
  if (st->index % st->per_model == 0) {
    vt_trans_destroy(st->tr);
    st->tr = NULL;
    st->sh = (shape)((m + st->shape_offset) % SH_COUNT);
    make_model(rng, st->sh, L, st->A, st->S, st->F);
    int T0 = 1 + test_int(rng, maxT);
    make_sentence(rng, st->sh, L, T0, st->E, st->hot);
    make_rank(rng, (rank_mode)(m % RK_COUNT), L, st->hot, T0, st->rank);
    if (vt_trans_create(&st->tr, L, st->A, st->S, st->F, st->rank) != VT_OK) return -1;
  }
  int T = 1 + test_int(rng, maxT);
  if (test_unit(rng) < 0.5) T = 1 + test_int(rng, maxT < st->short_T ? maxT : st->short_T);
  make_sentence(rng, st->sh, L, T, st->E, st->hot);
  st->index++;
  return T;
}

/* Frees a stream. */
static inline void test_stream_free(test_stream *st) {
  vt_trans_destroy(st->tr);
  free(st->A);
  free(st->S);
  free(st->F);
  free(st->E);
  free(st->rank);
  free(st->hot);
}

#endif
