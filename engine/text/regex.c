/* engine/text/regex.c: Wapiti's regex subset, searched over byte strings with explicit lengths.
 * Same search order as Wapiti's matcher (leftmost start; `*` tries the fewest repetitions
 * first, `?` tries the character first), but the match length is always the true one. */
#include <stddef.h>

#include "text/regex.h"

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

/* Matches `re` at s[i..n); on success stores the end of the match in *mend. */
static int match_here(const char *re, const unsigned char *s, size_t i, size_t n, size_t *mend) {
  for (;;) {
    if (re[0] == '\0') {
      *mend = i;
      return 1;
    }
    if (re[0] == '$' && re[1] == '\0') {
      *mend = i;
      return i == n;
    }
    const char *ch = re;
    const char *nxt = re + 1 + (ch[0] == '\\');
    if (nxt[0] == '*') {
      nxt++;
      for (;;) {
        if (match_here(nxt, s, i, n, mend)) return 1;
        if (i >= n || !item_match(ch, s[i])) return 0;
        i++;
      }
    }
    if (nxt[0] == '?') {
      nxt++;
      if (i < n && item_match(ch, s[i]) && match_here(nxt, s, i + 1, n, mend)) return 1;
      re = nxt;
      continue;
    }
    if (i >= n || !item_match(ch, s[i])) return 0;
    i++;
    re = nxt;
  }
}

int vt_regex_search(const char *re, const char *s, size_t n, size_t *mstart, size_t *mlen) {
  const unsigned char *u = (const unsigned char *)s;
  size_t end;
  if (re[0] == '^') {
    if (!match_here(re + 1, u, 0, n, &end)) return 0;
    *mstart = 0;
    *mlen = end;
    return 1;
  }
  for (size_t pos = 0; pos <= n; pos++) {
    if (match_here(re, u, pos, n, &end)) {
      *mstart = pos;
      *mlen = end - pos;
      return 1;
    }
  }
  return 0;
}

const char *vt_regex_check(const char *re) {
  const char *p = re;
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
  }
  return NULL;
}
