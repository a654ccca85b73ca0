/* engine/decode/decode.c: vt_decode, the one entry point to every decoder; algorithm names. */
#include <math.h>
#include <string.h>

#include "alloc/arena.h"
#include "decode/decoders.h"

typedef struct algo_info {
  const char *name;
  vt_decoder_fn fn;
  int exact;
  int kbest;
  int search; /* an exact search: runs on a work budget, finished by the full decoder past it */
} algo_info;

static const algo_info algos[VT_ALGO_COUNT_] = {
    [VT_ALGO_VITERBI] = {"viterbi", vt_viterbi_decode, 1, 0, 0},
    [VT_ALGO_VITERBI_SCALAR] = {"viterbi-scalar", vt_viterbi_ref_decode, 1, 0, 0},
    [VT_ALGO_KBEST_VITERBI] = {"kbest-viterbi", vt_kbest_viterbi_decode, 1, 1, 0},
    [VT_ALGO_BEAM] = {"beam", vt_beam_decode, 0, 1, 0},
    /* Registered names whose decoder has not landed yet have fn = NULL. */
    [VT_ALGO_STAGGERED] = {"staggered", vt_staggered_decode, 1, 0, 1},
    [VT_ALGO_STAGGERED_COL] = {"staggered-col", vt_staggered_decode, 1, 0, 1},
    [VT_ALGO_ASTAR] = {"astar", vt_astar_decode, 1, 1, 1},
    [VT_ALGO_ITER_ASTAR] = {"iter-astar", vt_iter_astar_decode, 1, 0, 1},
    [VT_ALGO_VITERBI_ASTAR] = {"viterbi-astar", vt_viterbi_astar_decode, 1, 1, 1},
    [VT_ALGO_ITER_VITERBI_ASTAR] = {"iter-viterbi-astar", vt_iter_viterbi_astar_decode, 1, 1, 1},
    [VT_ALGO_CARPEDIEM] = {"carpediem", vt_carpediem_decode, 1, 0, 1},
};

static int algo_known(vt_algo a) { return (int)a >= 0 && a < VT_ALGO_COUNT_ && algos[a].name; }

/* Known and implemented. */
static int algo_valid(vt_algo a) { return algo_known(a) && algos[a].fn; }

vt_status vt_algo_parse(const char *name, vt_algo *out) {
  for (int a = 0; a < VT_ALGO_COUNT_; a++) {
    if (algos[a].name && strcmp(algos[a].name, name) == 0) {
      *out = (vt_algo)a;
      return algos[a].fn ? VT_OK : VT_EUNSUPPORTED;
    }
  }
  return VT_EINVAL;
}

int vt_algo_available(vt_algo algo) { return algo_valid(algo); }

const char *vt_algo_name(vt_algo algo) { return algo_known(algo) ? algos[algo].name : "unknown"; }

int vt_algo_exact(vt_algo algo) { return algo_known(algo) ? algos[algo].exact : 0; }

int vt_algo_kbest(vt_algo algo) { return algo_known(algo) ? algos[algo].kbest : 0; }

void vt_decode_opts_init(vt_decode_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->algo = VT_ALGO_VITERBI;
  opts->k = 1;
  opts->beam = 1;
  opts->heuristic = VT_HEUR_M9;
  opts->kprime = 0;
  opts->refine = VT_REFINE_SPLIT;
}

void vt_decode_opts_default(vt_decode_opts *opts, int32_t L, int32_t k) {
  vt_decode_opts_init(opts);
  opts->k = k > 1 ? k : 1;
  vt_algo algo = L >= VT_DEFAULT_L_ITER ? VT_ALGO_ITER_VITERBI_ASTAR
                 : opts->k == 1         ? VT_ALGO_VITERBI
                                        : VT_ALGO_VITERBI_ASTAR;
  if (!algo_valid(algo)) algo = opts->k == 1 ? VT_ALGO_VITERBI : VT_ALGO_KBEST_VITERBI;
  opts->algo = algo;
}

/* Starts the budget of a search on a sentence of T tokens over L labels (budget.h): opts->budget
 * (0: the default, < 0: none) times the cost of the full decoder in cells, less the search's
 * setup, and where the progress test starts. The least a search costs is its setup and two
 * passes over its columns; when even that is over the budget, or (with a budget) over
 * VT_SEARCH_LEAST_SHARE of the full decoder (small L, where a SIMD Viterbi takes microseconds
 * and every search is slower), bud->over sends the sentence to the full decoder at once. The
 * probe comes after VT_PROBE_SPENT of the full decoder's cost (VT_PROBE_SPENT_ITER_KBEST for
 * iter-viterbi-astar's k-best up to VT_KBEST_CACHED_LABELS labels), and not before the passes that
 * a column needs to expand every label one doubling at a time, forward and backward, could have run
 * (at small L their fixed cost alone is a large share of a Viterbi: 128 labels take 2 x 7 passes,
 * 0.17 of one). */
static void budget_start(vt_budget *bud, const vt_decode_opts *opts, int32_t L, int32_t T) {
  const double kbest = (VT_W_KBEST_BASE + (double)opts->k) *
                       (L > VT_KBEST_CACHED_LABELS ? VT_KBEST_UNCACHED_SHARE : 1.0);
  const double full = (double)T * (double)L * (double)L * (opts->k > 1 ? kbest : 1.0);
  if (opts->budget < 0) { /* no budget, no progress test: the search runs to its end */
    bud->left = INFINITY;
    return;
  }
  const double setup = (double)T * VT_W_SETUP * (double)L;
  const double least = setup + (double)T * VT_W_SEARCH_LEAST;
  const double kbest_frac =
      L < VT_KBEST_NARROW_LABELS ? VT_BUDGET_DEFAULT_KBEST_NARROW : VT_BUDGET_DEFAULT_KBEST;
  const double frac = opts->budget > 0                  ? opts->budget
                      : opts->k > 1                     ? kbest_frac
                      : opts->algo == VT_ALGO_CARPEDIEM ? VT_BUDGET_DEFAULT_CARPEDIEM
                                                        : VT_BUDGET_DEFAULT;
  bud->left = frac * full;
  bud->full = full;
  if (least > bud->left || least > VT_SEARCH_LEAST_SHARE * full) {
    bud->over = 1;
    return;
  }
  bud->left -= setup;
  const double passes = 2.0 * ceil(log2((double)L));
  const double spent =
      opts->k > 1 && opts->algo == VT_ALGO_ITER_VITERBI_ASTAR && L <= VT_KBEST_CACHED_LABELS
          ? VT_PROBE_SPENT_ITER_KBEST
          : VT_PROBE_SPENT;
  bud->probe_left = bud->left - fmax(spent * full, (double)T * VT_W_PASS_COLUMN * passes);
}

void vt_decode_stats_add(vt_decode_stats *into, const vt_decode_stats *from) {
  into->sentences += from->sentences;
  into->tokens += from->tokens;
  into->cells += from->cells;
  into->iterations += from->iterations;
  into->active_labels += from->active_labels;
  into->nodes += from->nodes;
  into->pruned += from->pruned;
  into->pops += from->pops;
  into->fallbacks += from->fallbacks;
  into->budget_fallbacks += from->budget_fallbacks;
  into->sparse += from->sparse;
}

vt_status vt_decode_cancelable(const vt_trans *trans, const vt_decode_opts *opts,
                               const atomic_int *cancel, vt_arena *arena, const double *E,
                               int32_t T, int32_t *labels, double *scores, int32_t *n_paths,
                               vt_decode_stats *stats) {
  vt_decode_stats local = {0};
  if (!stats) stats = &local;
  *n_paths = 0;
  if (!algo_known(opts->algo) || opts->k < 1 || opts->beam < 1 || T < 0 || opts->kprime < 0 ||
      (opts->refine != VT_REFINE_SPLIT && opts->refine != VT_REFINE_EXPAND) || isnan(opts->budget))
    return VT_EINVAL;
  if (!algo_valid(opts->algo)) return VT_EUNSUPPORTED;
  if (opts->k > 1 && !algos[opts->algo].kbest) return VT_EINVAL;
  stats->sentences++;
  stats->tokens += T;
  if (T == 0) {
    scores[0] = 0.0;
    *n_paths = 1;
    return VT_OK;
  }
  vt_paths out = {opts->k, labels, scores, 0};
  /* A constrained lattice: every exact decoder goes over the finite labels only when that is
   * cheaper (sparse.c). */
  int sparse = 0;
  vt_status st = vt_sparse_decode(trans, opts->k, vt_sparse_limit(opts->algo, trans->L, T), arena,
                                  E, T, &out, stats, &sparse);
  if (st != VT_OK) return st;
  if (sparse) goto scores;
  vt_budget bud = {INFINITY, cancel, 0, 0, 0, 0};
  if (algos[opts->algo].search) {
    budget_start(&bud, opts, trans->L, T);
  }
  if (!bud.over) st = algos[opts->algo].fn(trans, opts, arena, E, T, &out, stats, &bud);
  if (st != VT_OK) return st;
  if (bud.canceled) return VT_ECANCELED;
  if (bud.over) {
    /* Past the budget: the full decoder gives the same exact score list at a bounded cost. */
    vt_budget none = {INFINITY, NULL, 0, 0, 0, 0};
    const vt_algo full = opts->k > 1 ? VT_ALGO_KBEST_VITERBI : VT_ALGO_VITERBI;
    stats->budget_fallbacks++;
    out.n = 0;
    st = algos[full].fn(trans, opts, arena, E, T, &out, stats, &none);
    if (st != VT_OK) return st;
  }
scores:
  for (int32_t p = 0; p < out.n; p++)
    scores[p] = vt_path_score(trans, E, T, labels + (size_t)p * T);
  *n_paths = out.n;
  return VT_OK;
}

vt_status vt_decode(const vt_trans *trans, const vt_decode_opts *opts, vt_arena *arena,
                    const double *E, int32_t T, int32_t *labels, double *scores, int32_t *n_paths,
                    vt_decode_stats *stats) {
  return vt_decode_cancelable(trans, opts, NULL, arena, E, T, labels, scores, n_paths, stats);
}

vt_status vt_decode_f32_cancelable(const vt_trans *trans, const vt_decode_opts *opts,
                                   const atomic_int *cancel, vt_arena *arena, const float *E,
                                   int32_t T, int32_t *labels, double *scores, int32_t *n_paths,
                                   vt_decode_stats *stats) {
  *n_paths = 0;
  if (T < 0) return VT_EINVAL;
  size_t n = (size_t)T * (size_t)trans->L;
  double *Ed = VT_ARENA_NEW(arena, double, n);
  if (!Ed) return VT_ENOMEM;
  for (size_t i = 0; i < n; i++) Ed[i] = E[i];
  return vt_decode_cancelable(trans, opts, cancel, arena, Ed, T, labels, scores, n_paths, stats);
}

vt_status vt_decode_f32(const vt_trans *trans, const vt_decode_opts *opts, vt_arena *arena,
                        const float *E, int32_t T, int32_t *labels, double *scores,
                        int32_t *n_paths, vt_decode_stats *stats) {
  return vt_decode_f32_cancelable(trans, opts, NULL, arena, E, T, labels, scores, n_paths, stats);
}
