/* engine/text/regex.h: the subset of regular expressions Wapiti's %m and %t templates use
 * (regex.c). */
#ifndef VT_TEXT_REGEX_H
#define VT_TEXT_REGEX_H

#include <stddef.h>

/* Wapiti regex search: finds the leftmost match of `re` (validated by the parser) in the `n`
 * bytes at `s`. Returns 1 and sets *mstart, *mlen on a match, else 0. */
int vt_regex_search(const char *re, const char *s, size_t n, size_t *mstart, size_t *mlen);

/* Checks that `re` is a valid pattern of the subset; returns NULL or a static message. */
const char *vt_regex_check(const char *re);

#endif
