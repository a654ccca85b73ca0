/* engine/text/model_replica.c: vt_textmodel_clone_to. The block is laid out as
 *   struct | file bytes | A | S | F | templates | items | pool | u_idx | b_idx | u_ord
 * (each part 64-byte aligned); pointers into the model file are rebased onto the copy of its
 * bytes, the rest point at their own copies. The bound vt_trans is a second block from the
 * same memory (vt_trans_clone_to). */
#include "text/model_replica.h"

#include <string.h>

#include "core/trans_replica.h"
#include "text/tmpl_index.h"

_Static_assert(
    sizeof(vt_textmodel) == 352 && sizeof(vt_tmplset) == 104,
    "vt_textmodel or vt_tmplset changed: copy its new arrays in engine/text/model_replica.c, "
    "then update this check");

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

/* The sizes of the parts after the struct, in layout order. */
enum { P_FILE, P_A, P_S, P_F, P_T, P_ITEMS, P_POOL, P_UIDX, P_BIDX, P_UORD, N_PARTS };

static void part_sizes(const vt_textmodel *m, size_t sz[N_PARTS]) {
  size_t L = (size_t)m->L;
  const vt_tmplset *ts = &m->tmpl;
  sz[P_FILE] = m->file.len;
  sz[P_A] = L * L * sizeof(double);
  sz[P_S] = sz[P_F] = L * sizeof(double);
  sz[P_T] = (size_t)ts->n * sizeof(vt_tmpl);
  sz[P_ITEMS] = (size_t)ts->n_items * sizeof(vt_tmpl_item);
  sz[P_POOL] = ts->pool_len;
  sz[P_UIDX] = sz[P_BIDX] = sz[P_UORD] = ((size_t)ts->n + 1) * sizeof(int32_t);
}

static size_t block_bytes(const vt_textmodel *m) {
  size_t sz[N_PARTS], n = round64(sizeof *m);
  part_sizes(m, sz);
  for (int i = 0; i < N_PARTS; i++) n += round64(sz[i]);
  return n;
}

/* Moves a pointer into the source file's bytes onto the copy's. */
static const void *rebase(const void *p, const vt_textmodel *src, const char *file) {
  return p ? file + ((const char *)p - (const char *)src->file.p) : NULL;
}

vt_status vt_textmodel_clone_to(vt_textmodel **out, const vt_textmodel *src, const vt_mem *mem) {
  size_t sz[N_PARTS], total = block_bytes(src);
  char *block = vt_mem_alloc(mem, total);
  char *part[N_PARTS];
  *out = NULL;
  if (!block) return VT_ENOMEM;
  part_sizes(src, sz);
  size_t at = round64(sizeof *src);
  for (int i = 0; i < N_PARTS; i++) {
    part[i] = block + at;
    at += round64(sz[i]);
  }
  const vt_tmplset *ts = &src->tmpl;
  const void *from[N_PARTS] = {src->file.p, src->A,   src->S,    src->F,    ts->t,
                               ts->items,   ts->pool, ts->u_idx, ts->b_idx, ts->u_ord};
  for (int i = 0; i < N_PARTS; i++)
    if (sz[i] && from[i]) memcpy(part[i], from[i], sz[i]);

  vt_textmodel *m = (vt_textmodel *)block;
  memcpy(m, src, sizeof *m);
  const char *file = part[P_FILE];
  m->label_off = rebase(src->label_off, src, file);
  m->label_bytes = rebase(src->label_bytes, src, file);
  m->label_freq = rebase(src->label_freq, src, file);
  m->rank = rebase(src->rank, src, file);
  m->tmpl_text = rebase(src->tmpl_text, src, file);
  m->recs = rebase(src->recs, src, file);
  m->slots = rebase(src->slots, src, file);
  m->A = (double *)(void *)part[P_A];
  m->S = (double *)(void *)part[P_S];
  m->F = (double *)(void *)part[P_F];
  m->tmpl.t = (vt_tmpl *)(void *)part[P_T];
  m->tmpl.items = (vt_tmpl_item *)(void *)part[P_ITEMS];
  m->tmpl.pool = part[P_POOL];
  m->tmpl.u_idx = (int32_t *)(void *)part[P_UIDX];
  m->tmpl.b_idx = (int32_t *)(void *)part[P_BIDX];
  m->tmpl.u_ord = (int32_t *)(void *)part[P_UORD];
  m->file = (vt_filemap){part[P_FILE], src->file.len, 0};
  m->trans = NULL;
  if (src->trans && vt_trans_clone_to(&m->trans, src->trans, mem) != VT_OK) {
    vt_mem_free(mem, block, total);
    return VT_ENOMEM;
  }
  m->tix = vt_tmpl_index_retain(src->tix); /* shared: offsets into the records, read-only */
  *out = m;
  return VT_OK;
}

void vt_textmodel_clone_free(vt_textmodel *clone, const vt_mem *mem) {
  if (!clone) return;
  vt_trans_clone_free(clone->trans, mem);
  vt_tmpl_index_free(clone->tix);
  vt_mem_free(mem, clone, block_bytes(clone));
}
