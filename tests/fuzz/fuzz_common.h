/* tests/fuzz/fuzz_common.h: what every fuzz target shares.
 *
 * Each tests/fuzz/fuzz_<target>.c defines LLVMFuzzerTestOneInput and includes this header last.
 *   - fz_file(): a memfd (an anonymous regular file, mmap-able) reached as /proc/self/fd/N, one
 *     per slot and process, rewritten with each input: the file-based parsers read the bytes
 *     without leaving anything on disk.
 *   - fz_seal(): prepares a copy of a model container (io/binfile.h) so that the mutated bytes
 *     reach the section parsers: the header's file-size field is set to the input's size; in a
 *     build without VT_FUZZ_NO_CHECKSUM (the plain replay programs) every CRC is recomputed too,
 *     which gives the input the same meaning as in the fuzzing build, whose io/binfile.c skips
 *     the CRC comparisons. So a crash found by the fuzzer replays in every build.
 *   - without VT_LIBFUZZER (the normal and sanitizer builds), a main() that runs every named
 *     file, or every file of every named directory, through LLVMFuzzerTestOneInput: the seed
 *     corpora (tests/fuzz/seeds/TARGET) are replayed as CTests (label badinput). */
#ifndef VT_TESTS_FUZZ_FUZZ_COMMON_H
#define VT_TESTS_FUZZ_FUZZ_COMMON_H

/* Every fuzz_TARGET.c defines _GNU_SOURCE (memfd_create) before its first include. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/binfile.h"

/* The model memory bound of the model targets (vt_model_memory_limit_set): an input declaring
 * thousands of labels is refused as the CLI refuses it over --max-model-memory, instead of
 * spending each execution on L x L tables (at most 362 labels load): the parsers are the target. */
#define FZ_MODEL_MEMORY ((uint64_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_SLOTS 8

/* Writes the n bytes at p to file slot `slot` (0..FZ_SLOTS-1) and returns its path (valid until
 * the next call for that slot), or NULL when the slot cannot be made. */
static inline const char *fz_file(int slot, const void *p, size_t n) {
  static int fd[FZ_SLOTS] = {-1, -1, -1, -1, -1, -1, -1, -1};
  static char path[FZ_SLOTS][40];
  if (fd[slot] < 0) {
    fd[slot] = memfd_create("vt_fuzz", 0);
    if (fd[slot] < 0) return NULL;
    snprintf(path[slot], sizeof path[slot], "/proc/self/fd/%d", fd[slot]);
  }
  if (ftruncate(fd[slot], 0) != 0) return NULL;
  const char *b = p;
  size_t done = 0;
  while (done < n) {
    ssize_t w = pwrite(fd[slot], b + done, n - done, (off_t)done);
    if (w <= 0) return NULL;
    done += (size_t)w;
  }
  return path[slot];
}

/* A copy of the input (the caller frees it) with its binfile header made consistent: see the
 * comment at the top. Inputs shorter than the header are copied unchanged. */
static inline unsigned char *fz_seal(const uint8_t *data, size_t size) {
  unsigned char *b = malloc(size ? size : 1);
  if (!b) return NULL;
  if (size) memcpy(b, data, size);
  if (size < VT_BINFILE_HEADER) return b;
  vt_bin_put64(b + 16, (uint64_t)size);
#ifndef VT_FUZZ_NO_CHECKSUM
  uint32_t n_sec = vt_bin_get32(b + 12);
  if (n_sec < 1 || n_sec > VT_BINFILE_MAX_TABLE ||
      VT_BINFILE_HEADER + (uint64_t)n_sec * VT_BINFILE_ENTRY > size)
    return b;
  for (uint32_t i = 0; i < n_sec; i++) {
    unsigned char *e = b + VT_BINFILE_HEADER + (size_t)i * VT_BINFILE_ENTRY;
    uint64_t off = vt_bin_get64(e + 8), n = vt_bin_get64(e + 16);
    if (off <= size && n <= size - off) vt_bin_put32(e + 24, vt_bin_crc(0, b + off, n));
  }
  vt_bin_put32(b + 24, 0);
  vt_bin_put32(b + 24, vt_bin_crc(0, b, VT_BINFILE_HEADER + (uint64_t)n_sec * VT_BINFILE_ENTRY));
#endif
  return b;
}

#ifndef VT_LIBFUZZER
/* Runs one file through the target; returns 0, or 1 when it cannot be read. */
static int fz_run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  unsigned char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (n == cap) {
      unsigned char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    if (r == 0) break;
    n += r;
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (!bad) {
    /* An exact-size copy, so that ASan sees any read past the input's end. */
    unsigned char *exact = malloc(n ? n : 1);
    if (exact) {
      if (n) memcpy(exact, buf, n);
      LLVMFuzzerTestOneInput(exact, n);
      free(exact);
    } else
      bad = 1;
  }
  free(buf);
  if (bad) fprintf(stderr, "%s: cannot read\n", path);
  return bad;
}

static int fz_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int bad = 0, runs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
      DIR *d = opendir(argv[i]);
      if (!d) {
        fprintf(stderr, "%s: cannot open\n", argv[i]);
        bad = 1;
        continue;
      }
      char **names = NULL;
      size_t n = 0, cap = 0;
      struct dirent *de;
      while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (n == cap) {
          char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
          if (!nn) break;
          names = nn;
        }
        size_t len = strlen(argv[i]) + strlen(de->d_name) + 2;
        if (!(names[n] = malloc(len))) break;
        snprintf(names[n++], len, "%s/%s", argv[i], de->d_name);
      }
      closedir(d);
      if (n) qsort(names, n, sizeof *names, fz_cmp); /* a fixed order: reproducible runs */
      for (size_t k = 0; k < n; k++) {
        bad |= fz_run_file(names[k]);
        runs++;
        free(names[k]);
      }
      free(names);
    } else {
      bad |= fz_run_file(argv[i]);
      runs++;
    }
  }
  printf("%s: %d inputs run\n", argv[0], runs);
  return bad || runs == 0;
}
#endif

#endif
