/* engine/train/crf_data.c: the features of a CRF training problem (crf_data.h). */
#include "train/crf_data.h"

#include <stdlib.h>
#include <string.h>

#include "core/fix128.h"

void vt_crf_data_free(vt_crf_data *d) {
  free(d->sent_off);
  free(d->gold);
  free(d->tok_off);
  free(d->attr);
  free(d->val);
  memset(d, 0, sizeof *d);
}

void vt_crf_data_unit(vt_crf_data *d) {
  if (!d->val || !d->tok_off) return;
  for (int64_t i = 0; i < d->tok_off[d->n_tok]; i++)
    if (d->val[i] != 1.0) return;
  free(d->val);
  d->val = NULL;
}

void vt_crf_feats_free(vt_crf_feats *f) {
  free(f->st_off);
  free(f->st_label);
  free(f->tr_id);
  memset(f, 0, sizeof *f);
}

int64_t vt_crf_feats_state(const vt_crf_feats *f, int32_t a, int32_t y) {
  int64_t lo = f->st_off[a], hi = f->st_off[a + 1];
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (f->st_label[mid] < y)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < f->st_off[a + 1] && f->st_label[lo] == y ? lo : -1;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

vt_status vt_crf_feats_build(vt_crf_feats *f, const vt_crf_data *d, const vt_crf_featgen *g,
                             double **freq_out) {
  vt_status st = VT_ENOMEM;
  const int32_t L = d->L, A = d->n_attr;
  const int64_t n_occ = d->tok_off[d->n_tok];
  int64_t *bucket = calloc((size_t)A + 1, sizeof *bucket);
  int32_t *occ_label = malloc((size_t)(n_occ ? n_occ : 1) * sizeof *occ_label);
  double *occ_val = malloc((size_t)(n_occ ? n_occ : 1) * sizeof *occ_val);
  vt_fix128 *lab_freq = calloc((size_t)L, sizeof *lab_freq); /* exact: order-free */
  double *tr_freq = calloc((size_t)L * (size_t)L, sizeof *tr_freq);
  int32_t *seen = malloc((size_t)L * sizeof *seen);
  int32_t *list = malloc((size_t)L * sizeof *list);
  int32_t *forced = malloc((size_t)L * sizeof *forced);
  double *sfreq = NULL, *freq = NULL;
  memset(f, 0, sizeof *f);
  f->L = L;
  f->n_attr = A;
  f->st_off = calloc((size_t)A + 1, sizeof *f->st_off);
  f->tr_id = malloc((size_t)L * (size_t)L * sizeof *f->tr_id);
  if (!bucket || !occ_label || !occ_val || !lab_freq || !tr_freq || !seen || !list || !forced ||
      !f->st_off || !f->tr_id)
    goto done;
  /* The occurrences of each attribute, bucketed: (label, value) pairs in corpus order. */
  for (int64_t i = 0; i < n_occ; i++) bucket[d->attr[i] + 1]++;
  for (int32_t a = 0; a < A; a++) bucket[a + 1] += bucket[a];
  for (int64_t s = 0; s < d->n_sent; s++)
    for (int64_t t = d->sent_off[s]; t < d->sent_off[s + 1]; t++) {
      for (int64_t i = d->tok_off[t]; i < d->tok_off[t + 1]; i++) {
        int64_t k = bucket[d->attr[i]]++;
        occ_label[k] = d->gold[t];
        occ_val[k] = vt_crf_val(d, i);
      }
      if (t > d->sent_off[s]) tr_freq[(size_t)d->gold[t - 1] * (size_t)L + (size_t)d->gold[t]] += 1;
    }
  for (int32_t a = A; a > 0; a--) bucket[a] = bucket[a - 1];
  bucket[0] = 0;
  /* Per attribute: its labels (all, or those seen) and their frequencies. */
  int64_t cap = 0, n_state = 0;
  for (int32_t y = 0; y < L; y++) seen[y] = forced[y] = -1;
  for (int32_t a = 0; a < A; a++) {
    int32_t n = 0;
    for (int64_t k = bucket[a]; k < bucket[a + 1]; k++) {
      int32_t y = occ_label[k];
      if (seen[y] != a) {
        seen[y] = a;
        lab_freq[y] = vt_fix_of(0);
        list[n++] = y;
      }
      vt_fix_add_double(&lab_freq[y], occ_val[k]);
    }
    const int32_t n_data = n; /* labels seen with a in the data; then the forced ones */
    if (g->prior && a < g->prior->n_attr)
      for (int64_t q = g->prior->st_off[a]; q < g->prior->st_off[a + 1]; q++) {
        int32_t y = g->prior->st_label[q];
        if (seen[y] != a) {
          seen[y] = a;
          lab_freq[y] = vt_fix_of(0);
          list[n++] = y;
        }
        forced[y] = a;
      }
    if (g->possible_states && n_data > 0) {
      for (int32_t y = 0; y < L; y++)
        if (seen[y] != a) {
          seen[y] = a;
          lab_freq[y] = vt_fix_of(0);
          list[n++] = y;
        }
    }
    qsort(list, (size_t)n, sizeof *list, cmp_i32);
    for (int32_t i = 0; i < n; i++) {
      int32_t y = list[i];
      const double fy = vt_fix_to_double(lab_freq[y]);
      if (fy < g->min_freq && forced[y] != a) continue;
      if (n_state == cap) {
        int64_t nc = cap ? 2 * cap : 1024;
        int32_t *nl = realloc(f->st_label, (size_t)nc * sizeof *nl);
        if (!nl) goto done;
        f->st_label = nl;
        double *nf = realloc(sfreq, (size_t)nc * sizeof *nf);
        if (!nf) goto done;
        sfreq = nf;
        cap = nc;
      }
      f->st_label[n_state] = y;
      sfreq[n_state++] = fy;
    }
    f->st_off[a + 1] = n_state;
  }
  f->n_state = n_state;
  int64_t n_trans = 0;
  const int32_t Li = g->prior ? g->prior->L : 0;
  for (size_t i = 0; i < (size_t)L * (size_t)L; i++) {
    const size_t pi = i / (size_t)L, pj = i % (size_t)L;
    const int init = pi < (size_t)Li && pj < (size_t)Li && g->prior->tw[pi * (size_t)Li + pj] != 0;
    int keep = ((tr_freq[i] > 0 || g->possible_transitions) && tr_freq[i] >= g->min_freq) || init;
    f->tr_id[i] = keep ? (int32_t)(n_state + n_trans++) : -1;
  }
  f->n_trans = n_trans;
  f->n = n_state + n_trans;
  if (freq_out) {
    if (!(freq = malloc((size_t)(f->n ? f->n : 1) * sizeof *freq))) goto done;
    if (n_state) memcpy(freq, sfreq, (size_t)n_state * sizeof *freq);
    for (size_t i = 0; i < (size_t)L * (size_t)L; i++)
      if (f->tr_id[i] >= 0) freq[f->tr_id[i]] = tr_freq[i];
    *freq_out = freq;
    freq = NULL;
  }
  st = VT_OK;
done:
  if (st != VT_OK) vt_crf_feats_free(f);
  free(bucket);
  free(occ_label);
  free(occ_val);
  free(lab_freq);
  free(tr_freq);
  free(seen);
  free(list);
  free(forced);
  free(sfreq);
  free(freq);
  return st;
}

void vt_crf_observed(const vt_crf_data *d, const vt_crf_feats *f, double *obs) {
  memset(obs, 0, (size_t)f->n * sizeof *obs);
  for (int64_t s = 0; s < d->n_sent; s++)
    for (int64_t t = d->sent_off[s]; t < d->sent_off[s + 1]; t++) {
      for (int64_t i = d->tok_off[t]; i < d->tok_off[t + 1]; i++) {
        int64_t k = vt_crf_feats_state(f, d->attr[i], d->gold[t]);
        if (k >= 0) obs[k] += vt_crf_val(d, i);
      }
      if (t > d->sent_off[s]) {
        int32_t k = f->tr_id[(size_t)d->gold[t - 1] * (size_t)f->L + (size_t)d->gold[t]];
        if (k >= 0) obs[k] += 1;
      }
    }
}

void vt_crf_feats_drop_transitions(vt_crf_feats *f) {
  for (size_t i = 0; i < (size_t)f->L * (size_t)f->L; i++) f->tr_id[i] = -1;
  f->n_trans = 0;
  f->n = f->n_state;
}

void vt_crf_prior_free(vt_crf_prior *p) {
  free(p->st_off);
  free(p->st_label);
  free(p->st_w);
  free(p->tw);
  memset(p, 0, sizeof *p);
}

void vt_crf_weights_from_prior(double *w, const vt_crf_feats *f, const vt_crf_prior *p) {
  for (int32_t a = 0; a < p->n_attr && a < f->n_attr; a++)
    for (int64_t q = p->st_off[a]; q < p->st_off[a + 1]; q++) {
      int64_t k = vt_crf_feats_state(f, a, p->st_label[q]);
      if (k >= 0) w[k] = p->st_w[q];
    }
  const size_t Lp = (size_t)p->L;
  for (size_t i = 0; i < Lp; i++)
    for (size_t j = 0; j < Lp; j++) {
      int32_t k = f->tr_id[i * (size_t)f->L + j];
      if (k >= 0) w[k] = p->tw[i * Lp + j];
    }
}
