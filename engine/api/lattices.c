/* engine/api/lattices.c: vt_lattices (vitesse.h) over the .npy loader (lattice_file.c) or the
 * caller's memory, and vt_trans_load, the transition model of a lattice set from .npy files. */
#include "io/lattice_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/errmsg.h"

vt_status vt_lattices_open(vt_lattices **out, const char *e_path, const char *n_path) {
  char err[VT_ERR_LINE];
  vt_lattices *l = calloc(1, sizeof *l);
  *out = NULL;
  if (!l) return vt_fail(VT_ENOMEM, "out of memory");
  int st = vt_lattice_file_load(&l->lf, e_path, n_path, NULL, NULL, NULL, NULL, err, sizeof err);
  if (st != VT_OK) {
    free(l);
    return vt_fail((vt_status)st, "%s", err);
  }
  l->n_sent = l->lf.n_sent;
  l->offset = l->lf.offset;
  l->E = l->lf.E.data;
  l->is_f64 = l->lf.E.dtype == VT_NPY_F64;
  l->L = l->lf.L;
  l->E_file = &l->lf.E;
  l->e_path = e_path;
  *out = l;
  return VT_OK;
}

vt_status vt_lattices_wrap(vt_lattices **out, const void *E, int is_f64, int32_t L,
                           const int64_t *lengths, int64_t n_sent) {
  *out = NULL;
  if (L < 1 || n_sent < 0 || (n_sent > 0 && !lengths))
    return vt_fail(VT_EINVAL, "lattices: L >= 1, n_sent >= 0 and lengths expected");
  vt_lattices *l = calloc(1, sizeof *l);
  int64_t *off = l ? malloc((size_t)(n_sent + 1) * sizeof *off) : NULL;
  if (!off) {
    free(l);
    return vt_fail(VT_ENOMEM, "out of memory");
  }
  off[0] = 0;
  for (int64_t s = 0; s < n_sent; s++) {
    if (lengths[s] < 0 || lengths[s] > INT32_MAX) {
      free(off);
      free(l);
      return vt_fail(VT_EINVAL, "lattices: length [%lld] = %lld is out of range", (long long)s,
                     (long long)lengths[s]);
    }
    off[s + 1] = off[s] + lengths[s];
  }
  if (off[n_sent] > 0 && !E) {
    free(off);
    free(l);
    return vt_fail(VT_EINVAL, "lattices: no emissions");
  }
  l->n_sent = n_sent;
  l->offset = l->own_offset = off;
  l->E = E;
  l->is_f64 = is_f64 != 0;
  l->L = L;
  l->e_path = "memory";
  *out = l;
  return VT_OK;
}

vt_status vt_lattices_synth(vt_lattices **out, int32_t L, int64_t n_sent, double mean_length,
                            uint64_t seed) {
  vt_synth_opts so = {L, n_sent, mean_length, seed};
  vt_lattices *l = calloc(1, sizeof *l);
  vt_status st = VT_ENOMEM;
  *out = NULL;
  if (!l) return vt_fail(st, "out of memory");
  if (L < 1 || n_sent < 0 || !(mean_length > 0)) {
    free(l);
    return vt_fail(VT_EINVAL, "synth: L >= 1, sentences >= 0 and a mean length > 0 expected");
  }
  if ((st = vt_synth_make(&l->syn, &so)) != VT_OK) {
    free(l);
    return vt_fail(st, "synth: %s", vt_strerror(st));
  }
  l->is_synth = 1;
  l->n_sent = l->syn.n_sent;
  l->offset = l->syn.offset;
  l->E = l->syn.E;
  l->L = l->syn.L;
  l->e_path = "synthetic";
  *out = l;
  return VT_OK;
}

vt_status vt_lattices_synth_trans(const vt_lattices *l, vt_trans **out) {
  *out = NULL;
  if (!l->is_synth) return vt_fail(VT_EINVAL, "not a synthetic lattice set");
  const int32_t L = l->L;
  const size_t LL = (size_t)L * (size_t)L;
  double *A = malloc(LL * sizeof *A), *S = malloc((size_t)L * sizeof *S);
  double *F = malloc((size_t)L * sizeof *F);
  vt_status st = VT_ENOMEM;
  if (A && S && F) {
    for (size_t i = 0; i < LL; i++) A[i] = l->syn.A[i];
    for (int32_t y = 0; y < L; y++) {
      S[y] = l->syn.S[y];
      F[y] = l->syn.F[y];
    }
    st = vt_trans_create(out, L, A, S, F, l->syn.R);
  }
  free(A);
  free(S);
  free(F);
  return st == VT_OK ? st : vt_fail(st, "synth: %s", vt_strerror(st));
}

vt_status vt_lattices_save(const vt_lattices *l, const char *dir) {
  char path[4096], err[512];
  int32_t *lengths = malloc((size_t)(l->n_sent > 0 ? l->n_sent : 1) * sizeof *lengths);
  vt_status st = VT_ENOMEM;
  if (!lengths) return vt_fail(st, "out of memory");
  for (int64_t s = 0; s < l->n_sent; s++) lengths[s] = (int32_t)(l->offset[s + 1] - l->offset[s]);
  const int64_t shE[2] = {l->offset[l->n_sent], l->L}, shN[1] = {l->n_sent}, shA[2] = {l->L, l->L},
                shL[1] = {l->L};
  struct {
    const char *name;
    vt_npy_dtype dt;
    int nd;
    const int64_t *sh;
    const void *data;
  } files[] = {{"E", l->is_f64 ? VT_NPY_F64 : VT_NPY_F32, 2, shE, l->E},
               {"N", VT_NPY_I32, 1, shN, lengths},
               {"A", VT_NPY_F32, 2, shA, l->syn.A},
               {"S", VT_NPY_F32, 1, shL, l->syn.S},
               {"F", VT_NPY_F32, 1, shL, l->syn.F},
               {"R", VT_NPY_I32, 1, shL, l->syn.R}};
  const size_t n_files = l->is_synth ? 6 : 2;
  st = VT_OK;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    st = vt_fail(VT_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
  }
  for (size_t i = 0; i < n_files && st == VT_OK; i++) {
    snprintf(path, sizeof path, "%s/%s.npy", dir, files[i].name);
    st = (vt_status)vt_npy_write(path, files[i].dt, files[i].nd, files[i].sh, files[i].data, err,
                                 sizeof err);
    if (st != VT_OK) vt_fail(st, "%s", err);
  }
  free(lengths);
  return st;
}

const void *vt_lattices_rows(const vt_lattices *l, int64_t s, int32_t *T) {
  *T = (int32_t)(l->offset[s + 1] - l->offset[s]);
  size_t at = (size_t)l->offset[s] * (size_t)l->L * (l->is_f64 ? sizeof(double) : sizeof(float));
  return (const char *)l->E + at;
}

int vt_lattices_is_f64(const vt_lattices *l) { return l->is_f64; }

void vt_lattices_close(vt_lattices *l) {
  if (!l) return;
  vt_synth_free(&l->syn);
  vt_lattice_file_free(&l->lf);
  free(l->own_offset);
  free(l);
}

int64_t vt_lattices_sentences(const vt_lattices *l) { return l->n_sent; }

int32_t vt_lattices_labels(const vt_lattices *l) { return l->L; }

/* Emission score of row `row`, label y. */
static double score_at(const vt_lattices *l, int64_t row, int32_t y) {
  size_t i = (size_t)row * (size_t)l->L + (size_t)y;
  return l->is_f64 ? ((const double *)l->E)[i] : (double)((const float *)l->E)[i];
}

/* No rank given: labels by how often each is a column's emission argmax in `l`, releasing a mapped
 * E's pages behind the pass so a large E is not left resident. NULL: out of memory. */
static int32_t *rank_from_argmax(const vt_lattices *l) {
  int32_t *rank = malloc((size_t)l->L * sizeof *rank);
  int64_t *count = calloc((size_t)l->L, sizeof *count);
  const int64_t n_rows = l->offset[l->n_sent];
  if (!rank || !count) goto fail;
  for (int64_t row = 0, done = 0; row < n_rows; row++) {
    int32_t arg = 0;
    for (int32_t y = 1; y < l->L; y++)
      if (score_at(l, row, y) > score_at(l, row, arg)) arg = y;
    count[arg]++;
    if (l->E_file && ((row + 1) * l->L - done >= ((int64_t)1 << 20) || row + 1 == n_rows)) {
      vt_npy_release(l->E_file, done, (row + 1) * l->L - done);
      done = (row + 1) * l->L;
    }
  }
  if (vt_rank_from_counts(count, l->L, rank) != VT_OK) goto fail;
  free(count);
  return rank;
fail:
  free(rank);
  free(count);
  return NULL;
}

vt_status vt_trans_load(vt_trans **out, const char *a_path, const char *s_path, const char *f_path,
                        const char *r_path, const vt_lattices *lat) {
  char err[VT_ERR_LINE];
  vt_lattice_file tf;
  int32_t *argmax_rank = NULL;
  vt_status st;
  memset(&tf, 0, sizeof tf);
  *out = NULL;
  if (!a_path) return vt_fail(VT_EINVAL, "transitions: an (L, L) .npy file is required");
  if (!lat) { /* from the files alone */
    st = vt_trans_file_load(out, a_path, s_path, f_path, r_path, err, sizeof err);
    return st == VT_OK ? st : vt_fail(st, "%s", err);
  }
  tf.L = lat->L;
  st = (vt_status)vt_lattice_file_load_trans(&tf, lat->e_path, a_path, s_path, f_path, r_path, err,
                                             sizeof err);
  if (st != VT_OK) {
    vt_fail(st, "%s", err);
    goto done;
  }
  const int32_t *rank = tf.R;
  if (!rank) rank = argmax_rank = rank_from_argmax(lat);
  st = vt_trans_create(out, tf.L, tf.A, tf.S, tf.F, rank);
  if (st != VT_OK) vt_fail(st, "%s: %s", a_path, vt_strerror(st));
done:
  free(argmax_rank);
  vt_lattice_file_free(&tf);
  return st;
}
