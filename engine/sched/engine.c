/* engine/sched/engine.c: what the run loops do to the engine: keep the last run's scheduler
 * statistics, and hand the scheduler's progress to the run's hook. Its public calls are
 * engine/api/engine_setup.c's and engine_run.c's. */
#include "sched/engine.h"

#include <stdlib.h>
#include <string.h>

void vt_engine_keep_stats(vt_engine *e, const vt_sched_stats *rs) {
  vt_sched_worker_stats *copy = NULL;
  free((void *)e->ss.workers);
  e->ss = *rs;
  if (rs->n_workers && (copy = malloc((size_t)rs->n_workers * sizeof *copy)))
    memcpy(copy, rs->workers, (size_t)rs->n_workers * sizeof *copy);
  e->ss.workers = copy;
  if (!copy) e->ss.n_workers = 0;
}

void vt_engine_progress(const vt_engine_opts *eo, const vt_sched_progress *p, int64_t bytes_read,
                        int64_t bytes_total) {
  vt_progress pub = {p->batches, p->items,   p->tokens,  p->elapsed,
                     p->final,   bytes_read, bytes_total};
  eo->progress(eo->progress_ctx, &pub);
}
