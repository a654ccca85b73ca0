/* engine/cli/progress.c: the progress line on stderr (terminals only). */
#define _POSIX_C_SOURCE 200809L

#include <unistd.h>

#include "cli/progress.h"

void vt_cli_progress_init(vt_cli_progress *pg, int quiet, int64_t total_items) {
  pg->enabled = !quiet && isatty(STDERR_FILENO);
  pg->total_items = total_items;
  pg->unit = "sentences";
  pg->shown = 0;
}

/* Formats seconds as H:MM:SS or M:SS. */
static void put_clock(char *buf, size_t len, double sec) {
  long s = sec < 0 ? 0 : (long)(sec + 0.5);
  if (s >= 3600)
    snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

void vt_cli_progress_show(void *ctx, const vt_progress *p) {
  vt_cli_progress *pg = ctx;
  if (!pg->enabled) return;
  if (p->final) {
    if (pg->shown) fputs("\r\033[K", stderr);
    pg->shown = 0;
    return;
  }
  char el[32], eta[48] = "";
  put_clock(el, sizeof el, p->elapsed);
  /* Done so far: the items of a known total (decode), else the input bytes read (tag). */
  double frac = pg->total_items > 0  ? (double)p->items / (double)pg->total_items
                : p->bytes_total > 0 ? (double)p->bytes_read / (double)p->bytes_total
                                     : 0;
  if (frac > 1) frac = 1;
  if (frac > 0) {
    char c[32];
    put_clock(c, sizeof c, p->elapsed * (1 - frac) / frac);
    snprintf(eta, sizeof eta, "  ETA %s (%.1f%%)", c, 100.0 * frac);
  }
  double tps = p->elapsed > 0 ? (double)p->tokens / p->elapsed : 0;
  fprintf(stderr, "\r%lld %s  %.0f tokens/s  %s elapsed%s\033[K", (long long)p->items, pg->unit,
          tps, el, eta);
  fflush(stderr);
  pg->shown = 1;
}
