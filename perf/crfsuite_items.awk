# perf/crfsuite_items.awk: the joint POS|chunk CRFsuite model of perf/README.md ("CRFsuite models"):
# conll2000 (word POS chunk) -> CRFsuite items: label POS|chunk, attributes from the words only
# (w[-2..2], bigrams w[-1]/w[0], w[0]/w[1]); ':' and '\' escaped.
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/:/, "\\:", s); return s }
function flush(   i, j, line) {
  for (i = 1; i <= n; i++) {
    line = esc(lab[i])
    for (j = -2; j <= 2; j++) line = line "\tw[" j "]=" esc(i + j < 1 ? "_B" (i + j - 1) : i + j > n ? "_B+" (i + j - n) : w[i + j])
    line = line "\tw[-1]/w[0]=" esc((i > 1 ? w[i - 1] : "_B-1") "/" w[i])
    line = line "\tw[0]/w[1]=" esc(w[i] "/" (i < n ? w[i + 1] : "_B+1"))
    print line
  }
  if (n) print ""
  n = 0
}
NF == 0 { flush(); next }
{ n++; w[n] = $1; lab[n] = $2 "|" $3 }
END { flush() }
