/* engine/api/constraints.c: the public constraints (vitesse.h): tag dictionaries and partial
 * labels (engine/text/allowed_labels.c does the work), and forbidden transitions of a model. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/model_impl.h"
#include "core/errmsg.h"
#include "core/trans_layout.h"
#include "text/allowed_labels.h"

vt_status vt_constraints_create(vt_constraints **out, const vt_model *m) {
  *out = NULL;
  vt_textmodel *features = vt_kind_features(m);
  if (!features)
    return vt_fail(VT_EUNSUPPORTED, "allowed labels need a tagger model (vitesse train)");
  vt_constraints *c = malloc(sizeof *c);
  if (!c || vt_constraints_init(c, features) != VT_OK) {
    free(c);
    return vt_fail(VT_ENOMEM, "out of memory");
  }
  *out = c;
  return VT_OK;
}

void vt_constraints_destroy(vt_constraints *c) {
  if (!c) return;
  vt_constraints_free(c);
  free(c);
}

vt_status vt_constraints_load_dict(vt_constraints *c, const char *path) {
  char err[VT_ERR_LINE];
  vt_status st = vt_constraints_read(c, path, err, sizeof err);
  return st == VT_OK ? VT_OK : vt_fail(st, "%s", err);
}

vt_status vt_constraints_add_word(vt_constraints *c, const char *word, const int32_t *labels,
                                  int32_t n) {
  if (n < 1) return vt_fail(VT_EINVAL, "a dictionary word needs at least one label");
  for (int32_t i = 0; i < n; i++)
    if (labels[i] < 0 || labels[i] >= c->L)
      return vt_fail(VT_EINVAL, "label %d out of range (the model has %d)", labels[i], c->L);
  vt_status st = vt_constraints_add(c, word, strlen(word), labels, n);
  if (st == VT_EINVAL) return vt_fail(st, "word '%s' is in the dictionary already", word);
  return st == VT_OK ? VT_OK : vt_fail(st, "out of memory");
}

vt_status vt_constraints_columns(vt_constraints *c, int32_t word_col, int32_t partial_col) {
  if (word_col < 0 || partial_col < -1)
    return vt_fail(VT_EINVAL, "columns: word column >= 0 and partial column >= -1 expected");
  c->word_col = word_col;
  c->partial_col = partial_col;
  return VT_OK;
}

/* Forbids the pairs (prev[c], cur[c]) of `tr` (-1: start or end), and of tagger model `tm`'s own
 * arrays when not NULL. */
static vt_status forbid_trans(vt_trans *tr, vt_textmodel *tm, int32_t n, const int32_t *prev,
                              const int32_t *cur) {
  const int32_t L = tr->L;
  vt_status st = VT_ENOMEM;
  int32_t *p = malloc(((size_t)n + 1) * sizeof *p), *q = malloc(((size_t)n + 1) * sizeof *q);
  double *a = malloc(((size_t)n + 1) * sizeof *a);
  double *S = malloc((size_t)L * sizeof *S), *F = malloc((size_t)L * sizeof *F);
  if (!p || !q || !a || !S || !F) {
    vt_fail(st, "out of memory");
    goto done;
  }
  for (int32_t c = 0; c < n; c++)
    if (prev[c] < -1 || prev[c] >= L || cur[c] < -1 || cur[c] >= L || (prev[c] < 0 && cur[c] < 0)) {
      st = vt_fail(VT_EINVAL, "forbidden transition %d: labels %d -> %d out of range", c, prev[c],
                   cur[c]);
      goto done;
    }
  memcpy(S, tr->S, (size_t)L * sizeof *S);
  memcpy(F, tr->F, (size_t)L * sizeof *F);
  int32_t k = 0;
  for (int32_t c = 0; c < n; c++) {
    if (prev[c] < 0)
      S[cur[c]] = -INFINITY;
    else if (cur[c] < 0)
      F[prev[c]] = -INFINITY;
    else {
      p[k] = prev[c];
      q[k] = cur[c];
      a[k++] = -INFINITY;
    }
  }
  if ((st = vt_trans_update(tr, k, p, q, a, S, F)) != VT_OK) {
    vt_fail(st, "cannot forbid transitions: %s", vt_strerror(st));
    goto done;
  }
  if (tm) { /* the arrays replicas and bigram lattices read */
    for (int32_t c = 0; c < k; c++) tm->A[(size_t)p[c] * L + q[c]] = -INFINITY;
    memcpy(tm->S, S, (size_t)L * sizeof *S);
    memcpy(tm->F, F, (size_t)L * sizeof *F);
  }
done:
  free(p);
  free(q);
  free(a);
  free(S);
  free(F);
  return st;
}

vt_status vt_model_forbid(vt_model *m, int32_t n, const int32_t *prev, const int32_t *cur) {
  vt_trans *tr = m->ops->trans(m);
  if (!tr)
    return vt_fail(VT_EUNSUPPORTED,
                   "forbidden transitions need a tagger, transition or CRFsuite model");
  return forbid_trans(tr, vt_kind_features(m), n, prev, cur);
}

vt_status vt_trans_forbid(vt_trans *trans, int32_t n, const int32_t *prev, const int32_t *cur) {
  return forbid_trans(trans, NULL, n, prev, cur);
}

/* The label named `s` (of model m, or the index "0".."L-1" when m is NULL), -1 for "<s>"/"</s>"
 * as `edge` allows, else -2. */
static int32_t label_id(const vt_model *m, int32_t L, const char *s, const char *edge) {
  if (strcmp(s, edge) == 0) return -1;
  if (!m) {
    char *end;
    long v = strtol(s, &end, 10);
    return *s >= '0' && *s <= '9' && !*end && v < L && (v == 0 || s[0] != '0') ? (int32_t)v : -2;
  }
  for (int32_t y = 0; y < L; y++)
    if (strcmp(vt_model_label_name(m, y), s) == 0) return y;
  return -2;
}

/* Reads file `path` of label pairs and forbids them in tr (and tagger model m's arrays); m NULL:
 * labels are indices. */
static vt_status forbid_file(vt_model *m, vt_trans *tr, const char *path) {
  const int32_t L = tr->L;
  vt_status st = VT_EIO;
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t cap = 0, n = 0, ncap = 0;
  int32_t *prev = NULL, *cur = NULL;
  uint64_t lineno = 0;
  if (!f) {
    vt_fail(st, "%s: %s", path, strerror(errno));
    goto done;
  }
  while (getline(&line, &cap, f) >= 0) {
    lineno++;
    char *save = NULL, *a = strtok_r(line, " \t\r\n", &save);
    if (!a || a[0] == '#') continue;
    char *b = strtok_r(NULL, " \t\r\n", &save), *extra = b ? strtok_r(NULL, " \t\r\n", &save) : 0;
    if (!b || extra) {
      st = vt_fail(VT_EFORMAT,
                   "%s:%llu: expected two labels: PREV CUR (<s> and </s> for the "
                   "sentence's start and end)",
                   path, (unsigned long long)lineno);
      goto done;
    }
    int32_t i = label_id(m, L, a, "<s>"), j = label_id(m, L, b, "</s>");
    if (i < -1 || j < -1 || (i < 0 && j < 0)) {
      const char *bad = i < -1 ? a : j < -1 ? b : a;
      st = vt_fail(VT_EFORMAT, "%s:%llu: '%.64s' is not a label of the model", path,
                   (unsigned long long)lineno, bad);
      goto done;
    }
    if (n == ncap) {
      ncap = ncap ? 2 * ncap : 64;
      int32_t *p2 = realloc(prev, ncap * sizeof *p2);
      if (p2) prev = p2;
      int32_t *c2 = p2 ? realloc(cur, ncap * sizeof *c2) : NULL;
      if (c2) cur = c2;
      if (!p2 || !c2) {
        st = vt_fail(VT_ENOMEM, "out of memory");
        goto done;
      }
    }
    prev[n] = i;
    cur[n++] = j;
  }
  if (ferror(f)) {
    st = vt_fail(VT_EIO, "%s: read error: %s", path, strerror(errno));
    goto done;
  }
  st = forbid_trans(tr, m ? vt_kind_features(m) : NULL, (int32_t)n, prev, cur);
done:
  if (f) fclose(f);
  free(line);
  free(prev);
  free(cur);
  return st;
}

vt_status vt_model_forbid_file(vt_model *m, const char *path) {
  vt_trans *tr = m->ops->trans(m);
  if (!tr)
    return vt_fail(VT_EUNSUPPORTED,
                   "forbidden transitions need a tagger, transition or CRFsuite model");
  return forbid_file(m, tr, path);
}

vt_status vt_trans_forbid_file(vt_trans *trans, const char *path) {
  return forbid_file(NULL, trans, path);
}

/* The IOB prefix of a label ('B', 'I', 'E', 'S') and its type after "X-", or 0. */
static char bio_kind(const char *name, const char **type) {
  if (!name || !name[0] || name[1] != '-' || !strchr("BIES", name[0])) return 0;
  *type = name + 2;
  return name[0];
}

vt_status vt_model_forbid_bio(vt_model *m, int32_t *n_out) {
  if (n_out) *n_out = 0;
  vt_trans *tr = m->ops->trans(m);
  if (!tr)
    return vt_fail(VT_EUNSUPPORTED, "forbidden transitions need a tagger or a transition "
                                    "model");
  const int32_t L = tr->L;
  int iobes = 0;
  char *kind = malloc((size_t)L + 1);
  const char **type = malloc(((size_t)L + 1) * sizeof *type);
  size_t cap = 0, n = 0;
  int32_t *prev = NULL, *cur = NULL;
  vt_status st = VT_ENOMEM;
  if (!kind || !type) goto nomem;
  for (int32_t y = 0; y < L; y++) {
    kind[y] = bio_kind(vt_model_label_name(m, y), &type[y]);
    iobes |= kind[y] == 'E' || kind[y] == 'S';
  }
  /* (i, j) with i = -1 the start and j = -1 the end */
  for (int32_t i = -1; i < L; i++)
    for (int32_t j = -1; j < L; j++) {
      if (i < 0 && j < 0) continue;
      char ki = i >= 0 ? kind[i] : 0, kj = j >= 0 ? kind[j] : 0;
      int same = i >= 0 && j >= 0 && ki && kj && strcmp(type[i], type[j]) == 0;
      int inside_prev = i >= 0 && (ki == 'B' || ki == 'I');
      int bad = 0;
      if (kj == 'I' || (iobes && kj == 'E')) bad = !(inside_prev && same);
      if (iobes && inside_prev && j >= 0 && !bad) bad = !((kj == 'I' || kj == 'E') && same);
      if (iobes && inside_prev && j < 0) bad = 1;
      if (!bad) continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 256;
        int32_t *p2 = realloc(prev, cap * sizeof *p2);
        if (p2) prev = p2;
        int32_t *c2 = p2 ? realloc(cur, cap * sizeof *c2) : NULL;
        if (c2) cur = c2;
        if (!p2 || !c2) goto nomem;
      }
      prev[n] = i;
      cur[n++] = j;
    }
  st = vt_model_forbid(m, (int32_t)n, prev, cur);
  if (st == VT_OK && n_out) *n_out = (int32_t)n;
  goto done;
nomem:
  st = vt_fail(VT_ENOMEM, "out of memory");
done:
  free(kind);
  free(type);
  free(prev);
  free(cur);
  return st;
}
