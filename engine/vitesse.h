/* engine/vitesse.h: exact, fast decoding of linear-chain sequence-labeling models.
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
#ifndef VT_VITESSE_H
#define VT_VITESSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
#define VT_VERSION_MINOR 4
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
VT_API vt_status vt_trans_update(vt_trans *trans, int32_t n, const int32_t *prev,
                                 const int32_t *cur, const double *a, const double *S,
                                 const double *F);

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
  VT_ALGO_CARPEDIEM = 10,         /* exact 1-best Carpediem (Esposito & Radicioni 2009) */
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
  vt_heuristic heuristic; /* for VT_ALGO_ASTAR (default m9) */
  int32_t kprime;         /* k' of iterative Viterbi A* when expanding; 0 = 2k */
  vt_refine refine;       /* for VT_ALGO_ITER_VITERBI_ASTAR (default split) */
  /* Work budget of the exact search decoders (staggered, staggered-col, astar, iter-astar,
   * viterbi-astar, iter-viterbi-astar, carpediem) per sentence, as a fraction of the cost of the
   * full decoder: one SIMD viterbi (k = 1) or kbest-viterbi (k > 1) on the same sentence. A
   * sentence whose search runs past it is finished by that full decoder: the same exact score
   * list, at most about (1 + budget) full decodes. Within it a progress test stops a search
   * early, once it has spent a twentieth of the full decoder (a fifth for iter-viterbi-astar
   * with k > 1 up to 2,048 labels), when its state shows it is far from done (a hopeless
   * sentence then costs about 1.05-1.2 full decodes). Whether a sentence falls back depends on
   * the lattice only (not on threads, SIMD level or time). 0 = the default, 1.0 for k = 1 (0.3
   * for carpediem) and 0.5 for k > 1 (1.0 below 64 labels; perf/README.md, "Worst case and the work
   * budget"); < 0 = no budget and no progress test (the search runs to its end); NaN is VT_EINVAL.
   * Other decoders ignore it. */
  double budget;
  int64_t reserved[7];
} vt_decode_opts;

/* Fills `opts` with the defaults: viterbi, k = 1, beam = 1, heuristic m9 (A*'s fastest: exact
 * up to 512 labels, admissible above), k' = 2k, split. */
VT_API void vt_decode_opts_init(vt_decode_opts *opts);

/* The label count from which vt_decode_opts_default picks iterative Viterbi A* (perf/README.md,
 * "Default decoders"). */
#define VT_DEFAULT_L_ITER 128

/* Fills `opts` with the defaults (vt_decode_opts_init), k (1 when k < 1), and the fastest exact
 * decoder for lattices of L labels and k paths, by measurement (perf/README.md, "Default
 * decoders"): below VT_DEFAULT_L_ITER labels a SIMD Viterbi pass wins, viterbi for k = 1 and
 * viterbi-astar (Viterbi A*) for k > 1; from VT_DEFAULT_L_ITER labels on, iter-viterbi-astar
 * (staggered passes + Viterbi A*) for every k. The choice is always exact, k-best when k > 1,
 * and depends on L and k only (not on the machine, so outputs stay the same everywhere); when
 * this build lacks it, it is viterbi (k = 1) or kbest-viterbi (k > 1). */
VT_API void vt_decode_opts_default(vt_decode_opts *opts, int32_t L, int32_t k);

/* Counters a decoder adds to (never resets); see each field. */
typedef struct vt_decode_stats {
  int64_t sentences;        /* sentences decoded */
  int64_t tokens;           /* tokens decoded */
  int64_t cells;            /* lattice cells (label x position pairs) the search scored */
  int64_t iterations;       /* search passes of the iterative decoders (summed over sentences) */
  int64_t active_labels;    /* active labels summed over every column of every final lattice */
  int64_t nodes;            /* nodes of the final lattices (active labels, for pruned_fraction) */
  int64_t pruned;           /* of those, pruned for good */
  int64_t pops;             /* agenda pops of the A* decoders */
  int64_t fallbacks;        /* sentences where iter-viterbi-astar's split search gave up (and
                               expanded columns instead) */
  int64_t budget_fallbacks; /* sentences an exact search decoder handed to the full decoder
                               (viterbi or kbest-viterbi) past its work budget (opts.budget) */
  int64_t sparse;           /* sentences decoded over each column's finite labels only: a
                               constrained lattice (tag dictionary, partial labels) where that
                               costs less than the decoder's own pass; same exact paths */
} vt_decode_stats;

/* Adds every counter of `from` to `into` (per-thread counters summed into one). */
VT_API void vt_decode_stats_add(vt_decode_stats *into, const vt_decode_stats *from);

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
 * A constrained lattice (-inf emissions: a tag dictionary, partial labels) is decoded over each
 * column's finite labels only when that is cheaper, by every exact decoder but viterbi-scalar:
 * a column with 5 allowed labels then costs 5, not L (stats->sparse counts those sentences),
 * and the paths are those viterbi (k = 1) or kbest-viterbi (k > 1) returns, ties included.
 * Returns VT_EINVAL for a bad option (k < 1, a 1-best algorithm with k > 1, beam < 1) or T < 0,
 * VT_ENOMEM when the arena runs out. Emission values are not checked for NaN here (the readers
 * reject them); a NaN gives an unspecified path, never a crash. */
VT_API vt_status vt_decode(const vt_trans *trans, const vt_decode_opts *opts, vt_arena *arena,
                           const double *E, int32_t T, int32_t *labels, double *scores,
                           int32_t *n_paths, vt_decode_stats *stats);

/* As vt_decode, for float emissions (converted to double in the arena, exactly). */
VT_API vt_status vt_decode_f32(const vt_trans *trans, const vt_decode_opts *opts, vt_arena *arena,
                               const float *E, int32_t T, int32_t *labels, double *scores,
                               int32_t *n_paths, vt_decode_stats *stats);

/* Returns the score of path `labels` (T entries) under `trans` and emissions `E`, evaluated left
 * to right in double exactly as the decoders do; T = 0 gives 0. */
VT_API double vt_path_score(const vt_trans *trans, const double *E, int32_t T,
                            const int32_t *labels);

/* ---- posteriors ------------------------------------------------------------------------------ */

/* Forward-backward over the decoders' score model (vt_decode): the log partition function
 *   *logz = log sum over every label sequence y of exp(score(y))
 * and, when `marg` is not NULL, every token's label marginals marg[t*L + y] = P(y_t = y), each in
 * [0, 1], summing to 1 over y up to rounding (T*L entries). A path's probability is
 * exp(score - *logz). Log space throughout (two-pass log-sum-exp), stable for scores in the
 * thousands; -inf emissions, transitions, start or end scores forbid what they score, and a
 * forbidden label gets marginal exactly 0, so constraints are applied by setting emissions to
 * -inf. Cost: O(T L a) for columns of about `a` reachable labels (a = L without constraints);
 * sentences of 4 tokens or more (with at least 1 emission in 8 finite) take a multiply-add per
 * cell (exp-space products over per-sentence tables of exp(A - max), 2 L^2 exps), falling back
 * to log space wherever a sum could underflow, so scores of any magnitude stay exact to rounding.
 * T = 0 gives *logz = 0 (the empty path, probability 1); a sentence without a finite path gives
 * *logz = -inf and every marginal 0. Rounding in log space is absolute: log Z and marginals are
 * within about 1e-14 times the magnitude of the partial path scores (1e-11 at scores in the
 * thousands) of exact arithmetic, at every SIMD level (vt_simd_active; the levels differ in the
 * last bits, the scalar one is the reference); the result never depends on the thread.
 * Scratch from `arena` (not reset). Returns VT_OK, VT_EINVAL (T < 0, logz NULL), VT_ENOMEM. */
VT_API vt_status vt_posteriors(const vt_trans *trans, vt_arena *arena, const double *E, int32_t T,
                               double *marg, double *logz);

/* As vt_posteriors, for float emissions (converted to double in the arena, exactly). */
VT_API vt_status vt_posteriors_f32(const vt_trans *trans, vt_arena *arena, const float *E,
                                   int32_t T, double *marg, double *logz);

/* ---- errors of the engine and the text pipeline ------------------------------------------------
 * Every function below that returns a failing vt_status also leaves its one-line message in
 * vt_last_error(). */

/* ---- atomic output files --------------------------------------------------------------------- */

/* An output file written atomically: a temporary file beside PATH, renamed over it by
 * vt_output_commit, removed by vt_output_abort (and left nowhere on failure). "-" or NULL is
 * standard output, written directly. */
typedef struct vt_output vt_output;

/* Opens output `path` ("-" or NULL: stdout). Returns VT_OK, VT_EIO (cannot create the temporary
 * file: message in vt_last_error) or VT_ENOMEM. */
VT_API vt_status vt_output_open(vt_output **out, const char *path);

/* The stream to write to (valid until commit or abort). */
VT_API FILE *vt_output_file(const vt_output *o);

/* Returns 1 when `o` writes to a temporary file that commit will rename (not stdout). */
VT_API int vt_output_is_atomic(const vt_output *o);

/* Returns the path of the temporary file that commit will rename, or NULL when there is none
 * (stdout, a device or FIFO written in place, or `o` NULL). Valid until commit or abort; a
 * program that must remove it from a signal handler (a second ^C before abort could run) copies
 * it first and unlinks the copy there. */
VT_API const char *vt_output_temp_path(const vt_output *o);

/* Flushes, syncs and renames the temporary file over the target, then frees `o`. Returns VT_OK or
 * VT_EIO (the target is then untouched and the temporary file removed). */
VT_API vt_status vt_output_commit(vt_output *o);

/* Removes the temporary file (stdout: only flushes) and frees `o`. NULL is a no-op. */
VT_API void vt_output_abort(vt_output *o);

/* ---- corpus reader options ------------------------------------------------------------------- */

typedef enum vt_sep { VT_SEP_AUTO = 0, VT_SEP_TAB = 1, VT_SEP_SPACE = 2 } vt_sep;

/* How column corpora are read: one token per line, columns separated by tabs or blanks, a blank
 * line after each sentence; plain, .gz, or "-" for standard input. */
typedef struct vt_reader_opts {
  vt_sep sep;             /* auto: tabs when the first token line has one, else runs of blanks */
  int comments;           /* lines starting with '#' are comments, passed through */
  int conllu;             /* CoNLL-U: tabs, comments, multiword ranges and empty nodes passed */
  int32_t max_tokens;     /* longest sentence accepted (default 10000) */
  int32_t max_line_bytes; /* longest line accepted, in bytes (default and 0: 1 MiB) */
  int32_t reserved[3];
} vt_reader_opts;

/* Fills `o` with the defaults: auto, no comments, not CoNLL-U, 10000 tokens, lines of 1 MiB. */
VT_API void vt_reader_opts_init(vt_reader_opts *o);

/* Reads all of the file `path` (or a pipe, to its end) into *buf: *len bytes and a NUL after
 * them, freed by the caller with free(). A file of more than max_bytes bytes (0: no bound but
 * memory) is refused. Returns VT_OK, VT_EIO (cannot open or read), VT_EFORMAT (too large) or
 * VT_ENOMEM, with "PATH: problem" in vt_last_error (*buf then NULL). The one way the library
 * and its front ends read a whole small file (templates, label lists, a model from a pipe). */
VT_API vt_status vt_file_read(const char *path, size_t max_bytes, char **buf, size_t *len);

/* ---- models ---------------------------------------------------------------------------------- */

/* A model ready to tag or decode with: read-only once opened, shared by every thread. */
typedef struct vt_model vt_model;

typedef enum vt_model_kind {
  VT_MODEL_TAGGER = 1,      /* a tagger trained by vitesse train: templates, features, labels */
  VT_MODEL_JOINT_CHUNK = 2, /* a joint POS + chunk model (vitesse train --joint-chunk) */
  VT_MODEL_TRANSITIONS = 3, /* transitions only (an (L, L) .npy matrix): decode score lattices */
  VT_MODEL_CRFSUITE = 4     /* a CRFsuite 0.12 crf1d model, or its native conversion: tags
                               CRFsuite item sequences (vt_tagger_tag_items) */
} vt_model_kind;

/* The kind's name: "tagger", "joint", "transitions" or "crfsuite" ("unknown" for another value). */
VT_API const char *vt_model_kind_name(vt_model_kind kind);

/* Opens the model file `path`, recognising its kind from its first bytes: a tagger model, a
 * joint model, a NumPy .npy (L, L) float matrix of transitions, or a CRFsuite model (the crf1d
 * file `crfsuite learn` writes, magic "lCRF", or the native file vt_model_save makes of one); a
 * CRF++ or Wapiti model opens as a tagger model (vt_model_open_as, format "auto"). Every offset and
 * count of the file is checked before use. A path that can be read only once (a pipe, /dev/stdin)
 * is read whole into memory and opened as by vt_model_open_memory. Returns VT_OK, VT_EIO
 * (unreadable), VT_EFORMAT (not a model, or damaged: "PATH: problem" in vt_last_error) or
 * VT_ENOMEM. */
VT_API vt_status vt_model_open(vt_model **out, const char *path);

/* Returns the kind of the model file `path` from its first bytes (as vt_model_open recognises
 * it, without loading it), or 0 when it cannot be read, is no model, or can be read only once
 * (a pipe: nothing is read from it; open it and ask vt_model_describe). */
VT_API int vt_model_file_kind(const char *path);

/* As vt_model_open, for the `size` bytes of a tagger, joint or CRFsuite model file held in
 * memory at `data` (copied: the caller may free them at once). `name` names it in messages
 * (NULL: "memory"). A transition model held in memory is made from its arrays:
 * vt_model_open_trans. */
VT_API vt_status vt_model_open_memory(vt_model **out, const void *data, size_t size,
                                      const char *name);

/* As vt_model_open, in the format named `format`: NULL or "auto" (recognised by content:
 * vitesse's files, CRF++ 0.58/0.59 binary and text models, Wapiti 1.5 models, CRFsuite 0.12
 * models), "vitesse", "crfpp", "wapiti" or "crfsuite". A peer's model is converted in memory into a
 * tagger model that scores every path as the peer does (weights kept as float32; labels in the
 * peer's order, so ties go to the peer's lowest label index). cost_factor > 0 multiplies a CRF++
 * model's weights as crf_test -c does (0: the model's own). Returns as vt_model_open; VT_EINVAL for
 * an unknown format or a cost factor given for another format. */
VT_API vt_status vt_model_open_as(vt_model **out, const char *path, const char *format,
                                  double cost_factor);

/* Writes tagger or CRFsuite model `m` (opened from any format) to `path` as a native vitesse
 * file, atomically, checksummed and mapped at load without building anything (a CRFsuite model:
 * its labels, attribute table, state features and transitions); opened again, it tags exactly
 * as `m`. Returns VT_OK, VT_EINVAL (another kind of model), VT_EIO or VT_ENOMEM; the message is
 * in vt_last_error. */
VT_API vt_status vt_model_save(const vt_model *m, const char *path);

/* As vt_model_save, in the format named `format`: NULL or "vitesse" (vt_model_save), or
 * "crfsuite": a CRFsuite model (VT_MODEL_CRFSUITE, from a crf1d file or its native copy) written
 * as the crf1d file CRFsuite 0.12 writes, atomically, which `crfsuite tag` and vt_model_open
 * read and tag exactly as `m` (the same labels, attributes, state features and non-zero
 * transitions). Returns VT_OK, VT_EINVAL (an unknown format, another kind of model for
 * "crfsuite", or a model that format cannot hold), VT_EIO or VT_ENOMEM; the message is in
 * vt_last_error, and on failure nothing is left at `path`. */
VT_API vt_status vt_model_save_as(const vt_model *m, const char *path, const char *format);

/* Makes a transition model (VT_MODEL_TRANSITIONS) from arrays in memory, as vt_trans_create
 * binds them (copied). Returns as vt_trans_create. */
VT_API vt_status vt_model_open_trans(vt_model **out, int32_t L, const double *A, const double *S,
                                     const double *F, const int32_t *rank);

/* Bounds the memory one model may need once opened, in bytes, for every vt_model_open* call
 * after this one, in any thread (0: the default, half of the machine's physical memory). A
 * model file declares its label count in a few bytes, and its L x L tables take 32 bytes a label
 * pair (46,340 labels: 64 GiB); a model that would need more is refused before anything is
 * allocated (VT_EFORMAT, the bound named in vt_last_error). The CLI's --max-model-memory. */
VT_API void vt_model_memory_limit_set(uint64_t bytes);

/* The bound vt_model_memory_limit_set set, or the default, in bytes. */
VT_API uint64_t vt_model_memory_limit(void);

/* Frees a model. NULL is a no-op. No vt_tagger or engine run may use it any more. */
VT_API void vt_model_close(vt_model *m);

/* What a model is and how it was trained. Strings point into the model (valid while it is
 * open). */
typedef struct vt_model_info {
  vt_model_kind kind;
  int32_t labels;        /* output labels (joint: POS tags) */
  int32_t chunk_labels;  /* joint: chunk labels "O", "B-X", "I-X", ...; else 0 */
  const char *templates; /* tagger: the feature templates as trained; else NULL */
  vt_reader_opts reader; /* corpus options it was trained with (defaults when unknown) */
  int32_t label_col;     /* tagger: label column in training, -1 = last */
  int32_t columns;       /* tagger: columns of the training corpus; joint: columns read */
  int32_t epochs;        /* training epochs (0 when unknown) */
  int32_t max_chunk;     /* joint: chunk-length bound of training, 0 = none */
  uint64_t train_sentences, train_tokens;
  const char *decoder; /* tagger: decoder used in training ("" when unknown) */
  int obs_bigram;      /* tagger: has observation-dependent bigram templates */
  int32_t origin;      /* tagger: who trained it, VT_MODEL_FROM_* (a converted model keeps it) */
  uint32_t can;        /* what it can do: VT_CAN_* flags (ask these, not the kind) */
  int32_t label_sep;   /* what its own tool prints before a token's label: '\t' for a CRF++
                        * model (crf_test's layout), 0 for vitesse's default (a space or the
                        * corpus's separator) */
  int32_t reserved[12];
} vt_model_info;

/* vt_model_info.can: what a model can do, so that a caller asks the model instead of deciding by
 * its kind (a new kind then needs no change outside the library). */
enum {
  VT_CAN_COLUMNS = 1 << 0,       /* tags column corpora (vt_tagger_tag, vitesse tag) */
  VT_CAN_ITEMS = 1 << 1,         /* tags CRFsuite item sequences (vt_tagger_tag_items) */
  VT_CAN_CHUNKS = 1 << 2,        /* joint output: a POS tag and a chunk label a token (chunk-tag) */
  VT_CAN_MARGINALS = 1 << 3,     /* marginals, path scores and probabilities (forward-backward) */
  VT_CAN_KBEST = 1 << 4,         /* k-best decoders (k > 1) */
  VT_CAN_CONSTRAIN = 1 << 5,     /* allowed labels by word or position (vt_constraints_create) */
  VT_CAN_SAVE = 1 << 6,          /* vt_model_save writes it */
  VT_CAN_SAVE_CRFSUITE = 1 << 7, /* vt_model_save_as writes it as a CRFsuite crf1d file */
  VT_CAN_OPEN_MEMORY = 1 << 8    /* its file's bytes open with vt_model_open_memory */
};

/* What a model of kind `kind` can do (VT_CAN_* flags; 0 for no kind), e.g. of the kind
 * vt_model_file_kind recognises before opening it. vt_model_info.can of an open model says the
 * same. */
VT_API uint32_t vt_model_kind_can(vt_model_kind kind);

/* vt_model_info.origin: trained by vitesse, imported from a CRF++ or from a Wapiti model. */
enum { VT_MODEL_FROM_VITESSE = 0, VT_MODEL_FROM_CRFPP = 1, VT_MODEL_FROM_WAPITI = 2 };

/* Fills `info` for model `m`. */
VT_API void vt_model_describe(const vt_model *m, vt_model_info *info);

/* Returns the name of label `y` (0 <= y < info.labels; joint: a POS tag), NUL-terminated, or
 * NULL when y is out of range. Transition models name their labels "0", "1", ... */
VT_API const char *vt_model_label_name(const vt_model *m, int32_t y);

/* Joint models: the name of chunk label `c` (0 <= c < info.chunk_labels): "O", "B-NP",
 * "I-NP", ... NULL when out of range or for other kinds. */
VT_API const char *vt_model_chunk_name(const vt_model *m, int32_t c);

/* The transition model the decoders use (tagger and transition models; NULL for joint). */
VT_API const vt_trans *vt_model_trans(const vt_model *m);

/* The decoder a model tags with by default: the fastest exact one it supports for its label
 * count and k (1 when k < 1): vt_decode_opts_default(opts, labels, k), except for taggers with
 * observation-dependent bigram templates, which take viterbi (k = 1) or kbest-viterbi (k > 1),
 * the fastest exact decoders they support. Fills `opts`. */
VT_API void vt_model_default_decoder(const vt_model *m, int32_t k, vt_decode_opts *opts);

/* Returns VT_OK when `m` can tag with `opts`, else VT_EUNSUPPORTED (message in vt_last_error:
 * e.g. bigram templates need viterbi, viterbi-scalar, kbest-viterbi or beam) or VT_EINVAL. */
VT_API vt_status vt_model_check_decoder(const vt_model *m, const vt_decode_opts *opts);

/* ---- constraints ---------------------------------------------------------------------------- */

/* Allowed labels per token for tagging with one tagger model: a tag dictionary (word -> allowed
 * labels; words it lacks stay free) and partial labels (a column of the input holding a label
 * fixes the token to it; "_" or an empty field leaves it free; a partial label wins over the
 * dictionary). Applied by giving every disallowed label the emission -inf, so every exact
 * decoder and vt_posteriors honour them exactly (and the staggered and A* decoders never expand
 * them). Read-only once built: one may serve every thread. */
typedef struct vt_constraints vt_constraints;

/* Creates empty constraints for tagger model `m` (labels are resolved against its names): no
 * words, dictionary words read from column 0, no partial labels. `m` must outlive them. Returns
 * VT_OK, VT_EUNSUPPORTED (not a tagger model) or VT_ENOMEM. */
VT_API vt_status vt_constraints_create(vt_constraints **out, const vt_model *m);

/* Frees constraints. NULL is a no-op. */
VT_API void vt_constraints_destroy(vt_constraints *c);

/* Reads tag dictionary file `path` into `c`: one word a line followed by its allowed labels,
 * fields separated by tabs or blanks (so words contain neither), blank lines skipped; e.g.
 * "run VB NN". Returns VT_OK, VT_EIO, VT_EFORMAT ("PATH:LINE: problem": a line without labels, a
 * label the model does not have, a word listed twice) or VT_ENOMEM; on failure `c` keeps the
 * words of the lines before. */
VT_API vt_status vt_constraints_load_dict(vt_constraints *c, const char *path);

/* Adds one dictionary word (NUL-terminated) with labels[0, n) (n >= 1, label ids). Returns
 * VT_OK, VT_EINVAL (n < 1, a label out of range, or the word is there already) or VT_ENOMEM. */
VT_API vt_status vt_constraints_add_word(vt_constraints *c, const char *word, const int32_t *labels,
                                         int32_t n);

/* The corpus columns the constraints read: dictionary words from `word_col` (default 0), partial
 * labels from `partial_col` (-1, the default: none). A token line lacking partial_col (or
 * word_col, once a dictionary has words) is an error when tagging ("FILE:LINE: no column ..."),
 * as is a partial label the model does not have. Returns VT_OK or VT_EINVAL (word_col < 0 or
 * partial_col < -1). */
VT_API vt_status vt_constraints_columns(vt_constraints *c, int32_t word_col, int32_t partial_col);

/* Writes to `out` the tag dictionary of the labelled corpus `files` (n_files >= 1, read with
 * `ro`, NULL: defaults; "-" is standard input): every word of column `word_col` once, in order of
 * first appearance, followed by each label of column `label_col` (-1: the last) it has in the
 * corpus, in order of first appearance, separated by blanks: the format of
 * vt_constraints_load_dict. Tokens whose word or label is empty or holds a blank are left out.
 * *n_words (may be NULL) receives the words written. Returns VT_OK, VT_EINVAL, VT_EIO, VT_EFORMAT
 * ("FILE:LINE: problem") or VT_ENOMEM; write errors on `out` are the caller's to see (ferror). */
VT_API vt_status vt_tagdict_build(const vt_reader_opts *ro, const char *const *files, int n_files,
                                  int32_t word_col, int32_t label_col, FILE *out, int64_t *n_words);

/* Forbids label transitions of model `m` (tagger, transition or CRFsuite model) in place: for
 * c < n, the transition prev[c] -> cur[c] becomes -inf; prev[c] = -1 forbids starting with
 * cur[c], cur[c] = -1 ending with prev[c]. Every decoder and vt_posteriors honour it. NOT
 * thread-safe: call it before any tagger or run uses `m`. Returns VT_OK, VT_EINVAL (a label out
 * of range), VT_EUNSUPPORTED (a joint model) or VT_ENOMEM. */
VT_API vt_status vt_model_forbid(vt_model *m, int32_t n, const int32_t *prev, const int32_t *cur);

/* Reads forbidden transitions from file `path` and applies them as vt_model_forbid: one pair a
 * line, "PREV CUR" (label names, tabs or blanks between), "<s> CUR" forbids starting with CUR,
 * "PREV </s>" ending with PREV; blank lines and lines starting with '#' skipped. Transition
 * models name their labels 0, 1, ... Returns VT_OK, VT_EIO, VT_EFORMAT ("PATH:LINE: problem": not
 * two fields, a label the model does not have), VT_EUNSUPPORTED or VT_ENOMEM; nothing is changed
 * on failure. */
VT_API vt_status vt_model_forbid_file(vt_model *m, const char *path);

/* As vt_model_forbid and vt_model_forbid_file, for a bound transition model (labels named by
 * their indices 0, 1, ... in the file), e.g. before decoding score lattices. NOT thread-safe. */
VT_API vt_status vt_trans_forbid(vt_trans *trans, int32_t n, const int32_t *prev,
                                 const int32_t *cur);
VT_API vt_status vt_trans_forbid_file(vt_trans *trans, const char *path);

/* Forbids the transitions invalid in IOB2 (or, when a label starts with "E-" or "S-", IOBES) over
 * the model's label names: I-X only after B-X or I-X, never first; with IOBES also E-X only after
 * B-X or I-X, B-X and I-X only before I-X or E-X, never last. Labels of another form (O, POS
 * tags) are unconstrained. *n_out (may be NULL) receives the number of transitions, starts and
 * ends forbidden. Returns as vt_model_forbid. */
VT_API vt_status vt_model_forbid_bio(vt_model *m, int32_t *n_out);

/* ---- tagging sentences held in memory -------------------------------------------------------- */

/* One thread's state for tagging with one model: scratch arena, feature row cache, buffers.
 * Create one per thread; the model is shared read-only. */
typedef struct vt_tagger vt_tagger;

/* Creates a tagger for model `m` (tagger, joint or CRFsuite model) decoding with `opts` (NULL: the
 * model's default decoder, vt_model_default_decoder). Returns VT_OK, VT_EUNSUPPORTED (a
 * transition model has nothing to tag with, or the decoder does not fit the model), VT_EINVAL or
 * VT_ENOMEM. */
VT_API vt_status vt_tagger_create(vt_tagger **out, const vt_model *m, const vt_decode_opts *opts);

/* Frees a tagger. NULL is a no-op. */
VT_API void vt_tagger_destroy(vt_tagger *t);

/* What one sentence's tagging writes: caller-owned buffers, and counters. */
typedef struct vt_tag_out {
  int32_t *labels; /* k*T entries: path p's labels at [p*T, p*T + T) (joint: POS tag ids) */
  double *scores;  /* k entries: path scores, best first (joint: the structure's score) */
  int32_t *chunks; /* joint models: T chunk label ids (vt_model_chunk_name); may be NULL */
  int32_t n_paths; /* written: paths found (0: no finite path; 1 for T = 0) */
  int32_t reserved0;
  vt_decode_stats stats; /* added to: sentences, tokens, cells, ... */
  double *marg;          /* tagger models: not NULL asks for T*L marginals here (vt_posteriors) */
  double logz;           /* with marg: log Z (-inf: no path); a path's probability is
                            exp(score - logz) */
  const int32_t *path;   /* not NULL: T label ids of a path to score (tagger models without
                            observation-dependent bigrams, CRFsuite models) */
  double path_score;     /* with path: its score, as vt_path_score gives it on the same scores */
  int64_t reserved[4];
} vt_tag_out;

/* Restricts the labels `t` may output to those `c` allows (NULL: none). `c` must outlive the
 * tagger's use of it. Returns VT_OK or VT_EINVAL (c made for another model). */
VT_API vt_status vt_tagger_constrain(vt_tagger *t, const vt_constraints *c);

/* Tags one sentence of T tokens with `ncols` columns each: cells[t*ncols + c] is column c of
 * token t as a NUL-terminated string (the columns the model's templates read; a label column
 * may be present or not). Writes up to k paths into `out` as vt_decode does, and with out->marg
 * the marginals and out->logz. Returns VT_OK, VT_EFORMAT (fewer columns than the templates
 * read, or a constraint's partial label is missing or not the model's: message in
 * vt_last_error), VT_EUNSUPPORTED (marginals of a model with observation-dependent bigram
 * templates), VT_EINVAL (T < 0, ncols < 1) or VT_ENOMEM. Never allocates in the steady state. */
VT_API vt_status vt_tagger_tag(vt_tagger *t, const char *const *cells, int32_t T, int32_t ncols,
                               vt_tag_out *out);

/* CRFsuite models: tags one sequence of T items, items[t] an item line of CRFsuite's format
 * without its line end: fields separated by tabs, the first the (gold) label, then attributes
 * NAME[:VALUE] (escapes \: and \\; VALUE empty or absent is 1, and scales the attribute's
 * weights). Attributes the model lacks are dropped. Writes up to k paths into `out` as
 * vt_decode does, scored as CRFsuite scores them, and with out->marg the marginals and out->logz.
 * Returns VT_OK, VT_EFORMAT ("item N: problem": a VALUE that is not a finite number, a NUL byte),
 * VT_EUNSUPPORTED (not a CRFsuite model), VT_EINVAL or VT_ENOMEM. Never allocates in the steady
 * state. */
VT_API vt_status vt_tagger_tag_items(vt_tagger *t, const char *const *items, int32_t T,
                                     vt_tag_out *out);

/* ---- score lattices -------------------------------------------------------------------------- */

/* A set of sentences' emission scores: rows of L scores, sentence after sentence. */
typedef struct vt_lattices vt_lattices;

/* Opens the lattice set of `vitesse decode`: E (sum T, L) float32/float64 and N (S,) int32/int64
 * lengths, as .npy files (mapped, not read into memory). Every value is validated (NaN, +inf
 * and magnitudes of 1e295 or more, which a path sum could overflow, rejected). Returns VT_OK,
 * VT_EIO, VT_EFORMAT ("PATH: problem") or VT_ENOMEM. */
VT_API vt_status vt_lattices_open(vt_lattices **out, const char *e_path, const char *n_path);

/* Wraps `n_sent` sentences held in memory (not copied: they must outlive the lattice set):
 * lengths[s] >= 0 tokens each, their rows back to back in E (float when `is_f64` is 0, else
 * double), L >= 1 columns. Returns VT_OK, VT_EINVAL or VT_ENOMEM. */
VT_API vt_status vt_lattices_wrap(vt_lattices **out, const void *E, int is_f64, int32_t L,
                                  const int64_t *lengths, int64_t n_sent);

/* Frees a lattice set. NULL is a no-op. */
VT_API void vt_lattices_close(vt_lattices *l);

/* Makes a seeded synthetic lattice set shaped like a trained tagger's: Zipf label priors, hidden
 * label sequences from a sparse Markov chain, emissions peaked on the hidden label and a few
 * confusable ones, small transitions with a few strong pairs (float32). `n_sent` sentences of
 * about `mean_length` tokens over L labels; the same seed gives the same set. It carries its
 * transition model (vt_lattices_synth_trans). Returns VT_OK, VT_EINVAL or VT_ENOMEM. */
VT_API vt_status vt_lattices_synth(vt_lattices **out, int32_t L, int64_t n_sent, double mean_length,
                                   uint64_t seed);

/* Binds the transition model (A, S, F and rank order) of a synthetic set. VT_EINVAL for a set
 * that is not synthetic. */
VT_API vt_status vt_lattices_synth_trans(const vt_lattices *l, vt_trans **out);

/* Writes the set as the .npy files `vitesse decode` reads into directory `dir` (created if
 * missing; its parent must exist): E.npy (float32 or
 * float64 as held) and N.npy (int32), and for a synthetic set also A, S, F (float32) and R
 * (int32). Each file is written atomically. Returns VT_OK, VT_EIO or VT_ENOMEM. */
VT_API vt_status vt_lattices_save(const vt_lattices *l, const char *dir);

/* Number of sentences, and of labels (columns of E). */
VT_API int64_t vt_lattices_sentences(const vt_lattices *l);
VT_API int32_t vt_lattices_labels(const vt_lattices *l);

/* Sentence `s` (0 <= s < sentences): stores its length in *T and returns its first emission row
 * (T*L values, row-major): `const float *` when vt_lattices_is_f64 is 0, else `const double *`. */
VT_API const void *vt_lattices_rows(const vt_lattices *l, int64_t s, int32_t *T);

/* Returns 1 when the emissions are double, 0 when float. */
VT_API int vt_lattices_is_f64(const vt_lattices *l);

/* Binds the transition model of a lattice set from .npy files: A (L, L) required; S, F (L,) and
 * R (L,) rank order may be NULL. Without R, labels are ranked by how often each is a column's
 * emission argmax in `lat` (NULL: identity order). Returns VT_OK, VT_EIO, VT_EFORMAT ("PATH:
 * problem") or VT_ENOMEM. */
VT_API vt_status vt_trans_load(vt_trans **out, const char *a_path, const char *s_path,
                               const char *f_path, const char *r_path, const vt_lattices *lat);

/* ---- the batch engine ------------------------------------------------------------------------ */

/* How workers are pinned: to a core each, to their NUMA node, or not at all. */
typedef enum vt_bind { VT_BIND_NONE = 0, VT_BIND_CORE = 1, VT_BIND_NUMA = 2 } vt_bind;

/* What a progress callback sees: written so far, in input order. The library fills it, so fields
 * are only ever appended (a callback built against an older header reads a prefix). */
typedef struct vt_progress {
  int64_t batches, items, tokens; /* items: sentences */
  double elapsed;                 /* seconds since the run started */
  int final;                      /* 1 on the last call, after the run */
  /* Corpus runs (vt_engine_tag): input bytes read (compressed bytes for gzip; reading runs a few
   * batches ahead of writing) of bytes_total, the input files' size; 0 when unknown (a pipe). */
  int64_t bytes_read, bytes_total;
} vt_progress;

typedef struct vt_engine_opts {
  int threads;          /* workers; 0 = omp_get_max_threads() (OMP_NUM_THREADS, else every CPU
                           the process may run on; on a synthetic topology one per core) */
  vt_bind bind;         /* default core */
  const char *topology; /* NULL: this machine; else plan on that synthetic topology (see
                           `vitesse topo --help`) and bind nothing */
  int64_t batch_tokens; /* token budget of a batch (default 4096; a longer sentence is a batch
                           of its own) */
  int slots;            /* batches in flight; 0 = 4 per worker */
  /* Optional: called on the calling thread about every 0.25 s and once at the end. */
  void (*progress)(void *ctx, const vt_progress *p);
  void *progress_ctx;
  /* 1: the sinks of a run (vt_engine_tag, vt_engine_decode...) may be called on the workers'
   * threads: still one call at a time, in input order, each call seeing the previous one's
   * effects (a lock orders them), so a sink writing to a FILE* or a buffer needs no locking of
   * its own. The worker that completes the batch next in order writes it, and the calling
   * thread only reads; but a run of one worker on input that costs little to read (files that
   * are neither gzip nor standard input, memory, lattices) starts no thread: the calling thread
   * reads, works and writes. 0 (default): every sink call on the calling thread. */
  int sink_any_thread;
  int reserved32;
  int64_t reserved[7];
} vt_engine_opts;

/* Fills `o` with the defaults: omp_get_max_threads() workers, bound to cores, this machine,
 * 4096 tokens. */
VT_API void vt_engine_opts_init(vt_engine_opts *o);

/* Parses a binding name ("core", "numa", "none") into *out; VT_EINVAL for another. */
VT_API vt_status vt_bind_parse(const char *name, vt_bind *out);

/* A planned set of workers: reader -> batches -> NUMA-placed workers -> reorder -> writer. The
 * calling thread reads, and writes unless the sinks may run on any thread (sink_any_thread:
 * then the workers write, in order); workers decode. Reusable for any number of runs. */
typedef struct vt_engine vt_engine;

/* Loads the topology and plans the workers; one worker on this machine is planned without it
 * (unbound), and the topology is read only by a run that gives the worker a thread of its own
 * (input that is gzip or standard input). Returns VT_OK, VT_EINVAL (bad option or topology:
 * message in vt_last_error) or VT_ENOMEM. */
VT_API vt_status vt_engine_create(vt_engine **out, const vt_engine_opts *opts);

/* Frees an engine. NULL is a no-op. Not while a run is going on. */
VT_API void vt_engine_destroy(vt_engine *e);

/* Returns the number of workers planned. */
VT_API int vt_engine_threads(const vt_engine *e);

/* Asks the run in progress (or the next one) to stop: reading stops, queued batches are dropped,
 * running ones finish, and everything complete in input order is written; the run returns
 * VT_ECANCELED. Async-signal-safe and thread-safe: a signal handler may call it. */
VT_API void vt_engine_cancel(vt_engine *e);

/* Prints the engine's plan (nodes, workers and their cores) to `f`, as `vitesse topo` does: for
 * one worker, the placement a run with a thread of its own gets. */
VT_API void vt_engine_print_plan(const vt_engine *e, FILE *f);

/* Receives the output, in input order, on the calling thread (or, with the engine option
 * sink_any_thread, one call at a time on a worker's thread). Returns VT_OK to go on; anything
 * else stops the run with that status (a write error: keep errno in your context). */
typedef vt_status (*vt_sink_fn)(void *ctx, const char *data, size_t len);

/* Writes `len` bytes to the FILE* `ctx` (fwrite); VT_EIO when it fails (errno kept). */
VT_API vt_status vt_sink_file(void *ctx, const char *data, size_t len);

/* What a tagging run does beyond the decoder. */
typedef struct vt_tag_opts {
  vt_decode_opts decode; /* tagger models (vt_model_default_decoder when unset: k = 0) */
  vt_reader_opts reader; /* corpus options */
  int reader_from_model; /* 1 (default): sep, comments and conllu are the model's unless
                            `reader_set` says they were given */
  int reader_set;        /* bit 0: sep given, bit 1: comments, bit 2: conllu */
  int32_t max_chunk;     /* joint: chunk-length bound, -1 = the model's */
  int32_t word_col;      /* joint: word column (default 0) */
  int32_t pos_col;       /* joint, with eval: gold POS column (default 1) */
  int32_t chunk_col;     /* joint, with eval: gold chunk column (default -1: last) */
  int eval;              /* joint: compare with the gold columns (vt_tag_report's eval) */
  int32_t verbose;       /* tagger models: 1 or 2 print marginals and path probabilities (CRF++'s
                            -v1/-v2 layout, see vt_engine_tag); 0 (default) none */
  int32_t label_sep;     /* tagger models: the byte put before each predicted label (and, with
                            verbose 2, between labels): '\t' as crf_test and wapiti label
                            write, or ' '; 0 (default): the token line's own separator */
  const struct vt_constraints *constraints; /* tagger models: allowed labels (NULL: none) */
  int32_t crfsuite_out; /* CRFsuite models: what `crfsuite tag` prints besides the labels, bits
                           VT_CRFSUITE_PROB (-p), VT_CRFSUITE_MARG (-i), VT_CRFSUITE_MARG_ALL (-l),
                           VT_CRFSUITE_REF (-r); 0 (default) none */
  int32_t peer_search;  /* models imported from CRF++, without constraints: 1 = paths (k > 1) and
                           probabilities (verbose) by crf_test's own search and arithmetic: its
                           order among exact ties, its digits, "# RANK PROB" headers (vitesse tag
                           sets it unless --algo is given); 0 (default): `decode`'s decoder */
  int64_t reserved[5];
} vt_tag_opts;

/* Bits of vt_tag_opts.crfsuite_out. */
#define VT_CRFSUITE_PROB 1     /* "@score\tSCORE\tLOGZ" and "@probability\tP" before a sequence */
#define VT_CRFSUITE_MARG 2     /* LABEL:MARGINAL for the predicted label */
#define VT_CRFSUITE_MARG_ALL 4 /* then "\tLABEL:MARGINAL" for every label of the model */
#define VT_CRFSUITE_REF 8      /* "REFERENCE\t" before each label: the item's own (first) field */

/* Defaults: the model's decoder and corpus options, joint columns 0, 1, last, no eval. */
VT_API void vt_tag_opts_init(vt_tag_opts *o);

/* What a run did. */
typedef struct vt_run_report {
  int64_t sentences;      /* sentences written (tag: with at least one token) */
  int64_t tokens;         /* tokens written */
  double wall_seconds;    /* the run: reading, decoding and writing, set-up excluded */
  double setup_seconds;   /* model replicas and workers */
  vt_decode_stats decode; /* decoder counters summed over workers */
  double feature_seconds; /* tag: features and emissions, summed over workers */
  double decode_seconds;  /* tag: inside the decoder, summed over workers */
  int64_t lookups, unknown_features, cache_hits; /* tag: feature lookups, misses, row-cache hits */
  int64_t eval_tokens, eval_pos_ok, eval_tag_ok; /* joint eval */
  int64_t eval_chunks_gold, eval_chunks_pred, eval_chunks_ok; /* joint eval: chunks other than O */
  int canceled;                                               /* the run was canceled */
  int write_errno; /* errno of the failed sink write, 0 when none */
  /* CPU seconds (CLOCK_THREAD_CPUTIME_ID) of the calling thread, which reads, cuts sentences and
   * writes (serial; with sink_any_thread the workers write), and of the workers, summed:
   * serial/worker is what limits scaling. */
  double serial_cpu_seconds, worker_cpu_seconds;
  int64_t reserved[6];
} vt_run_report;

/* Tags the column corpora `files` (n_files of them, in order; none: standard input; "-" is
 * standard input; .gz inflated) with model `m` (tagger or joint) on engine `e`, handing the output
 * to `sink` in input order: every input line, token lines followed by the separator and the
 * predicted label (joint: POS tag and chunk label), a blank line after each sentence; with k > 1
 * each sentence once per path after "# RANK SCORE". With opts->verbose (tagger models without
 * observation-dependent bigram templates), CRF++'s -v1/-v2 layout: before each path a line
 * "# PROB" (k = 1) or "# RANK PROB" (k > 1), PROB = exp(score - log Z) (%.6g), the label column
 * LABEL/MARGINAL, and with verbose 2 then LABEL/MARGINAL for every label of the model. With
 * opts->constraints, only allowed labels are output (vt_constraints_create); a sentence left
 * without any path (e.g. a fixed label no allowed neighbour may follow) prints "_" labels
 * (verbose: "# 0" and "_/0"), as any sentence without a finite path does. With a CRFsuite model
 * the files are CRFsuite item files (vt_tagger_tag_items) and the output is what `crfsuite tag`
 * prints: each sequence's labels one a line and a blank line (sequences without items print
 * nothing), with k > 1 each path after "# RANK SCORE", and opts->crfsuite_out's lines. The bytes
 * are the same for any thread count and batch size. `rep` may be NULL. Returns VT_OK,
 * VT_ECANCELED, VT_EFORMAT (bad input: "FILE:LINE: problem"), VT_EIO (unreadable input, or a sink
 * failure: rep->write_errno), VT_EUNSUPPORTED, VT_ENOMEM; the message is in vt_last_error. */
VT_API vt_status vt_engine_tag(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                               const char *const *files, int n_files, vt_sink_fn sink,
                               void *sink_ctx, vt_run_report *rep);

/* A piece of a corpus held in memory: whole sentences of a larger corpus (a cluster node's
 * share, cut where a blank line ends; for a CRFsuite model, of an item file, cut where an empty
 * line ends), tagged as if read from that corpus's file. */
typedef struct vt_corpus_part {
  const char *data;   /* len bytes of plain text (not copied; valid during the run) */
  size_t len;         /* 0: no sentence */
  const char *name;   /* the corpus's name in messages ("NAME:LINE: problem"); NULL: "-" */
  int64_t first_line; /* lines of the corpus before data (messages count lines from there) */
  int64_t reserved[4];
} vt_corpus_part;

/* Tags `part` as vt_engine_tag tags a file, with any model vt_engine_tag takes (tagger, joint,
 * CRFsuite) and the same options: the output is the bytes that tagging the whole corpus gives for
 * these sentences, provided `part` starts at the corpus's start or after a blank line (CRFsuite
 * item files: after an empty line, a line of blanks being an item there), and, with sep auto,
 * the corpus's separator is given in opts->reader with reader_set bit 0 (otherwise the first
 * token line of `part` decides it, see vt_reader_opts). Joint models with opts->eval count the
 * part's tokens and chunks in `rep` (sum the reports of the parts). Returns as vt_engine_tag. */
VT_API vt_status vt_engine_tag_part(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                                    const vt_corpus_part *part, vt_sink_fn sink, void *sink_ctx,
                                    vt_run_report *rep);

/* A place between two sentences of a vt_engine_tag_from run's input: where a run that stopped
 * there can start again. */
typedef struct vt_corpus_pos {
  int32_t file;      /* the input file (index into the run's files) the place is in */
  int32_t sep;       /* that file's column separator decided so far: '\t', ' ', or 0 (none) */
  int64_t offset;    /* bytes of that file before the place (for .gz, inflated bytes) */
  int64_t lines;     /* lines of that file before the place */
  int64_t sentences; /* sentences of the whole input before the place (every file) */
  int64_t reserved[4];
} vt_corpus_pos;

/* Called after each batch of sentences was handed to the sink (one call at a time, on the
 * thread that called the sink): every sentence before `after` has been written. */
typedef void (*vt_mark_fn)(void *ctx, const vt_corpus_pos *after);

/* As vt_engine_tag, but starting at `start` (NULL or zeroed: the start of the first file),
 * a place a mark of an earlier run of the same files, model and options gave: the output is
 * then the bytes the whole run writes after that place. `mark` (may be NULL) is told the place
 * after each batch written. The files must be named (standard input cannot start elsewhere
 * than its start). Returns as vt_engine_tag; VT_EINVAL for a start beyond the files. */
VT_API vt_status vt_engine_tag_from(vt_engine *e, const vt_model *m, const vt_tag_opts *opts,
                                    const char *const *files, int n_files,
                                    const vt_corpus_pos *start, vt_mark_fn mark, void *mark_ctx,
                                    vt_sink_fn sink, void *sink_ctx, vt_run_report *rep);

/* The corpus options a run of vt_engine_tag with model `m` and options `o` reads with: o->reader
 * completed with the model's separator, comments and CoNLL-U flags (o->reader_from_model). */
VT_API void vt_model_reader(const vt_model *m, const vt_tag_opts *o, vt_reader_opts *out);

/* Joint-model runs with eval: the percentages of the report's counts (POS accuracy, chunk-tag
 * accuracy, chunk precision and recall, each 0..100; pointers may be NULL). Returns chunk F1. */
VT_API double vt_run_report_chunk_f1(const vt_run_report *r, double *pos_acc, double *tag_acc,
                                     double *precision, double *recall);

/* Decodes every sentence of `lat` with `trans` and `opts` on engine `e`, handing `sink` one line
 * per sentence and path, in input order: sentence<TAB>rank<TAB>score<TAB>labels (score %.9g
 * along the path; -inf and no labels when no path is finite). The pages of a mapped E behind the
 * writer are released, so resident memory stays flat. Same bytes for any thread count. Returns as
 * vt_engine_tag. */
VT_API vt_status vt_engine_decode(vt_engine *e, const vt_trans *trans, const vt_decode_opts *opts,
                                  const vt_lattices *lat, vt_sink_fn sink, void *sink_ctx,
                                  vt_run_report *rep);

/* Confidence figures of a decode run (vt_engine_decode_conf). */
typedef struct vt_conf_opts {
  int logz; /* 1: each output line gains <TAB>logZ<TAB>prob: the sentence's log partition function
               (vt_posteriors) and the path's probability exp(score - logZ) (%.9g; a sentence
               without a path: -inf and 0; an empty one: 0 and 1) */
  /* Not NULL: receives, in input order, the bytes of a .npy file of float32 shape (sum T, L)
   * (header first): every token's label marginals (vt_posteriors), 0 for every label of a
   * sentence without a path. */
  vt_sink_fn post_sink;
  void *post_ctx;
  int64_t reserved[8];
} vt_conf_opts;

/* Fills `o` with the defaults: no log Z, no posteriors. */
VT_API void vt_conf_opts_init(vt_conf_opts *o);

/* As vt_engine_decode, computing also what `conf` asks (NULL: nothing, = vt_engine_decode) by
 * forward-backward over each sentence on the same workers. The marginals differ between SIMD
 * levels in the last bits (vt_posteriors), never between thread counts. A failure of the
 * posteriors sink stops the run like one of `sink` (rep->write_errno). */
VT_API vt_status vt_engine_decode_conf(vt_engine *e, const vt_trans *trans,
                                       const vt_decode_opts *opts, const vt_conf_opts *conf,
                                       const vt_lattices *lat, vt_sink_fn sink, void *sink_ctx,
                                       vt_run_report *rep);

/* Decodes sentences [first, first + count) of `lat` (a cluster node's share) as
 * vt_engine_decode_conf decodes all of them: the same lines for them (sentence numbers count from
 * the set's start), and with a posteriors sink their rows, preceded by the .npy header (of the
 * whole set's shape) only when first is 0, so the parts in order are the whole run's bytes.
 * VT_EINVAL when the range is not inside `lat`; else returns as vt_engine_decode. */
VT_API vt_status vt_engine_decode_range(vt_engine *e, const vt_trans *trans,
                                        const vt_decode_opts *opts, const vt_conf_opts *conf,
                                        const vt_lattices *lat, int64_t first, int64_t count,
                                        vt_sink_fn sink, void *sink_ctx, vt_run_report *rep);

/* As vt_engine_decode_range over sentences [first, end of the set), telling `mark` (may be NULL)
 * after each batch written the place after it (one call at a time, on the thread that called the
 * sinks; only `sentences` is set: the sentences of the set before the place). A run from a
 * place a mark gave writes the bytes the whole run writes after that place, posteriors included
 * (their header only when first is 0): a run stopped there can go on. VT_EINVAL when first is not
 * in 0..sentences; else returns as vt_engine_decode. */
VT_API vt_status vt_engine_decode_from(vt_engine *e, const vt_trans *trans,
                                       const vt_decode_opts *opts, const vt_conf_opts *conf,
                                       const vt_lattices *lat, int64_t first, vt_mark_fn mark,
                                       void *mark_ctx, vt_sink_fn sink, void *sink_ctx,
                                       vt_run_report *rep);

/* Prints the engine's part of the last run's --stats JSON object to `f`: `"key": value` pairs
 * separated by ", ", without braces (threads, bind, batch tokens, slots, wall/read/decode/write
 * split, write_cpu_seconds and write_on_workers, serial_cpu_seconds and worker_cpu_seconds,
 * omp_proc_bind, per-worker figures, the
 * process's memory). */
VT_API void vt_engine_stats_json(const vt_engine *e, FILE *f);

/* ---- score lattices of a corpus, and evaluation ---------------------------------------------- */

/* Writes the score lattices tagger model `m` gives the sentences of `files` (n_files >= 1; "-"
 * is standard input) into directory `dir` (created if missing) as the .npy files vitesse decode
 * reads: E.npy float32 (tokens, L) emissions, N.npy int64 lengths, A.npy float32 (L, L), S.npy
 * and F.npy float32 (L,), R.npy int32 (L,) labels by decreasing training frequency, and
 * labels.txt, the label names one per line, label 0 first. Decoding them gives what tagging
 * gives (E is rounded to float32). Corpus options: o->reader as in
 * vt_engine_tag (NULL: the model's). `rep` (may be NULL) gets sentences and tokens, and a
 * nonzero write_errno when writing the output failed (not reading the input). Returns
 * VT_OK, VT_EUNSUPPORTED (a joint model, or observation-dependent bigram templates: the
 * transitions then depend on the position), VT_EFORMAT, VT_EIO or VT_ENOMEM. */
VT_API vt_status vt_model_write_lattices(const vt_model *m, const vt_tag_opts *o,
                                         const char *const *files, int n_files, const char *dir,
                                         vt_run_report *rep);

typedef struct vt_eval_opts {
  int chunk;             /* conlleval's chunk figures (IOB1, IOB2, IOE1, IOE2, IOBES) */
  const char *split;     /* evaluate each layer of joint labels split at this (NULL: none) */
  int32_t gold_col;      /* gold label column: -2 the default (the one before the last; with
                            reader.conllu, UPOS: column 3), -1 last */
  int32_t pred_col;      /* predicted label column: -2 or -1 the last (default) */
  vt_reader_opts reader; /* corpus options */
  int64_t reserved[8];
} vt_eval_opts;

/* Defaults: token accuracy only, gold the column before the last (CoNLL-U: UPOS), prediction
 * the last. */
VT_API void vt_eval_opts_init(vt_eval_opts *o);

/* Compares gold and predicted labels of tagged corpus files (n_files of them; none: standard
 * input) and prints the report to `out`: sentences exactly right, token accuracy, and with
 * o->chunk conlleval's report (overall and per type), per layer with o->split. A line whose
 * first column is -X- is a document boundary, as in conlleval. Returns VT_OK, VT_EFORMAT
 * (missing columns: "FILE:LINE: problem"; an input without tokens: "FILE: no tokens to
 * evaluate", nothing printed), VT_EIO or VT_ENOMEM ("eval: out of memory"). Errors writing to
 * `out` are the caller's to see (ferror, fflush). */
VT_API vt_status vt_eval_files(const vt_eval_opts *o, const char *const *files, int n_files,
                               FILE *out);

/* ---- training -------------------------------------------------------------------------------- */

/* A sentence held in memory for training: T tokens of `ncols` columns (cells[t*ncols + c],
 * NUL-terminated), the gold label in column opts.label_col. Messages name the training
 * sentences "train" and the development ones "dev", with the line numbers they would have in a
 * corpus file (one token a line, a blank line after each sentence): "train:LINE: problem". */
typedef struct vt_sentence_in {
  const char *const *cells;
  int32_t T, ncols;
} vt_sentence_in;

/* What a training run did: the corpus figures are filled before the first epoch (on_start sees
 * them), the rest as training goes. Filled as far as it got when training fails. */
typedef struct vt_train_report {
  int64_t sentences, tokens; /* training sentences and tokens (sentences of at least one token) */
  int32_t labels;            /* tagger: labels; joint: POS tags */
  int32_t chunk_labels;      /* joint: chunk tags ("O", "B-X", "I-X", ...); tagger: 0 */
  int64_t features;          /* tagger: features kept; joint: weights */
  int32_t templates;         /* tagger: templates kept (U and observation-dependent B lines) */
  vt_algo decoder;           /* tagger: the decoder used in training */
  int64_t chunks_cut;        /* joint: gold chunks cut by max_chunk */
  double read_seconds;       /* tagger: reading and compiling the corpora */
  int input_ok;              /* 1 once every input was read and compiled: a later failure is the
                                training's or the output file's, not the input's */
  int32_t epochs;            /* epochs done */
  double train_seconds;      /* the epochs (evaluation on dev excluded) */
  double decode_seconds;     /* tagger: inside the decoder */
  double train_accuracy;     /* tagger: the last epoch's online token accuracy, 0..1 */
  double dev_accuracy;       /* tagger: the last epoch's dev token accuracy, 0..1 (-1: none) */
  int64_t model_features;    /* tagger: features with a non-zero weight in the model file */
  uint64_t model_bytes;      /* tagger: about how many bytes the model's weights take */
  const char *stop_reason;   /* why training stopped, a static string: "converged (epsilon)",
                                "converged (delta over period)", "iteration cap reached",
                                "epoch cap reached", a line search's failure, "stopped by the
                                callback"...; NULL when unknown */
  int64_t reserved[6];
  const char *const *label_names; /* vt_train_items: the model's labels by id, `labels` of them,
                                     valid during the callbacks only (NULL after) */
} vt_train_report;

/* What a training epoch reports to the callback. */
typedef struct vt_epoch_report {
  int32_t epoch;         /* 1-based */
  int32_t epochs;        /* planned */
  int64_t sentences;     /* training sentences */
  int64_t mistakes;      /* sentences decoded wrong this epoch */
  int64_t updates;       /* joint: updates made (tau > 0); tagger: = mistakes */
  double train_accuracy; /* tagger: online token accuracy this epoch, 0..1 (joint: -1) */
  double dev_accuracy;   /* tagger: token accuracy of the averaged model on dev, 0..1; joint:
                            chunk F1 on test / 100; -1 without dev (or a dev without tokens) */
  double dev_pos, dev_chunk_tags, dev_f1; /* joint with test: POS accuracy, chunk-tag accuracy
                                             and chunk F1 in percent (conlleval); else -1 */
  int64_t dev_sentences;                  /* sentences of dev / test (0 without) */
  double dev_seconds;                     /* joint: seconds tagging test */
  double seconds;                         /* this epoch's training */
  double total_seconds; /* joint: training so far (callbacks excluded); tagger: = seconds
                           summed */
  int64_t reserved[6];
} vt_epoch_report;

/* What a CRF training iteration reports (vt_train_opts.on_iteration): L-BFGS iterations or SGD
 * epochs. The loss is the objective minimised: -sum log p(y|x) + c1 |w|_1 + c2 ||w||^2 (as
 * CRFsuite's "Loss:" lines). */
typedef struct vt_iter_report {
  int32_t iteration;         /* 1-based; 0: the starting weights, before the first step */
  int32_t evaluations;       /* objective evaluations in this iteration (line search) */
  double loss;               /* the objective at the iteration's weights */
  double feature_norm;       /* ||w||_2 */
  double error_norm;         /* ||gradient||_2 (L-BFGS; OWL-QN: of the pseudo-gradient) */
  int64_t active_features;   /* weights that are not zero */
  double step;               /* L-BFGS: the line search's step; SGD: the learning rate */
  double seconds;            /* this iteration */
  double total_seconds;      /* since training began (callbacks excluded) */
  double dev_accuracy;       /* item accuracy on the development data, 0..1; -1 without */
  double eval_seconds;       /* L-BFGS: of `seconds`, those in the objective and its gradient (the
                                rest is the optimiser's own work); -1 for the other trainers */
  const int64_t *dev_counts; /* with development data (vt_train_items), 2 L + 1 counts for this
                                iteration's weights, valid during the call: dev_counts[y] the items
                                tagged label y rightly, dev_counts[L + y] the items tagged y (y in
                                vt_train_report.label_names' order), dev_counts[2 L] the sequences
                                tagged entirely right; NULL otherwise */
  int32_t calibration_trial; /* 0; with VT_TRAIN_CALIBRATION_TRIALS, SGD's learning-rate
                                calibration reports each trial k (1-based) before iteration 0:
                                `step` the rate tried, `loss` the sample's objective after one
                                epoch at it (not finite: the rate diverged), the other figures 0 */
  int32_t reserved32;
  double calibration_start; /* with calibration_trial: the sample's objective before the trials */
} vt_iter_report;

/* How vt_train_opts.algorithm trains a tagger. */
typedef enum vt_train_algo {
  VT_TRAIN_PERCEPTRON = 0, /* averaged perceptron (default) */
  VT_TRAIN_LBFGS = 1,      /* CRF: L-BFGS, OWL-QN when c1 > 0 (CRFsuite's `-a lbfgs`) */
  VT_TRAIN_L2SGD = 2,      /* CRF: SGD with L2 (CRFsuite's `-a l2sgd`) */
  VT_TRAIN_AP = 3,         /* item files: CRFsuite's averaged perceptron (`-a ap`) */
  VT_TRAIN_PA = 4,         /* item files: CRFsuite's passive-aggressive (`-a pa`) */
  VT_TRAIN_AROW = 5        /* item files: CRFsuite's AROW (`-a arow`) */
} vt_train_algo;

/* L-BFGS line searches (CRFsuite's linesearch names). */
typedef enum vt_linesearch {
  VT_LINESEARCH_MORETHUENTE = 0,
  VT_LINESEARCH_BACKTRACKING = 1,
  VT_LINESEARCH_STRONG_BACKTRACKING = 2
} vt_linesearch;

/* The most shards vt_train_opts.shards may ask for. */
#define VT_TRAIN_SHARDS_MAX 1024

/* The largest vt_train_opts.minibatch. */
#define VT_TRAIN_MINIBATCH_MAX 65536

typedef struct vt_train_opts {
  const char *templates;      /* tagger: template text (CRF++/Wapiti U/B lines); required */
  size_t templates_len;       /* bytes of `templates`; 0: strlen(templates) */
  const char *templates_name; /* names the templates in messages ("NAME:LINE: problem"); NULL:
                                 "templates" */
  vt_reader_opts reader;      /* corpus options of the training files */
  int32_t epochs;             /* default 10 */
  uint64_t seed;              /* shuffle of every epoch (default 1; joint: 0 = corpus order, the
                                 paper's and `vitesse chunk-train`'s default) */
  int32_t label_col;          /* tagger: label column, -1 = last (default) */
  uint32_t min_count;         /* tagger: keep features seen at least this often (default 1) */
  vt_algo decoder;            /* tagger: exact decoder inside training (when decoder_set) */
  int decoder_set;            /* 1 when `decoder` was chosen; else vt_decode_opts_default for the
                                 label count and k = 1 (bigram templates: viterbi) */
  /* joint (vt_train_joint): */
  int32_t margin;            /* 0: perceptron update; 1: max-margin (MMVP) */
  int32_t lex_warmup;        /* first epochs update only unlexicalised features (default 1) */
  int32_t max_chunk;         /* chunk-length bound, 0 = none */
  int32_t collapse;          /* 0 none; 1 the paper's five POS classes */
  const char *chunk_types;   /* comma-separated chunk types that form chunks (NULL: "NP"); "all":
                                every type in the training corpus; other labels are outside */
  int32_t observed_only;     /* 0: every output for each observation seen in training (parts of
                                at most 256 outputs; default); 1: only pairs in gold parts */
  int32_t word_col, pos_col; /* word and POS columns (defaults 0, 1; not -1) */
  int32_t chunk_col;         /* chunk column (default -1: last) */
  int64_t max_sentences;     /* use only the first N training sentences (0: all) */
  /* Optional callbacks, on the calling thread, all with `ctx`: */
  /* once the corpora are read and compiled, before the first epoch (report: corpus figures) */
  void (*on_start)(void *ctx, const vt_train_report *r);
  /* tagger: about 100 times an epoch, with the sentences done of `total` */
  void (*on_progress)(void *ctx, int32_t epoch, int32_t epochs, int64_t done, int64_t total);
  /* after every epoch; returning nonzero stops training (the model is still written, with the
   * epochs done). A joint model's test corpus is evaluated only when this is set. */
  int (*on_epoch)(void *ctx, const vt_epoch_report *r);
  void *ctx;
  /* Training on several cores (both trainers), by iterative parameter mixing (McDonald, Hall &
   * Mann 2010): `shards` shards train in parallel from the same weights each epoch, and the
   * weights then add the mean of the shards' changes. Tagger: shard s holds the contiguous
   * sentences [N s / shards, N (s + 1) / shards) of the N, in an order of its own each epoch
   * (shuffle a corpus sorted by source first); joint: each epoch deals the shuffled sentences
   * round-robin to the shards. The model depends on `shards` (and seed), never on `threads`:
   * the same bytes for any thread count. 0 or 1: the sequential perceptron. Each shard holds its
   * own copy of what it changes (tagger: 3 L^2 doubles, a bound transition model, 4 bytes a feature
   * and copies of the feature vectors it updated; joint: 3 doubles a weight). */
  int32_t shards;  /* default 1 */
  int32_t threads; /* at most min(threads, shards or minibatch) OpenMP threads; 0 (default):
                      OpenMP's default (OMP_NUM_THREADS, else one per core) */
  /* Tagger, instead of shards: mini-batches of `minibatch` sentences, each decoded in parallel
   * with the weights as the batch began, then updated one sentence after the other in batch
   * order. The model depends on `minibatch` (and seed), never on `threads`; no memory per thread
   * beyond a sentence's scratch. 0 or 1 (default): the sequential perceptron; with shards > 1:
   * VT_EINVAL. */
  int32_t minibatch;
  /* CRF training (algorithm VT_TRAIN_LBFGS or VT_TRAIN_L2SGD) minimises CRFsuite's objective,
   * -sum log p(y|x) + c1 |w|_1 + c2 ||w||^2, with its parameters, meanings and defaults: */
  int32_t algorithm;       /* vt_train_algo (default VT_TRAIN_PERCEPTRON) */
  double c1, c2;           /* L1 (L-BFGS only, by OWL-QN; default 0) and L2 (default 1) */
  int32_t max_iterations;  /* L-BFGS: 0 = no cap (default); SGD: epochs (0: 1000) */
  double epsilon;          /* L-BFGS: stop when ||g|| / max(1, ||w||) < epsilon (1e-5) */
  int32_t period;          /* stop when the loss improved less than `delta` (relative) over */
  double delta;            /* the last `period` iterations (10, 1e-5) */
  int32_t num_memories;    /* L-BFGS: corrections kept (6) */
  int32_t linesearch;      /* vt_linesearch (MoreThuente; backtracking when c1 > 0) */
  int32_t max_linesearch;  /* L-BFGS: evaluations per line search (20) */
  double calibration_eta;  /* SGD: first learning rate tried (0.1) */
  double calibration_rate; /* SGD: factor between the rates tried (2) */
  int32_t calibration_samples, calibration_candidates, calibration_max_trials; /* 1000, 10, 20 */
  double min_freq;              /* CRF: drop features of lower frequency (0) */
  int32_t possible_states;      /* CRF: a state feature for every label of every attribute seen */
  int32_t possible_transitions; /* CRF: a transition feature for every label pair */
  const char *init_model;       /* CRF: continue from this model (its features keep their weights,
                                   new ones start at 0): a CRFsuite model for vt_train_items, a
                                   tagger model for vt_train_tagger; NULL: from zero */
  /* CRF: after every iteration (and once with iteration 0 before the first); returning nonzero
   * stops training (the model is still written). */
  int (*on_iteration)(void *ctx, const vt_iter_report *r);
  /* CRFsuite's online trainers over item files (VT_TRAIN_AP, VT_TRAIN_PA, VT_TRAIN_AROW): an epoch
   * tags every sequence (in CRFsuite's shuffled order) and updates the weights where it is wrong;
   * max_iterations is their epoch cap (0: 100); c1, c2 and the L-BFGS fields are not used. */
  double online_epsilon; /* stop when an epoch's loss / sequences is below it (AROW: or equal; 0) */
  double pa_c;           /* PA: the aggressiveness C (1) */
  double arow_variance;  /* AROW: every weight's initial variance (1) */
  double arow_gamma;     /* AROW: the trade-off gamma (1) */
  int32_t pa_type;       /* PA: 0 without slack, 1 PA-I (default), 2 PA-II */
  int32_t pa_error_sensitive; /* PA: the cost counts sqrt(wrong labels), not 1 (default 1) */
  int32_t pa_averaging;       /* PA: average the weights as the perceptron does (default 1) */
  int32_t crfsuite_learn;     /* CRF: bits of crfsuite learn's behaviour (default 0):
                                 VT_TRAIN_CALIBRATION_TRIALS; VT_TRAIN_DEV_LABELS (vt_train_items) */
  /* Checkpoints (vt_train_tagger, vt_train_items and their _part forms; not the joint trainer):
   * with `checkpoint` (a file path), the whole training state (weights, the optimiser's memory
   * and step, averages, epoch or iteration counters; the shuffles replay from the seed) is
   * written to it atomically (a file beside it, synced, renamed over it) every
   * `checkpoint_every` epochs (the perceptron, ap, pa, arow, l2sgd) or iterations (L-BFGS), never
   * after the last (the default: below). L-BFGS then runs the library's own L-BFGS / OWL-QN,
   * whose iterates are liblbfgs's to the bit. When the file exists as training starts, training
   * continues from it, and the model is the same bytes an uninterrupted run writes, for any
   * `threads`. A checkpoint of another run (other `checkpoint_id` lines or options that change the
   * model) is refused before the corpus is read: VT_EINVAL, one line saying what differs. The file
   * is left in place: remove it once the model is (a run with it again only retrains from it to the
   * same model). Across processes, process 0 writes it and every process reads it. */
  const char *checkpoint;   /* NULL (default): none */
  int32_t checkpoint_every; /* 0 (default): VT_CHECKPOINT_EVERY_EPOCHS or _ITERATIONS, gated
                               by time (below); N: exactly every N */
  int32_t reserved_ckpt;
  /* With a checkpoint, optional, with `ctx`: on_checkpoint as each is written (after that epoch's
   * or iteration's callbacks) returns a place of the caller's to keep in it (its log's length,
   * say; -1: none); on_resume, once as training continues from a checkpoint, gets that place
   * and the epochs or iterations done. */
  int64_t (*on_checkpoint)(void *ctx);
  void (*on_resume)(void *ctx, int64_t mark, int64_t done);
  /* With a checkpoint, optional, with `ctx`, one process only (the _part forms across processes
   * ignore it): polled as each epoch or iteration ends (not the last); once it returns nonzero,
   * the checkpoint is written there at once, whatever its interval, and training returns
   * VT_ECANCELED ("train: stopped after epoch|iteration N; the checkpoint CK holds it"), no model
   * written. A run with the same options then continues from there (a SIGTERM before a job's
   * time limit, say). */
  int (*on_cancel)(void *ctx);
  const char *checkpoint_id; /* the caller's identity of the inputs, lines "key value\n" (the
                                files' sizes and hashes, say), kept in the checkpoint and compared
                                on resume; NULL: none (the options are compared still) */
} vt_train_opts;

/* vt_train_opts.checkpoint_every's defaults: every epoch of the epoch trainers, every 10 L-BFGS
 * iterations; with the default, a checkpoint also waits until 50 times what writing the last one
 * took has passed since it was written, so that checkpoints take at most about 2% of the time
 * however short an epoch is (perf/README.md measures them). */
#define VT_CHECKPOINT_EVERY_EPOCHS 1
#define VT_CHECKPOINT_EVERY_ITERATIONS 10

/* vt_train_opts.crfsuite_learn: SGD reports every calibration trial to on_iteration
 * (vt_iter_report.calibration_trial). */
#define VT_TRAIN_CALIBRATION_TRIALS 1
/* vt_train_opts.crfsuite_learn: the labels of the development items are labels of the model, as
 * those of crfsuite learn's holdout group: a label seen only there has no feature, yet it is a
 * possible output and counts in every sequence's normaliser (the loss is crfsuite's). */
#define VT_TRAIN_DEV_LABELS 2
/* vt_train_opts.crfsuite_learn, with VT_TRAIN_DEV_LABELS: the labels are numbered in order of
 * first appearance as if the development files came just before training file k (0 <= k <
 * n_train; without it: after them all), as crfsuite learn numbers them when its holdout group is
 * the data set before that file. The numbers break Viterbi's ties, and so steer the updates of
 * ap, pa and arow. */
#define VT_TRAIN_DEV_BEFORE(k) (((k) + 1) << 8)

/* Defaults as documented per field. */
VT_API void vt_train_opts_init(vt_train_opts *o);

/* Trains an averaged-perceptron tagger (Collins 2002) over the templates of `opts` on the
 * corpus files `train` (n_train >= 1 of them, read in order as one corpus; "-" is standard
 * input) and optional `dev` files, and writes the model to `out_path` atomically (a temporary
 * file renamed into place: nothing is left on failure; a path that cannot be written fails once
 * the corpora are read, before the first epoch). Sentences are shuffled every epoch
 * (seed). `rep` may be NULL. Returns VT_OK, VT_EFORMAT (bad corpus or templates: "FILE:LINE:
 * problem"), VT_EIO (unreadable corpus, unwritable or too large model), VT_EUNSUPPORTED (the
 * decoder cannot train these templates), VT_EINVAL (bad option) or VT_ENOMEM; the message is in
 * vt_last_error. */
VT_API vt_status vt_train_tagger(const vt_train_opts *opts, const char *const *train, int n_train,
                                 const char *const *dev, int n_dev, const char *out_path,
                                 vt_train_report *rep);

/* As vt_train_tagger, from sentences held in memory (the same sentences as a corpus file give
 * the same model file, byte for byte). Sentences with T = 0 are skipped. */
VT_API vt_status vt_train_tagger_mem(const vt_train_opts *opts, const vt_sentence_in *train,
                                     int64_t n_train, const vt_sentence_in *dev, int64_t n_dev,
                                     const char *out_path, vt_train_report *rep);

/* Trains a CRF (opts->algorithm VT_TRAIN_LBFGS or VT_TRAIN_L2SGD; the perceptron is refused)
 * on CRFsuite item files `train` (n_train >= 1, read in order as one corpus; "-" is standard
 * input; plain or .gz) with CRFsuite's feature generation and objective, and writes a CRFsuite
 * crf1d model to `out_path` atomically (`crfsuite tag` and vitesse's CRFsuite kind read it). `dev`
 * items (may be NULL) are tagged after every iteration (vt_iter_report.dev_accuracy). The model
 * is the same bytes for any opts->threads. `rep` may be NULL. Returns as vt_train_tagger; an
 * init_model that is not a CRFsuite model is VT_EFORMAT. */
VT_API vt_status vt_train_items(const vt_train_opts *opts, const char *const *train, int n_train,
                                const char *const *dev, int n_dev, const char *out_path,
                                vt_train_report *rep);

/* Training across processes: the processes of one job (the ranks of `vitesse-mpi train`) as the
 * trainer sees them, collective calls behind function pointers that the caller provides (over
 * MPI, say), so that the library never links a message-passing library. Every process calls
 * vt_train_tagger_part / vt_train_items_part with its own part of the corpus; the library calls
 * the same collectives in the same order on every process. A callback returns 0, or -1 when the
 * job cannot go on (it then returns -1 on every process for the same call). */

/* A 128-bit two's complement integer (lo, hi words): the library's exact sums count units of
 * 2^-64 in these, so that a sum does not depend on its order. */
typedef struct vt_fix128 {
  uint64_t lo, hi;
} vt_fix128;

typedef struct vt_train_comm {
  int rank, size; /* this process, and how many there are */
  void *ctx;      /* handed to every callback */
  /* Replaces v[0..n) on every process by its sum over the processes (128-bit integer addition,
   * wrapping). */
  int (*sum_fix)(void *ctx, vt_fix128 *v, int64_t n);
  /* The same for int64 values. */
  int (*sum_i64)(void *ctx, int64_t *v, int64_t n);
  /* Every process's `len` bytes at `mine`, one after the other in process order, into a buffer
   * malloc'd for *all (the caller frees it; may be NULL when *all_len is 0). */
  int (*gather_all)(void *ctx, const void *mine, size_t len, void **all, size_t *all_len);
  /* Process 0's `len` bytes at buf copied into buf on every process (len is the same on all). */
  int (*bcast)(void *ctx, void *buf, size_t len);
  /* Sends `len` bytes to process `to`, which receives them with recv(from = this process) into
   * a buffer malloc'd for *buf (the receiver frees it). */
  int (*send)(void *ctx, int to, const void *buf, size_t len);
  int (*recv)(void *ctx, int from, void **buf, size_t *len);
  /* All to all: out_len[i] bytes to process i, taken one after the other from `out`; receives
   * in_len[i] bytes from process i, one after the other in process order, into a buffer malloc'd
   * for *in (the caller frees it). */
  int (*exchange)(void *ctx, const void *out, const size_t *out_len, void **in, size_t *in_len);
} vt_train_comm;

/* One process's part of a training corpus: `len` bytes at `data` of the file `name` (messages
 * say "NAME:LINE"), which start after its first `first_line` lines and at a sentence boundary
 * (after a blank line, or for item files an empty one). Parts are handed to processes in file
 * order: process 0 the first, and so on (a part may be empty). */
typedef struct vt_train_part {
  const char *name;
  const char *data;
  size_t len;
  int64_t first_line;
  /* A column corpus's separator as opts->reader's auto rule decides it for the whole file (by
   * its first token line), or VT_SEP_AUTO to take opts->reader's (the model records that). */
  vt_sep sep;
} vt_train_part;

/* vt_train_tagger across the processes of `comm`: each process compiles its part, the feature
 * dictionary is merged once (ids in order of first appearance in the whole file, counts summed),
 * sentences move so that each process holds whole shards (the perceptron, opts->shards >= 2) or
 * whole gradient batches (VT_TRAIN_LBFGS), and the sums over processes are exact, so process 0
 * writes the very model vt_train_tagger writes from the whole file, for any number of processes
 * and threads. `dev` (read by process 0 only; may be NULL), `out_path` and the callbacks of opts
 * are process 0's (other processes' are ignored: give them NULL). Refuses (VT_EINVAL) the
 * sequential and mini-batch perceptron, l2sgd, ap, pa, arow and init_model. Every process
 * returns the same status; a process whose own input failed has its message in vt_last_error,
 * the others "another process failed" (VT_ECANCELED). */
VT_API vt_status vt_train_tagger_part(const vt_train_opts *opts, const vt_train_comm *comm,
                                      const vt_train_part *part, const char *dev,
                                      const char *out_path, vt_train_report *rep);

/* As vt_train_tagger_part for vt_train_items: a part of a CRFsuite item file, VT_TRAIN_LBFGS. */
VT_API vt_status vt_train_items_part(const vt_train_opts *opts, const vt_train_comm *comm,
                                     const vt_train_part *part, const char *dev,
                                     const char *out_path, vt_train_report *rep);

/* Trains the joint POS + chunk model (Shimizu & Haas 2006) on a CoNLL-2000 corpus (columns
 * word, POS, chunk) and writes it to `out_path` atomically. `test` (may be NULL) is read before
 * training and evaluated after every epoch when opts->on_epoch is set (dev_pos, dev_chunk_tags,
 * dev_f1). `rep` may be NULL. Returns as vt_train_tagger (VT_EINVAL also for a bad chunk type
 * list or a word or POS column of -1). */
VT_API vt_status vt_train_joint(const vt_train_opts *opts, const char *train, const char *test,
                                const char *out_path, vt_train_report *rep);

/* As vt_train_joint, from sentences held in memory (columns word, POS, chunk as in opts; the
 * same sentences as a corpus file give the same model file); `test` may be NULL (n_test 0). */
VT_API vt_status vt_train_joint_mem(const vt_train_opts *opts, const vt_sentence_in *train,
                                    int64_t n_train, const vt_sentence_in *test, int64_t n_test,
                                    const char *out_path, vt_train_report *rep);

/* ---- CRF++ training (crf_learn) ------------------------------------------------------------ */

/* crf_learn's command line as a call: CRF++'s features (every unigram template string with every
 * label, every bigram template string with every label pair), its objective (the negative
 * log-likelihood plus ||w||^2 / (2 cost), or |w|_1 / cost), its iterations (evaluations of the
 * objective) and its stopping rule, or its MIRA trainer, and a CRF++ model file that crf_test
 * reads. */
typedef enum vt_crfpp_algo {
  VT_CRFPP_L2 = 0,  /* -a CRF, CRF-L2 */
  VT_CRFPP_L1 = 1,  /* -a CRF-L1 */
  VT_CRFPP_MIRA = 2 /* -a MIRA: single-best MIRA, one pass over the sentences an iteration */
} vt_crfpp_algo;

/* One evaluation of the objective (one pass of MIRA), as crf_learn prints it. */
typedef struct vt_crfpp_iteration {
  int32_t iter;   /* from 0 */
  double terr;    /* tokens whose Viterbi label is wrong, over the tokens */
  double serr;    /* sentences with a wrong label, over the sentences */
  int64_t act;    /* active features: every weight (L2), the non-zero ones (L1); MIRA: the
                     sentences visited (not shrunk) */
  double obj;     /* the objective; MIRA: ||w||^2 */
  double diff;    /* |previous obj - obj| / previous obj (1 at iteration 0); MIRA: 0 */
  double seconds; /* of this evaluation */
  int64_t uact;   /* MIRA: the sentences whose step the bound C cut; else 0 */
  double kkt;     /* MIRA: the largest margin violation among the uncut steps; else 0 */
} vt_crfpp_iteration;

typedef struct vt_crfpp_learn_report {
  int64_t sentences, tokens;
  int32_t labels;
  int64_t features; /* maxid: weights of the model */
  int32_t threads;
  int32_t iterations; /* evaluations done */
  const char *stop;   /* why training stopped (a static string) */
  double seconds;     /* training */
} vt_crfpp_learn_report;

typedef struct vt_crfpp_learn_opts {
  int32_t freq;      /* -f: keep the feature strings seen at least this often (1) */
  int32_t maxiter;   /* -m: evaluations at most (100000) */
  double cost;       /* -c: C (1) */
  double eta;        /* -e: stop once |change| / obj < eta three evaluations running (1e-4) */
  int32_t algorithm; /* vt_crfpp_algo (L2) */
  int32_t threads;   /* -p: threads of the gradient (0: one per core); MIRA, and bigram
                        templates other than one plain B line, run on one */
  int text_model;    /* -t: also write MODEL.txt, the text model */
  /* Called once the data is read (may be NULL). */
  void (*on_start)(void *ctx, const vt_crfpp_learn_report *r);
  /* Called after every evaluation (may be NULL); nonzero stops training with VT_ECANCELED. */
  int (*on_iteration)(void *ctx, const vt_crfpp_iteration *it);
  void *ctx;
  int32_t shrinking_size; /* -H: MIRA skips a sentence tagged right this many passes running (20) */
  int32_t reserved[7];
} vt_crfpp_learn_opts;

/* Fills `o` with crf_learn's defaults. */
VT_API void vt_crfpp_learn_opts_init(vt_crfpp_learn_opts *o);

/* Trains on the column corpus `train` (whitespace-separated columns, the label last, a blank
 * line between sentences) with the CRF++ templates of `templates` and writes the binary CRF++
 * model to `model` (and its text form to MODEL.txt with o->text_model), each atomically.
 * Returns VT_OK, VT_EINVAL (a bad option), VT_EIO, VT_EFORMAT (bad input: one line naming the
 * file and line in vt_last_error), VT_ECANCELED or VT_ENOMEM; nothing is written on failure.
 * `r` may be NULL. */
VT_API vt_status vt_crfpp_learn(const char *templates, const char *train, const char *model,
                                const vt_crfpp_learn_opts *o, vt_crfpp_learn_report *r);

/* crf_learn -C: writes the text model `text` as a binary CRF++ model `model`, atomically.
 * Returns VT_OK, VT_EIO, VT_EFORMAT or VT_ENOMEM (message in vt_last_error). */
VT_API vt_status vt_crfpp_convert(const char *text, const char *model);

#ifdef __cplusplus
}
#endif
#endif /* VT_VITESSE_H */
