/* engine/cli/engine_stats.c: the engine's part of the --stats JSON object. */
#include <stdlib.h>
#include <string.h>

#include "engine_cli.h"

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

void vt_cli_engine_stats_json(FILE *f, const vt_cli_engine *e, const vt_plan *plan,
                              const vt_sched_stats *st) {
  double busy = 0;
  for (int i = 0; i < st->n_workers; i++) busy += st->workers[i].busy_seconds;
  fprintf(f,
          "\"threads\": %d, \"bind\": \"%s\", \"queues\": %d, \"membind\": %s, "
          "\"batch_tokens\": %lld, \"slots\": %d, \"max_in_flight\": %d, "
          "\"batches\": %lld, \"batches_dropped\": %lld, \"canceled\": %s, "
          "\"wall_seconds\": %.6f, \"read_seconds\": %.6f, \"write_seconds\": %.6f, "
          "\"worker_busy_seconds_mean\": %.6f, \"coordinator_heap_bytes\": %lld, \"workers\": [",
          st->n_workers, vt_bind_name(plan->bind), st->n_nodes, st->membind ? "true" : "false",
          (long long)e->batch_tokens, st->slots, st->max_in_flight, (long long)st->batches_written,
          (long long)st->batches_dropped, st->canceled ? "true" : "false", st->wall_seconds,
          st->read_seconds, st->write_seconds, st->n_workers ? busy / st->n_workers : 0.0,
          (long long)st->coordinator_heap_bytes);
  for (int i = 0; i < st->n_workers; i++) {
    const vt_sched_worker_stats *w = &st->workers[i];
    const vt_plan_worker *pw = &plan->workers[i];
    fprintf(f,
            "%s{\"worker\": %d, \"pu_os\": %d, \"numa\": %d, \"bound\": %s, \"sentences\": %lld, "
            "\"tokens\": %lld, \"batches\": %lld, \"steals\": %lld, \"busy_seconds\": %.6f, "
            "\"arena_high_water\": %zu, \"arena_reserved\": %zu, \"arena_blocks\": %llu, "
            "\"heap_bytes\": %lld}",
            i ? ", " : "", i, pw->pu_os, pw->numa, w->bound ? "true" : "false", (long long)w->items,
            (long long)w->tokens, (long long)w->batches, (long long)w->steals, w->busy_seconds,
            w->arena_high_water, w->arena_reserved, (unsigned long long)w->arena_blocks,
            (long long)w->heap_bytes);
  }
  fprintf(f, "], \"vm_rss_kb\": %lld, \"rss_anon_kb\": %lld, \"vm_hwm_kb\": %lld",
          proc_status_kb("VmRSS:"), proc_status_kb("RssAnon:"), proc_status_kb("VmHWM:"));
}
