/* engine/text/regex.c: Wapiti's regex subset, searched over byte strings with explicit lengths.
 * Same search order as Wapiti's backtracking matcher (leftmost start; `*` tries the fewest
 * repetitions first, `?` tries the character first), but the match length is always the true
 * one, and the search is bounded: no recursion (a choice-point stack of at most P + n + 1
 * entries), and every state (item p, byte i) is entered once at most, so a search costs
 * O(P * n), never the exponential time of plain backtracking (".*.*.*Q" on a long token).
 *
 * Why one visit suffices: every step moves to a larger p + i, so a state can never be its own
 * descendant; entering a state that was entered before means its earlier visit was explored to
 * the end and failed (a success returns at once), and that holds across start positions too,
 * since whether the rest of the pattern matches from (p, i) does not depend on where the match
 * began. The visited states are one bit each, (P + 1) * (n + 1) bits: on the stack for the
 * short tokens and patterns of real templates, on the heap past that, and beyond
 * VT_REGEX_MAX_BITS (or when the heap refuses) the search goes on without the record, correct
 * but no longer bounded (templates refuse patterns of more than VT_REGEX_MAX_ITEMS items, so
 * that needs a token of millions of bytes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/regex.h"

/* The visited record beyond which the search goes without it (32 MiB). */
#define VT_REGEX_MAX_BITS ((uint64_t)1 << 28)

/* Room on the stack: the visited bits and the choice points of the searches of real templates. */
#define LOCAL_WORDS 256
#define LOCAL_CHOICES 1024

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_lower(int c) { return c >= 'a' && c <= 'z'; }
static int is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static int is_alpha(int c) { return is_lower(c) || is_upper(c); }
static int is_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int is_punct(int c) { return c > ' ' && c < 127 && !is_alpha(c) && !is_digit(c); }

/* Does the one-character item at `ch` match byte c? */
static int item_match(const char *ch, unsigned char c) {
  if (ch[0] == '.') return 1;
  if (ch[0] != '\\') return (unsigned char)ch[0] == c;
  switch (ch[1]) {
  case 'a': return is_alpha(c);
  case 'd': return is_digit(c);
  case 'l': return is_lower(c);
  case 'p': return is_punct(c);
  case 's': return is_space(c);
  case 'u': return is_upper(c);
  case 'w': return is_alpha(c) || is_digit(c);
  case 'A': return !is_alpha(c);
  case 'D': return !is_digit(c);
  case 'L': return !is_lower(c);
  case 'P': return !is_punct(c);
  case 'S': return !is_space(c);
  case 'U': return !is_upper(c);
  case 'W': return !is_alpha(c) && !is_digit(c);
  default: return (unsigned char)ch[1] == c;
  }
}

/* One item of a pattern: its character (or class) and its quantifier: 0, '?' or '*'. */
typedef struct item {
  const char *ch;
  char q;
} item;

/* A pending alternative: the state to try when the branch taken fails. */
typedef struct choice {
  uint32_t p;
  size_t i;
} choice;

/* The search's memory: the items, the visited bits (NULL: none kept), the choice points. */
typedef struct search {
  const item *it;
  uint32_t P;
  int anchored_end;
  const unsigned char *s;
  size_t n;
  uint64_t *seen;
  choice *stack;
  size_t depth, cap;
} search;

/* Marks (p, i) entered; returns 1 when it was entered before (it failed then). */
static int visit(search *x, uint32_t p, size_t i) {
  if (!x->seen) return 0;
  uint64_t bit = (uint64_t)p * (x->n + 1) + i;
  uint64_t mask = (uint64_t)1 << (bit & 63), *w = &x->seen[bit >> 6];
  if (*w & mask) return 1;
  *w |= mask;
  return 0;
}

/* Matches the items from (p, i), trying the alternatives in Wapiti's order; on success stores
 * the end of the match in *mend. */
static int match_from(search *x, uint32_t p, size_t i, size_t *mend) {
  const size_t base = x->depth;
  for (;;) {
    int ok = !visit(x, p, i);
    if (ok && p == x->P) {
      if (!x->anchored_end || i == x->n) {
        x->depth = base;
        *mend = i;
        return 1;
      }
      ok = 0;
    }
    if (ok) {
      const item *t = &x->it[p];
      const int can = i < x->n && item_match(t->ch, x->s[i]);
      if (t->q == '*') { /* the fewest repetitions first: skip, else one more */
        if (can) x->stack[x->depth++] = (choice){p, i + 1};
        p++;
        continue;
      }
      if (t->q == '?') { /* the character first, else skip */
        if (can) {
          x->stack[x->depth++] = (choice){p + 1, i};
          p++, i++;
        } else {
          p++;
        }
        continue;
      }
      if (can) {
        p++, i++;
        continue;
      }
    }
    if (x->depth == base) return 0; /* every alternative of this start failed */
    const choice c = x->stack[--x->depth];
    p = c.p;
    i = c.i;
  }
}

/* Splits `re` (checked) into at most VT_REGEX_MAX_ITEMS items; returns their count, or -1 when
 * there are more. Sets the anchors. */
static int32_t parse(const char *re, item *it, int *start, int *end) {
  const char *p = re;
  int32_t P = 0;
  *start = *p == '^';
  p += *start;
  *end = 0;
  while (*p) {
    if (p[0] == '$' && p[1] == '\0') {
      *end = 1;
      break;
    }
    if (P == VT_REGEX_MAX_ITEMS) return -1;
    it[P].ch = p;
    p += 1 + (*p == '\\');
    it[P].q = (*p == '*' || *p == '?') ? *p++ : 0;
    P++;
  }
  return P;
}

int vt_regex_search(const char *re, const char *s, size_t n, size_t *mstart, size_t *mlen) {
  item its[VT_REGEX_MAX_ITEMS];
  uint64_t local_seen[LOCAL_WORDS];
  choice local_stack[LOCAL_CHOICES];
  int start, end, found = 0;
  const int32_t P = parse(re, its, &start, &end);
  if (P < 0) return 0; /* more items than vt_regex_check lets through */
  search x = {its, (uint32_t)P, end, (const unsigned char *)s, n, NULL, local_stack, 0, 0};
  /* Each state on the current path pushes one alternative at most, and a path has at most
   * P + n + 1 states. */
  x.cap = (size_t)P + n + 1;
  if (x.cap > LOCAL_CHOICES && !(x.stack = malloc(x.cap * sizeof *x.stack))) return 0;
  const uint64_t bits = ((uint64_t)P + 1) * ((uint64_t)n + 1), words = (bits + 63) / 64;
  if (words <= LOCAL_WORDS) {
    memset(local_seen, 0, (size_t)words * sizeof *local_seen);
    x.seen = local_seen;
  } else if (bits <= VT_REGEX_MAX_BITS) {
    x.seen = calloc((size_t)words, sizeof *x.seen); /* NULL: searched without the record */
  }
  size_t mend;
  for (size_t pos = 0; pos <= n && !found; pos++) {
    if (match_from(&x, 0, pos, &mend)) {
      *mstart = pos;
      *mlen = mend - pos;
      found = 1;
    }
    if (start) break; /* anchored: the first byte only */
  }
  if (x.seen != local_seen) free(x.seen);
  if (x.stack != local_stack) free(x.stack);
  return found;
}

const char *vt_regex_check(const char *re) {
  const char *p = re;
  int32_t items = 0;
  if (*p == '^') p++;
  while (*p) {
    if (p[0] == '$' && p[1] == '\0') break;
    if (*p == '*' || *p == '?') return "'*' or '?' must follow a character, '.' or a class";
    if (*p == '\\') {
      if (!p[1]) return "a trailing '\\'";
      p++;
    }
    p++;
    if (*p == '*' || *p == '?') p++;
    if (++items > VT_REGEX_MAX_ITEMS) return "more than " VT_REGEX_MAX_ITEMS_TEXT " items";
  }
  return NULL;
}
