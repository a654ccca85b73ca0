/* engine/api/engine_impl.h: what a public vt_engine holds (vitesse.h): the options, the machine
 * and the plan they lead to, the cancel flag, and the last run's scheduler statistics. The run
 * loops (engine/sched/*_job.c) take it whole. */
#ifndef VT_API_ENGINE_IMPL_H
#define VT_API_ENGINE_IMPL_H

#include <stdatomic.h>

#include "scheduler.h"
#include "topo.h"
#include "vitesse.h"

struct vt_engine {
  vt_engine_opts opts;
  vt_topo topo;
  vt_plan plan;
  atomic_int cancel;  /* set by vt_engine_cancel; cleared when a run starts... see run entry */
  vt_sched_stats ss;  /* the last run's; its `workers` array is owned (a copy) */
};

/* Keeps a copy of `rs` (and of its per-worker array) as the engine's last-run statistics. */
void vt_engine_keep_stats(vt_engine *e, const vt_sched_stats *rs);

#endif
