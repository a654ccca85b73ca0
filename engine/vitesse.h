/* vitesse.h: exact, fast decoding of linear-chain sequence-labeling models.
 *
 * The one public header of libvitesse. A program that holds emission scores in memory binds a
 * transition model once (vt_trans_create), makes one arena per thread (vt_arena_create), then
 * decodes sentence after sentence into buffers it owns (vt_decode). Every function returns a
 * vt_status (0 = success, negative = failure; vt_strerror names it) unless it says otherwise.
 *
 * Score of a path y over a sentence of length T with L labels:
 *   S[y0] + E[0][y0] + sum_{t>=1} (A[y(t-1)][yt] + E[t][yt]) + F[y(T-1)]
 * evaluated left to right in double precision. -inf marks a forbidden emission or transition;
 * NaN and +inf are invalid input. Labels are 0-based indices.
 */
#ifndef VITESSE_H
#define VITESSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what the shared library exports; everything else in it is hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define VT_API __attribute__((visibility("default")))
#else
#define VT_API
#endif

/* The version: these three lines are its one source (CMakeLists.txt reads them for the
 * package version, the shared library's SONAME and the pkg-config file). */
#define VT_VERSION_MAJOR 0
#define VT_VERSION_MINOR 2
#define VT_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH: compare with vt_version_number() at run time. */
#define VT_VERSION_NUMBER (VT_VERSION_MAJOR * 10000 + VT_VERSION_MINOR * 100 + VT_VERSION_PATCH)

/* ---- status codes ---------------------------------------------------------------------------- */

typedef enum vt_status {
  VT_OK = 0,
  VT_ENOMEM = -1,       /* an allocation failed */
  VT_EINVAL = -2,       /* an argument is out of its documented range */
  VT_EIO = -3,          /* a file could not be opened, read or written */
  VT_EFORMAT = -4,      /* input data is malformed (file format, NaN or +inf scores, ...) */
  VT_EUNSUPPORTED = -5, /* the request is valid but this build or decoder does not support it */
  VT_ECANCELED = -6     /* a run was stopped before its end (a signal or a stop request) */
} vt_status;

/* Returns a static, human-readable description of status code `status` (never NULL). */
VT_API const char *vt_strerror(int status);

/* Returns the one-line message of the last call that failed on the calling thread, the same
 * line the CLI prints ("FILE:LINE: problem", "FILE: problem" or the reason), or "" when no call
 * has failed on it yet. Valid until the next failing call on this thread. */
VT_API const char *vt_last_error(void);

/* Returns the library version as "MAJOR.MINOR.PATCH" (static string). */
VT_API const char *vt_version(void);

/* Returns the library's version as MAJOR * 10000 + MINOR * 100 + PATCH. A program built against
 * this header runs with any library of the same MAJOR whose number is >= VT_VERSION_NUMBER. */
VT_API int vt_version_number(void);

/* ---- SIMD level ------------------------------------------------------------------------------ */

typedef enum vt_simd { VT_SIMD_SCALAR = 0, VT_SIMD_AVX2 = 1, VT_SIMD_AVX512 = 2 } vt_simd;

/* Returns the kernel level the decoders use: the best one the CPU and OS support, unless the
 * environment variable VITESSE_SIMD (scalar|avx2|avx512) or vt_simd_force chose one. Chosen
 * once, thread-safely, on first use. */
VT_API vt_simd vt_simd_active(void);

/* Forces kernel level `level` for the whole process. Returns VT_EUNSUPPORTED when this CPU
 * cannot run it (the active level is then unchanged). Not to be called while decoding. */
VT_API vt_status vt_simd_force(vt_simd level);

/* Returns 1 when this CPU and OS can run kernels of `level`, else 0. */
VT_API int vt_simd_supported(vt_simd level);

/* Returns "scalar", "avx2" or "avx512" for `level` (static string). */
VT_API const char *vt_simd_name(vt_simd level);

/* ---- arenas ---------------------------------------------------------------------------------- */

/* A bump allocator that holds a decoder's scratch memory; one per thread, never shared. */
typedef struct vt_arena vt_arena;

/* Creates an arena whose first block holds `first_block` bytes (0 = a default of 1 MiB).
 * Stores it in *out. Returns VT_ENOMEM on failure (*out is then NULL). */
VT_API vt_status vt_arena_create(vt_arena **out, size_t first_block);

/* Frees the arena and every block it holds. NULL is a no-op. */
VT_API void vt_arena_destroy(vt_arena *arena);

/* Returns `size` bytes, 64-byte aligned, valid until the next vt_arena_reset, or NULL when
 * memory is exhausted. size 0 returns a valid unique pointer. */
VT_API void *vt_arena_alloc(vt_arena *arena, size_t size);

/* Releases every allocation at once. Keeps (and, when the last use needed several blocks,
 * grows, up to 256 MiB) the first block so that a steady workload allocates nothing from the
 * heap. */
VT_API void vt_arena_reset(vt_arena *arena);

/* Returns the largest number of bytes ever in use at once. */
VT_API size_t vt_arena_high_water(const vt_arena *arena);

/* Returns how many blocks the arena has taken from the heap since it was created. */
VT_API uint64_t vt_arena_block_allocs(const vt_arena *arena);

/* ---- transition models ----------------------------------------------------------------------- */

/* A read-only transition model: the L x L matrix A[prev][cur], start S and end F vectors and the
 * label rank order, converted once into the layouts the kernels read. Safe to share between
 * threads. */
typedef struct vt_trans vt_trans;

/* Binds a transition model over `L` >= 1 labels. `A` is L*L row-major (A[i*L + j] scores label i
 * at t-1 followed by label j at t); `S` and `F` have L entries or are NULL (all zero). `rank` is
 * NULL or a permutation of 0..L-1 listing labels by decreasing prior (most likely first; used by
 * the staggered and A* decoders); NULL means the identity order. The arrays are copied.
 * Returns VT_EINVAL for L < 1 or a rank that is not a permutation, VT_EFORMAT for a NaN or +inf
 * score, VT_ENOMEM on allocation failure. */
VT_API vt_status vt_trans_create(vt_trans **out, int32_t L, const double *A, const double *S,
                          const double *F, const int32_t *rank);

/* Fills rank[0..L) with the labels ordered by decreasing count[label] (ties: lower label first),
 * the order vt_trans_create expects: from training frequencies, or, with no training data, from
 * how often each label is the emission argmax of a column of the input. Returns VT_EINVAL for
 * L < 1, VT_ENOMEM. */
VT_API vt_status vt_rank_from_counts(const int64_t *count, int32_t L, int32_t *rank);

/* Frees a transition model. NULL is a no-op. */
VT_API void vt_trans_destroy(vt_trans *trans);

/* Returns the number of labels of the model. */
VT_API int32_t vt_trans_labels(const vt_trans *trans);

/* Rewrites scores of a bound model in place, the one place where they change after binding (an
 * online learner such as the perceptron calls it after each update): for c < n, A of the cell
 * (prev[c] -> cur[c]) becomes a[c]; `S` and `F`, when not NULL, replace the start and end
 * vectors (L entries each). Every layout and bound table the decoders read is refreshed, at a
 * cost of O(L) per distinct row or column touched instead of the O(L^2) of a new binding.
 * NOT thread-safe: no other thread may decode with `trans` while it runs.
 * Returns VT_EINVAL for n < 0 or a label out of range, VT_EFORMAT for a NaN or +inf score
 * (nothing is changed then), VT_ENOMEM (the model must then be destroyed). */
VT_API vt_status vt_trans_update(vt_trans *trans, int32_t n, const int32_t *prev, const int32_t *cur,
                          const double *a, const double *S, const double *F);

/* ---- decoding -------------------------------------------------------------------------------- */

typedef enum vt_algo {
  VT_ALGO_VITERBI = 0,            /* exact 1-best, SIMD max-plus kernels */
  VT_ALGO_VITERBI_SCALAR = 1,     /* exact 1-best, the plain textbook reference loop */
  VT_ALGO_KBEST_VITERBI = 2,      /* exact k-best: the k best partial paths per node, O(kTL^2) */
  VT_ALGO_BEAM = 3,               /* APPROXIMATE: beam of `beam` states per position */
  VT_ALGO_STAGGERED = 4,          /* exact 1-best: staggered decoding (Kaji et al. 2010) */
  VT_ALGO_STAGGERED_COL = 5,      /* exact 1-best: staggered decoding, column-wise expansion */
  VT_ALGO_ASTAR = 6,              /* exact k-best A*, heuristic chosen by `heuristic` */
  VT_ALGO_ITER_ASTAR = 7,         /* exact 1-best iterative A* (Huang et al. 2012, 4.2) */
  VT_ALGO_VITERBI_ASTAR = 8,      /* exact k-best Viterbi A* (Huang et al. 2012, Algorithm 3) */
  VT_ALGO_ITER_VITERBI_ASTAR = 9, /* exact k-best iterative Viterbi A* (Algorithm 4) */
  VT_ALGO_COUNT_
} vt_algo;

/* Parses an algorithm name ("viterbi", "viterbi-scalar", "kbest-viterbi", "beam", ...) into
 * *out. Returns VT_EINVAL for an unknown name, VT_EUNSUPPORTED for a known algorithm that this
 * version does not implement yet. */
VT_API vt_status vt_algo_parse(const char *name, vt_algo *out);

/* Returns 1 when `algo` is implemented in this version, else 0. */
VT_API int vt_algo_available(vt_algo algo);

/* Returns the name of `algo` (static string), or "unknown". */
VT_API const char *vt_algo_name(vt_algo algo);

/* Returns 1 when `algo` is exact (returns optimal paths), 0 when it is approximate. */
VT_API int vt_algo_exact(vt_algo algo);

/* Returns 1 when `algo` can return more than one path per sentence (honours k), else 0. */
VT_API int vt_algo_kbest(vt_algo algo);

/* A* heuristics: naive is Huang et al.'s equation (9); mN is the Viterbi backward score on the
 * degenerate lattice of staggered iteration N (2^N active labels per column). */
typedef enum vt_heuristic {
  VT_HEUR_NAIVE = -1,
  VT_HEUR_M0 = 0,
  VT_HEUR_M3 = 3,
  VT_HEUR_M6 = 6,
  VT_HEUR_M9 = 9
} vt_heuristic;

/* How k-best iterative Viterbi A* treats a degenerate node on a path of its Viterbi A* search.
 * Split: the search replaces it by the column's inactive labels and goes on, so one search
 * returns the k best paths (on a sentence where it runs past a budget of work proportional to
 * k T, typically huge scores with many near-ties, it falls back to expand). Expand: Huang et al.'s
 * Algorithm 4 as published: k'-best Viterbi A* over lattice paths; columns its paths leave through
 * a degenerate node are expanded and the staggered passes go on. Both are exact. */
typedef enum vt_refine { VT_REFINE_SPLIT = 0, VT_REFINE_EXPAND = 1 } vt_refine;

typedef struct vt_decode_opts {
  vt_algo algo;           /* which decoder */
  int32_t k;              /* paths wanted per sentence, >= 1; 1-best decoders require 1 */
  int32_t beam;           /* beam width for VT_ALGO_BEAM, >= 1 */
  vt_heuristic heuristic; /* for VT_ALGO_ASTAR (default naive) */
  int32_t kprime;         /* k' of iterative Viterbi A* when expanding; 0 = 2k */
  vt_refine refine;       /* for VT_ALGO_ITER_VITERBI_ASTAR (default split) */
} vt_decode_opts;

/* Fills `opts` with the defaults: viterbi, k = 1, beam = 1, naive heuristic, k' = 2k, split. */
VT_API void vt_decode_opts_init(vt_decode_opts *opts);

/* Counters a decoder adds to (never resets); see each field. */
typedef struct vt_decode_stats {
  int64_t sentences;     /* sentences decoded */
  int64_t tokens;        /* tokens decoded */
  int64_t cells;         /* lattice cells (label x position pairs) the search scored */
  int64_t iterations;    /* search passes of the iterative decoders (summed over sentences) */
  int64_t active_labels; /* active labels summed over every column of every final lattice */
  int64_t nodes;         /* nodes of the final lattices (active labels, for pruned_fraction) */
  int64_t pruned;        /* of those, pruned for good */
  int64_t pops;          /* agenda pops of the A* decoders */
  int64_t fallbacks;     /* sentences where iter-viterbi-astar's split search gave up */
} vt_decode_stats;

/* Decodes one sentence.
 * `E` holds T*L emission scores, row-major (E[t*L + y]); T may be 0. Scratch memory comes from
 * `arena` (the caller resets it when it likes; decoding does not reset it).
 * Writes up to opts->k paths, best first, distinct, scores non-increasing: path p's labels to
 * labels[p*T .. p*T + T) and its score to scores[p]; `labels` holds k*T entries, `scores` k.
 * *n_paths receives the number written: 1 for T = 0 (the empty path, score 0); 0 when no path
 * has a finite score; fewer than k only when fewer finite paths exist (or the beam holds fewer).
 * Scores are recomputed in double along each returned path. Ties between paths of equal score
 * are broken deterministically: for one input and one algorithm, the output is the same on any
 * thread and at any SIMD level. `stats` may be NULL.
 * Returns VT_EINVAL for a bad option (k < 1, a 1-best algorithm with k > 1, beam < 1) or T < 0,
 * VT_ENOMEM when the arena runs out. Emission values are not checked for NaN here (the readers
 * reject them); a NaN gives an unspecified path, never a crash. */
VT_API vt_status vt_decode(const vt_trans *trans, const vt_decode_opts *opts, vt_arena *arena,
                    const double *E, int32_t T, int32_t *labels, double *scores, int32_t *n_paths,
                    vt_decode_stats *stats);

/* As vt_decode, for float emissions (converted to double in the arena, exactly). */
VT_API vt_status vt_decode_f32(const vt_trans *trans, const vt_decode_opts *opts, vt_arena *arena,
                        const float *E, int32_t T, int32_t *labels, double *scores,
                        int32_t *n_paths, vt_decode_stats *stats);

/* Returns the score of path `labels` (T entries) under `trans` and emissions `E`, evaluated left
 * to right in double exactly as the decoders do; T = 0 gives 0. */
VT_API double vt_path_score(const vt_trans *trans, const double *E, int32_t T, const int32_t *labels);

#ifdef __cplusplus
}
#endif
#endif /* VITESSE_H */
