#!/bin/sh
# tests/peer_compare.sh VITESSE DIR: vitesse's labels with the peer models of DIR
# (../shared/peer-models/conll2000-chunk) against the peers' own outputs: with --label-sep tab
# the same bytes as crfpp.out, crfpp.n3v1.out (-v 1 -k 3) and wapiti.out; 1-best labels of
# crfpp.model, crfpp.model.txt (crf_test: crfpp.out) and wapiti.model (wapiti label: wapiti.out)
# on every token, and the 3-best label sequences (crfpp.n3v1.out, wapiti.n3.out) equal to the
# engine's own k-best (kbest-viterbi) up to the order of exact ties: the peer's r-th path is one of vitesse's 4 best with
# vitesse's r-th score. Prints one line per comparison; exits 1 on any difference.
set -u
VITESSE=$1
P=$2
W=$(mktemp -d "${TMPDIR:-/tmp}/vt_peer_cmp.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
bad=0

# labels FILE: the last field of every token line, "/suffix" removed (n-best outputs).
labels() { awk 'NF && !/^# / { x = $NF; sub(/\/[^\/]*$/, "", x); print x }' "$1"; }

# the peers' own bytes: wapiti label appends a tab to the line as read; crf_test joins the
# columns with tabs, and with -v 1 -n 3 prints its n-best (its order among exact ties) with its
# probabilities
for c in "crfpp.model crfpp.out" "crfpp.model crfpp.n3v1.out -v 1 -k 3" \
  "crfpp.model.txt crfpp.n3v1.out -v 1 -k 3" "wapiti.model wapiti.out"; do
  set -- $c
  m=$1 ref=$2
  shift 2
  "$VITESSE" tag -m "$P/$m" --label-sep tab "$@" "$P/test.txt" -o "$W/b.txt" || exit 1
  if cmp -s "$W/b.txt" "$P/$ref"; then
    echo "bytes $m --label-sep tab $* vs $ref: identical"
  else
    echo "bytes $m --label-sep tab $* vs $ref: DIFFER"
    bad=1
  fi
done

for m in crfpp.model crfpp.model.txt wapiti.model; do
  case $m in crfpp*) ref=crfpp.out ;; *) ref=wapiti.out ;; esac
  "$VITESSE" tag -m "$P/$m" "$P/test.txt" -o "$W/1.txt" || exit 1
  awk 'NF { print $NF }' "$W/1.txt" >"$W/ours"
  awk 'NF { print $NF }' "$P/$ref" >"$W/theirs"
  n=$(wc -l <"$W/ours")
  d=$(paste -d ' ' "$W/ours" "$W/theirs" | awk '$1 != $2 { d++ } END { print d + 0 }')
  s=$(awk 'BEGIN { s = 0 } !NF { s++ } END { print s }' "$P/test.txt")
  echo "1-best $m vs $ref: $d of $n tokens differ ($s sentences)"
  [ "$d" -eq 0 ] || bad=1
done

for m in crfpp.model wapiti.model; do
  case $m in crfpp*) ref=crfpp.n3v1.out ;; *) ref=wapiti.n3.out ;; esac
  "$VITESSE" tag -m "$P/$m" -k 4 --algo kbest-viterbi "$P/test.txt" -o "$W/4.txt" || exit 1
  r=$(awk -v K=4 -v N=3 '
    function lab(x) { sub(/\/[^\/]*$/, "", x); return x }
    FNR == 1 { f++; b = -1 }
    /^# / { b++; sc[f, b] = $3; next }
    NF { sq[f, b] = sq[f, b] " " lab($NF); next }
    END {
      nb = b + 1; ns = 0; diff = 0; reord = 0
      for (i = 0; i < nb; i += N) {
        s = i / N; ns++
        for (r = 0; r < N; r++) {
          p = sq[2, i + r]; found = -1
          for (j = 0; j < K; j++) if (sq[1, s * K + j] == p) found = j
          if (found < 0 || sc[1, s * K + found] != sc[1, s * K + r]) { diff++; print "sentence " s + 1 " rank " r ": not among the exact ties" > "/dev/stderr" }
          else if (found != r) reord++
        }
      }
      print ns " sentences, " diff " paths differ, " reord " in another order among exact ties"
      exit diff > 0
    }' "$W/4.txt" "$P/$ref") || bad=1
  echo "3-best $m vs $ref: $r"
done
exit $bad
