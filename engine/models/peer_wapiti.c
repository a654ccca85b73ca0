/* engine/models/peer_wapiti.c: Wapiti 1.5 text models as native tagger models
 * (the text model Wapiti's mdl_save writes).
 *
 * Labels keep Wapiti's order (first seen in training), the patterns are Wapiti's lines (read in
 * Wapiti's dialect, engine/text/template.h, they expand to Wapiti's observation strings), and
 * the weights are placed as Wapiti's mdl_sync numbers them: observation o of kind `u` owns Y
 * unigram weights, `b` Y * Y bigram weights ([prev][cur]), `*` both (unigram first); weights not
 * listed are 0. A `*` observation's bigram half is keyed "\n" + string, as the template engine
 * expands the bigram half of a `*` pattern; observations of macro-free `b` / `*` patterns go
 * into the transition matrix. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "io/hexfloat.h"
#include "io/outfile.h"
#include "models/peer_build.h"
#include "models/peer_wapiti.h"

#define BAD(...) VT_BAD(done, name, __VA_ARGS__)

typedef struct cursor {
  const char *p, *end;
} cursor;

/* Reads an unsigned decimal (at most 15 digits) into *v. Returns 0 or -1. */
static int read_u64(cursor *c, uint64_t *v) {
  const char *s = c->p;
  *v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && c->p - s < 15)
    *v = *v * 10 + (uint64_t)(*c->p++ - '0');
  return c->p == s ? -1 : 0;
}

/* Consumes the literal `lit`. Returns 0 or -1. */
static int expect(cursor *c, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n)) return -1;
  c->p += n;
  return 0;
}

/* Reads a netstring "LEN:BYTES," and the character after it (a newline), as ns_readstr. */
static int read_ns(cursor *c, const char **s, size_t *n) {
  uint64_t len;
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r')) c->p++;
  if (read_u64(c, &len) || expect(c, ":") || (uint64_t)(c->end - c->p) < len + 1) return -1;
  *s = c->p;
  *n = (size_t)len;
  c->p += len;
  if (*c->p++ != ',') return -1;
  if (c->p < c->end) c->p++;
  return 0;
}

/* Reads "#qrk#COUNT\n". */
static int read_qrk(cursor *c, uint64_t *count) {
  return expect(c, "#qrk#") || read_u64(c, count) || expect(c, "\n") ? -1 : 0;
}

/* One weight line: feature, line index (a repeated feature keeps its last line), value. */
typedef struct weight {
  uint64_t f, line;
  double v;
} weight;

static int weight_cmp(const void *a, const void *b) {
  const weight *x = a, *y = b;
  if (x->f != y->f) return x->f < y->f ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* 1 when the pattern [s, s + n) has no command (its observation is its own text). */
static int no_macro(const char *s, size_t n) { return memchr(s, '%', n) == NULL; }

vt_status vt_peer_wapiti_load(vt_textmodel **out, const void *data, size_t size, const char *name,
                              char *err, size_t errlen) {
  vt_status st = VT_EFORMAT;
  vt_peer_build b;
  memset(&b, 0, sizeof b);
  cursor c = {data, (const char *)data + size};
  uint64_t type, nact, npats, ntoks, autouni = 0, Y, O;
  const char **obs = NULL;
  size_t *obs_len = NULL;
  uint64_t *uoff = NULL, *boff = NULL;
  weight *wt = NULL;
  uint64_t *wkey = NULL;
  double *wval = NULL, *uw = NULL;
  char *key = NULL, *plain = NULL;
  size_t plain_len = 0;
  *out = NULL;
  if (expect(&c, "#mdl#") || read_u64(&c, &type) || expect(&c, "#") || read_u64(&c, &nact) ||
      expect(&c, "\n"))
    BAD("not a Wapiti 1.5 model (expected \"#mdl#TYPE#COUNT\")");
  if (memchr(data, '\0', size)) BAD("NUL byte in a Wapiti model");
  if (type != 2)
    BAD("Wapiti model type %llu: only CRF models (type 2) are supported", (unsigned long long)type);
  if (expect(&c, "#rdr#") || read_u64(&c, &npats) || expect(&c, "/") || read_u64(&c, &ntoks))
    BAD("corrupt Wapiti model: reader line");
  if (!expect(&c, "/") && read_u64(&c, &autouni)) BAD("corrupt Wapiti model: reader line");
  if (expect(&c, "\n")) BAD("corrupt Wapiti model: reader line");
  if (autouni) BAD("Wapiti model without patterns (-a autouni) is not supported");
  if (npats == 0 || npats > size) BAD("Wapiti model with %llu patterns", (unsigned long long)npats);
  for (uint64_t i = 0; i < npats; i++) {
    const char *s;
    size_t n;
    if (read_ns(&c, &s, &n)) BAD("corrupt Wapiti model: pattern %llu", (unsigned long long)i + 1);
    if (n == 0 || memchr(s, '\n', n))
      BAD("corrupt Wapiti model: pattern %llu", (unsigned long long)i + 1);
    char t = s[0];
    if (t != 'u' && t != 'b' && t != '*')
      BAD("pattern %llu: unknown pattern type '%c'", (unsigned long long)i + 1, t);
    char *np = realloc(plain, plain_len + n + 2);
    if (!np) goto nomem;
    plain = np;
    memcpy(plain + plain_len, s, n);
    plain[plain_len + n] = '\0';
    plain_len += n + 1;
  }
  if (read_qrk(&c, &Y)) BAD("corrupt Wapiti model: label table");
  if (Y == 0 || Y > 46340) BAD("Wapiti model with %llu labels", (unsigned long long)Y);
  st = vt_peer_build_init(&b, (int32_t)Y, 1.0, name, err, errlen);
  if (st != VT_OK) goto done; /* the message is in err */
  b.origin = VT_ORIGIN_WAPITI;
  for (uint64_t y = 0; y < Y; y++) {
    const char *s;
    size_t n;
    if (read_ns(&c, &s, &n)) BAD("corrupt Wapiti model: label %llu", (unsigned long long)y + 1);
    if ((st = vt_peer_build_label(&b, s, n)) != VT_OK) goto nomem;
  }
  for (size_t at = 0; at < plain_len; at += strlen(plain + at) + 1)
    if ((st = vt_peer_build_template(&b, plain + at, strlen(plain + at))) != VT_OK) goto nomem;
  if ((st = vt_peer_build_templates_end(&b, name, err, errlen)) != VT_OK) goto done;
  if (read_qrk(&c, &O)) BAD("corrupt Wapiti model: observation table");
  if (O > size) BAD("corrupt Wapiti model: %llu observations", (unsigned long long)O);
  obs = malloc(((size_t)O + 1) * sizeof *obs);
  obs_len = malloc(((size_t)O + 1) * sizeof *obs_len);
  uoff = malloc(((size_t)O + 1) * sizeof *uoff);
  boff = malloc(((size_t)O + 1) * sizeof *boff);
  if (!obs || !obs_len || !uoff || !boff) goto nomem;
  uint64_t F = 0;
  for (uint64_t o = 0; o < O; o++) {
    if (read_ns(&c, &obs[o], &obs_len[o]))
      BAD("corrupt Wapiti model: observation %llu", (unsigned long long)o + 1);
    char t = obs_len[o] ? obs[o][0] : 0;
    uoff[o] = boff[o] = UINT64_MAX;
    if (t == 'u' || t == '*') uoff[o] = F, F += Y;
    if (t == 'b' || t == '*') boff[o] = F, F += Y * Y;
  }
  if (F > ((uint64_t)1 << 31))
    BAD("Wapiti model with %llu weights: too large", (unsigned long long)F);
  if (nact > F)
    BAD("corrupt Wapiti model: %llu weights for %llu features", (unsigned long long)nact,
        (unsigned long long)F);
  /* The weights as listed (feature, value), sorted by feature, a repeated feature keeping its
   * last value: memory in proportion to the file, not to the features it declares. */
  wt = malloc(((size_t)nact + 1) * sizeof *wt);
  uw = calloc((size_t)Y, sizeof *uw);
  if (!wt || !uw) goto nomem;
  for (uint64_t i = 0; i < nact; i++) {
    uint64_t f;
    if (read_u64(&c, &f) || expect(&c, "="))
      BAD("corrupt Wapiti model: weight line %llu", (unsigned long long)i + 1);
    if (f >= F)
      BAD("weight line %llu: feature %llu out of range", (unsigned long long)i + 1,
          (unsigned long long)f);
    const char *e = memchr(c.p, '\n', (size_t)(c.end - c.p));
    if (!e) e = c.end;
    double v;
    if (!vt_hexfloat_parse(c.p, e > c.p && e[-1] == '\r' ? e - 1 : e, &v)) { /* not %a's */
      char tmp[64];
      size_t l = (size_t)(e - c.p) < sizeof tmp - 1 ? (size_t)(e - c.p) : sizeof tmp - 1;
      memcpy(tmp, c.p, l);
      tmp[l] = '\0';
      char *te;
      v = strtod(tmp, &te);
      if (te == tmp || (*te && *te != '\r') || !isfinite(v))
        BAD("weight line %llu: not a number", (unsigned long long)i + 1);
    }
    wt[i] = (weight){f, i, v};
    c.p = e < c.end ? e + 1 : e;
  }
  while (c.p < c.end && (*c.p == '\n' || *c.p == '\r' || *c.p == ' ')) c.p++;
  if (c.p != c.end) BAD("data after the %llu weights", (unsigned long long)nact);
  int sorted = 1; /* Wapiti writes them by feature: then they are in weight_cmp's order */
  for (uint64_t i = 1; i < nact && sorted; i++) sorted = wt[i - 1].f <= wt[i].f;
  if (!sorted) qsort(wt, (size_t)nact, sizeof *wt, weight_cmp);
  size_t nw = 0;
  for (uint64_t i = 0; i < nact; i++) { /* the last line of a feature wins, as Wapiti reads */
    if (nw > 0 && wt[nw - 1].f == wt[i].f) nw--;
    wt[nw++] = wt[i];
  }
  wkey = malloc((nw + 1) * sizeof *wkey);
  wval = malloc((nw + 1) * sizeof *wval);
  if (!wkey || !wval) goto nomem;
  size_t at = 0; /* observations own increasing feature ranges: one pass over the weights */
  for (uint64_t o = 0; o < O; o++) {
    const char *s = obs[o];
    size_t n = obs_len[o];
    if (uoff[o] != UINT64_MAX) {
      size_t from = at;
      for (; at < nw && wt[at].f < uoff[o] + Y; at++) uw[wt[at].f - uoff[o]] = wt[at].v;
      st = vt_peer_build_feature(&b, s, n, 0, uw);
      for (size_t i = from; i < at; i++) uw[wt[i].f - uoff[o]] = 0.0;
      if (st != VT_OK) goto feat_fail;
    }
    if (boff[o] == UINT64_MAX) continue;
    size_t k = 0;
    for (; at < nw && wt[at].f < boff[o] + Y * Y; at++, k++) {
      wkey[k] = wt[at].f - boff[o];
      wval[k] = wt[at].v;
    }
    /* A bigram observation that equals a macro-free pattern fires at every t >= 1. */
    int is_plain = 0;
    for (size_t p = 0; p < plain_len && !is_plain; p += strlen(plain + p) + 1)
      is_plain = strlen(plain + p) == n && !memcmp(plain + p, s, n) && no_macro(s, n);
    if (is_plain) {
      if ((st = vt_peer_build_trans_sparse(&b, wkey, wval, k)) != VT_OK) goto nomem;
      continue;
    }
    if (s[0] == '*') { /* the bigram half of a `*` pattern: "\n" + string */
      char *nk = realloc(key, n + 1);
      if (!nk) goto nomem;
      key = nk;
      key[0] = '\n';
      memcpy(key + 1, s, n);
      st = vt_peer_build_bigram_sparse(&b, key, n + 1, wkey, wval, k);
    } else {
      st = vt_peer_build_bigram_sparse(&b, s, n, wkey, wval, k);
    }
    if (st != VT_OK) goto feat_fail;
  }
  st = vt_peer_build_finish(&b, name, out, err, errlen);
  goto done;
feat_fail:
  if (st == VT_EFORMAT) BAD("non-finite weight");
nomem:
  st = VT_ENOMEM;
  vt_errorf(err, errlen, name, "out of memory");
done:
  free(obs);
  free(obs_len);
  free(uoff);
  free(boff);
  free(wt);
  free(wkey);
  free(wval);
  free(uw);
  free(key);
  free(plain);
  vt_peer_build_free(&b);
  return st;
}
