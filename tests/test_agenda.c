/* tests/test_agenda.c: the A* agenda (engine/decode/agenda.h) directly. Its order decides every
 * A* result, so pops are checked against a brute-force reference (a sort) under the documented
 * total order: larger key first, then exact before estimated, then the lower node index (the
 * order of creation). Random keys, many equal keys, +-inf and signed zeros, interleaved
 * push/pop, growth of the heap and the node pool far past their first capacity (node contents
 * kept), a fresh agenda in a reset arena, running out of memory; and the k-best floor
 * (vt_agenda_record, vt_topk_push) against the k-th largest recorded value. */
#include <string.h>

#include "alloc/arena.h"
#include "decode/agenda.h"
#include "test_util.h"

/* The node of these tests: its own creation index and key, so the pool can be checked. */
typedef struct node {
  int64_t id;
  double key;
  unsigned char pad[13];
} node;

/* One pushed item as the reference sees it. */
typedef struct ref_item {
  double key;
  int exact;
  int64_t node;
} ref_item;

/* The documented order: -1 when a comes first. No NaN keys, so this is a total preorder. */
static int ref_cmp(const void *pa, const void *pb) {
  const ref_item *a = pa, *b = pb;
  if (a->key > b->key) return -1;
  if (a->key < b->key) return 1;
  if (a->exact != b->exact) return a->exact ? -1 : 1;
  return (a->node > b->node) - (a->node < b->node);
}

static int cmp_dbl_desc(const void *pa, const void *pb) {
  const double a = *(const double *)pa, b = *(const double *)pb;
  return (a < b) - (a > b);
}

static double draw_key(test_rng *r, int mode) {
  switch (mode) {
  case 0: return 100.0 * test_unit(r) - 50.0;  /* distinct reals */
  case 1: return (double)(test_int(r, 5) - 2); /* few values: many ties */
  case 2: {                                    /* ties, infinities and signed zeros */
    const int c = test_int(r, 8);
    return c == 0 ? -INFINITY : c == 1 ? INFINITY : c == 2 ? -0.0 : c == 3 ? 0.0 : c - 5;
  }
  default: return 7.0; /* all equal: the tie rule alone orders them */
  }
}

/* Pops everything and compares with ref[0, n) sorted; `ctx` names the run. With `sign`, a zero
 * key must come out with its own sign (when no two items share key and node, the item itself
 * must come out, not an equal one). */
static void expect_drain(vt_agenda *q, ref_item *ref, int64_t n, int sign, const char *ctx) {
  qsort(ref, (size_t)n, sizeof *ref, ref_cmp);
  int64_t bad = -1;
  vt_agenda_item it = {0, 0};
  vt_agenda_item first = {0, 0};
  for (int64_t i = 0; i < n; i++) {
    if (!vt_agenda_pop(q, &it)) {
      if (bad < 0) bad = i;
      break;
    }
    if (bad < 0 && (!(it.key == ref[i].key) || (sign && signbit(it.key) != signbit(ref[i].key)) ||
                    vt_agenda_exact(&it) != ref[i].exact || vt_agenda_node(&it) != ref[i].node)) {
      bad = i;
      first = it;
    }
  }
  it = first;
  EXPECT(bad < 0, "%s: pop %lld is (%g, %s, node %lld), want (%g, %s, node %lld)", ctx,
         (long long)bad, it.key, vt_agenda_exact(&it) ? "exact" : "estimated",
         (long long)vt_agenda_node(&it), ref[bad].key, ref[bad].exact ? "exact" : "estimated",
         (long long)ref[bad].node);
  EXPECT_EQ_INT(q->n, 0, ctx);
  EXPECT_EQ_INT(vt_agenda_pop(q, &it), 0, ctx);
}

/* Adds n nodes with keys of `mode` (exact or not at random), then pops them all. */
static void add_then_drain(vt_arena *ar, test_rng *r, int64_t n, int mode, const char *ctx) {
  vt_agenda q;
  EXPECT_EQ_INT(vt_agenda_init(&q, ar, 4, sizeof(node)), VT_OK, ctx);
  ref_item *ref = malloc(sizeof *ref * (size_t)n);
  int64_t failed = -1;
  for (int64_t i = 0; i < n; i++) {
    const node nd = {i, draw_key(r, mode), {0}};
    const int exact = test_int(r, 2);
    if (vt_agenda_add(&q, &nd, nd.key, exact) != VT_OK && failed < 0) failed = i;
    ref[i] = (ref_item){nd.key, exact, i};
  }
  EXPECT(failed < 0, "%s: add %lld failed", ctx, (long long)failed);
  EXPECT_EQ_INT(q.n, n, ctx);
  EXPECT_EQ_INT(q.n_nodes, n, ctx);
  expect_drain(&q, ref, n, 1, ctx);
  free(ref);
}

TEST(random_keys_pop_in_order) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {4242};
  for (int rep = 0; rep < 200; rep++) {
    char ctx[64];
    const int64_t n = 1 + test_int(&r, 300);
    snprintf(ctx, sizeof ctx, "distinct keys rep %d n %lld", rep, (long long)n);
    add_then_drain(ar, &r, n, 0, ctx);
    vt_arena_reset(ar);
  }
  vt_arena_destroy(ar);
}

/* Equal keys: exact before estimated, then creation order, whatever the push order. */
TEST(equal_keys_tie_rule) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {77};
  for (int rep = 0; rep < 200; rep++) {
    char ctx[64];
    const int64_t n = 1 + test_int(&r, 600);
    const int mode = rep % 2 ? 1 : 3;
    snprintf(ctx, sizeof ctx, "%s rep %d n %lld", mode == 3 ? "all equal" : "few values", rep,
             (long long)n);
    add_then_drain(ar, &r, n, mode, ctx);
    vt_arena_reset(ar);
  }
  /* By hand: estimated node 0 and exact node 3 at the same key: node 3 first. */
  vt_agenda q;
  REQUIRE(vt_agenda_init(&q, ar, 1, sizeof(node)) == VT_OK, "init");
  static const struct {
    double key;
    int exact;
  } in[] = {{1, 0}, {1, 0}, {2, 0}, {1, 1}, {2, 1}, {0, 1}};
  static const int64_t want[] = {4, 2, 3, 0, 1, 5};
  for (int64_t i = 0; i < 6; i++) {
    const node nd = {i, in[i].key, {0}};
    EXPECT_EQ_INT(vt_agenda_add(&q, &nd, in[i].key, in[i].exact), VT_OK, "add");
  }
  for (int i = 0; i < 6; i++) {
    vt_agenda_item it;
    EXPECT_EQ_INT(vt_agenda_pop(&q, &it), 1, "pop");
    EXPECT_EQ_INT(vt_agenda_node(&it), want[i], "hand-made tie order");
  }
  vt_arena_destroy(ar);
}

/* -inf and +inf keys take part in the order like any other; -0.0 and 0.0 are the same key
 * (decided by the tie rule). */
TEST(infinite_keys_and_signed_zeros) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {31337};
  for (int rep = 0; rep < 200; rep++) {
    char ctx[64];
    const int64_t n = 1 + test_int(&r, 400);
    snprintf(ctx, sizeof ctx, "inf/zero keys rep %d n %lld", rep, (long long)n);
    /* The reference compares -0.0 and 0.0 as equal, as the agenda does, but expect_drain
     * checks the sign of the popped key: the item itself, not an equal one, must come out. */
    add_then_drain(ar, &r, n, 2, ctx);
    vt_arena_reset(ar);
  }
  vt_arena_destroy(ar);
}

/* Random interleavings of add, push (an existing node again, another key) and pop against a
 * reference multiset whose first item is found by scanning. */
TEST(interleaved_push_pop) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {2718};
  const int64_t cap = 20000;
  ref_item *ref = malloc(sizeof *ref * (size_t)cap);
  REQUIRE(ref != NULL, "memory");
  for (int rep = 0; rep < 40; rep++) {
    vt_agenda q;
    EXPECT_EQ_INT(vt_agenda_init(&q, ar, 3, sizeof(node)), VT_OK, "init");
    const int mode = rep % 4;
    int64_t n = 0, pops = 0, wrong = 0, first_wrong = -1;
    for (int op = 0; op < 5000; op++) {
      const int c = test_int(&r, 10);
      if (c < 4 || (c < 6 && q.n_nodes == 0)) {
        const node nd = {q.n_nodes, draw_key(&r, mode), {0}};
        const int exact = test_int(&r, 2);
        ref[n++] = (ref_item){nd.key, exact, q.n_nodes};
        EXPECT_EQ_INT(vt_agenda_add(&q, &nd, nd.key, exact), VT_OK, "add");
      } else if (c < 6) {
        const int64_t id = test_int(&r, (int)q.n_nodes);
        const double key = draw_key(&r, mode);
        const int exact = test_int(&r, 2);
        ref[n++] = (ref_item){key, exact, id};
        EXPECT_EQ_INT(vt_agenda_push(&q, key, exact, id), VT_OK, "push");
      } else {
        vt_agenda_item it;
        const int got = vt_agenda_pop(&q, &it);
        if (n == 0) {
          EXPECT_EQ_INT(got, 0, "pop on an empty agenda");
          continue;
        }
        int64_t best = 0;
        for (int64_t i = 1; i < n; i++)
          if (ref_cmp(&ref[i], &ref[best]) < 0) best = i;
        pops++;
        if (!got || !(it.key == ref[best].key) || vt_agenda_exact(&it) != ref[best].exact ||
            vt_agenda_node(&it) != ref[best].node) {
          if (!wrong++) first_wrong = op;
        }
        ref[best] = ref[--n];
      }
      if (n == cap) break;
    }
    EXPECT(wrong == 0, "mode %d rep %d: %lld of %lld pops wrong, the first at op %lld", mode, rep,
           (long long)wrong, (long long)pops, (long long)first_wrong);
    EXPECT_EQ_INT(q.n, n, "items left");
    expect_drain(&q, ref, n, 0, "drain after interleaving");
    vt_arena_reset(ar);
  }
  free(ref);
  vt_arena_destroy(ar);
}

/* Far past the first capacity (256 items, a 64-byte pool): the heap and the pool grow, and every
 * node keeps its content; node sizes 1 to 100 bytes. */
TEST(growth_keeps_order_and_nodes) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {99};
  static const size_t sizes[] = {1, sizeof(node), 100};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const size_t sz = sizes[s];
    const int64_t n = 100000;
    vt_agenda q;
    REQUIRE(vt_agenda_init(&q, ar, 2, sz) == VT_OK, "init");
    const int64_t cap0 = q.cap;
    ref_item *ref = malloc(sizeof *ref * (size_t)n);
    unsigned char buf[100];
    REQUIRE(ref != NULL, "memory");
    int64_t failed = -1;
    for (int64_t i = 0; i < n; i++) {
      for (size_t b = 0; b < sz; b++) buf[b] = (unsigned char)(i * 31 + (int64_t)b * 7);
      const double key = draw_key(&r, (int)(i % 3));
      const int exact = test_int(&r, 2);
      if (vt_agenda_add(&q, buf, key, exact) != VT_OK && failed < 0) failed = i;
      ref[i] = (ref_item){key, exact, i};
    }
    char ctx[64];
    snprintf(ctx, sizeof ctx, "node size %zu", sz);
    EXPECT(failed < 0, "%s: add %lld failed", ctx, (long long)failed);
    EXPECT(q.cap >= n && q.cap > cap0, "%s: capacity %lld from %lld", ctx, (long long)q.cap,
           (long long)cap0);
    EXPECT(q.pool_bytes >= (size_t)n * sz, "%s: pool %zu bytes", ctx, q.pool_bytes);
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
      const unsigned char *p = vt_agenda_at(&q, i);
      for (size_t b = 0; b < sz; b++)
        if (p[b] != (unsigned char)(i * 31 + (int64_t)b * 7)) bad = i;
    }
    EXPECT(bad < 0, "%s: node %lld lost its content", ctx, (long long)bad);
    expect_drain(&q, ref, n, 1, ctx);
    free(ref);
    vt_arena_reset(ar);
  }
  vt_arena_destroy(ar);
}

/* vt_agenda_reserve on an agenda already in use keeps its nodes and items, and the agenda then
 * takes that many without moving its heap or pool; it still grows past them. */
TEST(reserve_keeps_content_and_stops_growth) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {515};
  enum { FIRST = 300, ROOM = 5000, N = 6000 };
  vt_agenda q;
  REQUIRE(vt_agenda_init(&q, ar, 1, sizeof(node)) == VT_OK, "init");
  static ref_item ref[N];
  int failed = 0;
  for (int64_t i = 0; i < N; i++) {
    if (i == FIRST) EXPECT_EQ_INT(vt_agenda_reserve(&q, ROOM), VT_OK, "reserve");
    const vt_agenda_item *heap = q.heap;
    const unsigned char *pool = q.pool;
    const node nd = {i, -(double)i, {0}};
    const double key = draw_key(&r, (int)(i % 3));
    const int exact = test_int(&r, 2);
    failed += vt_agenda_add(&q, &nd, key, exact) != VT_OK;
    ref[i] = (ref_item){key, exact, i};
    if (i > FIRST && i < ROOM)
      EXPECT(q.heap == heap && q.pool == pool, "add %lld moved the agenda", (long long)i);
  }
  EXPECT_EQ_INT(failed, 0, "adds failed");
  int64_t bad = -1;
  for (int64_t i = 0; i < N && bad < 0; i++) {
    const node *p = vt_agenda_at(&q, i);
    if (p->id != i || p->key != -(double)i) bad = i;
  }
  EXPECT(bad < 0, "node %lld lost its content", (long long)bad);
  expect_drain(&q, ref, N, 1, "reserved");
  vt_arena_destroy(ar);
}

/* A second agenda in the reset arena behaves as the first: same pops. */
TEST(reuse_after_arena_reset) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  enum { N = 3000 };
  static vt_agenda_item first[N], second[N];
  for (int round = 0; round < 2; round++) {
    vt_agenda_item *out = round ? second : first;
    test_rng r = {555};
    vt_agenda q;
    REQUIRE(vt_agenda_init(&q, ar, 5, sizeof(node)) == VT_OK, "init");
    EXPECT(q.n == 0 && q.n_nodes == 0 && q.n_rec == 0 && q.floor == -INFINITY,
           "round %d: not empty", round);
    for (int i = 0; i < N; i++) {
      const node nd = {i, draw_key(&r, i % 4), {0}};
      EXPECT_EQ_INT(vt_agenda_add(&q, &nd, nd.key, test_int(&r, 2)), VT_OK, "add");
      if (i % 3 == 2) vt_agenda_record(&q, nd.key);
    }
    for (int i = 0; i < N; i++) EXPECT_EQ_INT(vt_agenda_pop(&q, &out[i]), 1, "pop");
    EXPECT_EQ_INT(vt_agenda_pop(&q, &out[0]) == 0 ? 1 : 0, 1, "drained");
    for (int i = 0; i < N; i++) {
      const node *nd = vt_agenda_at(&q, vt_agenda_node(&out[i]));
      EXPECT(nd->id == vt_agenda_node(&out[i]) && nd->key == out[i].key, "round %d: node %d", round,
             i);
    }
    vt_arena_reset(ar);
  }
  EXPECT(!memcmp(first, second, sizeof first), "the reused arena gives other pops");
  vt_arena_destroy(ar);
}

/* Node indices up to bit 61 round-trip through an item, with either flag. */
TEST(large_node_indices) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  vt_agenda q;
  REQUIRE(vt_agenda_init(&q, ar, 1, 8) == VT_OK, "init");
  static const int64_t ids[] = {
      0, 1, 255, (int64_t)1 << 31, ((int64_t)1 << 40) + 3, (int64_t)(VT_AGENDA_EST - 1)};
  const int n = (int)(sizeof ids / sizeof ids[0]);
  for (int i = 0; i < n; i++) {
    EXPECT_EQ_INT(vt_agenda_push(&q, 1.0, 1, ids[i]), VT_OK, "push exact");
    EXPECT_EQ_INT(vt_agenda_push(&q, 1.0, 0, ids[i]), VT_OK, "push estimated");
  }
  /* Same key: the exact ones first, each in index order, then the estimated ones. */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      vt_agenda_item it;
      EXPECT_EQ_INT(vt_agenda_pop(&q, &it), 1, "pop");
      EXPECT_EQ_INT(vt_agenda_node(&it), ids[i], "node index");
      EXPECT_EQ_INT(vt_agenda_exact(&it), pass == 0, "exact flag");
    }
  vt_arena_destroy(ar);
}

/* The floor is -inf until k values are recorded, then the k-th largest recorded value; a floor
 * the caller raised stays until the recorded values pass it. */
TEST(floor_is_kth_largest_recorded) {
  vt_arena *ar;
  REQUIRE(vt_arena_create(&ar, 0) == VT_OK, "arena");
  test_rng r = {8080};
  double *sorted = malloc(sizeof(double) * 2000);
  REQUIRE(sorted != NULL, "memory");
  static const int32_t ks[] = {1, 2, 3, 7, 50, 100};
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
    for (int mode = 0; mode < 4; mode++) {
      const int32_t k = ks[ki];
      vt_agenda q;
      REQUIRE(vt_agenda_init(&q, ar, k, sizeof(node)) == VT_OK, "init");
      EXPECT_EQ_DBL(q.floor, -INFINITY, "floor of a new agenda");
      const double raised = mode == 3 ? 1.5 : -INFINITY;
      if (mode == 3) q.floor = raised; /* as a caller may */
      int bad = -1;
      double got = 0, want = 0;
      for (int i = 0; i < 2000; i++) {
        const double v = mode == 2 && test_int(&r, 4) == 0 ? -INFINITY : draw_key(&r, mode % 2);
        vt_agenda_record(&q, v);
        /* Brute force: every value so far, sorted (largest first); the floor is the k-th. */
        int at = i;
        while (at > 0 && sorted[at - 1] < v) at--;
        memmove(sorted + at + 1, sorted + at, sizeof(double) * (size_t)(i - at));
        sorted[at] = v;
        double w = i + 1 >= k ? sorted[k - 1] : -INFINITY;
        if (raised > w) w = raised;
        if (bad < 0 && !(q.floor == w)) {
          bad = i;
          got = q.floor;
          want = w;
        }
      }
      EXPECT(bad < 0, "k=%d mode %d: after %d records the floor is %g, want %g", k, mode, bad + 1,
             got, want);
      vt_arena_reset(ar);
    }
  free(sorted);
  vt_arena_destroy(ar);
}

/* vt_topk_push keeps the k largest values in a min-heap: h[0] is the k-th largest. */
TEST(topk_push_keeps_k_largest) {
  test_rng r = {1234};
  for (int rep = 0; rep < 300; rep++) {
    const int32_t k = 1 + test_int(&r, 20);
    const int n = test_int(&r, 200);
    double h[20], all[200];
    int32_t hn = 0;
    for (int i = 0; i < n; i++) {
      all[i] = draw_key(&r, rep % 3);
      vt_topk_push(h, &hn, k, all[i]);
    }
    qsort(all, (size_t)n, sizeof *all, cmp_dbl_desc);
    const int32_t want_n = n < k ? n : k;
    EXPECT_EQ_INT(hn, want_n, "kept count");
    /* The kept values, sorted, are the want_n largest. */
    double kept[20];
    memcpy(kept, h, sizeof(double) * (size_t)hn);
    qsort(kept, (size_t)hn, sizeof *kept, cmp_dbl_desc);
    int same = hn == want_n;
    for (int32_t i = 0; i < hn && same; i++) same = kept[i] == all[i];
    EXPECT(same, "rep %d k %d n %d: the kept values are not the largest", rep, k, n);
    if (hn == k && n > 0) EXPECT_EQ_DBL(h[0], all[k - 1], "h[0] is the k-th largest");
    for (int32_t i = 1; i < hn; i++)
      EXPECT(h[(i - 1) / 2] <= h[i], "rep %d: not a min-heap at %d", rep, i);
  }
}

/* Memory that runs out after `left` bytes. */
typedef struct budget {
  size_t left;
} budget;

static void *budget_alloc(void *ctx, size_t size) {
  budget *b = ctx;
  if (size > b->left) return NULL;
  b->left -= size;
  return aligned_alloc(64, size);
}

static void budget_free(void *ctx, void *p, size_t size) {
  (void)ctx;
  (void)size;
  free(p);
}

/* When the arena runs dry, add and push return VT_ENOMEM and leave the agenda as it was: the
 * items already in still pop in order. */
TEST(out_of_memory_leaves_agenda_usable) {
  budget b = {1 << 20};
  const vt_mem mem = {budget_alloc, budget_free, &b};
  vt_arena *ar;
  REQUIRE(vt_arena_create_in(&ar, 4096, &mem) == VT_OK, "arena");
  vt_agenda q;
  REQUIRE(vt_agenda_init(&q, ar, 2, sizeof(node)) == VT_OK, "init");
  test_rng r = {6502};
  const int64_t most = 1 << 20;
  ref_item *ref = malloc(sizeof *ref * (size_t)most);
  REQUIRE(ref != NULL, "memory");
  int64_t n = 0;
  vt_status st = VT_OK;
  while (n < most) {
    const node nd = {n, draw_key(&r, 1), {0}};
    const int exact = test_int(&r, 2);
    st = vt_agenda_add(&q, &nd, nd.key, exact);
    if (st != VT_OK) break;
    ref[n] = (ref_item){nd.key, exact, n};
    n++;
  }
  EXPECT_EQ_INT(st, VT_ENOMEM, "add past the budget");
  EXPECT(n > 256, "only %lld adds before memory ran out", (long long)n);
  EXPECT_EQ_INT(q.n, n, "items after the failed add");
  EXPECT_EQ_INT(q.n_nodes, n, "nodes after the failed add");
  /* Fill the heap to its capacity with pushes of existing nodes, then one more. */
  while (q.n < q.cap && n < most) {
    const int64_t id = test_int(&r, (int)q.n_nodes);
    const double key = draw_key(&r, 1);
    EXPECT_EQ_INT(vt_agenda_push(&q, key, 1, id), VT_OK, "push within capacity");
    ref[n++] = (ref_item){key, 1, id};
  }
  REQUIRE(q.n == q.cap, "heap not full: %lld of %lld", (long long)q.n, (long long)q.cap);
  const int64_t cap = q.cap;
  b.left = 0;
  EXPECT_EQ_INT(vt_agenda_push(&q, 99.0, 1, 0), VT_ENOMEM, "push past the capacity");
  EXPECT_EQ_INT(q.n, n, "items after the failed push");
  EXPECT_EQ_INT(q.cap, cap, "capacity after the failed push");
  expect_drain(&q, ref, n, 1, "drain after running out");
  free(ref);
  vt_arena_destroy(ar);
  /* No memory past a 64-byte first block: vt_agenda_init reports it. */
  budget none = {1 << 16};
  const vt_mem nomem = {budget_alloc, budget_free, &none};
  REQUIRE(vt_arena_create_in(&ar, 64, &nomem) == VT_OK, "a 64-byte arena");
  none.left = 0;
  EXPECT_EQ_INT(vt_agenda_init(&q, ar, 2, sizeof(node)), VT_ENOMEM, "init with no memory");
  vt_arena_destroy(ar);
}

TEST_MAIN(CASE(random_keys_pop_in_order), CASE(equal_keys_tie_rule),
          CASE(infinite_keys_and_signed_zeros), CASE(interleaved_push_pop),
          CASE(growth_keeps_order_and_nodes), CASE(reserve_keeps_content_and_stops_growth),
          CASE(reuse_after_arena_reset), CASE(large_node_indices),
          CASE(floor_is_kth_largest_recorded), CASE(topk_push_keeps_k_largest),
          CASE(out_of_memory_leaves_agenda_usable))
