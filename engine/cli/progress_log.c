/* engine/cli/progress_log.c: the --progress lines of a batch command (progress_log.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/progress_log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/signals.h"

void vt_cli_progress_log_init(vt_cli_progress_log *pl, int enabled, int64_t total) {
  memset(pl, 0, sizeof *pl);
  pl->enabled = enabled;
  pl->total = total;
  const char *ev = getenv("VITESSE_PROGRESS_INTERVAL");
  pl->every = ev && atof(ev) >= 0 ? atof(ev) : 10.0;
  pl->due = pl->every;
}

void vt_cli_progress_log_from(vt_cli_progress_log *pl, int64_t sentences) { pl->base = sentences; }

void vt_cli_progress_log_show(void *ctx, const vt_progress *p) {
  vt_cli_progress_log *pl = ctx;
  if (!pl->enabled) return;
  if (!pl->have_first) { /* where this run's rate starts */
    pl->have_first = 1;
    pl->t_first = p->elapsed;
    pl->bytes_first = p->bytes_read;
  }
  if (!p->final && p->elapsed < pl->due) return;
  while (pl->due <= p->elapsed) pl->due += pl->every > 0 ? pl->every : p->elapsed + 1;
  const int stopped = p->final && atomic_load(&vt_cli_stop);
  const int64_t done = pl->base + p->items;
  const double rate = p->elapsed > 0 ? (double)p->items / p->elapsed : 0;
  char total[32] = "-", percent[32] = "-", eta[32] = "-";
  double left = -1; /* seconds */
  if (pl->total > 0) {
    snprintf(total, sizeof total, "%lld", (long long)pl->total);
    snprintf(percent, sizeof percent, "%.1f", 100.0 * (double)done / (double)pl->total);
    if (rate > 0) left = (double)(pl->total - done) / rate;
  } else if (p->final && !stopped) { /* the input's end: all are known */
    snprintf(total, sizeof total, "%lld", (long long)done);
  }
  if (pl->total <= 0 && p->bytes_total > 0) {
    double frac = (double)p->bytes_read / (double)p->bytes_total;
    snprintf(percent, sizeof percent, "%.1f", 100.0 * (frac > 1 ? 1 : frac));
    const double bps = p->elapsed > pl->t_first
                           ? (double)(p->bytes_read - pl->bytes_first) / (p->elapsed - pl->t_first)
                           : 0;
    if (bps > 0) left = (double)(p->bytes_total - p->bytes_read) / bps;
  }
  if (p->final && !stopped) left = 0;
  if (left >= 0) snprintf(eta, sizeof eta, "%.0f", left);
  const char *state = !p->final ? "running" : stopped ? "stopped" : "end";
  fprintf(stderr,
          "vitesse progress: sentences=%lld total=%s percent=%s rate=%.1f eta=%s elapsed=%.1f "
          "state=%s\n",
          (long long)done, total, percent, rate, eta, p->elapsed, state);
  fflush(stderr);
}
