/* engine/core/trans_replica.c: vt_trans_clone_to, one block holding the struct and its arrays.
 *
 * The arrays are listed once, in `fields`, with their sizes. A pointer equal to an earlier one
 * (the rank-space matrix aliases A when the rank order is the identity) stays an alias in the
 * copy. Whoever adds an array to struct vt_trans must add it here: the size check below fails
 * the build until they do. */
#include "core/trans_replica.h"

#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(struct vt_trans) == 208 && sizeof(vt_bounds) == 160,
               "struct vt_trans changed: list its new arrays in `fields` of "
               "engine/core/trans_replica.c, then update this check");

static size_t k_or_1(const vt_trans *t) { return (size_t)(t->bd.K ? t->bd.K : 1); }
static size_t mat_bytes(const vt_trans *t) { return (size_t)t->L * (size_t)t->ld * 8; }
static size_t vec_bytes(const vt_trans *t) { return (size_t)t->L * 8; }
static size_t ivec_bytes(const vt_trans *t) { return (size_t)t->L * 4; }
static size_t kl_bytes(const vt_trans *t) { return k_or_1(t) * (size_t)t->L * 8; }
static size_t kk_bytes(const vt_trans *t) { return k_or_1(t) * k_or_1(t) * 8; }
static size_t k_bytes(const vt_trans *t) { return k_or_1(t) * 8; }
static size_t ivec2_bytes(const vt_trans *t) { return 2 * (size_t)t->L * 4; }
static size_t ivec3_bytes(const vt_trans *t) { return 3 * (size_t)t->L * 4; }
static size_t flag2_bytes(const vt_trans *t) { return 2 * (size_t)t->L; }

typedef struct field {
  size_t off;                          /* offset of the pointer inside struct vt_trans */
  size_t (*bytes)(const vt_trans *tr); /* size of the array it points to */
} field;

#define FIELD(member, size)                                                                        \
  { offsetof(struct vt_trans, member), size }
static const field fields[] = {FIELD(A, mat_bytes),
                               FIELD(S, vec_bytes),
                               FIELD(F, vec_bytes),
                               FIELD(rank, ivec_bytes),
                               FIELD(rank_of, ivec_bytes),
                               FIELD(bd.Ar, mat_bytes),
                               FIELD(bd.Art, mat_bytes),
                               FIELD(bd.Sr, vec_bytes),
                               FIELD(bd.Fr, vec_bytes),
                               FIELD(bd.to_max, kl_bytes),
                               FIELD(bd.from_max, kl_bytes),
                               FIELD(bd.both_max, kk_bytes),
                               FIELD(bd.s_suf, k_bytes),
                               FIELD(bd.f_suf, k_bytes),
                               FIELD(bd.row_max, vec_bytes),
                               FIELD(bd.row_mag, vec_bytes),
                               FIELD(bd.row_q, ivec_bytes),
                               FIELD(bd.row_n, ivec3_bytes),
                               FIELD(bd.touched, ivec2_bytes),
                               FIELD(bd.seen, flag2_bytes)};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static void *ptr_get(const vt_trans *t, size_t i) {
  void *p;
  memcpy(&p, (const char *)t + fields[i].off, sizeof p);
  return p;
}

static void ptr_set(vt_trans *t, size_t i, void *p) {
  memcpy((char *)t + fields[i].off, &p, sizeof p);
}

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

/* Index of an earlier field holding the same non-NULL pointer, or -1. */
static long alias_of(const vt_trans *t, size_t i) {
  void *p = ptr_get(t, i);
  for (size_t j = 0; j < i && p; j++)
    if (ptr_get(t, j) == p) return (long)j;
  return -1;
}

/* Bytes of the one block a copy of `t` takes (the same for the copy itself). */
static size_t clone_bytes(const vt_trans *t) {
  size_t n = round64(sizeof *t);
  for (size_t i = 0; i < N_FIELDS; i++)
    if (ptr_get(t, i) && alias_of(t, i) < 0) n += round64(fields[i].bytes(t));
  return n;
}

vt_status vt_trans_clone_to(vt_trans **out, const vt_trans *src, const vt_mem *mem) {
  size_t total = clone_bytes(src);
  char *block = vt_mem_alloc(mem, total);
  *out = NULL;
  if (!block) return VT_ENOMEM;
  vt_trans *t = (vt_trans *)block;
  memcpy(t, src, sizeof *t);
  size_t at = round64(sizeof *t);
  for (size_t i = 0; i < N_FIELDS; i++) {
    void *p = ptr_get(src, i);
    long a = alias_of(src, i);
    if (!p) continue;
    if (a >= 0) {
      ptr_set(t, i, ptr_get(t, (size_t)a));
      continue;
    }
    size_t n = fields[i].bytes(src);
    memcpy(block + at, p, n);
    ptr_set(t, i, block + at);
    at += round64(n);
  }
  *out = t;
  return VT_OK;
}

void vt_trans_clone_free(vt_trans *clone, const vt_mem *mem) {
  if (clone) vt_mem_free(mem, clone, clone_bytes(clone));
}
