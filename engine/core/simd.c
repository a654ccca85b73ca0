/* engine/core/simd.c: picks the SIMD level once (cpuid + OS support, or VITESSE_SIMD); every kernel
 * family (cmake/VtIsa.cmake) runs the tables of that level. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "vitesse.h"

static once_flag simd_once = ONCE_FLAG_INIT;
static _Atomic int simd_level = VT_SIMD_SCALAR;

int vt_simd_supported(vt_simd level) {
  switch (level) {
  case VT_SIMD_SCALAR: return 1;
#if defined(VT_HAVE_AVX2)
  case VT_SIMD_AVX2:
    /* gcc's cpu model checks both cpuid and the OS's XCR0 state bits. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
#if defined(VT_HAVE_AVX512)
  case VT_SIMD_AVX512:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw");
#endif
  default: return 0;
  }
}

const char *vt_simd_name(vt_simd level) {
  switch (level) {
  case VT_SIMD_SCALAR: return "scalar";
  case VT_SIMD_AVX2: return "avx2";
  case VT_SIMD_AVX512: return "avx512";
  }
  return "unknown";
}

static void simd_choose(void) {
  int level = VT_SIMD_SCALAR;
  if (vt_simd_supported(VT_SIMD_AVX512))
    level = VT_SIMD_AVX512;
  else if (vt_simd_supported(VT_SIMD_AVX2))
    level = VT_SIMD_AVX2;
  const char *env = getenv("VITESSE_SIMD");
  if (env && *env) {
    int want = -1;
    for (int l = VT_SIMD_SCALAR; l <= VT_SIMD_AVX512; l++)
      if (strcmp(env, vt_simd_name((vt_simd)l)) == 0) want = l;
    if (want < 0)
      fprintf(stderr, "vitesse: VITESSE_SIMD=%s is not scalar|avx2|avx512; using %s\n", env,
              vt_simd_name((vt_simd)level));
    else if (!vt_simd_supported((vt_simd)want))
      fprintf(stderr, "vitesse: VITESSE_SIMD=%s is not supported on this CPU; using %s\n", env,
              vt_simd_name((vt_simd)level));
    else
      level = want;
  }
  atomic_store(&simd_level, level);
}

vt_simd vt_simd_active(void) {
  call_once(&simd_once, simd_choose);
  return (vt_simd)atomic_load(&simd_level);
}

vt_status vt_simd_force(vt_simd level) {
  call_once(&simd_once, simd_choose);
  if (!vt_simd_supported(level)) return VT_EUNSUPPORTED;
  atomic_store(&simd_level, (int)level);
  return VT_OK;
}
