/* tests/fuzz/fuzz_crftrain.c: fuzz target of CRF training's item reader and what follows it
 * (engine/train/crf_items.c: labels, attributes, escapes, values; crf_data.c: CRFsuite's feature
 * generation; crf_grad.c: the objective and gradient; crf_export.c and models/crfsuite_write.c:
 * the CRFsuite model written and read back), as `vitesse train --algo lbfgs --items` runs them.
 *
 * The input is one item file read from memory. When it compiles, the features are generated
 * with and without CRFsuite's possible states and transitions; a problem of at most 64 labels and
 * 4096 features then gets its objective and gradient at w = 0 (checked against sum T log L) and
 * at small weights, and the weights' CRFsuite model is written as a crf1d file and loaded back. */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/crfs_items.h"
#include "models/crfsuite_file.h"
#include "models/crfsuite_write.h"
#include "train/crf_data.h"
#include "train/crf_export.h"
#include "train/crf_grad.h"
#include "train/crf_items.h"
#include "vitesse.h"

#include "fuzz_common.h"

/* Objective, gradient and model of one feature set. */
static void fz_train(const vt_crf_names *names, const vt_crf_data *d, const vt_crf_feats *f) {
  if (d->L > 64 || f->n > 4096 || d->n_tok > 4096) return;
  double *w = calloc((size_t)f->n + 1, sizeof *w), *g = calloc((size_t)f->n + 1, sizeof *g);
  vt_crf_grad *G = NULL;
  if (!w || !g || vt_crf_grad_create(&G, d, f, 1, NULL) != VT_OK) goto done;
  double loss = vt_crf_grad_eval(G, w, g);
  double want = (double)d->n_tok * log((double)d->L);
  if (!(fabs(loss - want) <= 1e-9 * (1 + want))) abort();
  for (int64_t i = 0; i < f->n; i++) w[i] = (double)((i * 7919) % 13) / 4.0 - 1.5;
  loss = vt_crf_grad_eval(G, w, g);
  if (!(loss >= -1e-9 * (1 + fabs(loss)))) abort(); /* -log p is never negative */
  vt_crfs *m = NULL, *back = NULL;
  unsigned char *bytes = NULL;
  size_t len = 0;
  char err[256];
  if (vt_crf_export_crfs(&m, names, f, w) == VT_OK &&
      vt_crfs_crf1d_bytes(m, "fuzz", &bytes, &len, err, sizeof err) == VT_OK) {
    if (vt_crfs_load_mem(&back, bytes, len, "fuzz", err, sizeof err) != VT_OK) abort();
    if (back->L != m->L || back->n_state != m->n_state) abort();
  }
  vt_crfs_free(back);
  vt_crfs_free(m);
  free(bytes);
done:
  vt_crf_grad_destroy(G);
  free(w);
  free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vt_crf_names names;
  vt_crf_data d;
  memset(&d, 0, sizeof d);
  vt_items *r = NULL;
  char err[256];
  if (vt_crf_names_init(&names) != VT_OK) return 0;
  if (vt_items_open_mem(&r, "items", (const char *)data, size, 0, 256, 64, err, sizeof err) ==
          VT_OK &&
      vt_crf_items_compile(&names, 0, &d, r, err, sizeof err) == VT_OK && d.n_sent > 0) {
    vt_crf_data_unit(&d);
    for (int all = 0; all < 2; all++) {
      vt_crf_featgen gen = {all ? 0 : 1.5, all, all, NULL};
      vt_crf_feats f;
      if (vt_crf_feats_build(&f, &d, &gen, NULL) != VT_OK) continue;
      fz_train(&names, &d, &f);
      vt_crf_feats_free(&f);
    }
  }
  vt_items_close(r);
  vt_crf_data_free(&d);
  vt_crf_names_free(&names);
  return 0;
}
