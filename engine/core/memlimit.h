/* engine/core/memlimit.h: the bound on the memory one model may need once opened
 * (vt_model_memory_limit_set in vitesse.h). A model file can declare, in a few bytes, a label
 * count whose dense L x L tables take gigabytes; every loader computes what the model will need
 * from the counts it has read and asks here before allocating, so such a file is refused with a
 * message naming the bound, never by the kernel's OOM killer. */
#ifndef VT_CORE_MEMLIMIT_H
#define VT_CORE_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

/* The bytes an opened model holds per label pair: its transitions in double as the model keeps
 * them, the engine's padded row-major copy, its transposed copy and its copy by rank
 * (engine/core/trans.c, bounds.c). Loaders charge this for L * L pairs. */
#define VT_MEM_PER_LABEL_PAIR 32

/* Returns VT_OK when `bytes` fit the bound, else VT_EFORMAT with "NAME: WHAT needs N MiB, more
 * than the bound of M MiB (--max-model-memory)" in err. */
vt_status vt_memlimit_check(uint64_t bytes, const char *name, const char *what, char *err,
                            size_t errlen);

#endif
