/* engine/models/crfpp_trie.h: a double-array trie in the layout CRF++'s models carry (Darts):
 * units of (int32 base, uint32 check). From a node of base b, byte c leads to unit b + c + 1 when
 * that unit's check is b; the key ending at the node is unit b itself, its check b and its base
 * -(value + 1). The root's base is unit 0's. */
#ifndef VT_MODELS_CRFPP_TRIE_H
#define VT_MODELS_CRFPP_TRIE_H

#include <stddef.h>
#include <stdint.h>

#include "vitesse.h"

typedef struct vt_crfpp_unit {
  int32_t base;
  uint32_t check;
} vt_crfpp_unit;

/* Builds the trie of n keys (keys[i], lens[i] bytes, no NUL byte, sorted bytewise ascending and
 * distinct) with values vals[i] (0 .. INT32_MAX - 1) into *units (malloc'd, *n_units of them).
 * Every unit a lookup can reach, b + 256 for every base b included, lies inside the array, so a
 * search for any string stays in bounds. Returns VT_OK, VT_EINVAL (keys not sorted, not distinct,
 * holding a NUL, or a value out of range) or VT_ENOMEM (also when the array would pass 2^31
 * units). */
vt_status vt_crfpp_trie_build(const char *const *keys, const size_t *lens, const int32_t *vals,
                              size_t n, vt_crfpp_unit **units, size_t *n_units);

/* Looks key (len bytes) up in the trie: its value, or -1. */
int32_t vt_crfpp_trie_find(const vt_crfpp_unit *units, size_t n_units, const char *key, size_t len);

#endif
