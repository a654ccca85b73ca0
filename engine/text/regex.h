/* engine/text/regex.h: the subset of regular expressions Wapiti's %m and %t templates use
 * (regex.c). */
#ifndef VT_TEXT_REGEX_H
#define VT_TEXT_REGEX_H

#include <stddef.h>

/* The longest pattern a template may hold, in items (a character, '.' or a class, each with its
 * '*' or '?'): real ones have a handful; the search costs O(items x token bytes). */
#define VT_REGEX_MAX_ITEMS 1024
#define VT_REGEX_MAX_ITEMS_TEXT "1024"

/* Wapiti regex search: finds the leftmost match of `re` (validated by vt_regex_check) in the `n`
 * bytes at `s`, in the order of Wapiti's backtracking matcher, in O(items x n) time and without
 * recursion. Returns 1 and sets *mstart, *mlen on a match, else 0. */
int vt_regex_search(const char *re, const char *s, size_t n, size_t *mstart, size_t *mlen);

/* Checks that `re` is a valid pattern of the subset, of at most VT_REGEX_MAX_ITEMS items;
 * returns NULL or a static message. */
const char *vt_regex_check(const char *re);

#endif
