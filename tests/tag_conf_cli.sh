#!/bin/sh
# tests/tag_conf_cli.sh VITESSE: `vitesse tag-dict` and `vitesse tag -v 1|2` (CRF++ layout: "# PROB" lines, LABEL/P
# columns, every label with -v 2, "# RANK PROB" with -k) and allowed labels (--tag-dict,
# --partial-col, --forbid-transitions, --bio): the output obeys them, is the same bytes for
# --threads 1 and 2, a sentence without a path prints "# 0" and "_/0", and bad files stop with
# "FILE:LINE: problem", exit status 2 and no -o file.
set -u
VITESSE=$1
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_tagconf.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
fails=0
fail() {
  printf 'tag_conf_cli: FAIL: %s\n' "$*" >&2
  fails=$((fails + 1))
}
# a toy corpus: word, POS; the POS depends on the word and the one before
awk 'BEGIN { srand(3); split("the dog runs big fast a cat", w, " "); split("DT NN VB JJ RB", t, " ")
  for (s = 0; s < 80; s++) { p = 0; n = 2 + int(rand() * 6)
    for (i = 0; i < n; i++) { k = 1 + int(rand() * 7); print w[k], t[1 + (k + p) % 5]; p = k }
    print "" } }' >"$base/train.txt"
printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nB\n' >"$base/t.tmpl"
"$VITESSE" train --template "$base/t.tmpl" --train "$base/train.txt" --epochs 3 \
  -o "$base/pos.model" >/dev/null 2>&1 || { fail train; exit 1; }
awk 'NF { print $1 } !NF { print "" }' "$base/train.txt" | head -60 >"$base/test.txt"
echo >>"$base/test.txt"

# -v 1: "# P" then "word LABEL/P"; -v 2: then 5 more LABEL/P fields
"$VITESSE" tag -m "$base/pos.model" -v 1 "$base/test.txt" >"$base/v1" || fail "-v 1"
awk '/^# / { if (NF != 2 || $2 < 0 || $2 > 1) bad = 1; next }
  NF { if (NF != 2 || $2 !~ /^[A-Z]+\/[0-9.e-]+$/) bad = 1 } END { exit bad }' "$base/v1" ||
  fail "-v 1 layout: $(head -3 "$base/v1")"
"$VITESSE" tag -m "$base/pos.model" "$base/test.txt" >"$base/v0"
sed -e '/^# /d' -e 's|/[0-9.e-]*$||' "$base/v1" | cmp -s - "$base/v0" ||
  fail "-v 1 labels differ from the plain run's"
"$VITESSE" tag -m "$base/pos.model" -v 2 "$base/test.txt" >"$base/v2" || fail "-v 2"
awk '/^# / { next } NF { if (NF != 7) bad = 1; s = 0
    for (i = 3; i <= 7; i++) { split($i, a, "/"); s += a[2]; if ($2 == $i) hit = 1 }
    if (s < 0.9999 || s > 1.0001 || !hit) bad = 1; hit = 0 } END { exit bad }' "$base/v2" ||
  fail "-v 2: 5 labels whose marginals sum to 1, the predicted one among them: $(sed -n 2p "$base/v2")"
"$VITESSE" tag -m "$base/pos.model" -v 1 -k 3 --algo kbest-viterbi "$base/test.txt" >"$base/vk" ||
  fail "-v 1 -k 3"
awk '/^# / { if (NF != 3) bad = 1; if ($2 > 0 && $3 > prev + 1e-9) bad = 1; prev = $3 }
  END { exit bad }' "$base/vk" || fail "-k 3 -v 1: '# RANK PROB', non-increasing"

# a dictionary, partial labels in column 1, IOB-free forbidden transitions
printf 'dog NN JJ\nthe DT\n' >"$base/dict"
awk 'NF { print $1, ($1 == "runs" ? "RB" : "_") } !NF { print "" }' "$base/test.txt" >"$base/part.txt"
"$VITESSE" tag -m "$base/pos.model" --tag-dict "$base/dict" --partial-col 1 -v 1 \
  "$base/part.txt" --threads 1 -o "$base/c1" 2>"$base/err" || fail "constrained: $(cat "$base/err")"
"$VITESSE" tag -m "$base/pos.model" --tag-dict "$base/dict" --partial-col 1 -v 1 \
  "$base/part.txt" --threads 2 --batch-tokens 5 -o "$base/c2" || fail "constrained, 2 threads"
cmp -s "$base/c1" "$base/c2" || fail "constrained output differs between thread counts"
awk '$1 == "dog" && $3 !~ /^(NN|JJ)\// { bad = 1 } $1 == "the" && $3 !~ /^DT\// { bad = 1 }
  $1 == "runs" && $3 != "RB/1" { bad = 1 } END { exit bad }' "$base/c1" ||
  fail "constraints not obeyed: $(head -5 "$base/c1")"

# no path: runs is RB, and RB may not be followed by anything
printf 'RB DT\nRB NN\nRB VB\nRB JJ\nRB RB\nRB </s>\n' >"$base/forbid"
printf 'the _\nruns RB\ndog _\n\n' >"$base/nopath.txt"
"$VITESSE" tag -m "$base/pos.model" --partial-col 1 --forbid-transitions "$base/forbid" -v 1 \
  "$base/nopath.txt" >"$base/np" 2>"$base/err" || fail "no path: $(cat "$base/err")"
printf '# 0\nthe _ _/0\nruns RB _/0\ndog _ _/0\n\n' | cmp -s - "$base/np" ||
  fail "no path output: $(cat "$base/np")"

# --bio on a chunk model: never O -> I-NP, never I-NP first
awk 'NF { print $1, ($2 == "DT" ? "B-NP" : $2 == "NN" ? "I-NP" : "O") } !NF { print "" }' \
  "$base/train.txt" >"$base/chunk.txt"
"$VITESSE" train --template "$base/t.tmpl" --train "$base/chunk.txt" --epochs 1 \
  -o "$base/chunk.model" >/dev/null 2>&1 || fail "train chunk"
"$VITESSE" tag -m "$base/chunk.model" --bio "$base/test.txt" >"$base/bio" || fail "--bio"
awk 'NF == 0 { prev = "" ; next } $2 == "I-NP" && (prev == "" || prev == "O") { bad = 1 }
  { prev = $2 } END { exit bad }' "$base/bio" || fail "--bio output has an invalid transition"

# vitesse tag-dict: every label of each word, first appearances first; tagging with it
"$VITESSE" tag-dict "$base/train.txt" -o "$base/train.dict" || fail "tag-dict"
awk 'NF { if (!(($1, $2) in s)) { s[$1, $2]; if (!($1 in d)) o[++n] = $1; d[$1] = d[$1] " " $2 } }
  END { for (i = 1; i <= n; i++) print o[i] d[o[i]] }' "$base/train.txt" |
  cmp -s - "$base/train.dict" || fail "tag-dict output: $(head -3 "$base/train.dict")"
"$VITESSE" tag -m "$base/pos.model" --tag-dict "$base/train.dict" "$base/test.txt" >"$base/td" ||
  fail "tag with the tag-dict dictionary"
awk 'NR == FNR { for (i = 2; i <= NF; i++) ok[$1, $i] = 1; next }
  NF && !(($1, $2) in ok) { bad = 1 } END { exit bad }' "$base/train.dict" "$base/td" ||
  fail "a label outside the dictionary"
# with one or two labels a word, every exact decoder goes over the allowed labels only (--stats:
# sparse_sentences), with the same labels as the scalar reference, which never does
awk '{ print $1, $2, ($1 == "dog" ? $3 : "") }' "$base/train.dict" >"$base/one.dict"
"$VITESSE" tag -m "$base/pos.model" --tag-dict "$base/one.dict" --algo viterbi-scalar \
  "$base/test.txt" >"$base/td_ref" || fail "tag-dict with viterbi-scalar"
for a in viterbi staggered staggered-col astar iter-astar viterbi-astar iter-viterbi-astar carpediem; do
  "$VITESSE" tag -m "$base/pos.model" --tag-dict "$base/one.dict" --algo "$a" --stats \
    "$base/test.txt" >"$base/td_$a" 2>"$base/td_$a.stats" || fail "tag-dict with $a"
  cmp -s "$base/td_ref" "$base/td_$a" || fail "tag-dict with $a: not the reference's labels"
  grep -q '"sparse_sentences": [1-9]' "$base/td_$a.stats" ||
    fail "tag-dict with $a: no sentence went over the allowed labels: $(cat "$base/td_$a.stats")"
done
"$VITESSE" tag-dict "$base/nonexistent" >/dev/null 2>&1
[ $? -eq 2 ] || fail "tag-dict of a missing file: not exit status 2"
"$VITESSE" tag-dict --word-col 7 "$base/train.txt" -o "$base/x.dict" 2>"$base/err"
[ $? -eq 2 ] && grep -q "train.txt:1:" "$base/err" && [ ! -e "$base/x.dict" ] ||
  fail "tag-dict --word-col 7: $(cat "$base/err")"

# bad inputs: one line FILE:LINE, exit 2, no -o file
check_bad() { # LABEL EXPECTED-TEXT ARGS...
  label=$1 want=$2
  shift 2
  rm -f "$base/out"
  "$VITESSE" tag -m "$base/pos.model" "$@" -o "$base/out" "$base/part.txt" 2>"$base/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "$label: exit status $rc"
  [ "$(wc -l <"$base/err")" -eq 1 ] || fail "$label: not one line: $(cat "$base/err")"
  grep -q -- "$want" "$base/err" || fail "$label: message '$(cat "$base/err")' lacks '$want'"
  [ ! -e "$base/out" ] || fail "$label: left an output file"
}
printf 'dog NN\ncat QQ\n' >"$base/bad.dict"
check_bad "unknown dictionary label" "bad.dict:2: 'QQ' is not a label" --tag-dict "$base/bad.dict"
printf 'dog\n' >"$base/bad2.dict"
check_bad "word without labels" "bad2.dict:1:" --tag-dict "$base/bad2.dict"
check_bad "missing dictionary" "nonexistent" --tag-dict "$base/nonexistent"
printf 'DT NN\nNN\n' >"$base/bad.forbid"
check_bad "forbid: one field" "bad.forbid:2:" --forbid-transitions "$base/bad.forbid"
check_bad "partial column missing" "part.txt:1: no column 5" --partial-col 5
check_bad "word column missing" "part.txt:1: no column 4 for dictionary words" \
  --tag-dict "$base/dict" --dict-col 4
check_bad "bad -v" "-v" -v 3
awk 'NF { print $1, ($1 == "dog" ? "XX" : "_") } !NF { print "" }' "$base/test.txt" >"$base/p2.txt"
rm -f "$base/out"
"$VITESSE" tag -m "$base/pos.model" --partial-col 1 "$base/p2.txt" -o "$base/out" 2>"$base/err"
[ $? -eq 2 ] && grep -q "p2.txt:[0-9]*: partial label 'XX' is not a label" "$base/err" &&
  [ ! -e "$base/out" ] || fail "unknown partial label: $(cat "$base/err")"

for o in -v --tag-dict --dict-col --partial-col --forbid-transitions --bio; do
  "$VITESSE" tag --help | grep -q -- "$o" || fail "tag --help lacks $o"
done
[ "$fails" -eq 0 ] && echo "tag_conf_cli: ok"
exit "$fails"
