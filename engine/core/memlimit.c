/* engine/core/memlimit.c: the bound on one model's memory (memlimit.h). */
#define _DEFAULT_SOURCE /* sysconf's _SC_PHYS_PAGES */
#include "core/memlimit.h"

#include <stdatomic.h>
#include <unistd.h>

#include "core/errmsg.h"

static _Atomic uint64_t limit; /* 0: the default */

void vt_model_memory_limit_set(uint64_t bytes) { atomic_store(&limit, bytes); }

uint64_t vt_model_memory_limit(void) {
  const uint64_t set = atomic_load(&limit);
  if (set) return set;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return (uint64_t)4 << 30; /* unknown: 4 GiB */
  return (uint64_t)pages * (uint64_t)page / 2;
}

vt_status vt_memlimit_check(uint64_t bytes, const char *name, const char *what, char *err,
                            size_t errlen) {
  const uint64_t lim = vt_model_memory_limit();
  if (bytes <= lim) return VT_OK;
  vt_errorf(err, errlen, name,
            "%s needs %llu MiB, more than the bound of %llu MiB (--max-model-memory)", what,
            (unsigned long long)((bytes + (1 << 20) - 1) >> 20), (unsigned long long)(lim >> 20));
  return VT_EFORMAT;
}
