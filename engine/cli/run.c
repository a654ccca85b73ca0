/* engine/cli/run.c: decodes a lattice set in chunks on OpenMP threads and writes the results in
 * input order. Each thread owns an arena, reset after every sentence; each chunk's results land
 * in buffers sized once for the largest chunk, so nothing is allocated per sentence. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CHUNK_SENTENCES 4096

/* Appends the decimal form of v (>= 0) to p; returns the new end. */
static char *put_uint(char *p, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *p++ = tmp[--n];
  return p;
}

static void write_chunk(FILE *out, int64_t first, int64_t n, const vt_cli_source *src, int32_t k,
                        const int32_t *labels, const int64_t *lab_off, const double *scores,
                        const int32_t *npaths, char *line) {
  for (int64_t s = 0; s < n; s++) {
    int64_t sent = first + s;
    int32_t T = (int32_t)(src->offset[sent + 1] - src->offset[sent]);
    int32_t np = npaths[s];
    int32_t lines = np > 0 ? np : 1;
    for (int32_t p = 0; p < lines; p++) {
      char *q = line;
      q = put_uint(q, (uint64_t)sent);
      *q++ = '\t';
      q = put_uint(q, (uint64_t)p);
      *q++ = '\t';
      double sc = np > 0 ? scores[s * k + p] : -INFINITY;
      q += snprintf(q, 32, "%.9g", sc);
      *q++ = '\t';
      if (np > 0) {
        const int32_t *lab = labels + lab_off[s] * k + (int64_t)p * T;
        for (int32_t t = 0; t < T; t++) {
          if (t) *q++ = ' ';
          q = put_uint(q, (uint64_t)lab[t]);
        }
      }
      *q++ = '\n';
      fwrite(line, 1, (size_t)(q - line), out);
    }
  }
}

vt_status vt_cli_run(const vt_trans *trans, const vt_decode_opts *opts, const vt_cli_source *src,
                     int threads, FILE *out, double time_budget, vt_cli_run_stats *stats) {
  vt_status st = VT_ENOMEM;
  const int32_t k = opts->k, L = src->L;
  vt_arena **arenas = calloc((size_t)threads, sizeof *arenas);
  vt_decode_stats *tstats = calloc((size_t)threads, sizeof *tstats);
  int64_t max_tokens = 0, max_T = 0;
  for (int64_t c = 0; c < src->n_sent; c += CHUNK_SENTENCES) {
    int64_t e = c + CHUNK_SENTENCES < src->n_sent ? c + CHUNK_SENTENCES : src->n_sent;
    int64_t tok = src->offset[e] - src->offset[c];
    if (tok > max_tokens) max_tokens = tok;
  }
  for (int64_t s = 0; s < src->n_sent; s++) {
    int64_t T = src->offset[s + 1] - src->offset[s];
    if (T > max_T) max_T = T;
  }
  int32_t *labels = malloc((size_t)(max_tokens ? max_tokens : 1) * k * sizeof(int32_t));
  int64_t *lab_off = malloc(CHUNK_SENTENCES * sizeof(int64_t));
  double *scores = malloc((size_t)CHUNK_SENTENCES * k * sizeof(double));
  int32_t *npaths = malloc(CHUNK_SENTENCES * sizeof(int32_t));
  vt_status *sst = malloc(CHUNK_SENTENCES * sizeof(vt_status));
  /* One output line: indices, a score, and up to max_T labels of at most 11 characters. */
  char *line = malloc((size_t)(64 + 12 * max_T));
  memset(stats, 0, sizeof *stats);
  if (!arenas || !tstats || !labels || !lab_off || !scores || !npaths || !sst || !line) goto done;
  for (int i = 0; i < threads; i++)
    if (vt_arena_create(&arenas[i], 0) != VT_OK) goto done;

  /* Under a time budget, small chunks let the run stop close to it. 64 divides the chunk size,
   * so a small chunk never holds more tokens than the buffers were sized for. */
  const int64_t chunk = time_budget > 0 ? 64 : CHUNK_SENTENCES;
  st = VT_OK;
  for (int64_t c = 0; c < src->n_sent && st == VT_OK; c += chunk) {
    int64_t n = src->n_sent - c < chunk ? src->n_sent - c : chunk;
    for (int64_t s = 0; s < n; s++) lab_off[s] = src->offset[c + s] - src->offset[c];
    double t0 = vt_cli_now();
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4)
    for (int64_t s = 0; s < n; s++) {
      int tid = omp_get_thread_num();
      int64_t row = src->offset[c + s];
      int32_t T = (int32_t)(src->offset[c + s + 1] - row);
      int32_t *lab = labels + lab_off[s] * k;
      if (src->E_is_f64)
        sst[s] = vt_decode(trans, opts, arenas[tid], (const double *)src->E + row * L, T, lab,
                           scores + s * k, &npaths[s], &tstats[tid]);
      else
        sst[s] = vt_decode_f32(trans, opts, arenas[tid], (const float *)src->E + row * L, T,
                               lab, scores + s * k, &npaths[s], &tstats[tid]);
      vt_arena_reset(arenas[tid]);
    }
    stats->decode_seconds += vt_cli_now() - t0;
    for (int64_t s = 0; s < n; s++) {
      if (sst[s] != VT_OK) {
        vt_cli_error("sentence %lld: decoding failed: %s", (long long)(c + s),
                     vt_strerror(sst[s]));
        st = sst[s];
        break;
      }
    }
    if (st != VT_OK) break;
    if (out) write_chunk(out, c, n, src, k, labels, lab_off, scores, npaths, line);
    stats->sentences_done += n;
    if (time_budget > 0 && stats->decode_seconds >= time_budget) break;
  }
  for (int i = 0; i < threads; i++) {
    stats->decode.sentences += tstats[i].sentences;
    stats->decode.tokens += tstats[i].tokens;
    stats->decode.cells += tstats[i].cells;
    stats->decode.iterations += tstats[i].iterations;
    stats->decode.active_labels += tstats[i].active_labels;
    stats->decode.nodes += tstats[i].nodes;
    stats->decode.pruned += tstats[i].pruned;
    stats->decode.pops += tstats[i].pops;
  }
done:
  if (arenas)
    for (int i = 0; i < threads; i++) vt_arena_destroy(arenas[i]);
  free(arenas);
  free(tstats);
  free(labels);
  free(lab_off);
  free(scores);
  free(npaths);
  free(sst);
  free(line);
  if (st == VT_ENOMEM) vt_cli_error("out of memory");
  return st;
}
