/* engine/train/blas.c: loading OpenBLAS on first use (see blas.h). */
#include "train/blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/errmsg.h"

typedef __typeof__(cblas_dgemm) dgemm_fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static dgemm_fn *dgemm;          /* set once, before `once` completes */
static void (*set_threads)(int); /* openblas_set_num_threads, when it has it */
static char why[VT_ERR_LINE];    /* the failure, when dgemm is NULL */

/* The names tried, in order: the library this build compiled against, then the soname. */
static const char *const NAMES[] = {
#ifdef VT_OPENBLAS_LIBDIR
    VT_OPENBLAS_LIBDIR "/libopenblas.so.0",
#endif
    "libopenblas.so.0", "libopenblas.so"};

static void load(void) {
  const size_t n_names = sizeof NAMES / sizeof *NAMES;
  void *h = NULL;
  int ours = 0;
  for (size_t i = 0; i < n_names && !h; i++) /* one the program loaded itself */
    h = dlopen(NAMES[i], RTLD_NOW | RTLD_NOLOAD);
  for (size_t i = 0; i < n_names && !h; i++) {
    h = dlopen(NAMES[i], RTLD_NOW | RTLD_LOCAL);
    ours = h != NULL;
  }
  if (!h) {
    const char *e = dlerror();
    vt_errorf(why, sizeof why, NULL, "cannot load OpenBLAS: %s", e ? e : "not found");
    return;
  }
  dgemm_fn *f = (dgemm_fn *)(void (*)(void))dlsym(h, "cblas_dgemm");
  set_threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
  int (*shutdown)(void) = (int (*)(void))dlsym(h, "blas_thread_shutdown_");
  if (!f) {
    vt_errorf(why, sizeof why, NULL, "cannot load OpenBLAS: it has no cblas_dgemm");
    return;
  }
  if (set_threads) set_threads(1);
  if (ours && shutdown) shutdown();
  dgemm = f;
}

vt_status vt_blas_load(char *err, size_t errlen) {
  pthread_once(&once, load);
  if (dgemm) {
    if (set_threads) set_threads(1); /* again: the program may have changed it since */
    return VT_OK;
  }
  vt_errorf(err, errlen, NULL, "%s", why);
  return VT_EUNSUPPORTED;
}

void vt_blas_dgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,
                   blasint m, blasint n, blasint k, double alpha, const double *a, blasint lda,
                   const double *b, blasint ldb, double beta, double *c, blasint ldc) {
  pthread_once(&once, load);
  if (!dgemm) {
    fprintf(stderr, "vitesse: %s\n", why);
    abort();
  }
  dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
