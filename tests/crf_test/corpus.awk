# tests/crf_test/corpus.awk: the corpus tagged with the models of `test_peer --write-fixtures`
# (awk -v N=100 -f corpus.awk): N sentences of 1-7 tokens "WORD TAG" over the models'
# vocabulary and one word they never saw. Columns are separated as crf_test accepts them: one
# space, runs of spaces, a tab, blanks and tabs mixed; the first line by one space. Deterministic
# (a small linear congruential generator, exact in any awk).
function rnd(n) { x = (x * 75 + 74) % 65537; return x % n }
BEGIN {
  x = 12345
  split("a b Cc dD zz", W, " ")
  split("X Y", P, " ")
  split(" |  |\t| \t |\t\t", S, "|")
  for (s = 0; s < N; s++) {
    T = 1 + rnd(7)
    for (t = 0; t < T; t++) {
      sep = (s == 0 && t == 0) ? " " : S[1 + rnd(5)]
      print W[1 + rnd(5)] sep P[1 + rnd(2)]
    }
    print ""
  }
}
