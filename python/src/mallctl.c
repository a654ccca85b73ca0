/* python/src/mallctl.c: the one jemalloc function libvitesse calls, answered "no such control".
 *
 * libvitesse links jemalloc unprefixed for its CLI, and reads jemalloc's per-thread allocation
 * counter through mallctl for --stats (alloc/heap_stats.c; it already copes with another
 * malloc, as under the sanitizers). A Python extension is dlopen'ed, and libjemalloc.so.2
 * cannot be ("cannot allocate memory in static TLS block"), so the extension does not link
 * jemalloc: the library's malloc calls go to the process's allocator, and this hidden
 * definition makes the counter read fail cleanly. */
#include <errno.h>
#include <stddef.h>

__attribute__((visibility("hidden"))) int mallctl(const char *name, void *oldp, size_t *oldlenp,
                                                  void *newp, size_t newlen);

int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
  (void)name;
  (void)oldp;
  (void)oldlenp;
  (void)newp;
  (void)newlen;
  return ENOENT;
}
