# tests/crf_learn/corpus.awk: a small chunked corpus (word POS chunk, space-separated, a blank
# line after each sentence) for crf_learn's tests, the same on every awk: its own generator
# (x = 75 x + 74 mod 65537, exact in doubles). -v N=sentences (30), -v SEED=start (1).
function rnd(k) {
  x = (x * 75 + 74) % 65537
  return x % k
}
BEGIN {
  n = N ? N : 30
  x = SEED ? SEED : 1
  split("the a this dog cat house runs sees eats big red quickly and of in to", W, " ")
  split("DT DT DT NN NN NN VB VB VB JJ JJ RB CC IN IN IN", P, " ")
  for (s = 0; s < n; s++) {
    T = 2 + rnd(8)
    prev = "O"
    for (t = 0; t < T; t++) {
      i = 1 + rnd(16)
      p = P[i]
      if (p == "DT") lab = "B-NP"
      else if (p == "JJ" || p == "NN") lab = prev ~ /NP/ ? "I-NP" : "B-NP"
      else if (p == "VB" || p == "RB") lab = prev ~ /VP/ ? "I-VP" : "B-VP"
      else if (p == "IN") lab = "B-PP"
      else lab = "O"
      if (rnd(10) == 0) lab = "O"
      print W[i], p, lab
      prev = lab
    }
    print ""
  }
}
