/* engine/train/dist_part.c: moving whole sentences between the processes of a training job, so
 * that each holds whole shards or gradient batches (dist.h). The sentences a process sends to
 * one destination are consecutive (destinations never decrease), and a process receives them
 * from lower processes first: every process ends with a consecutive run of the corpus. */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "train/crf_grad.h"
#include "train/dist.h"

/* The packed bytes of one destination are built by appending arrays. */
static char *put(char *q, const void *p, size_t n) {
  if (n) memcpy(q, p, n);
  return q + n;
}

/* [first[j], first[j + 1]): the local sentences of destination j, from the non-decreasing dest. */
static int64_t *dest_ranges(const vt_train_comm *c, const int32_t *dest, int64_t n) {
  int64_t *first = malloc(((size_t)c->size + 1) * sizeof *first);
  if (!first) return NULL;
  int64_t i = 0;
  for (int j = 0; j <= c->size; j++) {
    while (i < n && dest[i] < j) i++;
    first[j] = i;
  }
  return first;
}

/* One move's buffers: where the local sentences go, and the packed bytes each way. */
typedef struct move {
  const vt_train_comm *c;
  size_t *out_len, *in_len; /* the bytes to and from each process */
  int64_t *first;           /* dest_ranges */
  char *out, *in;           /* the packed bytes to every process, then from every process */
} move;

/* Starts the move of n local sentences to dest: the per-process arrays. 0, or -1 when out of
 * memory (mv is still to be ended with move_end). */
static int move_begin(move *mv, const vt_train_comm *c, const int32_t *dest, int64_t n) {
  memset(mv, 0, sizeof *mv);
  mv->c = c;
  mv->out_len = calloc((size_t)c->size, sizeof *mv->out_len);
  mv->in_len = calloc((size_t)c->size, sizeof *mv->in_len);
  mv->first = dest_ranges(c, dest, n);
  return mv->out_len && mv->in_len && mv->first ? 0 : -1;
}

/* Allocates mv->out for the out_len bytes; 0, or -1 when out of memory. */
static int move_out(move *mv) {
  size_t total = 0;
  for (int j = 0; j < mv->c->size; j++) total += mv->out_len[j];
  return (mv->out = malloc(total ? total : 1)) ? 0 : -1;
}

/* Agrees on this process's `st` (the packing's), then exchanges the packed bytes (out freed, in
 * received). */
static vt_status move_swap(move *mv, vt_status st, char *err, size_t errlen) {
  if ((st = vt_dist_agree(mv->c, st, err, errlen)) != VT_OK) return st;
  void *got = NULL;
  int rc = mv->c->exchange(mv->c->ctx, mv->out, mv->out_len, &got, mv->in_len);
  free(mv->out);
  mv->out = NULL;
  mv->in = got;
  return rc ? VT_EIO : VT_OK;
}

/* sum[0..k): the sums over the processes of the first k int64 of their packed bytes. */
static void move_heads(const move *mv, int k, int64_t *sum) {
  memset(sum, 0, (size_t)k * sizeof *sum);
  size_t at = 0;
  for (int j = 0; j < mv->c->size; at += mv->in_len[j++])
    for (int i = 0; i < k; i++) {
      int64_t h;
      memcpy(&h, mv->in + at + 8 * (size_t)i, 8);
      sum[i] += h;
    }
}

/* Ends the move with `st`: frees its buffers and, for VT_ENOMEM, says so in err; returns the
 * status every process agrees on. */
static vt_status move_end(move *mv, vt_status st, char *err, size_t errlen) {
  free(mv->out);
  free(mv->in);
  free(mv->out_len);
  free(mv->in_len);
  free(mv->first);
  if (st == VT_ENOMEM) vt_fail_into(err, errlen, st, "training: out of memory moving sentences");
  return vt_dist_agree(mv->c, st, err, errlen);
}

/* Packs the lengths of rows [a, b) of the offsets off (off[i + 1] - off[i]) as int32. */
static char *put_lengths(char *q, const int64_t *off, int64_t a, int64_t b) {
  for (int64_t i = a; i < b; i++) {
    int32_t T = (int32_t)(off[i + 1] - off[i]);
    q = put(q, &T, 4);
  }
  return q;
}

/* Unpacks n sentence lengths at p onto the sentence offsets sent_off[*n_sent...] (*n_sent and
 * *max_T updated); returns the bytes after them. */
static const char *take_sentences(const char *p, int64_t n, int64_t *sent_off, int64_t *n_sent,
                                  int32_t *max_T) {
  for (int64_t s = 0; s < n; s++, p += 4) {
    int32_t T;
    memcpy(&T, p, 4);
    sent_off[*n_sent + 1] = sent_off[*n_sent] + T;
    (*n_sent)++;
    if (T > *max_T) *max_T = T;
  }
  return p;
}

vt_status vt_dist_move_tcorpus(const vt_train_comm *c, vt_tcorpus *tc, const int32_t *dest,
                               char *err, size_t errlen) {
  vt_status st = VT_ENOMEM;
  const size_t per_tok = 4 * (1 + (size_t)tc->n_u + (size_t)tc->n_b);
  move mv;
  vt_tcorpus nc;
  memset(&nc, 0, sizeof nc);
  if (move_begin(&mv, c, dest, tc->n_sent)) goto agree;
  const int64_t *first = mv.first;
  for (int j = 0; j < c->size; j++) {
    const int64_t a = first[j], b = first[j + 1];
    const int64_t nt = b > a ? tc->sent_off[b] - tc->sent_off[a] : 0;
    mv.out_len[j] = 16 + 4 * (size_t)(b - a) + per_tok * (size_t)nt;
  }
  if (move_out(&mv)) goto agree;
  char *q = mv.out;
  for (int j = 0; j < c->size; j++) {
    const int64_t a = first[j], b = first[j + 1];
    const int64_t t0 = b > a ? tc->sent_off[a] : 0, nt = b > a ? tc->sent_off[b] - t0 : 0;
    const int64_t ns = b - a;
    q = put(q, &ns, 8);
    q = put(q, &nt, 8);
    q = put_lengths(q, tc->sent_off, a, b);
    q = put(q, tc->gold + t0, 4 * (size_t)nt);
    q = put(q, tc->ufeat + t0 * tc->n_u, 4 * (size_t)(nt * tc->n_u));
    q = put(q, tc->bfeat + t0 * tc->n_b, 4 * (size_t)(nt * tc->n_b));
  }
  st = VT_OK;
agree:
  if ((st = move_swap(&mv, st, err, errlen)) != VT_OK) goto done;
  /* The sizes first, then the arrays. */
  int64_t all[2];
  move_heads(&mv, 2, all);
  const int64_t ns_all = all[0], nt_all = all[1];
  nc.n_u = tc->n_u;
  nc.n_b = tc->n_b;
  nc.sent_off = malloc(((size_t)ns_all + 1) * sizeof *nc.sent_off);
  nc.gold = malloc((size_t)(nt_all ? nt_all : 1) * 4);
  const int64_t n_uf = nt_all * nc.n_u, n_bf = nt_all * nc.n_b;
  nc.ufeat = malloc((size_t)(n_uf > 0 ? n_uf : 1) * 4);
  nc.bfeat = malloc((size_t)(n_bf > 0 ? n_bf : 1) * 4);
  st = VT_ENOMEM;
  if (!nc.sent_off || !nc.gold || !nc.ufeat || !nc.bfeat) goto done;
  nc.sent_off[0] = 0;
  size_t at = 0;
  for (int j = 0; j < c->size; at += mv.in_len[j++]) {
    int64_t h[2];
    const char *p = mv.in + at;
    memcpy(h, p, 16);
    p = take_sentences(p + 16, h[0], nc.sent_off, &nc.n_sent, &nc.max_T);
    memcpy(nc.gold + nc.n_tok, p, 4 * (size_t)h[1]);
    p += 4 * (size_t)h[1];
    memcpy(nc.ufeat + nc.n_tok * nc.n_u, p, 4 * (size_t)(h[1] * nc.n_u));
    p += 4 * (size_t)(h[1] * nc.n_u);
    memcpy(nc.bfeat + nc.n_tok * nc.n_b, p, 4 * (size_t)(h[1] * nc.n_b));
    nc.n_tok += h[1];
  }
  nc.cap_sent = nc.n_sent + 1;
  nc.cap_tok = nc.n_tok;
  vt_tcorpus_free(tc);
  *tc = nc;
  memset(&nc, 0, sizeof nc);
  st = VT_OK;
done:
  vt_tcorpus_free(&nc);
  return move_end(&mv, st, err, errlen);
}

vt_status vt_dist_move_crf(const vt_train_comm *c, vt_crf_data *d, const int32_t *dest, char *err,
                           size_t errlen) {
  vt_status st = VT_ENOMEM;
  move mv;
  vt_crf_data nd;
  memset(&nd, 0, sizeof nd);
  const int has_val = d->val != NULL;
  if (move_begin(&mv, c, dest, d->n_sent)) goto agree;
  const int64_t *first = mv.first;
  for (int j = 0; j < c->size; j++) {
    const int64_t a = first[j], b = first[j + 1];
    const int64_t t0 = b > a ? d->sent_off[a] : 0, t1 = b > a ? d->sent_off[b] : 0;
    const int64_t no = b > a ? d->tok_off[t1] - d->tok_off[t0] : 0;
    mv.out_len[j] =
        32 + 4 * (size_t)(b - a) + 8 * (size_t)(t1 - t0) + (size_t)no * (has_val ? 12 : 4);
  }
  if (move_out(&mv)) goto agree;
  char *q = mv.out;
  for (int j = 0; j < c->size; j++) {
    const int64_t a = first[j], b = first[j + 1];
    const int64_t t0 = b > a ? d->sent_off[a] : 0, t1 = b > a ? d->sent_off[b] : 0;
    const int64_t o0 = b > a ? d->tok_off[t0] : 0, no = b > a ? d->tok_off[t1] - o0 : 0;
    const int64_t h[4] = {b - a, t1 - t0, no, has_val};
    q = put(q, h, 32);
    q = put_lengths(q, d->sent_off, a, b);
    q = put_lengths(q, d->tok_off, t0, t1);
    q = put(q, d->gold + t0, 4 * (size_t)(t1 - t0));
    q = put(q, d->attr + o0, 4 * (size_t)no);
    if (has_val) q = put(q, d->val + o0, 8 * (size_t)no);
  }
  st = VT_OK;
agree:
  if ((st = move_swap(&mv, st, err, errlen)) != VT_OK) goto done;
  int64_t all[4];
  move_heads(&mv, 4, all);
  const int64_t ns_all = all[0], nt_all = all[1], no_all = all[2], any_val = all[3] != 0;
  nd.L = d->L;
  nd.n_attr = d->n_attr;
  nd.sent_off = malloc(((size_t)ns_all + 1) * sizeof *nd.sent_off);
  nd.tok_off = malloc(((size_t)nt_all + 1) * sizeof *nd.tok_off);
  nd.gold = malloc((size_t)(nt_all ? nt_all : 1) * 4);
  nd.attr = malloc((size_t)(no_all ? no_all : 1) * 4);
  if (any_val) nd.val = malloc((size_t)(no_all ? no_all : 1) * 8);
  st = VT_ENOMEM;
  if (!nd.sent_off || !nd.tok_off || !nd.gold || !nd.attr || (any_val && !nd.val)) goto done;
  nd.sent_off[0] = nd.tok_off[0] = 0;
  size_t at = 0;
  for (int j = 0; j < c->size; at += mv.in_len[j++]) {
    int64_t h[4];
    const char *p = mv.in + at;
    memcpy(h, p, 32);
    p = take_sentences(p + 32, h[0], nd.sent_off, &nd.n_sent, &nd.max_T);
    const int64_t o0 = nd.tok_off[nd.n_tok];
    for (int64_t t = 0; t < h[1]; t++, p += 4) {
      int32_t k;
      memcpy(&k, p, 4);
      nd.tok_off[nd.n_tok + t + 1] = nd.tok_off[nd.n_tok + t] + k;
    }
    memcpy(nd.gold + nd.n_tok, p, 4 * (size_t)h[1]);
    p += 4 * (size_t)h[1];
    memcpy(nd.attr + o0, p, 4 * (size_t)h[2]);
    p += 4 * (size_t)h[2];
    if (h[3])
      memcpy(nd.val + o0, p, 8 * (size_t)h[2]);
    else
      for (int64_t i = 0; any_val && i < h[2]; i++) nd.val[o0 + i] = 1.0;
    nd.n_tok += h[1];
  }
  nd.cap_sent = nd.n_sent + 1;
  nd.cap_tok = nd.n_tok + 1;
  nd.cap_occ = no_all;
  vt_crf_data_free(d);
  *d = nd;
  memset(&nd, 0, sizeof nd);
  st = VT_OK;
done:
  vt_crf_data_free(&nd);
  return move_end(&mv, st, err, errlen);
}

int32_t *vt_dist_dest_shards(const vt_train_comm *c, int64_t n, int64_t sent0, int64_t n_sent,
                             int32_t shards) {
  int32_t *dest = malloc((size_t)(n ? n : 1) * sizeof *dest);
  for (int64_t i = 0; dest && i < n; i++) {
    /* the shard s with N s / S <= idx < N (s + 1) / S (floors) */
    const int64_t idx = sent0 + i, s = ((idx + 1) * shards - 1) / n_sent;
    dest[i] = (int32_t)(s * c->size / shards);
  }
  return dest;
}

int32_t *vt_dist_dest_batches(const vt_train_comm *c, const int64_t *sent_off, int64_t n,
                              int64_t tok_before, int64_t n_tok, int64_t want) {
  int32_t *dest = malloc((size_t)(n ? n : 1) * sizeof *dest);
  for (int64_t i = 0; dest && i < n; i++) {
    const int64_t b = vt_crf_batch_of(tok_before + sent_off[i] - sent_off[0], n_tok, want);
    dest[i] = (int32_t)(b * c->size / want);
  }
  return dest;
}
