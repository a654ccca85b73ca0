/* engine/text/strhash.c: the key of the run-time tables' hash (strhash.h), drawn once. */
#define _DEFAULT_SOURCE /* getrandom, getpid */
#include "text/strhash.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static once_flag key_once = ONCE_FLAG_INIT;
static uint64_t key;

static void key_draw(void) {
  const char *set = getenv("VITESSE_HASH_KEY");
  uint64_t k = 0;
  if (set && *set) {
    k = vt_mix64(strtoull(set, NULL, 0));
  } else if (getrandom(&k, sizeof k, GRND_NONBLOCK) != (ssize_t)sizeof k) {
    struct timespec ts; /* no entropy yet: the clock, the process and where its stack is */
    clock_gettime(CLOCK_REALTIME, &ts);
    k = vt_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)getpid() ^
                 (uint64_t)(uintptr_t)&k);
  }
  key = k ? k : 1;
}

uint64_t vt_hash_key(void) {
  call_once(&key_once, key_draw);
  return key;
}

uint64_t vt_slots_longest_run(const uint32_t *slots, uint64_t n) {
  uint64_t start = 0, run = 0, longest = 0;
  while (start < n && slots[start]) start++;
  if (start == n) return n;
  for (uint64_t k = 1; k <= n; k++) {
    run = slots[(start + k) & (n - 1)] ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
