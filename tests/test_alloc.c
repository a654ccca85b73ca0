/* tests/test_alloc.c: nothing is allocated per sentence in the steady state.
 *
 * Decoders: each available algorithm decodes 10,000 synthetic sentences twice with one arena
 * (reset after every sentence). The first pass warms up (the arena's first block grows to the
 * largest sentence's need); over the second pass the thread must take 0 bytes from the heap
 * (jemalloc's per-thread counter) and the arena 0 new blocks.
 * Engine: the scheduler decodes sentences of one length (so that every sentence needs the same
 * arena space whichever worker gets it) with a decode-and-format job on 2 workers (node-bound
 * arenas, model replicas), twice; over the second run no thread (workers and coordinator) takes
 * a byte from the heap and no arena a block.
 * Sanitizer builds replace malloc, so the heap counter is unknown there: only the arena part is
 * checked, and the test says so. */
#include <string.h>
#include <time.h>

#include "alloc/arena.h"
#include "alloc/heap_stats.h"
#include "core/synth.h"
#include "core/trans_replica.h"
#include "sched/scheduler.h"
#include "test_util.h"

#define N_SENT 10000
#define L_LABELS 20 /* small enough that every decoder (naive A* too) runs in seconds */

static vt_trans *synth_trans(const vt_synth *syn) {
  const int32_t L = syn->L;
  double *A = malloc((size_t)L * L * sizeof *A), *S = malloc((size_t)L * sizeof *S);
  double *F = malloc((size_t)L * sizeof *F);
  vt_trans *tr = NULL;
  if (A && S && F) {
    for (int32_t i = 0; i < L * L; i++) A[i] = syn->A[i];
    for (int32_t y = 0; y < L; y++) {
      S[y] = syn->S[y];
      F[y] = syn->F[y];
    }
    vt_trans_create(&tr, L, A, S, F, syn->R);
  }
  free(A);
  free(S);
  free(F);
  return tr;
}

static void opts_for(vt_algo algo, vt_decode_opts *o) {
  vt_decode_opts_init(o);
  o->algo = algo;
  if (vt_algo_kbest(algo)) o->k = 3;
  if (algo == VT_ALGO_BEAM) o->beam = 8;
  /* A* with the naive heuristic takes a minute here; m3 takes its bound tables too. */
  if (algo == VT_ALGO_ASTAR) o->heuristic = VT_HEUR_M3;
}

/* One pass over the sentences; returns the heap bytes the thread took (-1 unknown). */
static int64_t decode_pass(const vt_trans *tr, const vt_decode_opts *o, const vt_synth *syn,
                           vt_arena *arena, int32_t *labels, double *scores, int *failures) {
  int64_t h0 = vt_heap_thread_allocated();
  for (int64_t s = 0; s < syn->n_sent; s++) {
    int32_t np;
    vt_status st = vt_decode_f32(tr, o, arena, syn->E + syn->offset[s] * syn->L, syn->lengths[s],
                                 labels, scores, &np, NULL);
    *failures += st != VT_OK;
    vt_arena_reset(arena);
  }
  int64_t h1 = vt_heap_thread_allocated();
  return h0 >= 0 && h1 >= 0 ? h1 - h0 : -1;
}

static void check_decoders(const vt_synth *syn, const vt_trans *tr, int *heap_known) {
  int32_t max_T = 0;
  for (int64_t s = 0; s < syn->n_sent; s++)
    if (syn->lengths[s] > max_T) max_T = syn->lengths[s];
  int32_t *labels = malloc((size_t)max_T * 3 * sizeof *labels);
  double scores[3];
  for (int a = 0; a < VT_ALGO_COUNT_; a++) {
    if (!vt_algo_available((vt_algo)a)) continue;
    vt_decode_opts o;
    opts_for((vt_algo)a, &o);
    vt_arena *arena;
    const vt_status st = vt_arena_create(&arena, 4096);
    if (st != VT_OK) {
      EXPECT_EQ_INT(st, VT_OK, "arena");
      continue;
    }
    int failures = 0;
    clock_t c0 = clock();
    int64_t warm = decode_pass(tr, &o, syn, arena, labels, scores, &failures);
    uint64_t blocks = vt_arena_block_allocs(arena);
    int64_t steady = decode_pass(tr, &o, syn, arena, labels, scores, &failures);
    uint64_t new_blocks = vt_arena_block_allocs(arena) - blocks;
    EXPECT(failures == 0, "%s: %d decoding failures", vt_algo_name(o.algo), failures);
    EXPECT(new_blocks == 0, "%s: %llu arena blocks in the steady state", vt_algo_name(o.algo),
           (unsigned long long)new_blocks);
    if (steady >= 0) {
      *heap_known = 1;
      EXPECT(steady == 0, "%s: %lld heap bytes over %d sentences in the steady state",
             vt_algo_name(o.algo), (long long)steady, N_SENT);
    }
    printf("  %-20s warm-up: %lld heap bytes, %llu arena blocks; steady: %lld heap bytes, "
           "%llu blocks; arena high water %zu; %.1f s\n",
           vt_algo_name(o.algo), (long long)warm, (unsigned long long)blocks, (long long)steady,
           (unsigned long long)new_blocks, vt_arena_high_water(arena),
           (double)(clock() - c0) / CLOCKS_PER_SEC);
    vt_arena_destroy(arena);
  }
  free(labels);
}

/* ---- through the engine ---------------------------------------------------------------------- */

#define ENGINE_T 10

typedef struct ejob {
  const vt_synth *syn;
  int64_t n_sent; /* sentences of ENGINE_T rows of syn->E, one after the other */
  vt_decode_opts o;
  int64_t next;
} ejob;

static int ejob_read(void *ctx, vt_sched_batch *b) {
  ejob *j = ctx;
  if (j->next >= j->n_sent) return 0;
  b->first = j->next;
  while (j->next < j->n_sent && b->tokens < 512) {
    b->tokens += ENGINE_T;
    b->items++;
    j->next++;
  }
  return 1;
}

static vt_status ejob_work(void *ctx, const vt_sched_worker *w, vt_sched_batch *b) {
  ejob *j = ctx;
  const vt_synth *syn = j->syn;
  for (int64_t s = b->first; s < b->first + b->items; s++) {
    int32_t T = ENGINE_T, np = 0;
    int32_t *labels = VT_ARENA_NEW(w->arena, int32_t, (size_t)T * (size_t)j->o.k);
    double *scores = VT_ARENA_NEW(w->arena, double, j->o.k);
    if (!labels || !scores) return VT_ENOMEM;
    vt_status st = vt_decode_f32(w->model, &j->o, w->arena, syn->E + s * T * syn->L, T, labels,
                                 scores, &np, NULL);
    if (st != VT_OK) return st;
    if (vt_sched_buf_reserve(&b->out, 32 + 4 * (size_t)T) != VT_OK) return VT_ENOMEM;
    char *q = b->out.data + b->out.len;
    q += snprintf(q, 32, "%.9g", np ? scores[0] : 0.0);
    for (int32_t t = 0; t < T && np; t++) *q++ = (char)('a' + labels[t] % 26);
    *q++ = '\n';
    b->out.len = (size_t)(q - b->out.data);
    vt_arena_reset(w->arena);
  }
  return VT_OK;
}

static vt_status ejob_write(void *ctx, vt_sched_batch *b) {
  (void)ctx;
  (void)b;
  return VT_OK;
}

static vt_status clone(const void *m, const vt_mem *mem, void **out) {
  if (!mem) { /* one NUMA node: the model as it is */
    *out = (void *)(uintptr_t)m;
    return VT_OK;
  }
  vt_trans *t;
  vt_status st = vt_trans_clone_to(&t, m, mem);
  *out = t;
  return st;
}

static void clone_free(void *r, const vt_mem *mem) {
  if (mem) vt_trans_clone_free(r, mem);
}

static void check_engine(const vt_synth *syn, const vt_trans *tr) {
  vt_topo t;
  vt_plan p;
  char err[700];
  vt_sched *s = NULL;
  const vt_status tst = vt_topo_load(&t, NULL, err, sizeof err);
  if (tst != VT_OK) {
    EXPECT_EQ_INT(tst, VT_OK, err);
    return;
  }
  if (vt_topo_plan(&t, 2, VT_BIND_CORE, &p) == VT_OK) {
    vt_sched_config cfg = {&t, &p, 0, 4096, tr, clone, clone_free};
    EXPECT(vt_sched_create(&s, &cfg) == VT_OK, "engine");
  }
  const vt_algo algos[] = {VT_ALGO_VITERBI, VT_ALGO_KBEST_VITERBI}; /* memory need set by T */
  for (size_t a = 0; s && a < sizeof algos / sizeof algos[0]; a++) {
    if (!vt_algo_available(algos[a])) continue;
    ejob j;
    memset(&j, 0, sizeof j);
    j.syn = syn;
    j.n_sent = syn->n_rows / ENGINE_T < N_SENT ? syn->n_rows / ENGINE_T : N_SENT;
    opts_for(algos[a], &j.o);
    vt_sched_job job = {&j, ejob_read, ejob_work, ejob_write, NULL, 0, NULL, 0, 0};
    vt_sched_stats st;
    uint64_t blocks[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
      j.next = 0;
      EXPECT(vt_sched_run(s, &job, &st, err, sizeof err) == VT_OK, "engine run: %s", err);
      EXPECT(st.items_written == j.n_sent, "engine: %lld sentences", (long long)st.items_written);
      for (int w = 0; w < st.n_workers && w < 2; w++) {
        if (run == 1)
          EXPECT(st.workers[w].arena_blocks == blocks[w],
                 "engine, %s: worker %d arena took "
                 "blocks in the second run",
                 vt_algo_name(algos[a]), w);
        blocks[w] = st.workers[w].arena_blocks;
      }
    }
    int64_t heap = st.coordinator_heap_bytes;
    if (heap >= 0)
      EXPECT(heap == 0, "engine, %s: the coordinator took %lld heap bytes in the second run",
             vt_algo_name(algos[a]), (long long)heap);
    for (int w = 0; w < st.n_workers && heap >= 0; w++) {
      EXPECT(st.workers[w].heap_bytes == 0,
             "engine, %s: worker %d took %lld heap bytes in the "
             "second run",
             vt_algo_name(algos[a]), w, (long long)st.workers[w].heap_bytes);
      heap += st.workers[w].heap_bytes;
    }
    printf("  engine %-13s second run: %lld heap bytes (workers + coordinator)\n",
           vt_algo_name(algos[a]), (long long)heap);
  }
  vt_sched_destroy(s);
  vt_plan_free(&p);
  vt_topo_free(&t);
}

/* The synthetic sentences and their model, made on the first call and freed at exit. */
static vt_synth g_syn;
static vt_trans *g_tr;

static void fixture_free(void) {
  vt_trans_destroy(g_tr);
  vt_synth_free(&g_syn);
}

static int fixture_ready(void) {
  static int state; /* 0: not yet, 1: ready, -1: failed */
  if (state) return state > 0;
  state = -1;
  vt_synth_opts so = {L_LABELS, N_SENT, 10.0, 7};
  const vt_status st = vt_synth_make(&g_syn, &so);
  EXPECT_EQ_INT(st, VT_OK, "synthetic sentences");
  if (st != VT_OK) return 0;
  g_tr = synth_trans(&g_syn);
  EXPECT(g_tr != NULL, "synthetic model");
  atexit(fixture_free);
  if (!g_tr) return 0;
  state = 1;
  return 1;
}

/* Every decoder, one arena, reset after every sentence: no heap byte, no arena block in the
 * second pass. */
TEST(decoders_steady_state) {
  REQUIRE(fixture_ready(), "fixture");
  int heap_known = 0;
  check_decoders(&g_syn, g_tr, &heap_known);
  if (!heap_known)
    printf("test_alloc: jemalloc is not this build's malloc (sanitizer): heap bytes not "
           "counted, arena blocks checked\n");
}

/* The scheduler's second run: no heap byte in any thread, no arena block in any worker. */
TEST(engine_steady_state) {
  REQUIRE(fixture_ready(), "fixture");
  check_engine(&g_syn, g_tr);
}

TEST_MAIN(CASE(decoders_steady_state), CASE(engine_steady_state))
