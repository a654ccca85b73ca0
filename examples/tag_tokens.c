/* examples/tag_tokens.c: tag sentences held in memory, the 5 best label sequences of each.
 *
 *   tag_tokens MODEL     prints each sentence once per path, after "# RANK SCORE", with its
 *                        label as a last column: the bytes of `vitesse tag -m MODEL -k 5` on
 *                        the same sentences
 *   tag_tokens --corpus  prints the sentences as a one-column corpus
 *
 * One model is shared read-only by any number of threads; each thread tags through its own
 * vt_tagger, which allocates nothing once it has seen its longest sentence. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <vitesse.h>

static const char *const SENTENCES[][8] = {
    {"the", "dog", "will", "run", NULL},
    {"a", "cat", "walks", NULL},
    {"dogs", "sleep", NULL},
    {"the", "walk", "will", "end", "soon", NULL},
};
enum { N_SENT = sizeof SENTENCES / sizeof SENTENCES[0], K = 5, MAX_T = 8 };

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tag_tokens MODEL | --corpus\n");
    return 2;
  }
  int corpus = !strcmp(argv[1], "--corpus"), rc = 1;
  vt_model *model = NULL;
  vt_tagger *tagger = NULL;
  if (!corpus) {
    vt_decode_opts opts;
    if (vt_model_open(&model, argv[1]) != VT_OK) goto done;
    vt_model_default_decoder(model, K, &opts); /* the fastest exact k-best decoder */
    if (vt_tagger_create(&tagger, model, &opts) != VT_OK) goto done;
  }
  for (int s = 0; s < N_SENT; s++) {
    const char *const *words = SENTENCES[s];
    int32_t T = 0;
    while (words[T]) T++;
    if (corpus) {
      for (int32_t t = 0; t < T; t++) printf("%s\n", words[t]);
      putchar('\n');
      continue;
    }
    int32_t labels[K * MAX_T];
    double scores[K];
    vt_tag_out out;
    memset(&out, 0, sizeof out);
    out.labels = labels;
    out.scores = scores;
    if (vt_tagger_tag(tagger, words, T, 1, &out) != VT_OK) goto done;
    for (int32_t p = 0; p < (out.n_paths > 0 ? out.n_paths : 1); p++) {
      printf("# %d %.9g\n", p, out.n_paths > 0 ? scores[p] : -INFINITY);
      for (int32_t t = 0; t < T; t++)
        printf("%s %s\n", words[t],
               out.n_paths > 0 ? vt_model_label_name(model, labels[p * T + t]) : "_");
      if (p + 1 < out.n_paths) putchar('\n');
    }
    putchar('\n');
  }
  rc = 0;
done:
  if (rc) fprintf(stderr, "tag_tokens: %s\n", vt_last_error());
  vt_tagger_destroy(tagger);
  vt_model_close(model);
  return rc;
}
