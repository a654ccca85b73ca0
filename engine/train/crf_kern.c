/* engine/train/crf_kern.c: the dispatcher of the CRF forward-backward family and of the plans'
 * loops (crf_kern_<level>.c). */
#include "train/crf_kern.h"

const vt_crf_kern_ops *vt_crf_kern_get(vt_simd level) {
  if (!vt_simd_supported(level)) return NULL;
  switch (level) {
  case VT_SIMD_SCALAR: return &vt_crf_kern_scalar;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2: return &vt_crf_kern_avx2;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512: return &vt_crf_kern_avx512;
#endif
  default: return NULL;
  }
}

int vt_crf_fb_batch(vt_crf_batch *b, const vt_crf_data *d, const vt_crf_feats *f, const double *w,
                    double ws, const double *M, const vt_crf_sparse *sp, double mA, double *G) {
  return vt_crf_kern_get(vt_simd_active())->fb_batch(b, d, f, w, ws, M, sp, mA, G);
}

void vt_crf_plan_scores(const vt_crf_plan *p, const vt_crf_feats *f, const double *w, int32_t L,
                        double *E, double *scratch) {
  vt_crf_kern_get(vt_simd_active())->plan_scores(p, f, w, L, E, scratch);
}

void vt_crf_plan_counts(const vt_crf_plan *p, const vt_crf_feats *f, const double *P, int32_t L,
                        double *out, double *scratch) {
  vt_crf_kern_get(vt_simd_active())->plan_counts(p, f, P, L, out, scratch);
}

double vt_crf_viterbi_first(const double *S, const double *A, int32_t T, int32_t L, double *V,
                            int32_t *back, int32_t *path) {
  return vt_crf_kern_get(vt_simd_active())->viterbi_first(S, A, T, L, V, back, path);
}
