/* engine/core/rank.c: label orders for the staggered and A* decoders. */
#include <stdlib.h>

#include "vitesse.h"

typedef struct rank_item {
  int64_t count;
  int32_t label;
} rank_item;

static int item_cmp(const void *pa, const void *pb) {
  const rank_item *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return (a->label > b->label) - (a->label < b->label);
}

vt_status vt_rank_from_counts(const int64_t *count, int32_t L, int32_t *rank) {
  if (L < 1) return VT_EINVAL;
  rank_item *it = malloc((size_t)L * sizeof *it);
  if (!it) return VT_ENOMEM;
  for (int32_t y = 0; y < L; y++) it[y] = (rank_item){count[y], y};
  qsort(it, (size_t)L, sizeof *it, item_cmp);
  for (int32_t r = 0; r < L; r++) rank[r] = it[r].label;
  free(it);
  return VT_OK;
}
