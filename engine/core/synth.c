/* engine/core/synth.c: the synthetic lattice generator (see synth.h). */
#include "core/synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
  uint64_t s;
} rng;

/* splitmix64: small, fast, and identical on every platform. */
static uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

static double rng_normal(rng *r) {
  double u = rng_unit(r), v = rng_unit(r);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Draws a rank from the cumulative Zipf table cdf[0..L). */
static int32_t draw_rank(rng *r, const double *cdf, int32_t L) {
  double u = rng_unit(r) * cdf[L - 1];
  int32_t lo = 0, hi = L - 1;
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (cdf[mid] < u)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

#define N_SUCC 6
#define N_CONFUSE 3

vt_status vt_synth_make(vt_synth *out, const vt_synth_opts *o) {
  vt_status st = VT_ENOMEM;
  memset(out, 0, sizeof *out);
  double *cdf = NULL;
  int32_t *succ = NULL;
  if (o->labels < 1 || o->sentences < 0 || !(o->mean_length > 0)) return VT_EINVAL;
  const int32_t L = o->labels;
  rng r = {o->seed * 0x2545F4914F6CDD1Dull + 1};
  out->L = L;
  out->n_sent = o->sentences;
  out->offset = malloc((size_t)(o->sentences + 1) * sizeof(int64_t));
  out->lengths = malloc((size_t)(o->sentences ? o->sentences : 1) * sizeof(int32_t));
  out->A = malloc((size_t)L * L * sizeof(float));
  out->S = malloc((size_t)L * sizeof(float));
  out->F = malloc((size_t)L * sizeof(float));
  out->R = malloc((size_t)L * sizeof(int32_t));
  cdf = malloc((size_t)L * sizeof(double));
  succ = malloc((size_t)L * N_SUCC * sizeof(int32_t));
  if (!out->offset || !out->lengths || !out->A || !out->S || !out->F || !out->R || !cdf || !succ)
    goto fail;

  /* Label ids are a random permutation of ranks; R lists ids by rank. */
  for (int32_t i = 0; i < L; i++) out->R[i] = i;
  for (int32_t i = L - 1; i > 0; i--) {
    int32_t j = (int32_t)(rng_next(&r) % (uint64_t)(i + 1));
    int32_t t = out->R[i];
    out->R[i] = out->R[j];
    out->R[j] = t;
  }
  double acc = 0;
  for (int32_t i = 0; i < L; i++) cdf[i] = (acc += 1.0 / pow(i + 1.0, 1.1));
  for (int32_t i = 0; i < L * N_SUCC; i++) succ[i] = draw_rank(&r, cdf, L);

  /* Transitions in rank space, stored by id: small noise, strong successor pairs. */
  for (int32_t i = 0; i < L; i++)
    for (int32_t j = 0; j < L; j++)
      out->A[(size_t)out->R[i] * L + out->R[j]] = (float)(0.7 * rng_normal(&r) - 0.5);
  for (int32_t i = 0; i < L; i++)
    for (int32_t s = 0; s < N_SUCC; s++)
      out->A[(size_t)out->R[i] * L + out->R[succ[i * N_SUCC + s]]] +=
          (float)(2.5 + 2.0 * rng_unit(&r));
  for (int32_t y = 0; y < L; y++) {
    out->S[y] = (float)(1.5 * rng_normal(&r));
    out->F[y] = (float)(1.5 * rng_normal(&r));
  }

  int64_t rows = 0;
  for (int64_t s = 0; s < o->sentences; s++) {
    double len = o->mean_length + 0.45 * o->mean_length * rng_normal(&r);
    int32_t T = (int32_t)lround(len);
    if (T < 1) T = 1;
    if (T > 6 * o->mean_length + 1) T = (int32_t)(6 * o->mean_length + 1);
    out->lengths[s] = T;
    out->offset[s] = rows;
    rows += T;
  }
  out->offset[o->sentences] = rows;
  out->n_rows = rows;
  out->E = malloc((size_t)(rows ? rows : 1) * L * sizeof(float));
  if (!out->E) goto fail;
  for (int64_t s = 0; s < o->sentences; s++) {
    int32_t hidden = draw_rank(&r, cdf, L);
    for (int64_t t = out->offset[s]; t < out->offset[s + 1]; t++) {
      float *row = out->E + (size_t)t * L;
      for (int32_t y = 0; y < L; y++) row[y] = (float)(4.0 * rng_normal(&r));
      if (t > out->offset[s])
        hidden = rng_unit(&r) < 0.6 ? succ[hidden * N_SUCC + (int32_t)(rng_next(&r) % N_SUCC)]
                                    : draw_rank(&r, cdf, L);
      row[out->R[hidden]] += (float)(25.0 + 5.0 * rng_normal(&r));
      for (int32_t c = 0; c < N_CONFUSE && L > 1; c++)
        row[out->R[draw_rank(&r, cdf, L)]] += (float)(12.0 + 5.0 * rng_normal(&r));
    }
  }
  st = VT_OK;
  free(cdf);
  free(succ);
  return st;
fail:
  free(cdf);
  free(succ);
  vt_synth_free(out);
  return st;
}

void vt_synth_free(vt_synth *s) {
  free(s->offset);
  free(s->lengths);
  free(s->E);
  free(s->A);
  free(s->S);
  free(s->F);
  free(s->R);
  memset(s, 0, sizeof *s);
}
