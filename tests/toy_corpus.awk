# tests/toy_corpus.awk: a corpus of N sentences of "word tag label" lines (8 words), a blank line
# after each, for the tag and train tests (filter_cli.sh, omp_cli.sh): the label is a function of
# the word and of the previous word, so the template U01:%x[-1,0]/%x[0,0] separates it exactly.
# -v N=sentences, -v SEED=the generator's start.
BEGIN {
  split("NN VB DT JJ B-NP I-NP O", lab, " ")
  s = SEED
  for (i = 0; i < N; i++) {
    s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 65536) % 9; prev = 9
    for (t = 0; t < T; t++) {
      s = (s * 1103515245 + 12345) % 2147483648; w = int(s / 65536) % 8
      printf "w%d x%d %s\n", w, w % 3, lab[1 + (w * 5 + prev * 3) % 7]; prev = w
    }
    printf "\n"
  }
}
