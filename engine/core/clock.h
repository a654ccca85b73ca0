/* engine/core/clock.h: the monotonic clock the engine times itself with (reports, --stats).
 * The including file defines _POSIX_C_SOURCE (>= 199309L) before its first include. */
#ifndef VT_CORE_CLOCK_H
#define VT_CORE_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
static inline double vt_clock_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
