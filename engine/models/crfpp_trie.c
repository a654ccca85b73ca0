/* engine/models/crfpp_trie.c: building and searching CRF++'s double-array trie (crfpp_trie.h).
 *
 * The keys are placed depth first from the root, a node at a time: its children's codes (0 for
 * the key that ends there, byte + 1 for the others) need a base b, never used as a base before,
 * whose units b + code are all free. Candidates are tried upward from a hint below which almost
 * every unit is taken (the hint moves past a stretch once 95% of it is in use), so the search
 * stays short while the array stays dense. */
#include "models/crfpp_trie.h"

#include <stdlib.h>
#include <string.h>

#define MAX_UNITS ((size_t)1 << 31)

typedef struct builder {
  vt_crfpp_unit *u;
  uint8_t *unit_used; /* the unit holds a node or an end of key */
  uint8_t *base_used; /* the index is some node's base */
  size_t cap;         /* allocated units */
  size_t hint;        /* where the search for a free unit starts */
  size_t top;         /* highest base given + 257: the array's final length */
} builder;

/* Makes units [0, need) exist (zeroed when new). 0, or -1 (no memory, or past MAX_UNITS). */
static int reserve(builder *b, size_t need) {
  if (need <= b->cap) return 0;
  if (need > MAX_UNITS) return -1;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < need) cap *= 2;
  vt_crfpp_unit *u = realloc(b->u, cap * sizeof *u);
  if (!u) return -1;
  b->u = u;
  uint8_t *uu = realloc(b->unit_used, cap);
  if (!uu) return -1;
  b->unit_used = uu;
  uint8_t *bu = realloc(b->base_used, cap);
  if (!bu) return -1;
  b->base_used = bu;
  memset(b->u + b->cap, 0, (cap - b->cap) * sizeof *u);
  memset(b->unit_used + b->cap, 0, cap - b->cap);
  memset(b->base_used + b->cap, 0, cap - b->cap);
  b->cap = cap;
  return 0;
}

/* A base for children codes[0..n) (ascending, n >= 1): free for all of them. -1: no memory. */
static int64_t find_base(builder *b, const uint16_t *codes, int n) {
  size_t pos = b->hint > (size_t)codes[0] + 1 ? b->hint : (size_t)codes[0] + 1;
  const size_t start = pos;
  size_t taken = 0;
  int first_free = 0;
  for (;; pos++) {
    if (reserve(b, pos + 258) != 0) return -1;
    if (b->unit_used[pos]) {
      taken++;
      continue;
    }
    if (!first_free) { /* everything from the hint to here is in use */
      first_free = 1;
      if (pos > b->hint) b->hint = pos;
    }
    const size_t base = pos - codes[0];
    if (base == 0 || b->base_used[base]) continue;
    if (reserve(b, base + 258) != 0) return -1;
    int ok = 1;
    for (int k = 1; k < n && ok; k++) ok = !b->unit_used[base + codes[k]];
    if (!ok) continue;
    if (pos > start && (double)taken / (double)(pos - start + 1) >= 0.95) b->hint = pos;
    return (int64_t)base;
  }
}

/* A node waiting for its base: keys [lo, hi) share their first `depth` bytes; its unit `at`. */
typedef struct frame {
  size_t lo, hi, depth, at;
} frame;

vt_status vt_crfpp_trie_build(const char *const *keys, const size_t *lens, const int32_t *vals,
                              size_t n, vt_crfpp_unit **units, size_t *n_units) {
  vt_status st = VT_ENOMEM;
  builder b;
  memset(&b, 0, sizeof b);
  frame *stack = NULL;
  size_t sp = 0, stack_cap = 0;
  *units = NULL;
  *n_units = 0;
  for (size_t i = 0; i < n; i++) {
    if (memchr(keys[i], '\0', lens[i]) || vals[i] < 0 || vals[i] == INT32_MAX) return VT_EINVAL;
    if (i > 0) { /* strictly ascending, bytewise */
      const size_t m = lens[i - 1] < lens[i] ? lens[i - 1] : lens[i];
      const int c = memcmp(keys[i - 1], keys[i], m);
      if (c > 0 || (c == 0 && lens[i - 1] >= lens[i])) return VT_EINVAL;
    }
  }
  if (reserve(&b, 1024) != 0) goto done;
  b.unit_used[0] = 1; /* unit 0 holds the root's base */
  b.hint = 1;
  b.top = 258;
  if (n == 0) {
    b.u[0].base = 1; /* a root without children: every search fails */
    b.base_used[1] = 1;
    goto finish;
  }
  stack_cap = 64;
  if (!(stack = malloc(stack_cap * sizeof *stack))) goto done;
  stack[sp++] = (frame){0, n, 0, 0};
  uint16_t codes[257];
  size_t from[258];
  while (sp > 0) {
    const frame f = stack[--sp];
    int nc = 0;
    for (size_t i = f.lo; i < f.hi; i++) {
      const uint16_t c = f.depth < lens[i] ? (uint16_t)((unsigned char)keys[i][f.depth] + 1) : 0;
      if (nc == 0 || codes[nc - 1] != c) {
        codes[nc] = c;
        from[nc++] = i;
      }
    }
    from[nc] = f.hi;
    const int64_t base = find_base(&b, codes, nc);
    if (base < 0) goto done;
    const size_t bs = (size_t)base;
    b.u[f.at].base = (int32_t)bs;
    b.base_used[bs] = 1;
    if (bs + 257 > b.top) b.top = bs + 257;
    if (sp + (size_t)nc > stack_cap) {
      size_t nc2 = (sp + (size_t)nc) * 2;
      frame *ns = realloc(stack, nc2 * sizeof *ns);
      if (!ns) goto done;
      stack = ns;
      stack_cap = nc2;
    }
    for (int k = 0; k < nc; k++) { /* claim every child's unit first */
      b.unit_used[bs + codes[k]] = 1;
      b.u[bs + codes[k]].check = (uint32_t)bs;
    }
    for (int k = nc - 1; k >= 0; k--) { /* pushed in reverse: placed in key order */
      if (codes[k] == 0)
        b.u[bs].base = -(vals[from[k]] + 1);
      else
        stack[sp++] = (frame){from[k], from[k + 1], f.depth + 1, bs + codes[k]};
    }
  }
finish:
  if (reserve(&b, b.top) != 0) goto done;
  *units = b.u;
  *n_units = b.top;
  b.u = NULL;
  st = VT_OK;
done:
  free(stack);
  free(b.u);
  free(b.unit_used);
  free(b.base_used);
  return st;
}

int32_t vt_crfpp_trie_find(const vt_crfpp_unit *units, size_t n_units, const char *key,
                           size_t len) {
  if (n_units == 0) return -1;
  int64_t b = units[0].base;
  for (size_t i = 0; i < len; i++) {
    const int64_t p = b + (unsigned char)key[i] + 1;
    if (b < 0 || (uint64_t)p >= n_units || units[p].check != (uint32_t)b) return -1;
    b = units[p].base;
  }
  if (b < 0 || (uint64_t)b >= n_units) return -1;
  const vt_crfpp_unit *t = &units[b];
  return t->check == (uint32_t)b && t->base < 0 ? -t->base - 1 : -1;
}
