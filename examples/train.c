/* examples/train.c: train a small tagger from sentences held in memory, then tag with it.
 *
 *   train MODEL          trains on the built-in corpus, writes MODEL, tags the corpus with it
 *   train --corpus       prints the built-in corpus (word TAB label, a blank line per sentence)
 *   train --templates    prints the feature templates
 *
 * The same corpus and templates given to `vitesse train --epochs 5 --seed 1` give the same model
 * file, byte for byte. */
#include <stdio.h>
#include <string.h>

#include <vitesse.h>

/* A toy part-of-speech task: after "the" or "a" a word is a noun, after "will" a verb. */
static const char *const CORPUS[][12] = {
    {"the", "DT", "dog", "NN", "runs", "VB", NULL},
    {"a", "DT", "cat", "NN", "will", "MD", "run", "VB", NULL},
    {"the", "DT", "run", "NN", "ends", "VB", NULL},
    {"dogs", "NN", "will", "MD", "walk", "VB", NULL},
    {"a", "DT", "walk", "NN", "helps", "VB", NULL},
    {"the", "DT", "cat", "NN", "will", "MD", "sleep", "VB", NULL},
};
enum { N_SENT = sizeof CORPUS / sizeof CORPUS[0] };

static const char TEMPLATES[] = "U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[-1,0]/%x[0,0]\nB\n";

static int32_t tokens(int s) {
  int32_t T = 0;
  while (CORPUS[s][2 * T]) T++;
  return T;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: train MODEL | --corpus | --templates\n");
    return 2;
  }
  if (!strcmp(argv[1], "--templates")) return fputs(TEMPLATES, stdout) < 0;
  if (!strcmp(argv[1], "--corpus")) {
    for (int s = 0; s < N_SENT; s++) {
      for (int32_t t = 0; t < tokens(s); t++)
        printf("%s\t%s\n", CORPUS[s][2 * t], CORPUS[s][2 * t + 1]);
      putchar('\n');
    }
    return 0;
  }
  vt_sentence_in sents[N_SENT];
  for (int s = 0; s < N_SENT; s++) {
    sents[s].cells = CORPUS[s];
    sents[s].T = tokens(s);
    sents[s].ncols = 2;
  }
  int rc = 1;
  vt_model *model = NULL;
  vt_tagger *tagger = NULL;
  vt_train_opts to;
  vt_train_opts_init(&to);
  to.templates = TEMPLATES;
  to.epochs = 5;
  to.seed = 1;
  if (vt_train_tagger_mem(&to, sents, N_SENT, NULL, 0, argv[1], NULL) != VT_OK ||
      vt_model_open(&model, argv[1]) != VT_OK || vt_tagger_create(&tagger, model, NULL) != VT_OK)
    goto done;
  int64_t right = 0, all = 0;
  for (int s = 0; s < N_SENT; s++) {
    int32_t labels[6];
    double score;
    vt_tag_out out;
    memset(&out, 0, sizeof out);
    out.labels = labels;
    out.scores = &score;
    /* Only the word column: the label column is what the model predicts. */
    const char *words[6];
    for (int32_t t = 0; t < sents[s].T; t++) words[t] = CORPUS[s][2 * t];
    if (vt_tagger_tag(tagger, words, sents[s].T, 1, &out) != VT_OK) goto done;
    for (int32_t t = 0; t < sents[s].T; t++) {
      right += !strcmp(vt_model_label_name(model, labels[t]), CORPUS[s][2 * t + 1]);
      all++;
    }
  }
  printf("train: %s: %lld of %lld training tokens tagged right\n", argv[1], (long long)right,
         (long long)all);
  rc = 0;
done:
  if (rc) fprintf(stderr, "train: %s\n", vt_last_error());
  vt_tagger_destroy(tagger);
  vt_model_close(model);
  return rc;
}
