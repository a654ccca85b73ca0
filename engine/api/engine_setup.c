/* engine/api/engine_setup.c: the public vt_engine (vitesse.h): options, the machine and the plan
 * (engine/sched/topo.h), cancelling, the file sink, and the last run's statistics in JSON. The
 * engine and its run loops are engine/sched/'s; the runs' public calls are engine_run.c's. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "sched/engine.h"

/* Default token budget of a batch: large enough that a batch takes milliseconds (scheduling
 * costs nothing), small enough that a few batches per worker in flight stay a few MB. */
#define BATCH_TOKENS 4096

vt_status vt_bind_parse(const char *s, vt_bind *out) {
  static const char *names[] = {"none", "core", "numa"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(s, names[i])) {
      *out = (vt_bind)i;
      return VT_OK;
    }
  return vt_fail(VT_EINVAL, "bind: expected core, numa or none, got '%s'", s);
}

void vt_engine_opts_init(vt_engine_opts *o) {
  memset(o, 0, sizeof *o);
  o->bind = VT_BIND_CORE;
  o->batch_tokens = BATCH_TOKENS;
}

vt_status vt_engine_create(vt_engine **out, const vt_engine_opts *opts) {
  vt_engine *e = calloc(1, sizeof *e);
  *out = NULL;
  if (!e) return vt_fail(VT_ENOMEM, "out of memory");
  if (opts)
    e->opts = *opts;
  else
    vt_engine_opts_init(&e->opts);
  if (e->opts.threads < 0 || e->opts.batch_tokens < 1 || e->opts.slots < 0) {
    free(e);
    return vt_fail(VT_EINVAL, "engine: threads >= 0, batch_tokens >= 1 and slots >= 0 expected");
  }
  atomic_init(&e->cancel, 0);
  char err[VT_ERR_LINE];
  vt_status st = vt_engine_plan(e, err, sizeof err);
  if (st != VT_OK) {
    free(e);
    return vt_fail(st, "%s", err);
  }
  *out = e;
  return VT_OK;
}

void vt_engine_destroy(vt_engine *e) {
  if (!e) return;
  free((void *)e->ss.workers);
  vt_plan_free(&e->plan);
  vt_topo_free(&e->topo);
  free(e);
}

int vt_engine_threads(const vt_engine *e) { return e->plan.n_workers; }

void vt_engine_cancel(vt_engine *e) { atomic_store(&e->cancel, 1); }

/* One worker planned alone has no topology: the plan printed is the one a run that gives it a
 * thread of its own makes. */
void vt_engine_print_plan(const vt_engine *e, FILE *f) {
  vt_topo t;
  vt_plan p;
  if (e->topo.hw)
    vt_plan_print(f, &e->topo, &e->plan);
  else if (vt_engine_plan_read(&e->opts, &t, &p, NULL, 0) == VT_OK) {
    vt_plan_print(f, &t, &p);
    vt_plan_free(&p);
    vt_topo_free(&t);
  }
}

vt_status vt_sink_file(void *ctx, const char *data, size_t len) {
  errno = 0;
  if (fwrite(data, 1, len, (FILE *)ctx) != len) {
    if (!errno) errno = EIO;
    return VT_EIO;
  }
  return VT_OK;
}

/* Returns the value in kB of field `name` ("VmRSS:") of /proc/self/status, or -1. */
static long long proc_status_kb(const char *name) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long long v = -1;
  size_t n = strlen(name);
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, name, n)) {
      v = strtoll(line + n, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

/* OMP_PROC_BIND as the runtime sees it: "false" when OpenMP binds nothing. */
static const char *proc_bind_name(void) {
  static const char *const names[] = {"false", "true", "primary", "close", "spread"};
  int b = (int)omp_get_proc_bind();
  return b >= 0 && b < 5 ? names[b] : "other";
}

void vt_engine_stats_json(const vt_engine *e, FILE *f) {
  const vt_sched_stats *st = &e->ss;
  const vt_plan *plan = &e->plan;
  double busy = 0;
  for (int i = 0; i < st->n_workers; i++) busy += st->workers[i].busy_seconds;
  fprintf(f,
          "\"threads\": %d, \"bind\": \"%s\", \"queues\": %d, \"membind\": %s, "
          "\"batch_tokens\": %lld, \"slots\": %d, \"max_in_flight\": %d, "
          "\"batches\": %lld, \"batches_dropped\": %lld, \"canceled\": %s, "
          "\"wall_seconds\": %.6f, \"read_seconds\": %.6f, \"write_seconds\": %.6f, "
          "\"write_cpu_seconds\": %.6f, \"write_on_workers\": %s, "
          "\"worker_busy_seconds_mean\": %.6f, \"serial_cpu_seconds\": %.6f, "
          "\"worker_cpu_seconds\": %.6f, \"omp_proc_bind\": \"%s\", "
          "\"coordinator_heap_bytes\": %lld, \"workers\": [",
          st->n_workers, vt_bind_name(plan->bind), st->n_nodes, st->membind ? "true" : "false",
          (long long)e->opts.batch_tokens, st->slots, st->max_in_flight,
          (long long)st->batches_written, (long long)st->batches_dropped,
          st->canceled ? "true" : "false", st->wall_seconds, st->read_seconds, st->write_seconds,
          st->write_cpu_seconds, st->write_on_workers ? "true" : "false",
          st->n_workers ? busy / st->n_workers : 0.0, st->serial_cpu_seconds,
          st->worker_cpu_seconds, proc_bind_name(), (long long)st->coordinator_heap_bytes);
  for (int i = 0; i < st->n_workers; i++) {
    const vt_sched_worker_stats *w = &st->workers[i];
    const vt_plan_worker *pw = &plan->workers[i];
    fprintf(f,
            "%s{\"worker\": %d, \"pu_os\": %d, \"numa\": %d, \"bound\": %s, \"sentences\": %lld, "
            "\"tokens\": %lld, \"batches\": %lld, \"steals\": %lld, \"busy_seconds\": %.6f, "
            "\"cpu_seconds\": %.6f, "
            "\"arena_high_water\": %zu, \"arena_reserved\": %zu, \"arena_blocks\": %llu, "
            "\"heap_bytes\": %lld}",
            i ? ", " : "", i, pw->pu_os, pw->numa, w->bound ? "true" : "false", (long long)w->items,
            (long long)w->tokens, (long long)w->batches, (long long)w->steals, w->busy_seconds,
            w->cpu_seconds, w->arena_high_water, w->arena_reserved,
            (unsigned long long)w->arena_blocks, (long long)w->heap_bytes);
  }
  fprintf(f, "], \"vm_rss_kb\": %lld, \"rss_anon_kb\": %lld, \"vm_hwm_kb\": %lld",
          proc_status_kb("VmRSS:"), proc_status_kb("RssAnon:"), proc_status_kb("VmHWM:"));
}
