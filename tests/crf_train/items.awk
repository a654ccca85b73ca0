# Deterministic synthetic CRFsuite items: N sequences; labels follow the word class with noise
# and a transition preference; attributes with values and escapes.
BEGIN {
  s = 12345; if (N == "") N = 60
  split("B-NP I-NP O B-VP I-VP", lab, " ")
  for (i = 0; i < N; i++) {
    s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 2147483648 * 9)
    prev = 3
    for (t = 0; t < T; t++) {
      s = (s * 1103515245 + 12345) % 2147483648; w = int(s / 2147483648 * 23)
      s = (s * 1103515245 + 12345) % 2147483648; r = s / 2147483648
      y = (w % 5) + 1; if (r < 0.25) y = (prev % 5) + 1
      prev = y
      printf "%s\tw=%d\tc=%d\tsuf:%d:%.2f\tx\\:y", lab[y], w, w % 4, w % 3, 0.5 + (w % 4) / 4
      if (t == 0) printf "\t__BOS__"
      if (t > 0) printf "\tpw=%d", pw
      pw = w
      printf "\n"
    }
    printf "\n"
  }
}
