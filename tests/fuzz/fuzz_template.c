/* tests/fuzz/fuzz_template.c: fuzz target of the feature-template parser and expander
 * (engine/text/template.c, template_expand.c, regex.c: CRF++ templates, Wapiti's %t/%m regexes).
 *
 * The input is one template file. After a successful parse every template is expanded at every
 * position of a fixed 4-token sentence of 6 columns (rows outside it read the sentinels), into a
 * buffer of exactly vt_tmpl_bound_at bytes, and the expansion must fit vt_tmpl_bound. */
#define _GNU_SOURCE /* memfd_create (fuzz_common.h) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/template.h"

#include "fuzz_common.h"

enum { NT = 4, NC = 6 };
static const char *const cells[NT][NC] = {
    {"The", "DT", "B-NP", "", "x", "Quick"},
    {"quick-brown9", "JJ", "I-NP", "AbC", "a.b", "\\"},
    {"FOX", "NN", "I-NP", "1999", "??", "%x[0,0]"},
    {".", ".", "O", "\xc3\xa9t\xc3\xa9", "\t", "$^"},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vt_tmplset ts;
  char err[256];
  if (vt_tmplset_parse(&ts, (const char *)data, size, "fuzz.tmpl", err, sizeof err) != VT_OK)
    return 0;
  char base[256];
  uint32_t fields[2 * NT * NC];
  size_t at = 0, longest = 0;
  for (int t = 0; t < NT; t++)
    for (int c = 0; c < NC; c++) {
      size_t n = strlen(cells[t][c]);
      memcpy(base + at, cells[t][c], n);
      fields[2 * (t * NC + c)] = (uint32_t)at;
      fields[2 * (t * NC + c) + 1] = (uint32_t)n;
      at += n;
      if (n > longest) longest = n;
    }
  vt_tokens s = {NT, NC, base, fields};
  if (ts.max_col < NC) {
    for (int32_t i = 0; i < ts.n; i++)
      for (int32_t t = 0; t < NT; t++) {
        size_t bound = vt_tmpl_bound_at(&ts, i, &s, t);
        if (bound > vt_tmpl_bound(&ts, i, longest)) abort();
        char *buf = malloc(bound ? bound : 1);
        if (!buf) break;
        size_t n = vt_tmpl_expand(&ts, i, &s, t, buf);
        free(buf);
        if (n > bound) abort();
      }
  }
  vt_tmplset_free(&ts);
  return 0;
}
