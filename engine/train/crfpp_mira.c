/* engine/train/crfpp_mira.c: crf_learn's MIRA over the CRF++ lattice (crfpp_mira.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (core/clock.h) */
#include "train/crfpp_mira.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/errmsg.h"

/* The difference vector of one sentence, sparse: the weights touched and their counts. */
typedef struct delta {
  double *d;     /* n counts, zero outside `at` */
  uint8_t *seen; /* n flags: listed in at */
  int32_t *at;   /* the weights touched */
  int64_t n_at;
} delta;

static void delta_add(delta *D, int64_t k, double v) {
  if (!D->seen[k]) {
    D->seen[k] = 1;
    D->at[D->n_at++] = (int32_t)k;
  }
  D->d[k] += v;
}

/* Adds sign times the features of label sequence y over sentence s of p into D, and returns
 * sign times y's score (label cost, then pair cost, token by token). */
static void delta_seq(delta *D, const vt_crfpp_problem *p, int64_t s, int32_t t, const int32_t *y,
                      double sign) {
  const int32_t L = p->L;
  const int64_t tok = p->sent_off[s] + t;
  const int32_t *uf = p->ufeat + tok * p->n_u;
  for (int32_t k = 0; k < p->n_u; k++)
    if (uf[k] >= 0) delta_add(D, (int64_t)uf[k] + y[t], sign);
  if (t == 0) return;
  const int32_t *bf = p->bfeat + tok * p->n_b;
  for (int32_t k = 0; k < p->n_b; k++)
    if (bf[k] >= 0) delta_add(D, (int64_t)bf[k] + (int64_t)y[t - 1] * L + y[t], sign);
}

vt_status vt_crfpp_mira(const vt_crfpp_problem *p, double *w, const vt_crfpp_learn_opts *o,
                        vt_crfpp_learn_report *r, char *err, size_t errlen) {
  vt_status st = VT_OK;
  vt_crfpp_lattice lat;
  memset(&lat, 0, sizeof lat);
  delta D;
  memset(&D, 0, sizeof D);
  const size_t n = (size_t)(p->n > 0 ? p->n : 1);
  const size_t per_sent = 2 * (size_t)(p->max_T > 0 ? p->max_T : 1) * (size_t)(p->n_u + p->n_b);
  uint8_t *shrink = calloc((size_t)(p->n_sent > 0 ? p->n_sent : 1), 1);
  float *upper = calloc((size_t)(p->n_sent > 0 ? p->n_sent : 1), sizeof *upper);
  D.d = calloc(n, sizeof *D.d);
  D.seen = calloc(n, 1);
  D.at = malloc((per_sent ? per_sent : 1) * sizeof *D.at);
  if (!shrink || !upper || !D.d || !D.seen || !D.at ||
      vt_crfpp_lattice_init(&lat, p->L, p->max_T) != VT_OK) {
    st = vt_fail_into(err, errlen, VT_ENOMEM, "crf_learn: out of memory");
    goto done;
  }
  const float C = (float)o->cost; /* crf_learn's MIRA holds C and the bounds as floats */
  const int shrinking = o->shrinking_size > 0 ? o->shrinking_size : 20;
  const double t_start = vt_clock_seconds();
  int converge = 0;
  r->stop = "iteration cap reached";
  for (int32_t itr = 0; itr < o->maxiter; itr++) {
    const double t0 = vt_clock_seconds();
    int64_t te = 0, se = 0, active = 0, upper_active = 0;
    double kkt = 0;
    for (int64_t s = 0; s < p->n_sent; s++) {
      if (shrink[s] >= shrinking) continue;
      active++;
      const int32_t *gold = p->gold + p->sent_off[s];
      vt_crfpp_lattice_score(&lat, p, s, w);
      const int32_t e = vt_crfpp_lattice_viterbi(&lat, gold);
      te += e;
      se += e > 0;
      if (e == 0) {
        if (shrink[s] < 255) shrink[s]++;
        continue;
      }
      shrink[s] = 0;
      /* the gold score less the Viterbi one, token by token as crf_learn sums it */
      const int32_t L = p->L, T = lat.T;
      const int32_t *res = lat.result;
      double diff = 0;
      D.n_at = 0;
      for (int32_t t = 0; t < T; t++) {
        diff += lat.node[(size_t)t * L + gold[t]];
        if (t > 0) diff += lat.path[((size_t)t * L + gold[t - 1]) * L + gold[t]];
        delta_seq(&D, p, s, t, gold, 1);
        diff -= lat.node[(size_t)t * L + res[t]];
        if (t > 0) diff -= lat.path[((size_t)t * L + res[t - 1]) * L + res[t]];
        delta_seq(&D, p, s, t, res, -1);
      }
      const double cost_diff = -diff;
      double norm2 = 0;
      for (int64_t i = 0; i < D.n_at; i++) norm2 += D.d[D.at[i]] * D.d[D.at[i]];
      double mu = ((double)e - cost_diff) / norm2;
      if (!(mu > 0)) mu = 0; /* max(0, .), a NaN included */
      if ((double)upper[s] + mu > (double)C) {
        mu = (double)(C - upper[s]);
        upper_active++;
      } else if ((double)e - cost_diff > kkt) {
        kkt = (double)e - cost_diff;
      }
      if (mu > 1e-10) {
        upper[s] = (float)((double)upper[s] + mu);
        if (upper[s] > C) upper[s] = C;
        for (int64_t i = 0; i < D.n_at; i++) w[D.at[i]] += mu * D.d[D.at[i]];
      }
      for (int64_t i = 0; i < D.n_at; i++) {
        D.d[D.at[i]] = 0;
        D.seen[D.at[i]] = 0;
      }
    }
    double obj = 0;
    for (int64_t i = 0; i < p->n; i++) obj += w[i] * w[i];
    r->iterations = itr + 1;
    vt_crfpp_iteration it;
    memset(&it, 0, sizeof it);
    it.iter = itr;
    it.terr = p->n_tok ? (double)te / (double)p->n_tok : 0;
    it.serr = p->n_sent ? (double)se / (double)p->n_sent : 0;
    it.act = active;
    it.uact = upper_active;
    it.obj = obj;
    it.kkt = kkt;
    it.seconds = vt_clock_seconds() - t0;
    if (o->on_iteration && o->on_iteration(o->ctx, &it)) {
      st = vt_fail_into(err, errlen, VT_ECANCELED,
                        "crf_learn: stopped by the callback at "
                        "iteration %d",
                        (int)itr);
      goto done;
    }
    if (kkt <= 0) {
      memset(shrink, 0, (size_t)p->n_sent);
      converge++;
    } else {
      converge = 0;
    }
    if (converge == 2) {
      r->stop = "converged (no margin violated two passes running)";
      break;
    }
  }
  r->seconds = vt_clock_seconds() - t_start;
done:
  vt_crfpp_lattice_free(&lat);
  free(shrink);
  free(upper);
  free(D.d);
  free(D.seen);
  free(D.at);
  return st;
}
