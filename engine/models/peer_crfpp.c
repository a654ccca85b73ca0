/* engine/models/peer_crfpp.c: CRF++ 0.58/0.59 models, binary (what crf_learn writes by default) and
 * text (crf_learn -t), as native tagger models (the layout of CRF++'s feature_index.cpp).
 *
 * Labels keep CRF++'s order (bytewise sorted), templates are CRF++'s lines (their expansion
 * gives CRF++'s feature strings exactly), a `U` string with weight offset f gets the record
 * w[f .. f + L), a `B` string w[f .. f + L*L) (prev * L + cur); the strings of `B` templates
 * without macros fire at every position t >= 1 and go into the transition matrix instead. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/outfile.h"
#include "models/peer_build.h"
#include "models/peer_crfpp.h"

#define BAD(...) VT_BAD(done, name, __VA_ARGS__)

enum { MAX_CONTEXT = 8 }; /* CRF++'s kMaxContextSize: rows -8 .. 8 */

/* Checks template [s, s + n) as CRF++ reads it: `U` or `B`, every `%` a `%x[ROW,COL]` with
 * |ROW| <= 8 and COL < xsize, no blank at either end (CRF++ keeps them in the strings, vitesse
 * trims them). Returns NULL or what is wrong. Sets *plain when it has no macro. */
static const char *template_check(const char *s, size_t n, uint32_t xsize, int *plain) {
  if (n == 0 || (s[0] != 'U' && s[0] != 'B')) return "a template starts with U or B";
  if (s[0] == ' ' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')
    return "a template ends in a blank";
  if (memchr(s, '\n', n)) return "a newline inside a template";
  *plain = 1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') continue;
    *plain = 0;
    if (i + 2 >= n || s[i + 1] != 'x' || s[i + 2] != '[') return "a macro other than %x[row,col]";
    size_t j = i + 3;
    int neg = j < n && s[j] == '-';
    j += (size_t)neg;
    long row = 0, col = 0;
    size_t d0 = j;
    while (j < n && s[j] >= '0' && s[j] <= '9' && row <= MAX_CONTEXT)
      row = row * 10 + (s[j++] - '0');
    if (j == d0 || j >= n || s[j] != ',') return "malformed %x[row,col]";
    d0 = ++j;
    while (j < n && s[j] >= '0' && s[j] <= '9' && col <= 100000) col = col * 10 + (s[j++] - '0');
    if (j >= n || s[j] != ']') return "malformed %x[row,col]";
    if (row > MAX_CONTEXT) return "a row out of -8 .. 8";
    if ((uint32_t)col >= xsize) return "a column not below xsize";
    i = j;
  }
  return NULL;
}

/* Adds the templates, NUL- or newline-separated in [s, s + n) (empty entries skipped), and the
 * set of macro-free bigram template texts (plain, NUL-separated) used to route `B` strings. */
static vt_status add_templates(vt_peer_build *b, const char *s, size_t n, char sep, uint32_t xsize,
                               char **plain, size_t *plain_len, const char *name, char *err,
                               size_t errlen) {
  vt_status st = VT_OK;
  const char *p = s, *end = s + n;
  while (p < end) {
    const char *e = memchr(p, sep, (size_t)(end - p));
    if (!e) e = end;
    size_t len = (size_t)(e - p);
    if (len) {
      int is_plain = 0;
      const char *why = template_check(p, len, xsize, &is_plain);
      if (why) BAD("template '%.*s': %s", (int)(len > 60 ? 60 : len), p, why);
      if ((st = vt_peer_build_template(b, p, len)) != VT_OK) goto done;
      if (is_plain && p[0] == 'B') {
        char *np = realloc(*plain, *plain_len + len + 1);
        if (!np) {
          st = VT_ENOMEM;
          goto done;
        }
        memcpy(np + *plain_len, p, len);
        np[*plain_len + len] = '\0';
        *plain = np;
        *plain_len += len + 1;
      }
    }
    p = e + 1;
  }
  st = vt_peer_build_templates_end(b, name, err, errlen);
done:
  if (st == VT_ENOMEM) vt_errorf(err, errlen, name, "out of memory");
  return st;
}

/* How many of the NUL-separated strings of `plain` are [s, s + n): a B line repeated fires its
 * string once per line at every position, as crf_test counts it. */
static int plain_count(const char *plain, size_t plain_len, const char *s, size_t n) {
  int k = 0;
  for (size_t at = 0; at < plain_len;) {
    size_t l = strlen(plain + at);
    k += l == n && memcmp(plain + at, s, n) == 0;
    at += l + 1;
  }
  return k;
}

/* Adds feature string s (n bytes) whose weights start at offset id of w (maxid of them):
 * `U` strings L weights, `B` strings L * L (into the transitions when `plain`). `claimed`: a bit
 * per weight, set for those a feature took; crf_learn gives each feature its own range, so a
 * range that overlaps another is refused (a small file could otherwise claim one block of L * L
 * weights for thousands of strings, each built as its own copy). */
static vt_status add_feature(vt_peer_build *b, const char *s, size_t n, uint64_t id,
                             const double *w, uint64_t maxid, uint64_t *claimed, const char *plain,
                             size_t plain_len, const char *name, char *err, size_t errlen) {
  vt_status st = VT_OK;
  const uint64_t L = (uint64_t)b->L;
  if (n == 0 || (s[0] != 'U' && s[0] != 'B'))
    BAD("feature string '%.*s' is neither U nor B", (int)(n > 40 ? 40 : n), s);
  int bigram = s[0] == 'B';
  uint64_t nw = bigram ? L * L : L;
  if (id > maxid || maxid - id < nw) BAD("feature id %llu out of range", (unsigned long long)id);
  for (uint64_t i = id; i < id + nw; i++) {
    if (claimed[i >> 6] & ((uint64_t)1 << (i & 63)))
      BAD("feature '%.*s' (id %llu): its weights overlap another feature's", (int)(n > 40 ? 40 : n),
          s, (unsigned long long)id);
    claimed[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  const int times = bigram ? plain_count(plain, plain_len, s, n) : 0;
  if (times > 0) {
    for (uint64_t i = 0; i < nw; i++)
      if (!isfinite(w[id + i])) BAD("non-finite weight");
    for (int k = 0; k < times && st == VT_OK; k++)
      if ((st = vt_peer_build_trans(b, w + id)) != VT_OK)
        vt_errorf(err, errlen, name, "out of memory");
    goto done;
  }
  st = vt_peer_build_feature(b, s, n, bigram, w + id);
  if (st == VT_EFORMAT) BAD("non-finite weight");
  if (st == VT_ENOMEM) vt_errorf(err, errlen, name, "out of memory");
done:
  return st;
}

/* ---- binary model ---------------------------------------------------------------------------- */

typedef struct reader {
  const unsigned char *p, *end;
} reader;

static int get_u32(reader *r, uint32_t *v) {
  if (r->end - r->p < 4) return -1;
  memcpy(v, r->p, 4);
  r->p += 4;
  return 0;
}

/* A Darts double-array unit: base, check. */
typedef struct da_unit {
  int32_t base;
  uint32_t check;
} da_unit;

typedef struct walk {
  const da_unit *da;
  uint64_t n_units, visited;
  uint32_t *kid_off; /* n_units + 1: the children of base b are kids[kid_off[b], kid_off[b + 1]) */
  uint32_t *kids;    /* units p whose check is their parent's base, p - base - 1 in 1..255 */
  char *key;
  vt_peer_build *b;
  const double *w;
  uint64_t maxid;
  uint64_t *claimed; /* a bit per weight: taken by a feature */
  const char *plain;
  size_t plain_len;
} walk;

/* A node being visited: its base and how many of its children were visited (-1: its own key
 * first). */
typedef struct frame {
  int32_t base;
  int next;
} frame;

/* Lists every base's children in k->kids, in byte order (a counting sort of the units by their
 * check), so that a node's transitions are read, not found by trying its 255 bytes: the walk
 * of a chunking model's trie took half of its load. Returns 0 or -1 (out of memory). */
static int kids_index(walk *k) {
  const uint64_t n = k->n_units;
  k->kid_off = calloc((size_t)n + 1, sizeof *k->kid_off);
  k->kids = malloc((size_t)(n ? n : 1) * sizeof *k->kids);
  if (!k->kid_off || !k->kids || n > UINT32_MAX) return -1;
  for (uint64_t p = 1; p < n; p++) { /* a transition by byte c = p - check - 1 in 1..255 */
    const uint64_t b = k->da[p].check;
    if (b < n && p >= b + 2 && p <= b + 256) k->kid_off[b + 1]++;
  }
  for (uint64_t b = 0; b < n; b++) k->kid_off[b + 1] += k->kid_off[b];
  uint32_t *fill = malloc((size_t)(n ? n : 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, k->kid_off, (size_t)n * sizeof *fill);
  for (uint64_t p = 1; p < n; p++) {
    const uint64_t b = k->da[p].check;
    if (b < n && p >= b + 2 && p <= b + 256) k->kids[fill[b]++] = (uint32_t)p;
  }
  free(fill);
  return 0;
}

/* Visits every key of the trie from the root (base `root`), depth first, keys in byte order,
 * with an explicit stack (a key is at most MAX_KEY bytes). A frame's `next` counts its node's
 * children already visited. */
#define MAX_KEY 65536
static vt_status trie_walk(walk *k, int32_t root, const char *name, char *err, size_t errlen) {
  vt_status st = VT_OK;
  frame *stack = malloc((MAX_KEY + 1) * sizeof *stack);
  k->key = malloc(MAX_KEY + 1);
  if (!stack || !k->key || kids_index(k)) {
    vt_errorf(err, errlen, name, "out of memory");
    st = VT_ENOMEM;
    goto done;
  }
  size_t depth = 0;
  stack[0].base = root;
  stack[0].next = -1; /* -1: the node's own key first */
  for (;;) {
    frame *f = &stack[depth];
    const int leaf = f->base < 0 || (uint64_t)f->base >= k->n_units;
    if (!leaf && f->next < 0) {
      f->next = 0;
      if (++k->visited > k->n_units) BAD("corrupt double-array trie");
      const da_unit *t = &k->da[f->base];
      if (t->check == (uint32_t)f->base && t->base < 0) {
        uint64_t id = (uint64_t)(-(int64_t)t->base - 1);
        st = add_feature(k->b, k->key, depth, id, k->w, k->maxid, k->claimed, k->plain,
                         k->plain_len, name, err, errlen);
        if (st != VT_OK) goto done;
      }
    }
    const uint64_t at = leaf ? 0 : k->kid_off[f->base] + (uint64_t)f->next;
    if (leaf || at >= k->kid_off[f->base + 1]) {
      if (depth == 0) break;
      depth--;
      continue;
    }
    f->next++;
    const uint64_t p = k->kids[at];
    if (depth >= MAX_KEY) BAD("corrupt double-array trie (a key too long)");
    k->key[depth] = (char)(p - (uint64_t)f->base - 1);
    depth++;
    stack[depth].base = k->da[p].base;
    stack[depth].next = -1;
  }
done:
  free(stack);
  free(k->kid_off);
  free(k->kids);
  k->kid_off = k->kids = NULL;
  return st;
}

static vt_status load_binary(vt_textmodel **out, const unsigned char *data, size_t size,
                             const char *name, double cf, char *err, size_t errlen) {
  vt_status st = VT_EFORMAT;
  vt_peer_build b;
  memset(&b, 0, sizeof b);
  double *w = NULL;
  uint64_t *claimed = NULL;
  char *plain = NULL;
  size_t plain_len = 0;
  walk k;
  memset(&k, 0, sizeof k);
  reader r = {data, data + size};
  uint32_t version, type, maxid, xsize, dsize, ysize, tsize;
  double stored_cf;
  if (get_u32(&r, &version) || get_u32(&r, &type) || r.end - r.p < 8) BAD("truncated CRF++ model");
  if (version / 100 != 1) BAD("CRF++ model version %u, expected 1xx (CRF++ 0.5x)", version);
  memcpy(&stored_cf, r.p, 8);
  r.p += 8;
  if (get_u32(&r, &maxid) || get_u32(&r, &xsize) || get_u32(&r, &dsize) || get_u32(&r, &ysize))
    BAD("truncated CRF++ model");
  if ((uint64_t)(r.end - r.p) < ysize) BAD("truncated CRF++ model");
  const char *ys = (const char *)r.p;
  r.p += ysize;
  if (get_u32(&r, &tsize) || (uint64_t)(r.end - r.p) < tsize) BAD("truncated CRF++ model");
  const char *tstr = (const char *)r.p;
  r.p += tsize;
  if (dsize % 8 || (uint64_t)(r.end - r.p) < dsize) BAD("truncated CRF++ model");
  const da_unit *da = (const da_unit *)(const void *)r.p; /* realigned copy below */
  r.p += dsize;
  if ((uint64_t)(r.end - r.p) != 4 * (uint64_t)maxid)
    BAD("CRF++ model size does not match its %u weights", maxid);
  if (!(cf > 0) && !(isfinite(stored_cf) && stored_cf > 0)) BAD("cost factor not positive");
  if (xsize == 0) BAD("CRF++ model with xsize 0");
  if (ysize == 0 || ys[ysize - 1] != '\0') BAD("corrupt label table");
  int32_t L = 0;
  for (uint32_t i = 0; i < ysize; i++) L += ys[i] == '\0';
  st = vt_peer_build_init(&b, L, cf > 0 ? cf : stored_cf, name, err, errlen);
  if (st != VT_OK) goto done; /* the message is in err */
  b.origin = VT_ORIGIN_CRFPP;
  for (uint32_t at = 0; at < ysize;) {
    size_t l = strlen(ys + at);
    if ((st = vt_peer_build_label(&b, ys + at, l)) != VT_OK) goto nomem;
    at += (uint32_t)l + 1;
  }
  if (tsize && tstr[tsize - 1] != '\0') BAD("corrupt template table");
  if ((st = add_templates(&b, tstr, tsize, '\0', xsize, &plain, &plain_len, name, err, errlen)) !=
      VT_OK)
    goto done;
  w = malloc(((size_t)maxid + 1) * sizeof *w);
  claimed = calloc((size_t)maxid / 64 + 1, sizeof *claimed);
  da_unit *units = malloc((size_t)dsize + 8);
  if (!w || !claimed || !units) {
    free(units);
    goto nomem;
  }
  memcpy(units, da, dsize);
  for (uint32_t i = 0; i < maxid; i++) {
    float f;
    memcpy(&f, r.p + 4 * (size_t)i, 4);
    w[i] = f;
  }
  k.da = units;
  k.n_units = dsize / 8;
  k.b = &b;
  k.w = w;
  k.maxid = maxid;
  k.claimed = claimed;
  k.plain = plain;
  k.plain_len = plain_len;
  st = k.n_units ? trie_walk(&k, units[0].base, name, err, errlen) : VT_OK;
  free(units);
  if (st != VT_OK) goto done;
  st = vt_peer_build_finish(&b, name, out, err, errlen);
  goto done;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, name, "out of memory");
done:
  free(k.key);
  free(w);
  free(claimed);
  free(plain);
  vt_peer_build_free(&b);
  return st;
}

/* ---- text model ------------------------------------------------------------------------------ */

/* The next line of [*p, end) (without its newline, CR kept) into [*s, *e); 0 at the end. */
static int next_line(const char **p, const char *end, const char **s, const char **e) {
  if (*p >= end) return 0;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  *s = *p;
  *e = nl ? nl : end;
  *p = nl ? nl + 1 : end;
  return 1;
}

/* Parses an unsigned decimal of at most 12 digits filling [s, e). Returns 0 or -1. */
static int parse_u64(const char *s, const char *e, uint64_t *v) {
  if (s == e || e - s > 12) return -1;
  *v = 0;
  for (; s < e; s++) {
    if (*s < '0' || *s > '9') return -1;
    *v = *v * 10 + (uint64_t)(*s - '0');
  }
  return 0;
}

static vt_status load_text(vt_textmodel **out, const char *data, size_t size, const char *name,
                           double cf, char *err, size_t errlen) {
  vt_status st = VT_EFORMAT;
  vt_peer_build b;
  memset(&b, 0, sizeof b);
  double *w = NULL;
  uint64_t *claimed = NULL;
  char *plain = NULL, *tmpls = NULL;
  size_t plain_len = 0;
  const char *p = data, *end = data + size, *s, *e;
  uint64_t version = 0, maxid = 0, xsize = 0, lineno = 0;
  double stored_cf = 1.0;
  int have_version = 0;
  if (memchr(data, '\0', size)) BAD("NUL byte in a CRF++ text model");
  /* header: "key: value" lines up to an empty line */
  for (;;) {
    if (!next_line(&p, end, &s, &e)) BAD("truncated CRF++ text model (header)");
    lineno++;
    if (e > s && e[-1] == '\r') e--;
    if (s == e) break;
    const char *v = s;
    while (v < e && *v != ' ' && *v != '\t') v++;
    const char *key_end = v;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    size_t kl = (size_t)(key_end - s);
    if (kl == 8 && !memcmp(s, "version:", 8)) {
      have_version = 1;
      if (parse_u64(v, e, &version)) BAD("line %llu: bad version", (unsigned long long)lineno);
    } else if (kl == 12 && !memcmp(s, "cost-factor:", 12)) {
      char tmp[64];
      size_t l = (size_t)(e - v) < sizeof tmp - 1 ? (size_t)(e - v) : sizeof tmp - 1;
      memcpy(tmp, v, l);
      tmp[l] = '\0';
      char *te;
      stored_cf = strtod(tmp, &te);
      if (te == tmp || *te || !isfinite(stored_cf))
        BAD("line %llu: bad cost-factor", (unsigned long long)lineno);
    } else if (kl == 6 && !memcmp(s, "maxid:", 6)) {
      if (parse_u64(v, e, &maxid)) BAD("line %llu: bad maxid", (unsigned long long)lineno);
    } else if (kl == 6 && !memcmp(s, "xsize:", 6)) {
      if (parse_u64(v, e, &xsize)) BAD("line %llu: bad xsize", (unsigned long long)lineno);
    } else {
      BAD("line %llu: unknown header line", (unsigned long long)lineno);
    }
  }
  if (!have_version || version / 100 != 1)
    BAD("CRF++ text model version %llu, expected 1xx (CRF++ 0.5x)", (unsigned long long)version);
  if (maxid == 0 || maxid > size)
    BAD("maxid %llu does not fit the file", (unsigned long long)maxid);
  if (xsize == 0 || xsize > 100000) BAD("bad xsize %llu", (unsigned long long)xsize);
  if (!(cf > 0) && !(stored_cf > 0)) BAD("cost factor not positive");
  /* labels, then templates, each up to an empty line */
  const char *sect[2];
  size_t sect_len[2];
  int32_t L = 0;
  for (int k = 0; k < 2; k++) {
    sect[k] = p;
    for (;;) {
      if (!next_line(&p, end, &s, &e))
        BAD("truncated CRF++ text model (%s)", k ? "templates" : "labels");
      lineno++;
      if (e > s && e[-1] == '\r') e--;
      if (s == e) break;
      if (k == 0) L++;
    }
    sect_len[k] = (size_t)(s - sect[k]);
  }
  st = vt_peer_build_init(&b, L, cf > 0 ? cf : stored_cf, name, err, errlen);
  if (st != VT_OK) goto done; /* the message is in err */
  b.origin = VT_ORIGIN_CRFPP;
  {
    const char *q = sect[0], *qe = sect[0] + sect_len[0];
    while (next_line(&q, qe, &s, &e)) {
      if (e > s && e[-1] == '\r') e--;
      if ((st = vt_peer_build_label(&b, s, (size_t)(e - s))) != VT_OK) goto nomem;
    }
    /* templates: newline-separated, CR removed */
    tmpls = malloc(sect_len[1] + 1);
    if (!tmpls) goto nomem;
    size_t tl = 0;
    q = sect[1];
    qe = sect[1] + sect_len[1];
    while (next_line(&q, qe, &s, &e)) {
      if (e > s && e[-1] == '\r') e--;
      memcpy(tmpls + tl, s, (size_t)(e - s));
      tl += (size_t)(e - s);
      tmpls[tl++] = '\n';
    }
    if ((st = add_templates(&b, tmpls, tl, '\n', (uint32_t)xsize, &plain, &plain_len, name, err,
                            errlen)) != VT_OK)
      goto done;
  }
  /* feature lines "ID STRING" up to an empty line, then maxid weights */
  const char *feat0 = p;
  uint64_t n_feat = 0;
  for (;;) {
    if (!next_line(&p, end, &s, &e)) BAD("truncated CRF++ text model (features)");
    if (e > s && e[-1] == '\r') e--;
    if (s == e) break;
    n_feat++;
  }
  const char *feat_end = p;
  w = malloc(((size_t)maxid + 1) * sizeof *w);
  claimed = calloc((size_t)maxid / 64 + 1, sizeof *claimed);
  if (!w || !claimed) goto nomem;
  for (uint64_t i = 0; i < maxid; i++) {
    if (!next_line(&p, end, &s, &e))
      BAD("truncated CRF++ text model: %llu of %llu weights", (unsigned long long)i,
          (unsigned long long)maxid);
    lineno++;
    char tmp[64];
    size_t l = (size_t)(e - s) < sizeof tmp - 1 ? (size_t)(e - s) : sizeof tmp - 1;
    memcpy(tmp, s, l);
    tmp[l] = '\0';
    char *te;
    w[i] = strtod(tmp, &te);
    while (*te == '\r' || *te == ' ') te++;
    if (te == tmp || *te || !isfinite(w[i]))
      BAD("weight %llu: not a number", (unsigned long long)i);
  }
  while (next_line(&p, end, &s, &e)) {
    if (e > s && e[-1] == '\r') e--;
    if (s != e) BAD("data after the %llu weights", (unsigned long long)maxid);
  }
  p = feat0;
  for (uint64_t f = 0; f < n_feat; f++) {
    next_line(&p, feat_end, &s, &e);
    if (e > s && e[-1] == '\r') e--;
    const char *sp = s;
    while (sp < e && *sp != ' ' && *sp != '\t') sp++;
    uint64_t id;
    if (sp == e || parse_u64(s, sp, &id) || memchr(sp + 1, ' ', (size_t)(e - sp - 1)) ||
        memchr(sp + 1, '\t', (size_t)(e - sp - 1)))
      BAD("feature line %llu: expected \"ID STRING\"", (unsigned long long)f + 1);
    st = add_feature(&b, sp + 1, (size_t)(e - sp - 1), id, w, maxid, claimed, plain, plain_len,
                     name, err, errlen);
    if (st != VT_OK) goto done;
  }
  st = vt_peer_build_finish(&b, name, out, err, errlen);
  goto done;
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, name, "out of memory");
done:
  free(w);
  free(claimed);
  free(plain);
  free(tmpls);
  vt_peer_build_free(&b);
  return st;
}

vt_status vt_peer_crfpp_load(vt_textmodel **out, const void *data, size_t size, const char *name,
                             double cf, char *err, size_t errlen) {
  *out = NULL;
  if (size >= 8 && !memcmp(data, "version:", 8))
    return load_text(out, data, size, name, cf, err, errlen);
  return load_binary(out, data, size, name, cf, err, errlen);
}
