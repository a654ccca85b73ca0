#!/bin/sh
# tests/text_cli.sh VITESSE CASE: the text-pipeline commands (train, tag, eval, lattice) on a
# small corpus this script writes. Bad-input cases check the contract: exit status 2, exactly
# one line "vitesse: FILE:LINE: problem" (or "vitesse: FILE: problem") on stderr, and no output
# file (nor temp file) left behind.
set -u
SUITE=text_cli
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$HERE/case_env.sh"
mkdir out

# A corpus of N sentences "word tag label": the label is a function of the word and of the
# previous word (so U01 below separates it exactly).
corpus() {
  awk -v n="$1" -v seed="$2" 'BEGIN {
    split("NN VB DT JJ B-NP I-NP O", lab, " ");
    s = seed;
    for (i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 65536) % 9; prev = 9;
      for (t = 0; t < T; t++) {
        s = (s * 1103515245 + 12345) % 2147483648; w = int(s / 65536) % 8;
        printf "w%d x%d %s\n", w, w % 3, lab[1 + (w * 5 + prev * 3) % 7]; prev = w;
      }
      printf "\n";
    }
  }'
}

cat >tmpl <<'T'
# toy templates
U00:%x[0,0]
U01:%x[-1,0]/%x[0,0]
U02:%x[0,1]
U03:%m[0,0,".$"]
B
T

train_toy() {
  corpus 300 7 >train.txt
  "$VITESSE" train --template tmpl --train train.txt --epochs 15 --quiet "$@" -o model.bin \
    2>stderr || fail "train exited $?"
  [ -s model.bin ] || fail "no model written"
}

# expect_bad_input CMD...: exit 2, one stderr line starting "vitesse: ", out/ empty.
expect_bad_input() {
  "$@" >stdout 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit status $rc, want 2"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "stderr has $(wc -l <stderr) lines, want 1"
  grep -q '^vitesse: ' stderr || fail "stderr does not start with 'vitesse: '"
  [ -z "$(ls -A out)" ] || fail "output left behind: $(ls -A out)"
}

case $CASE in
separable)
  # Training reaches 100% on the separable toy task, and tag + eval agree.
  train_toy
  "$VITESSE" tag -m model.bin --threads 1 train.txt -o out/tagged 2>stderr || fail "tag"
  "$VITESSE" eval out/tagged >eval.txt 2>stderr || fail "eval"
  grep -q 'accuracy: 100.00%' eval.txt || fail "not 100%: $(cat eval.txt)"
  # Output lines = input lines plus a label column; sentence breaks kept.
  [ "$(wc -l <out/tagged)" -eq "$(wc -l <train.txt)" ] || fail "line count differs"
  awk 'NF != 0 && NF != 4 { exit 1 }' out/tagged || fail "a token line lacks its label column"
  ;;
threads)
  # Byte-identical output for 1, 2 and 5 threads, and for stdin, .gz and plain input.
  train_toy
  corpus 500 11 >test.txt
  for th in 1 2 5; do
    "$VITESSE" tag -m model.bin --threads $th test.txt -o out/t$th 2>stderr || fail "tag $th"
  done
  cmp -s out/t1 out/t2 || fail "1 and 2 threads differ"
  cmp -s out/t1 out/t5 || fail "1 and 5 threads differ"
  "$VITESSE" tag -m model.bin --threads 3 <test.txt >stdin.out 2>stderr || fail "tag stdin"
  cmp -s out/t1 stdin.out || fail "stdin output differs"
  if command -v gzip >/dev/null 2>&1; then
    gzip -c test.txt >test.txt.gz
    "$VITESSE" tag -m model.bin --threads 2 test.txt.gz -o gz.out 2>stderr || fail "tag .gz"
    cmp -s out/t1 gz.out || fail ".gz output differs"
    "$VITESSE" tag -m model.bin --threads 1 --stats test.txt.gz -o gz1.out 2>stats ||
      fail "tag .gz, one worker"
    cmp -s out/t1 gz1.out || fail ".gz output of one worker differs"
    grep -q '"bind": "core"' stats || fail "one worker on .gz: its own thread, bound: $(cat stats)"
  fi
  # One worker on a plain file: the calling thread works every batch and reads no topology
  # (--stats: bind none, the worker on no PU); on standard input it has a thread of its own,
  # placed as --bind says. The same bytes either way.
  "$VITESSE" tag -m model.bin --threads 1 --stats test.txt -o out/s1 2>stats || fail "tag --stats"
  cmp -s out/t1 out/s1 || fail "--stats output differs"
  grep -q '"bind": "none"' stats && grep -q '"pu_os": -1' stats ||
    fail "one worker on a plain file: no topology, no binding: $(cat stats)"
  "$VITESSE" tag -m model.bin --threads 1 --stats <test.txt >stdin1.out 2>stats ||
    fail "tag stdin, one worker"
  cmp -s out/t1 stdin1.out || fail "stdin output of one worker differs"
  grep -q '"bind": "core"' stats || fail "one worker on stdin: its own thread, bound: $(cat stats)"
  for a in viterbi viterbi-scalar kbest-viterbi staggered staggered-col; do
    "$VITESSE" tag -m model.bin --algo $a --threads 2 test.txt -o algo.out 2>stderr || continue
    cmp -s out/t1 algo.out || fail "exact decoder $a gives other labels"
  done
  ;;
kbest)
  # -k 3: each sentence three times, each after "# RANK SCORE", scores non-increasing.
  train_toy
  printf 'w1 x1 NN\nw2 x2 NN\n\nw3 x0 NN\n' >two.txt
  "$VITESSE" tag -m model.bin -k 3 two.txt -o out/k 2>stderr || fail "tag -k"
  [ "$(grep -c '^# ' out/k)" -eq 6 ] || fail "want 6 '# RANK SCORE' lines: $(cat out/k)"
  awk '/^# / { if ($2 != r % 3) exit 1; if (r % 3 && $3 > last) exit 1; last = $3; r++ }' \
    out/k || fail "ranks or scores out of order: $(cat out/k)"
  [ "$(sed -n 2p out/k | awk '{print NF}')" -eq 4 ] || fail "token line: $(sed -n 2p out/k)"
  # Every k-best decoder of `vitesse decode` tags with its own options, to the same 3 best.
  for d in "kbest-viterbi" "viterbi-astar" "iter-viterbi-astar" \
    "iter-viterbi-astar --refine expand --kprime 4" "astar --heuristic m0" \
    "astar --heuristic naive"; do
    # shellcheck disable=SC2086
    "$VITESSE" tag -m model.bin -k 3 --algo $d two.txt -o out/d 2>stderr || fail "tag --algo $d"
    cmp -s out/k out/d || fail "--algo $d: other 3 best: $(cat out/d)"
  done
  if "$VITESSE" tag -m model.bin -k 3 --algo staggered two.txt >/dev/null 2>stderr; then
    fail "-k 3 with a 1-best decoder accepted"
  fi
  grep -q "returns one path" stderr || fail "-k with staggered: $(cat stderr)"
  "$VITESSE" tag -m model.bin -k 3 --algo iter-viterbi-astar --refine sideways two.txt \
    >/dev/null 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] || fail "--refine sideways: exit status $rc, expected 2"
  grep -q "refine: expected split|expand" stderr || fail "--refine sideways: $(cat stderr)"
  ;;
eval_conlleval)
  # The hand-worked IOB2 example of test_conlleval, through the CLI.
  printf 'a x B-NP B-NP\nb x I-NP I-NP\nc x B-VP B-VP\nd x B-NP I-NP\n' >t.txt
  printf 'e x O O\nf x B-PP B-NP\ng x B-NP B-NP\n' >>t.txt
  "$VITESSE" eval --chunk t.txt >e.txt 2>stderr || fail "eval"
  cat >want.txt <<'W'
sentences: 1, exactly right: 0 (0.00%)
tokens: 7, correct: 5, accuracy: 71.43%
processed 7 tokens with 5 phrases; found: 5 phrases; correct: 4.
accuracy:  71.43%; precision:  80.00%; recall:  80.00%; FB1:  80.00
               NP: precision:  75.00%; recall: 100.00%; FB1:  85.71  4
               PP: precision:   0.00%; recall:   0.00%; FB1:   0.00  0
               VP: precision: 100.00%; recall: 100.00%; FB1: 100.00  1
W
  cmp -s e.txt want.txt || fail "eval output: $(cat e.txt)"
  # Joint labels, layer by layer.
  printf 'a NN|B-NP NN|B-NP\nb NN|I-NP VB|I-NP\n' >j.txt
  "$VITESSE" eval --split '|' j.txt >j.out 2>stderr || fail "eval --split"
  grep -q 'layer 1 of 2: tokens: 2, correct: 1, accuracy: 50.00%' j.out || fail "$(cat j.out)"
  grep -q 'layer 2 of 2: tokens: 2, correct: 2, accuracy: 100.00%' j.out || fail "$(cat j.out)"
  ;;
conllu)
  # CoNLL-U: label UPOS, comments and multiword ranges passed through to the output.
  cat >u.conllu <<'U'
# sent_id = 1
1-2	don't	_	_	_	_	_	_	_	_
1	do	do	AUX	VBP	_	0	root	_	_
2	n't	not	PART	RB	_	1	advmod	_	_
3	go	go	VERB	VB	_	1	xcomp	_	_

# sent_id = 2
1	go	go	VERB	VB	_	0	root	_	_
1.1	went	go	VERB	VBD	_	_	_	_	_
U
  printf 'U00:%%x[0,1]\nU01:%%x[-1,1]\nB\n' >u.tmpl
  "$VITESSE" train --conllu --label-col UPOS --template u.tmpl --train u.conllu --epochs 5 \
    --quiet -o u.bin 2>stderr || fail "train --conllu"
  "$VITESSE" tag -m u.bin u.conllu -o out/u 2>stderr || fail "tag conllu"
  [ "$(grep -c '^#' out/u)" -eq 2 ] || fail "comments not kept: $(cat out/u)"
  grep -q "^1-2	don't	" out/u || fail "range line not kept"
  awk -F'\t' '$1 ~ /^[0-9]+$/ && NF != 11 { exit 1 }' out/u || fail "a token line lacks the label"
  "$VITESSE" eval --conllu --gold-col UPOS out/u >e.txt 2>stderr || fail "eval conllu"
  grep -q 'accuracy: 100.00%' e.txt || fail "$(cat e.txt)"
  ;;
lattice)
  train_toy
  corpus 20 5 >test.txt
  "$VITESSE" lattice -m model.bin -o lat test.txt 2>stderr || fail "lattice"
  for f in E N A S F R; do [ -s lat/$f.npy ] || fail "no $f.npy"; done
  "$VITESSE" decode --emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy \
    --start lat/S.npy --end lat/F.npy --rank lat/R.npy --algo viterbi -o dec.txt 2>stderr ||
    fail "decode of the lattices"
  [ "$(wc -l <dec.txt)" -eq 20 ] || fail "decode: $(wc -l <dec.txt) lines, want 20"
  ;;
bad_ragged)
  train_toy
  printf 'w1 x1 NN\nw2 x2\n' >bad.txt
  expect_bad_input "$VITESSE" tag -m model.bin bad.txt -o out/x
  grep -q 'bad.txt:2: ' stderr || fail "message does not name bad.txt:2"
  expect_bad_input "$VITESSE" train --template tmpl --train bad.txt -o out/m.bin
  grep -q 'bad.txt:2: ' stderr || fail "train message does not name bad.txt:2"
  ;;
bad_long)
  train_toy
  printf 'w1 x1 NN\nw2 x2 VB\n\nw3 x0 NN\n\nw1 x1 NN\nw1 x1 NN\nw1 x1 NN\nw1 x1 NN\n' >long.txt
  line=$(wc -l <long.txt)
  expect_bad_input "$VITESSE" tag -m model.bin --max-tokens 3 long.txt -o out/x
  grep -q "long.txt:$line: sentence longer than 3 tokens" stderr || fail "wrong message"
  expect_bad_input "$VITESSE" train --template tmpl --train long.txt --max-tokens 3 -o out/m
  ;;
bad_model)
  train_toy
  corpus 5 1 >test.txt
  head -c 200 model.bin >trunc.bin
  expect_bad_input "$VITESSE" tag -m trunc.bin test.txt -o out/x
  grep -q 'trunc.bin: ' stderr || fail "message does not name the model"
  printf 'not a model\n' >text.bin
  expect_bad_input "$VITESSE" tag -m text.bin test.txt -o out/x
  expect_bad_input "$VITESSE" tag -m missing.bin test.txt -o out/x
  ;;
bad_template)
  corpus 5 1 >train.txt
  printf 'U00:%%x[0,0]\nQ01:%%x[0,0]\n' >bad.tmpl
  expect_bad_input "$VITESSE" train --template bad.tmpl --train train.txt -o out/m
  grep -q 'bad.tmpl:2: ' stderr || fail "message does not name bad.tmpl:2"
  printf 'U00:%%x[0,2]\n' >label.tmpl
  expect_bad_input "$VITESSE" train --template label.tmpl --train train.txt -o out/m
  grep -q 'the label column' stderr || fail "label column read by a template not refused"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
