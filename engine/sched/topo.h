/* engine/sched/topo.h: the machine's topology (hwloc) and where the engine's workers go.
 *
 * vt_topo_load discovers packages, NUMA nodes, cores and PUs of this machine (only the CPUs the
 * process is bound to, when it is bound to some: taskset, an MPI rank's share), or loads a
 * synthetic description ("pack:2 numa:2 core:8 pu:2") or an XML file (lstopo --of xml) so that a
 * plan can be shown or tested for a machine one does not have. vt_topo_plan places workers:
 *
 *   - workers are dealt round-robin over the NUMA nodes that have cores (worker w goes to the
 *     (w mod nodes)-th node while every node still has a free core), so a job with fewer workers
 *     than cores still uses every node's memory bandwidth;
 *   - within a node, cores in order, one worker per core (its first PU); only when every core
 *     has a worker do second hyperthreads get one, and beyond every PU workers wrap around
 *     (the plan is then marked oversubscribed);
 *   - each node with workers gets one batch queue and one model replica (plan node); its workers
 *     take batches from their own queue first and steal from the others last.
 *
 * Binding (vt_bind): core pins each worker to its PU; numa lets it run anywhere on its NUMA
 * node; none binds nothing, and then there is one plan node (one queue, one replica in ordinary
 * memory), since an unbound thread has no home node. Only hwloc binds: the engine's workers are
 * threads of an OpenMP team (engine/sched/scheduler.h), and each binds itself with hwloc over
 * whatever OpenMP's OMP_PROC_BIND did, then gives the thread its binding back when the run ends
 * (the runtime reuses its threads for the caller's own parallel regions). */
#ifndef VT_SCHED_TOPO_H
#define VT_SCHED_TOPO_H

#include <hwloc.h>
#include <stdio.h>

#include "vitesse.h"

/* Returns "none", "core" or "numa". */
const char *vt_bind_name(vt_bind bind);

typedef struct vt_topo {
  hwloc_topology_t hw;
  int this_system;  /* 1 when this is the machine we run on (binding is possible) */
  char source[600]; /* "this machine", "synthetic: ...", "xml: PATH" */
  int packages, numa_nodes, cores, pus;
} vt_topo;

/* Loads a topology into *t: `source` NULL or "" = this machine (its allowed CPUs only, so a
 * taskset/cgroup restriction is honoured); a path to an existing file = hwloc XML; anything else
 * = a hwloc synthetic description, where a last level that is not "pu" gets " pu:1" appended
 * ("numa:4 core:4" means 4 nodes of 4 single-PU cores); a synthetic topology has at most 4096
 * PUs and 1024 NUMA nodes.
 * Returns VT_OK; VT_EINVAL (the description or file is not a topology, or too large a synthetic
 * one; `err` says why) or
 * VT_ENOMEM. On failure *t is zeroed. `err` has errlen bytes (may be 0). */
vt_status vt_topo_load(vt_topo *t, const char *source, char *err, size_t errlen);

/* Frees the topology and zeroes *t. Fine on a zeroed struct. */
void vt_topo_free(vt_topo *t);

typedef struct vt_plan_worker {
  int pu;      /* logical index of the PU it is placed on; -1 with bind none */
  int pu_os;   /* its OS index (what taskset and /proc call the CPU); -1 with bind none */
  int core;    /* logical index of its core; -1 with bind none */
  int package; /* logical index of its package; -1 with bind none or when there is none */
  int numa;    /* logical index of its NUMA node; -1 with bind none */
  int node;    /* its plan node: queue and model replica (0 .. n_nodes-1) */
} vt_plan_worker;

typedef struct vt_plan_node {
  int numa;    /* logical index of the NUMA node; -1 with bind none */
  int numa_os; /* its OS index; -1 with bind none */
  int workers; /* workers whose home this is */
} vt_plan_node;

typedef struct vt_plan {
  vt_bind bind;
  int n_workers;
  vt_plan_worker *workers;
  int n_nodes; /* plan nodes: NUMA nodes that got workers, in NUMA order (1 with bind none) */
  vt_plan_node *nodes;
  int oversubscribed; /* more workers than PUs: some PUs hold two workers */
} vt_plan;

/* Plans `threads` workers (0 = one per core) on `t` with binding `bind`, as described at the
 * top of this file. Returns VT_OK, VT_EINVAL (threads < 0 or a topology without PUs) or
 * VT_ENOMEM; on failure *p is zeroed. Free with vt_plan_free. */
vt_status vt_topo_plan(const vt_topo *t, int threads, vt_bind bind, vt_plan *p);

/* Frees the plan's arrays and zeroes it. Fine on a zeroed plan. */
void vt_plan_free(vt_plan *p);

/* Binds the calling thread as worker `w` of plan `p` (its PU for core, its NUMA node's CPUs for
 * numa) with hwloc_set_cpubind(HWLOC_CPUBIND_THREAD). Returns VT_OK; VT_OK without doing
 * anything for bind none; VT_EUNSUPPORTED when `t` is not this machine or the OS refused. */
vt_status vt_topo_bind(const vt_topo *t, const vt_plan *p, int w);

/* Returns the calling thread's CPU binding (to hand to vt_topo_bind_restore), or NULL when `t`
 * is not this machine or it is unknown. */
hwloc_bitmap_t vt_topo_bind_save(const vt_topo *t);

/* Binds the calling thread to `saved` (from vt_topo_bind_save) again and frees it; NULL: a
 * no-op. */
void vt_topo_bind_restore(const vt_topo *t, hwloc_bitmap_t saved);

/* Prints the topology summary and the plan (one line per worker: worker, PU, core, NUMA node,
 * package, replica/queue; then one line per plan node) in the format of `vitesse topo`. */
void vt_plan_print(FILE *f, const vt_topo *t, const vt_plan *p);

#endif
