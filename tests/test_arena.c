/* tests/test_arena.c: the bump arena (64-byte alignment, geometric growth with a cap, large
 * requests in their own block, reset keeping one first block, high-water statistics, blocks from
 * any vt_mem), node-bound memory, and model replicas (vt_trans_clone_to) that decode exactly as
 * the original with the original destroyed. */
#include <stdint.h>
#include <string.h>

#include "alloc/arena.h"
#include "alloc/node_mem.h"
#include "core/trans_replica.h"
#include "sched/topo.h"
#include "test_util.h"

/* A vt_mem over the heap that counts what it hands out. */
typedef struct counting {
  long allocs, frees;
  size_t live;
} counting;

static void *count_alloc(void *ctx, size_t size) {
  counting *c = ctx;
  c->allocs++;
  c->live += size;
  return aligned_alloc(64, size);
}

static void count_free(void *ctx, void *p, size_t size) {
  counting *c = ctx;
  c->frees++;
  c->live -= size;
  free(p);
}

/* 64-byte alignment of every size, distinct pointers, NULL on overflow. */
TEST(alignment) {
  vt_arena *a;
  REQUIRE(vt_arena_create(&a, 4096) == VT_OK, "vt_arena_create");
  const size_t sizes[] = {0, 1, 7, 63, 64, 65, 100, 1000, 4095, 4096, 4097, 10000, 100000};
  unsigned char *prev = NULL;
  for (int round = 0; round < 3; round++) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      unsigned char *p = vt_arena_alloc(a, sizes[i]);
      EXPECT(p && (uintptr_t)p % 64 == 0, "size %zu: %p not 64-byte aligned", sizes[i], (void *)p);
      EXPECT(p != prev, "size %zu: same pointer twice", sizes[i]);
      if (p) memset(p, 0xAB, sizes[i]);
      prev = p;
    }
    vt_arena_reset(a);
  }
  EXPECT(vt_arena_calloc_n(a, SIZE_MAX / 2, 4) == NULL, "n*size overflow gives NULL");
  EXPECT(vt_arena_alloc(a, SIZE_MAX - 8) == NULL, "huge size gives NULL");
  vt_arena_destroy(a);
}

/* Geometric growth, large requests in their own block, reset keeping one block sized to the
 * round, high-water statistics, every block freed. */
TEST(growth_and_reset) {
  counting c = {0, 0, 0};
  vt_mem mem = {count_alloc, count_free, &c};
  vt_arena *a;
  REQUIRE(vt_arena_create_in(&a, 4096, &mem) == VT_OK, "vt_arena_create_in");
  size_t first = vt_arena_reserved(a);
  EXPECT(c.allocs == 1 && first >= 4096 && first < 4096 + 256, "first block: %zu bytes", first);
  /* Fill the first block, then one more byte: the next block doubles. */
  for (int i = 0; i < 64; i++) vt_arena_alloc(a, 64);
  EXPECT(c.allocs == 1, "64 x 64 bytes fit the first block (%ld blocks)", c.allocs);
  vt_arena_alloc(a, 64);
  EXPECT(c.allocs == 2, "the 65th opens a block (%ld)", c.allocs);
  size_t second = vt_arena_reserved(a) - first;
  EXPECT(second >= 8192 && second < 8192 + 256, "second block doubles: %zu", second);
  /* A request larger than the next block gets its own; the bump block stays current. */
  void *big = vt_arena_alloc(a, 1 << 20);
  EXPECT(big != NULL && c.allocs == 3, "large request: own block (%ld)", c.allocs);
  size_t before = vt_arena_reserved(a);
  vt_arena_alloc(a, 64);
  EXPECT(c.allocs == 3 && vt_arena_reserved(a) == before,
         "small request after a large one "
         "still bumps in the current block (%ld blocks)",
         c.allocs);
  size_t used = 65 * 64 + (1 << 20) + 64;
  EXPECT(vt_arena_high_water(a) == used, "high water %zu != %zu", vt_arena_high_water(a), used);
  /* Reset: one first block holding the whole round; the same round then allocates nothing. */
  vt_arena_reset(a);
  EXPECT(c.allocs - c.frees == 1, "after reset one block is left (%ld live)", c.allocs - c.frees);
  EXPECT(vt_arena_reserved(a) >= used, "first block regrown to the round: %zu",
         vt_arena_reserved(a));
  long allocs = c.allocs;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 65; i++) vt_arena_alloc(a, 64);
    vt_arena_alloc(a, 1 << 20);
    vt_arena_alloc(a, 64);
    vt_arena_reset(a);
  }
  EXPECT(c.allocs == allocs, "steady rounds take no block (%ld -> %ld)", allocs, c.allocs);
  EXPECT(vt_arena_block_allocs(a) == (uint64_t)c.allocs, "block_allocs counts every block");
  EXPECT(vt_arena_high_water(a) == used, "high water unchanged: %zu", vt_arena_high_water(a));
  vt_arena_destroy(a);
  EXPECT(c.allocs == c.frees && c.live == 0, "destroy frees every block (%ld/%ld, %zu live)",
         c.allocs, c.frees, c.live);
}

/* Growth is geometric up to 64 MiB per block. Blocks are not touched, so this costs no RSS. */
TEST(growth_cap) {
  counting c = {0, 0, 0};
  vt_mem mem = {count_alloc, count_free, &c};
  vt_arena *a;
  REQUIRE(vt_arena_create_in(&a, (size_t)48 << 20, &mem) == VT_OK, "vt_arena_create_in");
  size_t r0 = vt_arena_reserved(a);
  vt_arena_alloc(a, (size_t)48 << 20);
  vt_arena_alloc(a, 64);
  size_t grown = vt_arena_reserved(a) - r0;
  EXPECT(grown >= ((size_t)64 << 20) && grown < ((size_t)64 << 20) + 256,
         "the block after 48 MiB is capped at 64 MiB, got %zu", grown);
  vt_arena_destroy(a);
  /* A round far above the kept maximum (256 MiB) gives its memory back at reset. Untouched. */
  REQUIRE(vt_arena_create_in(&a, 4096, &mem) == VT_OK, "vt_arena_create_in");
  r0 = vt_arena_reserved(a);
  EXPECT(vt_arena_alloc(a, (size_t)300 << 20) != NULL, "300 MiB request");
  vt_arena_reset(a);
  EXPECT(vt_arena_reserved(a) == r0, "a 300 MiB round is not kept: %zu bytes held",
         vt_arena_reserved(a));
  vt_arena_destroy(a);
}

/* Node-bound memory serves an arena; a synthetic topology's node memory is the heap. */
TEST(node_mem) {
  vt_topo t;
  char err[700];
  REQUIRE(vt_topo_load(&t, NULL, err, sizeof err) == VT_OK, "vt_topo_load");
  vt_node_mem nm;
  EXPECT(vt_node_mem_init(&nm, t.hw, 0) == VT_OK, "node 0 memory");
  vt_arena *a;
  if (vt_arena_create_in(&a, 1 << 16, &nm.mem) == VT_OK) {
    for (int i = 0; i < 100; i++) {
      unsigned char *p = vt_arena_alloc(a, 5000);
      EXPECT(p && (uintptr_t)p % 64 == 0, "node-bound block aligned");
      if (p) memset(p, i, 5000);
    }
    vt_arena_reset(a);
    vt_arena_destroy(a);
  } else {
    EXPECT(0, "an arena on node 0 memory");
  }
  vt_node_mem_fini(&nm);
  /* A synthetic topology is not this machine: its node memory is the plain heap. */
  vt_topo s;
  if (vt_topo_load(&s, "numa:2 core:1", err, sizeof err) == VT_OK) {
    EXPECT(vt_node_mem_init(&nm, s.hw, 1) == VT_OK && nm.bound == 0, "synthetic: heap memory");
    vt_node_mem_fini(&nm);
    vt_topo_free(&s);
  }
  vt_topo_free(&t);
}

static vt_trans *random_trans(test_rng *r, int32_t L, int identity) {
  double *A = malloc((size_t)L * L * sizeof *A), *S = malloc((size_t)L * sizeof *S);
  double *F = malloc((size_t)L * sizeof *F);
  int32_t *rank = malloc((size_t)L * sizeof *rank);
  vt_trans *tr = NULL;
  for (int32_t i = 0; i < L * L; i++) A[i] = test_score(r, i % 5 ? SCORE_REAL : SCORE_NEGINF);
  for (int32_t y = 0; y < L; y++) {
    S[y] = test_score(r, SCORE_REAL);
    F[y] = test_score(r, SCORE_REAL);
    rank[y] = y;
  }
  for (int32_t y = L - 1; y > 0 && !identity; y--) {
    int32_t z = test_int(r, y + 1), tmp = rank[y];
    rank[y] = rank[z];
    rank[z] = tmp;
  }
  vt_trans_create(&tr, L, A, S, F, rank);
  free(A);
  free(S);
  free(F);
  free(rank);
  return tr;
}

/* Decodes random sentences with every available algorithm through `a` and `b`: same output. */
static void compare_decoding(const vt_trans *a, const vt_trans *b, int32_t L, test_rng *r) {
  vt_arena *arena;
  REQUIRE(vt_arena_create(&arena, 0) == VT_OK, "vt_arena_create");
  int32_t la[4 * 40], lb[4 * 40], na, nb;
  double sa[4], sb[4], E[40 * 64];
  for (int algo = 0; algo < VT_ALGO_COUNT_; algo++) {
    if (!vt_algo_available((vt_algo)algo)) continue;
    vt_decode_opts o;
    vt_decode_opts_init(&o);
    o.algo = (vt_algo)algo;
    o.k = vt_algo_kbest(o.algo) ? 4 : 1;
    o.beam = 5;
    for (int s = 0; s < 20; s++) {
      int32_t T = 1 + test_int(r, 40);
      for (int32_t i = 0; i < T * L; i++) E[i] = test_score(r, SCORE_REAL);
      vt_status x = vt_decode(a, &o, arena, E, T, la, sa, &na, NULL);
      vt_arena_reset(arena);
      vt_status y = vt_decode(b, &o, arena, E, T, lb, sb, &nb, NULL);
      vt_arena_reset(arena);
      EXPECT(x == y && na == nb, "%s: status/paths differ", vt_algo_name(o.algo));
      for (int p = 0; p < na && na == nb; p++) {
        EXPECT(sa[p] == sb[p], "%s: score %d differs", vt_algo_name(o.algo), p);
        EXPECT(!memcmp(la + p * T, lb + p * T, (size_t)T * sizeof *la), "%s: path %d differs",
               vt_algo_name(o.algo), p);
      }
    }
  }
  vt_arena_destroy(arena);
}

/* Replicas on the heap and on node memory, identity and shuffled rank, decode as the original
 * with the original destroyed. */
TEST(replica_decodes_as_original) {
  vt_topo t;
  char err[700];
  vt_node_mem nm;
  REQUIRE(vt_topo_load(&t, NULL, err, sizeof err) == VT_OK, "vt_topo_load");
  vt_node_mem_init(&nm, t.hw, 0);
  const vt_mem *mems[2] = {&vt_mem_heap, &nm.mem};
  for (int identity = 0; identity < 2; identity++)
    for (int m = 0; m < 2; m++) {
      const int32_t L = 37;
      test_rng r1 = {1234u + (uint64_t)identity}, r2 = r1, rd = {99};
      vt_trans *ref = random_trans(&r1, L, identity), *doomed = random_trans(&r2, L, identity);
      vt_trans *clone = NULL;
      if (!ref || !doomed || vt_trans_clone_to(&clone, doomed, mems[m]) != VT_OK) {
        EXPECT(0, "identity %d memory %d: model or copy failed", identity, m);
        vt_trans_destroy(ref);
        vt_trans_destroy(doomed);
        continue;
      }
      vt_trans_destroy(doomed); /* the copy owes nothing to it */
      EXPECT(vt_trans_labels(clone) == L, "clone labels");
      EXPECT((clone->bd.Ar == clone->A) == identity, "identity rank: Ar aliases A in the copy");
      compare_decoding(ref, clone, L, &rd);
      vt_trans_clone_free(clone, mems[m]);
      vt_trans_destroy(ref);
    }
  vt_node_mem_fini(&nm);
  vt_topo_free(&t);
}

TEST_MAIN(CASE(alignment), CASE(growth_and_reset), CASE(growth_cap), CASE(node_mem),
          CASE(replica_decodes_as_original))
