/* engine/text/conlleval.c: conlleval's chunk counting (see conlleval.h). */
#include "text/conlleval.h"

#include <stdlib.h>
#include <string.h>

vt_status vt_conlleval_init(vt_conlleval *ev) {
  memset(ev, 0, sizeof *ev);
  ev->last_correct = ev->last_guessed = 'O';
  if (vt_featdict_init(&ev->types) != VT_OK) return VT_ENOMEM;
  int32_t id;
  if (vt_featdict_add(&ev->types, "", 0, &id) != VT_OK) return VT_ENOMEM; /* type "" is id 0 */
  ev->cap_types = 64;
  ev->type_correct = calloc(64, sizeof(int64_t));
  ev->type_found_correct = calloc(64, sizeof(int64_t));
  ev->type_found_guessed = calloc(64, sizeof(int64_t));
  if (!ev->type_correct || !ev->type_found_correct || !ev->type_found_guessed) return VT_ENOMEM;
  return VT_OK;
}

void vt_conlleval_free(vt_conlleval *ev) {
  vt_featdict_free(&ev->types);
  free(ev->type_correct);
  free(ev->type_found_correct);
  free(ev->type_found_guessed);
  memset(ev, 0, sizeof *ev);
}

/* The tag code of the part before the first '-': one of B I O E S [ ] . or '?' for others. */
static char tag_code(const char *s, size_t n) {
  if (n != 1) return '?';
  switch (s[0]) {
  case 'B':
  case 'I':
  case 'O':
  case 'E':
  case 'S':
  case '[':
  case ']':
  case '.': return s[0];
  default: return '?';
  }
}

/* Splits a label into its tag code and type id (added to the dictionary). */
static vt_status split(vt_conlleval *ev, const char *s, size_t n, char *tag, int32_t *type) {
  const char *dash = memchr(s, '-', n);
  if (!dash) {
    *tag = tag_code(s, n);
    *type = 0;
    return VT_OK;
  }
  *tag = tag_code(s, (size_t)(dash - s));
  size_t tl = n - (size_t)(dash - s) - 1;
  if (tl == 1 && dash[1] == '0') tl = 0; /* conlleval: a type "0" is false in Perl, so "" */
  vt_status st = vt_featdict_add(&ev->types, dash + 1, tl, type);
  if (st != VT_OK) return st;
  if (ev->types.n > ev->cap_types) {
    int32_t cap = ev->cap_types ? ev->cap_types * 2 : 64;
    while (cap < ev->types.n) cap *= 2;
    int64_t *a = realloc(ev->type_correct, (size_t)cap * sizeof *a);
    if (!a) return VT_ENOMEM;
    ev->type_correct = a;
    int64_t *b = realloc(ev->type_found_correct, (size_t)cap * sizeof *b);
    if (!b) return VT_ENOMEM;
    ev->type_found_correct = b;
    int64_t *c = realloc(ev->type_found_guessed, (size_t)cap * sizeof *c);
    if (!c) return VT_ENOMEM;
    ev->type_found_guessed = c;
    for (int32_t i = ev->cap_types; i < cap; i++) a[i] = b[i] = c[i] = 0;
    ev->cap_types = cap;
  }
  return VT_OK;
}

static int end_of_chunk(char pt, char t, int32_t ptype, int32_t type) {
  int end = 0;
  if (pt == 'B' && t == 'B') end = 1;
  if (pt == 'B' && t == 'O') end = 1;
  if (pt == 'I' && t == 'B') end = 1;
  if (pt == 'I' && t == 'O') end = 1;
  if (pt == 'E' && t == 'E') end = 1;
  if (pt == 'E' && t == 'I') end = 1;
  if (pt == 'E' && t == 'O') end = 1;
  if (pt != 'O' && pt != '.' && ptype != type) end = 1;
  if (pt == ']' || pt == '[') end = 1;
  /* IOBES (conlleval.py); never fires on IOB1, IOB2, IOE1, IOE2 */
  if (pt == 'S') end = 1;
  if (pt == 'E' && (t == 'B' || t == 'S')) end = 1;
  if ((pt == 'B' || pt == 'I') && t == 'S') end = 1;
  return end;
}

static int start_of_chunk(char pt, char t, int32_t ptype, int32_t type) {
  int start = 0;
  if (pt == 'B' && t == 'B') start = 1;
  if (pt == 'I' && t == 'B') start = 1;
  if (pt == 'O' && t == 'B') start = 1;
  if (pt == 'O' && t == 'I') start = 1;
  if (pt == 'E' && t == 'E') start = 1;
  if (pt == 'E' && t == 'I') start = 1;
  if (pt == 'O' && t == 'E') start = 1;
  if (t != 'O' && t != '.' && ptype != type) start = 1;
  if (t == '[' || t == ']') start = 1;
  /* IOBES */
  if (t == 'S') start = 1;
  if (pt == 'E' && t == 'B') start = 1;
  if (pt == 'S' && (t == 'B' || t == 'I' || t == 'E')) start = 1;
  return start;
}

/* conlleval's per-line step for tags (c, ct) correct and (g, gt) guessed. */
static void step(vt_conlleval *ev, char c, int32_t ct, char g, int32_t gt) {
  const int end_c = end_of_chunk(ev->last_correct, c, ev->last_correct_type, ct);
  const int end_g = end_of_chunk(ev->last_guessed, g, ev->last_guessed_type, gt);
  const int start_c = start_of_chunk(ev->last_correct, c, ev->last_correct_type, ct);
  const int start_g = start_of_chunk(ev->last_guessed, g, ev->last_guessed_type, gt);
  if (ev->in_correct) {
    if (end_c && end_g && ev->last_guessed_type == ev->last_correct_type) {
      ev->in_correct = 0;
      ev->correct_chunk++;
      ev->type_correct[ev->last_correct_type]++;
    } else if (end_c != end_g || gt != ct) {
      ev->in_correct = 0;
    }
  }
  if (start_c && start_g && gt == ct) ev->in_correct = 1;
  if (start_c) {
    ev->found_correct++;
    ev->type_found_correct[ct]++;
  }
  if (start_g) {
    ev->found_guessed++;
    ev->type_found_guessed[gt]++;
  }
  ev->last_correct = c;
  ev->last_guessed = g;
  ev->last_correct_type = ct;
  ev->last_guessed_type = gt;
}

vt_status vt_conlleval_token(vt_conlleval *ev, const char *g, size_t gl, const char *p, size_t pl) {
  char c, gu;
  int32_t ct, gt;
  if (split(ev, g, gl, &c, &ct) != VT_OK || split(ev, p, pl, &gu, &gt) != VT_OK) return VT_ENOMEM;
  step(ev, c, ct, gu, gt);
  ev->tokens++;
  ev->correct_tags += gl == pl && memcmp(g, p, gl) == 0;
  return VT_OK;
}

void vt_conlleval_boundary(vt_conlleval *ev) { step(ev, 'O', 0, 'O', 0); }

static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0.0; }
static double fb1(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

void vt_conlleval_finish(vt_conlleval *ev, double *precision, double *recall, double *f1) {
  if (ev->in_correct) {
    ev->correct_chunk++;
    ev->type_correct[ev->last_correct_type]++;
    ev->in_correct = 0;
  }
  *precision = pct(ev->correct_chunk, ev->found_guessed);
  *recall = pct(ev->correct_chunk, ev->found_correct);
  *f1 = fb1(*precision, *recall);
}

static const vt_conlleval *sort_ev; /* qsort context, only inside vt_conlleval_report */

static int by_name(const void *a, const void *b) {
  size_t la, lb;
  const char *sa = vt_featdict_str(&sort_ev->types, *(const int32_t *)a, &la);
  const char *sb = vt_featdict_str(&sort_ev->types, *(const int32_t *)b, &lb);
  int c = memcmp(sa, sb, la < lb ? la : lb);
  if (c) return c;
  return la < lb ? -1 : la > lb;
}

void vt_conlleval_report(vt_conlleval *ev, FILE *out) {
  double p, r, f;
  vt_conlleval_finish(ev, &p, &r, &f);
  fprintf(out, "processed %lld tokens with %lld phrases; found: %lld phrases; correct: %lld.\n",
          (long long)ev->tokens, (long long)ev->found_correct, (long long)ev->found_guessed,
          (long long)ev->correct_chunk);
  if (ev->tokens > 0)
    fprintf(out, "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f\n",
            pct(ev->correct_tags, ev->tokens), p, r, f);
  /* conlleval sorts the keys of both count tables together and drops a repeat unless the
   * previous name is false in Perl ("" or "0"), which it prints twice. */
  int32_t n = 0, *keys = malloc(2 * ((size_t)ev->types.n + 1) * sizeof *keys);
  if (!keys) return;
  for (int32_t i = 0; i < ev->types.n && i < ev->cap_types; i++) {
    if (ev->type_found_correct[i]) keys[n++] = i;
    if (ev->type_found_guessed[i]) keys[n++] = i;
  }
  sort_ev = ev;
  qsort(keys, (size_t)n, sizeof *keys, by_name);
  sort_ev = NULL;
  for (int32_t k = 0; k < n; k++) {
    int32_t i = keys[k];
    if (k > 0) {
      size_t ll;
      const char *last = vt_featdict_str(&ev->types, keys[k - 1], &ll);
      int falsy = ll == 0 || (ll == 1 && last[0] == '0');
      if (!falsy && keys[k - 1] == i) continue;
    }
    size_t nl;
    const char *name = vt_featdict_str(&ev->types, i, &nl);
    double tp = pct(ev->type_correct[i], ev->type_found_guessed[i]);
    double tr = pct(ev->type_correct[i], ev->type_found_correct[i]);
    fprintf(out, "%17.*s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %lld\n", (int)nl, name,
            tp, tr, fb1(tp, tr), (long long)ev->type_found_guessed[i]);
  }
  free(keys);
}
