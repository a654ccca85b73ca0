/* engine/cli/crfs_test.c: `vitesse tag -t` with a CRFsuite model (crfs_test.h). The sums and
 * the printed formats are crfsuite's (crfsuite_evaluation_finalize and _output). */
#include "cli/crfs_test.h"

#include <stdlib.h>
#include <string.h>

/* qsort's order of label names. */
static int by_name(const void *a, const void *b) {
  return strcmp(((const vt_cli_crfs_label *)a)->name, ((const vt_cli_crfs_label *)b)->name);
}

vt_status vt_cli_crfs_test_init(vt_cli_crfs_test *e, const vt_model *m, const vt_tag_opts *to,
                                int quiet) {
  memset(e, 0, sizeof *e);
  vt_model_info info;
  vt_model_describe(m, &info);
  const int32_t L = info.labels;
  e->L = L;
  e->quiet = quiet;
  e->keep_ref = (to->crfsuite_out & VT_CRFSUITE_REF) != 0;
  e->with_marg = (to->crfsuite_out & (VT_CRFSUITE_MARG | VT_CRFSUITE_MARG_ALL)) != 0;
  e->by_id = malloc(((size_t)L + 1) * sizeof *e->by_id);
  e->sorted = malloc(((size_t)L + 1) * sizeof *e->sorted);
  e->correct = calloc((size_t)L + 1, sizeof *e->correct);
  e->model = calloc((size_t)L + 1, sizeof *e->model);
  e->ref = calloc((size_t)L + 1, sizeof *e->ref);
  if (!e->by_id || !e->sorted || !e->correct || !e->model || !e->ref) {
    vt_cli_crfs_test_free(e);
    return VT_ENOMEM;
  }
  for (int32_t y = 0; y < L; y++) {
    e->by_id[y] = vt_model_label_name(m, y);
    e->sorted[y] = (vt_cli_crfs_label){e->by_id[y], y};
  }
  qsort(e->sorted, (size_t)L, sizeof *e->sorted, by_name);
  return VT_OK;
}

/* The id of label [s, s + n), or L when the model lacks it. */
static int32_t label_id(const vt_cli_crfs_test *e, const char *s, size_t n) {
  int32_t lo = 0, hi = e->L;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const char *nm = e->sorted[mid].name;
    int c = strncmp(nm, s, n);
    if (c == 0) c = nm[n] != '\0'; /* nm is longer: after s */
    if (c == 0) return e->sorted[mid].id;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return e->L;
}

/* crfsuite_evaluation_accmulate, item by item: a reference label the model lacks ends the
 * sequence's scoring (its instance is not counted). */
static void score_item(vt_cli_crfs_test *e, const char *line, size_t len) {
  const char *tab = memchr(line, '\t', len);
  if (!tab) return; /* not a label line */
  const char *p = tab + 1, *end = line + len;
  const char *pe = memchr(p, '\t', (size_t)(end - p));
  if (!pe) pe = end;
  if (e->with_marg) /* LABEL:MARGINAL: the label ends at the last ':' */
    for (const char *q = pe; q > p; q--)
      if (q[-1] == ':') {
        pe = q - 1;
        break;
      }
  e->seq_items++;
  if (e->seq_cut) return;
  const int32_t lr = label_id(e, line, (size_t)(tab - line));
  const int32_t lt = label_id(e, p, (size_t)(pe - p));
  if (lr >= e->L || lt >= e->L) {
    e->seq_cut = 1;
    return;
  }
  e->ref[lr]++;
  e->model[lt]++;
  if (lr == lt) {
    e->correct[lr]++;
    e->seq_ok++;
  }
  e->items++;
}

/* The end of a sequence (its blank line). */
static void end_sequence(vt_cli_crfs_test *e) {
  if (e->seq_items == 0) return;
  e->sequences++;
  if (!e->seq_cut) {
    e->instances++;
    e->instances_ok += e->seq_ok == e->seq_items;
  }
  e->seq_items = e->seq_ok = 0;
  e->seq_cut = 0;
}

/* Scores one line (without its '\n') and writes it on. 0, or -1 when writing failed. */
static int take_line(vt_cli_crfs_test *e, const char *line, size_t len) {
  const int label_line = len > 0 && line[0] != '@';
  if (len == 0)
    end_sequence(e);
  else if (label_line)
    score_item(e, line, len);
  if (e->quiet) return 0;
  if (label_line && !e->keep_ref) { /* the reference column was ours, not asked for */
    const char *tab = memchr(line, '\t', len);
    if (tab) {
      len -= (size_t)(tab + 1 - line);
      line = tab + 1;
    }
  }
  if (fwrite(line, 1, len, e->out) != len || putc('\n', e->out) == EOF) return -1;
  return 0;
}

/* Appends [p, p + n) to the cut line. 0 or -1 (out of memory). */
static int line_append(vt_cli_crfs_test *e, const char *p, size_t n) {
  if (e->line_len + n > e->line_cap) {
    size_t cap = 2 * (e->line_len + n) + 64;
    char *q = realloc(e->line, cap);
    if (!q) return -1;
    e->line = q;
    e->line_cap = cap;
  }
  memcpy(e->line + e->line_len, p, n);
  e->line_len += n;
  return 0;
}

vt_status vt_cli_crfs_test_sink(void *ctx, const char *data, size_t len) {
  vt_cli_crfs_test *e = ctx;
  const char *p = data, *end = data + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) /* keep the cut line for the next call */
      return line_append(e, p, (size_t)(end - p)) ? VT_ENOMEM : VT_OK;
    int rc;
    if (e->line_len) { /* the rest of a cut line */
      if (line_append(e, p, (size_t)(nl - p))) return VT_ENOMEM;
      rc = take_line(e, e->line, e->line_len);
      e->line_len = 0;
    } else {
      rc = take_line(e, p, (size_t)(nl - p));
    }
    if (rc) return VT_EIO;
    p = nl + 1;
  }
  return VT_OK;
}

void vt_cli_crfs_eval_print(FILE *f, const char *const *names, int32_t L, const int64_t *correct,
                            const int64_t *model, const int64_t *ref, int64_t items,
                            int64_t instances_ok, int64_t instances) {
  double mp = 0, mr = 0, mf = 0;
  int64_t item_ok = 0;
  fprintf(f, "Performance by label (#match, #model, #ref) (precision, recall, F1):\n");
  for (int32_t y = 0; y < L; y++) {
    const char *name = names[y];
    if (ref[y] == 0) {
      fprintf(f, "    %s: (%lld, %lld, %lld) (******, ******, ******)\n", name,
              (long long)correct[y], (long long)model[y], (long long)ref[y]);
      continue;
    }
    item_ok += correct[y];
    double p = 0, r = 0, f1 = 0;
    if (model[y] > 0) p = (double)correct[y] / (double)model[y];
    r = (double)correct[y] / (double)ref[y];
    if (p + r > 0) f1 = p * r * 2 / (p + r);
    mp += p;
    mr += r;
    mf += f1;
    fprintf(f, "    %s: (%lld, %lld, %lld) (%1.4f, %1.4f, %1.4f)\n", name, (long long)correct[y],
            (long long)model[y], (long long)ref[y], p, r, f1);
  }
  mp /= L;
  mr /= L;
  mf /= L;
  fprintf(f, "Macro-average precision, recall, F1: (%f, %f, %f)\n", mp, mr, mf);
  fprintf(f, "Item accuracy: %lld / %lld (%1.4f)\n", (long long)item_ok, (long long)items,
          items > 0 ? (double)item_ok / (double)items : 0.0);
  fprintf(f, "Instance accuracy: %lld / %lld (%1.4f)\n", (long long)instances_ok,
          (long long)instances, instances > 0 ? (double)instances_ok / (double)instances : 0.0);
}

vt_status vt_cli_crfs_test_print(vt_cli_crfs_test *e, double secs) {
  FILE *f = e->out;
  if (e->line_len && take_line(e, e->line, e->line_len)) return VT_EIO;
  e->line_len = 0;
  end_sequence(e);
  vt_cli_crfs_eval_print(f, e->by_id, e->L, e->correct, e->model, e->ref, e->items, e->instances_ok,
                         e->instances);
  fprintf(f, "Elapsed time: %f [sec] (%.1f [instance/sec])\n", secs,
          secs > 0 ? (double)e->sequences / secs : 0.0);
  return ferror(f) ? VT_EIO : VT_OK;
}

void vt_cli_crfs_test_free(vt_cli_crfs_test *e) {
  free(e->by_id);
  free(e->sorted);
  free(e->correct);
  free(e->model);
  free(e->ref);
  free(e->line);
  memset(e, 0, sizeof *e);
}
