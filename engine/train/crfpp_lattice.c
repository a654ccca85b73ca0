/* engine/train/crfpp_lattice.c: the lattice of a CRF++ training problem: costs, Viterbi,
 * forward-backward and CRF++'s objective over it (crfpp_lattice.h). */
#include "train/crfpp_lattice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

vt_status vt_crfpp_lattice_init(vt_crfpp_lattice *lat, int32_t L, int32_t max_T) {
  memset(lat, 0, sizeof *lat);
  const size_t TL = (size_t)(max_T > 0 ? max_T : 1) * (size_t)(L > 0 ? L : 1);
  const size_t LL = (size_t)(L > 0 ? L : 1) * (size_t)(L > 0 ? L : 1);
  lat->L = L;
  lat->max_T = max_T;
  lat->node = malloc(TL * sizeof *lat->node);
  lat->path = malloc(TL * (size_t)(L > 0 ? L : 1) * sizeof *lat->path);
  lat->best = malloc(TL * sizeof *lat->best);
  lat->en = malloc(TL * sizeof *lat->en);
  lat->ep = malloc(TL * (size_t)(L > 0 ? L : 1) * sizeof *lat->ep);
  lat->scale = malloc((size_t)(max_T > 0 ? max_T : 1) * sizeof *lat->scale);
  lat->fwd = malloc(TL * sizeof *lat->fwd);
  lat->beta = malloc(TL * sizeof *lat->beta);
  lat->marg = malloc(LL * sizeof *lat->marg);
  lat->back = malloc(TL * sizeof *lat->back);
  lat->result = malloc((size_t)(max_T > 0 ? max_T : 1) * sizeof *lat->result);
  if (!lat->node || !lat->path || !lat->best || !lat->en || !lat->ep || !lat->scale || !lat->fwd ||
      !lat->beta || !lat->marg || !lat->back || !lat->result) {
    vt_crfpp_lattice_free(lat);
    return VT_ENOMEM;
  }
  return VT_OK;
}

void vt_crfpp_lattice_free(vt_crfpp_lattice *lat) {
  free(lat->node);
  free(lat->path);
  free(lat->best);
  free(lat->en);
  free(lat->ep);
  free(lat->scale);
  free(lat->fwd);
  free(lat->beta);
  free(lat->marg);
  free(lat->back);
  free(lat->result);
  memset(lat, 0, sizeof *lat);
}

void vt_crfpp_lattice_score(vt_crfpp_lattice *lat, const vt_crfpp_problem *p, int64_t s,
                            const double *w) {
  const int32_t L = p->L;
  const int64_t t0 = p->sent_off[s];
  const int32_t T = (int32_t)(p->sent_off[s + 1] - t0);
  lat->T = T;
  for (int32_t t = 0; t < T; t++) {
    const int32_t *uf = p->ufeat + (t0 + t) * p->n_u;
    double *node = lat->node + (size_t)t * L;
    for (int32_t y = 0; y < L; y++) { /* summed in template order, as crf_learn */
      double c = 0;
      for (int32_t k = 0; k < p->n_u; k++)
        if (uf[k] >= 0) c += w[uf[k] + y];
      node[y] = c;
    }
    if (t == 0) continue;
    const int32_t *bf = p->bfeat + (t0 + t) * p->n_b;
    double *path = lat->path + (size_t)t * L * L;
    for (int32_t i = 0; i < L * L; i++) {
      double c = 0;
      for (int32_t k = 0; k < p->n_b; k++)
        if (bf[k] >= 0) c += w[bf[k] + i];
      path[i] = c;
    }
  }
}

int32_t vt_crfpp_lattice_viterbi(vt_crfpp_lattice *lat, const int32_t *gold) {
  const int32_t L = lat->L, T = lat->T;
  if (T == 0) return 0;
  for (int32_t y = 0; y < L; y++) {
    lat->best[y] = lat->node[y];
    lat->back[y] = -1;
  }
  for (int32_t t = 1; t < T; t++) {
    const double *prev = lat->best + (size_t)(t - 1) * L;
    const double *path = lat->path + (size_t)t * L * L;
    const double *node = lat->node + (size_t)t * L;
    for (int32_t y = 0; y < L; y++) {
      double bestc = -1e37;
      int32_t arg = -1;
      for (int32_t q = 0; q < L; q++) { /* the first of equal scores, as crf_learn */
        const double c = prev[q] + path[(size_t)q * L + y] + node[y];
        if (c > bestc) {
          bestc = c;
          arg = q;
        }
      }
      lat->best[(size_t)t * L + y] = arg >= 0 ? bestc : node[y];
      lat->back[(size_t)t * L + y] = arg;
    }
  }
  double bestc = -1e37;
  int32_t y = 0;
  for (int32_t q = 0; q < L; q++)
    if (bestc < lat->best[(size_t)(T - 1) * L + q]) {
      bestc = lat->best[(size_t)(T - 1) * L + q];
      y = q;
    }
  int32_t err = 0;
  for (int32_t t = T - 1; t >= 0; t--) {
    lat->result[t] = y;
    err += y != gold[t];
    if (t > 0) {
      const int32_t b = lat->back[(size_t)t * L + y];
      y = b >= 0 ? b : 0;
    }
  }
  return err;
}

/* exp(v[i] - max v) into e (n of them); returns max v. */
static double exp_shifted(const double *v, double *e, size_t n) {
  double mx = v[0];
  for (size_t i = 1; i < n; i++)
    if (v[i] > mx) mx = v[i];
  for (size_t i = 0; i < n; i++) e[i] = exp(v[i] - mx);
  return mx;
}

/* Forward-backward in the exp domain, each position's costs shifted by their largest and its
 * forward sums scaled to 1 (the scales' logs and the shifts sum to log Z). */
double vt_crfpp_lattice_nll(vt_crfpp_lattice *lat, const vt_crfpp_problem *p, int64_t s,
                            double *g) {
  const int32_t L = p->L, T = lat->T;
  const size_t LL = (size_t)L * L;
  const int64_t t0 = p->sent_off[s];
  const int32_t *gold = p->gold + t0;
  if (T == 0) return 0;
  double *en = lat->en, *ep = lat->ep, *fwd = lat->fwd, *beta = lat->beta, *sc = lat->scale;
  double logZ = 0;
  for (int32_t t = 0; t < T; t++) {
    logZ += exp_shifted(lat->node + (size_t)t * L, en + (size_t)t * L, (size_t)L);
    if (t > 0) logZ += exp_shifted(lat->path + (size_t)t * LL, ep + (size_t)t * LL, LL);
  }
  for (int32_t t = 0; t < T; t++) {
    double *a = fwd + (size_t)t * L;
    const double *e = en + (size_t)t * L;
    if (t == 0) {
      for (int32_t y = 0; y < L; y++) a[y] = e[y];
    } else {
      const double *prev = fwd + (size_t)(t - 1) * L, *M = ep + (size_t)t * LL;
      for (int32_t y = 0; y < L; y++) a[y] = 0;
      for (int32_t q = 0; q < L; q++) {
        const double pq = prev[q];
        const double *row = M + (size_t)q * L;
        for (int32_t y = 0; y < L; y++) a[y] += pq * row[y];
      }
      for (int32_t y = 0; y < L; y++) a[y] *= e[y];
    }
    double z = 0;
    for (int32_t y = 0; y < L; y++) z += a[y];
    sc[t] = z;
    logZ += log(z);
    const double inv = 1 / z;
    for (int32_t y = 0; y < L; y++) a[y] *= inv;
  }
  double gold_score = 0;
  for (int32_t t = 0; t < T; t++) {
    gold_score += lat->node[(size_t)t * L + gold[t]];
    if (t > 0) gold_score += lat->path[(size_t)t * LL + (size_t)gold[t - 1] * L + gold[t]];
  }
  if (!g) return logZ - gold_score;
  for (int32_t y = 0; y < L; y++) beta[(size_t)(T - 1) * L + y] = 1;
  double *m = lat->marg;
  for (int32_t t = T - 2; t >= 0; t--) {
    const double *next = beta + (size_t)(t + 1) * L, *e = en + (size_t)(t + 1) * L;
    const double *M = ep + (size_t)(t + 1) * LL;
    const double inv = 1 / sc[t + 1];
    for (int32_t y = 0; y < L; y++) m[y] = e[y] * next[y] * inv;
    for (int32_t q = 0; q < L; q++) {
      const double *row = M + (size_t)q * L;
      double b = 0;
      for (int32_t y = 0; y < L; y++) b += row[y] * m[y];
      beta[(size_t)t * L + q] = b;
    }
  }
  for (int32_t t = 0; t < T; t++) {
    const int32_t *uf = p->ufeat + (t0 + t) * p->n_u;
    const double *a = fwd + (size_t)t * L, *b = beta + (size_t)t * L;
    for (int32_t y = 0; y < L; y++) m[y] = a[y] * b[y];
    m[gold[t]] -= 1;
    for (int32_t k = 0; k < p->n_u; k++) {
      if (uf[k] < 0) continue;
      double *gf = g + uf[k];
      for (int32_t y = 0; y < L; y++) gf[y] += m[y];
    }
    if (t == 0 || p->n_b == 0) continue;
    const int32_t *bf = p->bfeat + (t0 + t) * p->n_b;
    int any = 0;
    for (int32_t k = 0; k < p->n_b; k++) any |= bf[k] >= 0;
    if (!any) continue;
    const double *prev = fwd + (size_t)(t - 1) * L, *M = ep + (size_t)t * LL;
    const double *e = en + (size_t)t * L, inv = 1 / sc[t];
    for (int32_t q = 0; q < L; q++) {
      const double pq = prev[q] * inv;
      const double *row = M + (size_t)q * L;
      double *mq = m + (size_t)q * L;
      for (int32_t y = 0; y < L; y++) mq[y] = pq * row[y] * e[y] * b[y];
    }
    m[(size_t)gold[t - 1] * L + gold[t]] -= 1;
    for (int32_t k = 0; k < p->n_b; k++) {
      if (bf[k] < 0) continue;
      double *gf = g + bf[k];
      for (size_t i = 0; i < LL; i++) gf[i] += m[i];
    }
  }
  return logZ - gold_score;
}

double vt_crfpp_problem_objective(const vt_crfpp_problem *p, vt_crfpp_lattice *lat, const double *w,
                                  double *g, double C, int l1, int64_t *tok_err,
                                  int64_t *sent_err) {
  if (g) memset(g, 0, (size_t)p->n * sizeof *g);
  double obj = 0;
  int64_t te = 0, se = 0;
  for (int64_t s = 0; s < p->n_sent; s++) {
    vt_crfpp_lattice_score(lat, p, s, w);
    obj += vt_crfpp_lattice_nll(lat, p, s, g);
    const int32_t e = vt_crfpp_lattice_viterbi(lat, p->gold + p->sent_off[s]);
    te += e;
    se += e > 0;
  }
  double reg = 0;
  if (l1) {
    for (int64_t i = 0; i < p->n; i++) reg += fabs(w[i]);
    obj += reg / C;
  } else {
    for (int64_t i = 0; i < p->n; i++) {
      reg += w[i] * w[i];
      if (g) g[i] += w[i] / C;
    }
    obj += reg / (2 * C);
  }
  *tok_err = te;
  *sent_err = se;
  return obj;
}
