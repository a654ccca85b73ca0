# perf/crfsuite_pos_items.awk: the 44-label POS items of perf/README.md ("POS44"): conll2000
# (word POS chunk) -> CRFsuite items labelled with the POS tag; ten attributes a token: the words
# at -2..2 (none past the sentence's ends), the last three and two letters, the first two, and
# the previous word with this one; ':' and '\' escaped.
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/:/, "\\:", s); return s }
function flush(   i, j, line) {
  for (i = 1; i <= n; i++) {
    line = lab[i]
    for (j = -2; j <= 2; j++) if (i + j >= 1 && i + j <= n) line = line "\tw[" j "]=" esc(w[i + j])
    line = line "\ts3=" esc(substr(w[i], length(w[i]) - 2)) "\ts2=" esc(substr(w[i], length(w[i]) - 1))
    line = line "\tp2=" esc(substr(w[i], 1, 2))
    if (i > 1) line = line "\tw[-1]|w[0]=" esc(w[i - 1] "|" w[i])
    print line
  }
  if (n) print ""
  n = 0
}
NF == 0 { flush(); next }
{ n++; w[n] = $1; lab[n] = $2 }
END { flush() }
