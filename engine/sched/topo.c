/* engine/sched/topo.c: topology discovery (hwloc) and the placement plan of the engine's workers.
 */
#include "sched/topo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *vt_bind_name(vt_bind bind) {
  return bind == VT_BIND_CORE ? "core" : bind == VT_BIND_NUMA ? "numa" : "none";
}

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Copies a synthetic description into buf, appending " pu:1" when the last level is not PUs
 * (hwloc insists on it). Returns 0, or -1 when it does not fit. */
static int synthetic_normalize(const char *src, char *buf, size_t len) {
  size_t n = strlen(src);
  while (n && (src[n - 1] == ' ' || src[n - 1] == '\t')) n--;
  size_t start = n;
  while (start && src[start - 1] != ' ' && src[start - 1] != '\t') start--;
  int ends_pu = n - start >= 2 && (src[start] == 'p' || src[start] == 'P') &&
                (src[start + 1] == 'u' || src[start + 1] == 'U');
  int w = snprintf(buf, len, "%.*s%s", (int)n, src, ends_pu ? "" : " pu:1");
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* The largest synthetic topology vt_topo_load accepts: hwloc builds every object of the
 * description, and a plan touches every PU, so an unbounded one costs minutes and gigabytes. */
#define SYNTHETIC_MAX_PUS 4096
#define SYNTHETIC_MAX_NUMA 1024

/* 1 when [s, end) starts with lower-case `pre`, in any case. */
static int prefix_ci(const char *s, const char *end, const char *pre) {
  for (; *pre; s++, pre++)
    if (s >= end || (*s | 0x20) != *pre) return 0;
  return 1;
}

/* Counts the PUs and NUMA nodes of synthetic description `syn` (levels "TYPE:ARITY", PUs last):
 * the product of the arities, and of those down to the NUMA level. Counts stop growing past
 * the bounds (no overflow). */
static void synthetic_size(const char *syn, long long *pus, long long *numa) {
  long long prod = 1;
  *numa = 1;
  for (const char *p = syn; *p;) {
    while (*p == ' ' || *p == '\t') p++;
    const char *tok = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    const char *colon = memchr(tok, ':', (size_t)(p - tok));
    if (!colon) continue;
    long long arity = 0;
    for (const char *d = colon + 1; d < p && *d >= '0' && *d <= '9'; d++)
      if (arity <= 1000000) arity = arity * 10 + (*d - '0');
    if (arity > 1) prod = prod * arity > 1000000000 ? 1000000000 : prod * arity;
    if (prefix_ci(tok, p, "numa") || prefix_ci(tok, p, "node")) *numa = prod;
  }
  *pus = prod;
}

/* A process bound to some of the machine's CPUs (taskset, numactl, an MPI launcher, or
 * vitesse-mpi giving each rank of a node its share) plans its workers on those CPUs only: the
 * topology is restricted to the calling thread's binding (the process's, unless a thread was
 * bound alone: an MPI library's own threads keep theirs) when that is a strict subset. */
static void restrict_to_binding(vt_topo *t) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->hw);
  if (set && hwloc_get_cpubind(t->hw, set, HWLOC_CPUBIND_THREAD) == 0 &&
      !hwloc_bitmap_iszero(set) && hwloc_bitmap_isincluded(set, all) &&
      !hwloc_bitmap_isequal(set, all) && hwloc_topology_restrict(t->hw, set, 0) == 0)
    snprintf(t->source, sizeof t->source, "this machine, the %d CPUs the process is bound to",
             hwloc_bitmap_weight(set));
  hwloc_bitmap_free(set);
}

vt_status vt_topo_load(vt_topo *t, const char *source, char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  char syn[512];
  memset(t, 0, sizeof *t);
  if (err && errlen) err[0] = '\0';
  if (hwloc_topology_init(&t->hw) != 0) {
    t->hw = NULL;
    snprintf(err, errlen, "cannot initialise hwloc");
    goto fail;
  }
  st = VT_EINVAL;
  if (!source || !*source) {
    snprintf(t->source, sizeof t->source, "this machine");
  } else if (is_file(source)) {
    if (hwloc_topology_set_xml(t->hw, source) != 0) {
      snprintf(err, errlen, "%s: not a hwloc XML topology", source);
      goto fail;
    }
    snprintf(t->source, sizeof t->source, "xml: %s", source);
  } else {
    if (synthetic_normalize(source, syn, sizeof syn) != 0 ||
        hwloc_topology_set_synthetic(t->hw, syn) != 0) {
      snprintf(err, errlen,
               "'%s': neither a file nor a valid hwloc synthetic topology "
               "(e.g. \"pack:2 numa:2 core:8 pu:2\")",
               source);
      goto fail;
    }
    long long pus, numa;
    synthetic_size(syn, &pus, &numa);
    if (pus > SYNTHETIC_MAX_PUS || numa > SYNTHETIC_MAX_NUMA) {
      snprintf(err, errlen,
               "'%s': too large a synthetic topology (%s%lld PUs, %lld NUMA nodes; at most %d "
               "and %d)",
               source, pus >= 1000000000 ? "over " : "", pus, numa, SYNTHETIC_MAX_PUS,
               SYNTHETIC_MAX_NUMA);
      goto fail;
    }
    snprintf(t->source, sizeof t->source, "synthetic: %s", syn);
  }
  if (hwloc_topology_load(t->hw) != 0) {
    snprintf(err, errlen, "%s: hwloc cannot load the topology", t->source);
    goto fail;
  }
  t->this_system = hwloc_topology_is_thissystem(t->hw);
  if (t->this_system && (!source || !*source)) restrict_to_binding(t);
  t->packages = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PACKAGE);
  t->numa_nodes = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);
  t->cores = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_CORE);
  t->pus = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PU);
  if (t->pus < 1) {
    snprintf(err, errlen, "%s: the topology has no processing units", t->source);
    goto fail;
  }
  return VT_OK;
fail:
  vt_topo_free(t);
  return st;
}

void vt_topo_free(vt_topo *t) {
  if (!t) return;
  if (t->hw) hwloc_topology_destroy(t->hw);
  memset(t, 0, sizeof *t);
}

/* One PU as a placement slot. */
typedef struct slot {
  int pu, pu_os, core, package, numa, rank; /* rank: position of the PU within its core */
} slot;

static int slot_cmp(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->numa != y->numa) return x->numa < y->numa ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->core != y->core) return x->core < y->core ? -1 : 1;
  return x->pu < y->pu ? -1 : x->pu > y->pu;
}

/* Describes every PU: its core (the PU itself when the topology has no cores), its rank in the
 * core, its package and its NUMA node (the first node whose CPUs include it). */
static void slots_describe(const vt_topo *t, slot *s) {
  for (int i = 0; i < t->pus; i++) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PU, (unsigned)i);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_PACKAGE, pu);
    s[i].pu = i;
    s[i].pu_os = (int)pu->os_index;
    s[i].core = core ? (int)core->logical_index : -1 - i;
    s[i].package = pkg ? (int)pkg->logical_index : -1;
    s[i].rank = 0;
    if (core) {
      hwloc_obj_t o = NULL;
      while ((o = hwloc_get_next_obj_inside_cpuset_by_type(t->hw, core->cpuset, HWLOC_OBJ_PU, o)) !=
                 NULL &&
             o != pu)
        s[i].rank++;
    }
    s[i].numa = 0;
    for (int n = 0; n < t->numa_nodes; n++) {
      hwloc_obj_t node = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)n);
      if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
        s[i].numa = n;
        break;
      }
    }
  }
}

vt_status vt_topo_plan(const vt_topo *t, int threads, vt_bind bind, vt_plan *p) {
  vt_status st = VT_ENOMEM;
  int n_numa = t->numa_nodes > 0 ? t->numa_nodes : 1;
  slot *s = NULL;
  int *start = NULL, *next = NULL, *plan_of = NULL;
  memset(p, 0, sizeof *p);
  if (threads < 0 || t->pus < 1) return VT_EINVAL;
  s = malloc((size_t)t->pus * sizeof *s);
  start = calloc((size_t)n_numa + 1, sizeof *start); /* node n's slots: start[n] .. start[n+1] */
  next = calloc((size_t)n_numa, sizeof *next);
  plan_of = malloc((size_t)n_numa * sizeof *plan_of);
  if (!s || !start || !next || !plan_of) goto fail;
  slots_describe(t, s);
  qsort(s, (size_t)t->pus, sizeof *s, slot_cmp);
  int distinct_cores = 0, max_rank = 0;
  for (int i = 0; i < t->pus; i++) {
    start[s[i].numa + 1]++;
    distinct_cores += s[i].rank == 0;
    if (s[i].rank > max_rank) max_rank = s[i].rank;
  }
  for (int n = 0; n < n_numa; n++) start[n + 1] += start[n];
  if (threads == 0) threads = distinct_cores;
  p->bind = bind;
  p->n_workers = threads;
  p->workers = calloc((size_t)threads, sizeof *p->workers);
  if (!p->workers) goto fail;

  /* Deal: rank by rank (first PUs of every core, then second hyperthreads, ...), round-robin
   * over the NUMA nodes; when every PU has a worker, start again (oversubscribed). */
  int w = 0, rank = 0;
  while (w < threads) {
    int placed = 0;
    for (int n = 0; n < n_numa && w < threads; n++) {
      int i = start[n] + next[n];
      if (i >= start[n + 1] || s[i].rank != rank) continue;
      vt_plan_worker *pw = &p->workers[w++];
      pw->pu = s[i].pu;
      pw->pu_os = s[i].pu_os;
      pw->core = s[i].core < 0 ? -1 : s[i].core;
      pw->package = s[i].package;
      pw->numa = t->numa_nodes > 0 ? s[i].numa : -1;
      next[n]++;
      placed = 1;
    }
    if (placed) continue;
    if (++rank > max_rank) {
      rank = 0;
      memset(next, 0, (size_t)n_numa * sizeof *next);
      p->oversubscribed = 1;
    }
  }

  /* Plan nodes: one per NUMA node that got workers (one in all for bind none). */
  for (int n = 0; n < n_numa; n++) plan_of[n] = -1;
  if (bind == VT_BIND_NONE) {
    for (int i = 0; i < threads; i++) {
      vt_plan_worker *pw = &p->workers[i];
      pw->pu = pw->pu_os = pw->core = pw->package = pw->numa = -1;
    }
    p->n_nodes = 1;
  } else {
    for (int i = 0; i < threads; i++) {
      int n = p->workers[i].numa < 0 ? 0 : p->workers[i].numa;
      plan_of[n] = 0;
    }
    for (int n = 0; n < n_numa; n++)
      if (plan_of[n] == 0) plan_of[n] = p->n_nodes++;
  }
  p->nodes = calloc((size_t)p->n_nodes, sizeof *p->nodes);
  if (!p->nodes) goto fail;
  if (bind == VT_BIND_NONE) {
    p->nodes[0].numa = p->nodes[0].numa_os = -1;
    p->nodes[0].workers = threads;
  } else {
    for (int n = 0; n < n_numa; n++) {
      if (plan_of[n] < 0) continue;
      vt_plan_node *pn = &p->nodes[plan_of[n]];
      hwloc_obj_t node = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)n);
      pn->numa = node ? n : -1;
      pn->numa_os = node ? (int)node->os_index : -1;
    }
    for (int i = 0; i < threads; i++) {
      vt_plan_worker *pw = &p->workers[i];
      pw->node = plan_of[pw->numa < 0 ? 0 : pw->numa];
      p->nodes[pw->node].workers++;
    }
  }
  st = VT_OK;
  goto done;
fail:
  vt_plan_free(p);
done:
  free(s);
  free(start);
  free(next);
  free(plan_of);
  return st;
}

void vt_plan_free(vt_plan *p) {
  if (!p) return;
  free(p->workers);
  free(p->nodes);
  memset(p, 0, sizeof *p);
}

vt_status vt_topo_bind(const vt_topo *t, const vt_plan *p, int w) {
  if (p->bind == VT_BIND_NONE) return VT_OK;
  if (!t->this_system) return VT_EUNSUPPORTED;
  const vt_plan_worker *pw = &p->workers[w];
  hwloc_obj_t obj = NULL;
  if (p->bind == VT_BIND_CORE)
    obj = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PU, (unsigned)pw->pu);
  else if (pw->numa >= 0)
    obj = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)pw->numa);
  if (!obj || !obj->cpuset) return VT_EUNSUPPORTED;
  return hwloc_set_cpubind(t->hw, obj->cpuset, HWLOC_CPUBIND_THREAD) == 0 ? VT_OK : VT_EUNSUPPORTED;
}

hwloc_bitmap_t vt_topo_bind_save(const vt_topo *t) {
  hwloc_bitmap_t set = NULL;
  if (!t->this_system || !(set = hwloc_bitmap_alloc())) return NULL;
  if (hwloc_get_cpubind(t->hw, set, HWLOC_CPUBIND_THREAD) != 0) {
    hwloc_bitmap_free(set);
    return NULL;
  }
  return set;
}

void vt_topo_bind_restore(const vt_topo *t, hwloc_bitmap_t saved) {
  if (!saved) return;
  (void)hwloc_set_cpubind(t->hw, saved, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(saved);
}
