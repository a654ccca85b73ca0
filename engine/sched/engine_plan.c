/* engine/sched/engine_plan.c: where the engine's workers go (engine.h): on the topology its
 * options name, or, for one worker on this machine, alone and unbound until a run needs more. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "sched/engine.h"

/* A plan of one worker, unbound, on no topology: what a run of one worker on input that reads
 * light uses (vt_sched_job.read_light: the calling thread works it, no thread is bound), so that
 * such a run never reads the machine (hwloc's discovery: 1.5-2 ms of a process). */
static vt_status plan_solo(vt_engine *e, char *err, size_t errlen) {
  vt_plan *p = &e->plan;
  memset(p, 0, sizeof *p);
  memset(&e->topo, 0, sizeof e->topo);
  p->workers = calloc(1, sizeof *p->workers);
  p->nodes = calloc(1, sizeof *p->nodes);
  if (!p->workers || !p->nodes) {
    vt_plan_free(p);
    return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
  }
  p->bind = VT_BIND_NONE;
  p->n_workers = p->n_nodes = 1;
  p->workers[0] = (vt_plan_worker){-1, -1, -1, -1, -1, 0};
  p->nodes[0] = (vt_plan_node){-1, -1, 1};
  snprintf(e->topo.source, sizeof e->topo.source, "not read (one worker)");
  e->topo.numa_nodes = 1;
  return VT_OK;
}

/* The workers the options ask for: OpenMP's count when none (OMP_NUM_THREADS, else every CPU the
 * process may run on); on a synthetic topology, one per core of it (0). */
static int threads_asked(const vt_engine_opts *o) {
  return !o->threads && !o->topology ? omp_get_max_threads() : o->threads;
}

vt_status vt_engine_plan_read(const vt_engine_opts *o, vt_topo *t, vt_plan *p, char *err,
                              size_t errlen) {
  char why[600];
  memset(p, 0, sizeof *p);
  if (vt_topo_load(t, o->topology, why, sizeof why) != VT_OK)
    return vt_fail_into(err, errlen, VT_EINVAL, "--topology: %s", why);
  const int threads = threads_asked(o);
  if (vt_topo_plan(t, threads, o->bind, p) != VT_OK) {
    vt_fail_into(err, errlen, VT_EINVAL, "cannot plan %d worker(s) on %s", threads, t->source);
    vt_topo_free(t);
    return VT_EINVAL;
  }
  return VT_OK;
}

vt_status vt_engine_plan(vt_engine *e, char *err, size_t errlen) {
  if (!e->opts.topology && threads_asked(&e->opts) == 1) return plan_solo(e, err, errlen);
  return vt_engine_plan_read(&e->opts, &e->topo, &e->plan, err, errlen);
}

vt_status vt_engine_topo_need(vt_engine *e, char *err, size_t errlen) {
  if (e->topo.hw) return VT_OK;
  vt_topo t;
  vt_plan p;
  vt_status st = vt_engine_plan_read(&e->opts, &t, &p, err, errlen);
  if (st != VT_OK) return st;
  vt_plan_free(&e->plan);
  e->topo = t;
  e->plan = p;
  return VT_OK;
}
