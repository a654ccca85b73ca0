/* engine/cli/learn_data.c: the data sets of `vitesse learn` as crfsuite learn reads them
 * (learn.h): each file a group of instances, a label dictionary in order of first appearance over
 * all files, the figures of its "Reading" and "Statistics" blocks, -g's shuffle, and the training
 * and holdout parts written out for the library. The items themselves are checked and compiled by
 * the library (vt_train_items), as `vitesse train --items` does. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/learn.h"

/* A file larger than this is refused (crfsuite's reader takes what fits in memory as well). */
#define MAX_DATA_BYTES ((size_t)1 << 40)

/* A keyed 64-bit hash of n bytes (FNV-1a over the key, then a final mix): the key is drawn per
 * process, so no input can choose its collisions. */
static uint64_t hash_bytes(const char *s, size_t n, uint64_t key) {
  uint64_t h = 0xcbf29ce484222325ull ^ key;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

/* Doubles the slot table; 0 or -1. */
static int names_grow(vt_learn_names *n) {
  const uint64_t cap = n->mask ? 2 * (n->mask + 1) : 1024;
  uint64_t *slots = calloc((size_t)cap, sizeof *slots);
  if (!slots) return -1;
  for (uint64_t i = 0; n->slots && i <= n->mask; i++) {
    if (!n->slots[i]) continue;
    uint64_t j = (n->slots[i] >> 32) & (cap - 1);
    while (slots[j]) j = (j + 1) & (cap - 1);
    slots[j] = n->slots[i];
  }
  free(n->slots);
  n->slots = slots;
  n->mask = cap - 1;
  return 0;
}

int32_t vt_learn_names_get(vt_learn_names *n, const char *s, size_t len, int add) {
  if (!n->key) n->key = ((uint64_t)time(NULL) << 20 ^ (uint64_t)getpid() ^ (uint64_t)clock()) | 1;
  if (!n->slots && (!add || names_grow(n))) return -1;
  const uint64_t h = hash_bytes(s, len, n->key) >> 32;
  uint64_t j = h & n->mask;
  for (; n->slots[j]; j = (j + 1) & n->mask) {
    if (n->slots[j] >> 32 != h) continue;
    const int32_t id = (int32_t)(n->slots[j] & 0xffffffffu) - 1;
    if (strlen(n->str[id]) == len && !memcmp(n->str[id], s, len)) return id;
  }
  if (!add || n->n >= INT32_MAX - 1) return -1;
  if (n->n == n->cap) {
    const int32_t cap = n->cap ? 2 * n->cap : 64;
    char **str = realloc(n->str, (size_t)cap * sizeof *str);
    if (!str) return -1;
    n->str = str;
    n->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy) return -1;
  memcpy(copy, s, len);
  copy[len] = '\0';
  const int32_t id = n->n++;
  n->str[id] = copy;
  n->slots[j] = h << 32 | (uint64_t)(id + 1);
  if ((uint64_t)n->n * 2 > n->mask && names_grow(n)) return -1;
  return id;
}

void vt_learn_names_free(vt_learn_names *n) {
  for (int32_t i = 0; i < n->n; i++) free(n->str[i]);
  free(n->str);
  free(n->slots);
  memset(n, 0, sizeof *n);
}

/* Reads one field of an item line from *pos up to a ':', a tab or the end, undoing the escapes
 * \: and \\ as CRFsuite's reader does, into out; returns its length. */
static size_t field_read(const char *line, size_t len, size_t *pos, char *out) {
  size_t n = 0, i = *pos;
  while (i < len && line[i] != ':' && line[i] != '\t') {
    if (line[i] == '\\' && i + 1 < len && (line[i + 1] == ':' || line[i + 1] == '\\')) i++;
    out[n++] = line[i++];
  }
  *pos = i;
  return n;
}

/* Reads a whole file ("-": standard input); NULL (printed) on failure. */
static char *slurp(const char *path, size_t *len) {
  if (strcmp(path, "-")) return vt_cli_read_file(path, MAX_DATA_BYTES, "a data set", len);
  size_t n = 0, cap = 1 << 16;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, stdin);
    if (n < cap) break;
    char *nb = realloc(buf, 2 * cap + 1);
    if (!nb) free(buf);
    buf = nb;
    cap *= 2;
  }
  if (!buf || ferror(stdin)) {
    vt_cli_error("learn: standard input: %s", buf ? strerror(errno) : "out of memory");
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* Appends an instance; 0 or -1. */
static int seq_add(vt_learn_data *d, const char *text, size_t len, int32_t group, int64_t line,
                   int64_t items) {
  if (d->n_seqs == d->cap_seqs) {
    const int64_t cap = d->cap_seqs ? 2 * d->cap_seqs : 1024;
    vt_learn_seq *s = realloc(d->seqs, (size_t)cap * sizeof *s);
    if (!s) return -1;
    d->seqs = s;
    d->cap_seqs = cap;
  }
  d->seqs[d->n_seqs++] = (vt_learn_seq){text, len, group, group, line, items};
  return 0;
}

/* Scans file `g` (its bytes buf[0, len)): its instances, labels and attributes. Returns what
 * crfsuite's reader prints as the file's "Number of instances": its blank lines plus one (the end
 * of the file), empty instances included (its data set keeps only the others), or -1 (printed). */
static int64_t scan(vt_learn_data *d, vt_learn_names *attrs, int32_t g, const char *buf, size_t len,
                    char **scratch, size_t *scratch_cap) {
  int64_t blanks = 0, lineno = 0, seq_line = 0, seq_items = 0;
  const char *p = buf, *end = buf + len, *seq = NULL;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)); /* every line ends in one */
    const size_t n = (size_t)(nl - p);
    const char *next = nl + 1;
    lineno++;
    if (n == 0) { /* a blank line ends the instance */
      blanks++;
      if (seq && seq_add(d, seq, (size_t)(p - seq), g, seq_line, seq_items)) goto nomem;
      seq = NULL;
      p = next;
      continue;
    }
    if (n + 1 > *scratch_cap) {
      char *s = realloc(*scratch, n + 1);
      if (!s) goto nomem;
      *scratch = s;
      *scratch_cap = n + 1;
    }
    if (!seq) {
      seq = p;
      seq_line = lineno;
      seq_items = 0;
    }
    seq_items++;
    size_t pos = 0;
    size_t an = field_read(p, n, &pos, *scratch);
    const int32_t y = vt_learn_names_get(&d->labels, *scratch, an, 1);
    if (y < 0) goto nomem;
    d->items++;
    for (;;) { /* NAME[:VALUE] fields, as the library reads them (a field may begin at a ':') */
      if (pos < n && p[pos] == ':') {
        pos++;
        field_read(p, n, &pos, *scratch); /* the value */
      }
      while (pos < n && p[pos] == '\t') pos++; /* runs of tabs separate the fields */
      if (pos >= n) break;
      an = field_read(p, n, &pos, *scratch);
      if (vt_learn_names_get(attrs, *scratch, an, 1) < 0) goto nomem;
    }
    p = next;
  }
  if (seq && seq_add(d, seq, (size_t)(end - seq), g, seq_line, seq_items)) goto nomem;
  return blanks + 1;
nomem:
  vt_cli_error("learn: %s: out of memory", d->paths[g]);
  return -1;
}

/* Counts the items of each label in each group and the instances per group; 0 or -1. */
static int count_groups(vt_learn_data *d) {
  const size_t L = (size_t)d->labels.n, G = (size_t)d->groups;
  free(d->ref);
  free(d->group_seqs);
  free(d->group_items);
  d->ref = calloc(G * L + 1, sizeof *d->ref);
  d->group_seqs = calloc(G, sizeof *d->group_seqs);
  d->group_items = calloc(G, sizeof *d->group_items);
  char *scratch = NULL;
  size_t cap = 0;
  if (!d->ref || !d->group_seqs || !d->group_items) goto nomem;
  for (int64_t i = 0; i < d->n_seqs; i++) {
    const vt_learn_seq *s = &d->seqs[i];
    d->group_seqs[s->group]++;
    for (const char *p = s->text, *end = s->text + s->len; p < end;) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      const size_t n = (size_t)(nl - p);
      if (n + 1 > cap) {
        char *q = realloc(scratch, n + 1);
        if (!q) goto nomem;
        scratch = q;
        cap = n + 1;
      }
      size_t pos = 0;
      const size_t an = field_read(p, n, &pos, scratch);
      const int32_t y = vt_learn_names_get(&d->labels, scratch, an, 0);
      if (y >= 0) d->ref[(size_t)s->group * L + (size_t)y]++;
      d->group_items[s->group]++;
      p = nl + 1;
    }
  }
  free(scratch);
  return 0;
nomem:
  free(scratch);
  vt_cli_error("learn: out of memory");
  return -1;
}

int vt_learn_data_read(vt_learn_data *d, const char *const *paths, int n, FILE *log) {
  vt_learn_names attrs;
  memset(&attrs, 0, sizeof attrs);
  char *scratch = NULL;
  size_t scratch_cap = 0;
  int rc = -1;
  d->n_files = d->groups = n;
  d->paths = (const char **)paths;
  if (!(d->bufs = calloc((size_t)n, sizeof *d->bufs))) goto nomem;
  fprintf(log, "Reading the data set(s)\n");
  for (int i = 0; i < n; i++) {
    const clock_t c0 = clock();
    size_t len = 0;
    if (!strcmp(paths[i], "-")) {
      if (d->stdin_used) {
        vt_cli_error("learn: standard input ('-') given twice");
        goto out;
      }
      d->stdin_used = 1;
    }
    if (!(d->bufs[i] = slurp(paths[i], &len))) goto out;
    if (len && d->bufs[i][len - 1] != '\n') d->bufs[i][len++] = '\n'; /* room: slurp's + 1 */
    if (len >= 2 && (unsigned char)d->bufs[i][0] == 0x1f && (unsigned char)d->bufs[i][1] == 0x8b) {
      vt_cli_error("learn: %s: a gzip file: learn reads plain item files, as crfsuite (gunzip it, "
                   "or use vitesse train --items)",
                   paths[i]);
      goto out;
    }
    fprintf(log, "[%d] %s\n", i + 1, paths[i]);
    fprintf(log, "0....1....2....3....4....5....6....7....8....9....10\n");
    const int64_t got = scan(d, &attrs, i, d->bufs[i], len, &scratch, &scratch_cap);
    if (got < 0) goto out;
    fprintf(log, "Number of instances: %lld\n", (long long)got);
    fprintf(log, "Seconds required: %.3f\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
  }
  fprintf(log, "\n");
  d->n_attrs = attrs.n;
  rc = count_groups(d);
  goto out;
nomem:
  vt_cli_error("learn: out of memory");
out:
  free(scratch);
  vt_learn_names_free(&attrs);
  return rc;
}

void vt_learn_data_split(vt_learn_data *d, int32_t split) {
  const int64_t N = d->n_seqs;
  for (int64_t i = 0; i < N; i++) { /* crfsuite's shuffle: rand() from its default seed */
    const int64_t j = rand() % N;
    const vt_learn_seq t = d->seqs[i];
    d->seqs[i] = d->seqs[j];
    d->seqs[j] = t;
  }
  for (int64_t i = 0; i < N; i++) d->seqs[i].group = (int32_t)(i % split);
  d->groups = split;
  count_groups(d); /* out of memory: printed; the refs stay zero */
}

/* Writes the instances for which (group == g) == want to path; 0 or -1 (printed). */
static int write_part(const vt_learn_data *d, int32_t g, int want, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    vt_cli_error("learn: %s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  for (int64_t i = 0; i < d->n_seqs; i++) {
    const vt_learn_seq *s = &d->seqs[i];
    if ((s->group == g) != want) continue;
    fwrite(s->text, 1, s->len, f);
    fputc('\n', f);
  }
  const int bad = ferror(f) | (fclose(f) != 0);
  if (bad) vt_cli_error("learn: %s: cannot write: %s", path, strerror(errno));
  return bad ? -1 : 0;
}

int vt_learn_data_write(const vt_learn_data *d, int32_t holdout, const char *train_path,
                        const char *test_path) {
  if (write_part(d, holdout, 0, train_path)) return -1;
  return holdout >= 0 ? write_part(d, holdout, 1, test_path) : 0;
}

int vt_learn_data_where(const vt_learn_data *d, int32_t holdout, int want, uint64_t line,
                        int32_t *file, uint64_t *orig) {
  uint64_t first = 1; /* the part's line of the instance's first item */
  for (int64_t i = 0; i < d->n_seqs; i++) {
    const vt_learn_seq *s = &d->seqs[i];
    if ((s->group == holdout) != want) continue;
    const uint64_t n = (uint64_t)s->items + 1; /* its items and the blank line after them */
    if (line < first + n) {
      *file = s->file;
      *orig = (uint64_t)s->line + (line - first);
      return 0;
    }
    first += n;
  }
  return -1;
}

void vt_learn_data_release_text(vt_learn_data *d) {
  for (int i = 0; d->bufs && i < d->n_files; i++) {
    free(d->bufs[i]);
    d->bufs[i] = NULL;
  }
  free(d->seqs);
  d->seqs = NULL;
  d->cap_seqs = 0; /* n_seqs still counts them */
}

void vt_learn_data_free(vt_learn_data *d) {
  for (int i = 0; d->bufs && i < d->n_files; i++) free(d->bufs[i]);
  free(d->bufs);
  free(d->seqs);
  free(d->ref);
  free(d->group_seqs);
  free(d->group_items);
  vt_learn_names_free(&d->labels);
  memset(d, 0, sizeof *d);
}
