#!/bin/sh
# tests/train_harden.sh VITESSE CASE: `vitesse train` (and tag) on damaged or hostile input and
# options, on small item files this script writes. Every refusal: exit 2, one line "vitesse: ..."
# naming what is wrong, no model, no input touched. Cases:
#   same_file  an output (-o, --log) that is an input (--items, --init, --dev), by name or by a
#              hard link, or both outputs one file: refused before anything is written;
#   gz         a truncated .gz item file: train and tag refuse it, naming the file;
#   log        --log - writes the JSON lines to standard output (no file "-"); the last line says
#              why training stopped; --log /dev/full stops the run (exit 2, no model);
#   unused     options that do nothing with the trainer or input chosen are refused by name;
#   nonfinite  values past the bound (their absolute sum 2^62), --c2 1e308, a diverging l2sgd
#              calibration: exit 2 with the reason, no model, and the log holds no NaN or inf;
#   stop       the closing line and the log say why each optimiser stopped.
#   labels     every label a model cannot hold (a control byte, NUL, CR in the middle; a CRLF item
#              file) is refused at read time with FILE:LINE, in item files, column corpora and
#              joint corpora (POS tags, chunk labels), by every trainer; a CRLF column corpus trains as LF; what trains, tag reloads.
set -u
SUITE=train_harden
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$HERE/case_env.sh"
mkdir out

. "$HERE/expect_bad.sh"

# items N: N small sequences of CRFsuite items, 3 labels
items() {
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) { for (t = 0; t < 1 + i % 4; t++)
    printf "%s\tw=%d\tc=%d:0.5\n", substr("ABC", 1 + (i + t) % 3, 1), (i * 7 + t) % 11, t % 2
    print "" } }'
}
items 300 >s.items || exit 1

case $CASE in
same_file)
  "$VITESSE" train --algo lbfgs --items s.items --max-iterations 2 --quiet -o init.model \
    2>stderr || fail "training failed"
  cp s.items keep.items
  cp init.model keep.model
  expect_bad "--log s.items is the same file as --items s.items" "$VITESSE" train --algo lbfgs \
    --items s.items --log s.items -o out/m
  expect_bad "--log init.model is the same file as --init init.model" "$VITESSE" train \
    --algo lbfgs --items s.items --init init.model --log init.model -o out/m
  cp s.items dev.items
  expect_bad "--log dev.items is the same file as --dev dev.items" "$VITESSE" train --algo lbfgs \
    --items s.items --dev dev.items --log dev.items -o out/m
  cmp -s dev.items s.items || fail "the dev file was touched"
  ln s.items link.items
  expect_bad "-o link.items is the same file as --items s.items" "$VITESSE" train --algo ap \
    --items s.items -o link.items
  expect_bad "-o out/m is the same file as --log out/m" "$VITESSE" train --algo ap \
    --items s.items --log out/m -o out/m
  expect_bad "-o - is the same file as --log -" "$VITESSE" train --algo ap --items s.items \
    --log - -o -
  cmp -s s.items keep.items || fail "the training file was touched"
  cmp -s init.model keep.model || fail "the --init model was touched"
  [ ! -e out/m ] || fail "a log was created"
  ;;
gz)
  items 3000 | gzip -c >full.gz
  size=$(wc -c <full.gz)
  head -c $((size * 2 / 3)) full.gz >cut.gz
  expect_bad "cut.gz: corrupt or truncated gzip data" "$VITESSE" train --algo ap --items cut.gz \
    --max-iterations 1 -o out/m
  "$VITESSE" train --algo ap --items full.gz --max-iterations 1 --quiet -o ok.model 2>stderr ||
    fail "a whole .gz did not train"
  expect_bad "cut.gz: corrupt or truncated gzip data" "$VITESSE" tag -m ok.model cut.gz
  [ ! -s stdout ] || fail "tag printed labels from a truncated file"
  ;;
log)
  "$VITESSE" train --algo lbfgs --items s.items --max-iterations 3 --log - --quiet -o m \
    >stdout 2>stderr || fail "--log - failed"
  [ ! -e ./- ] || fail "--log - created a file named -"
  [ "$(grep -c '^{"iteration": ' stdout)" -eq 4 ] || fail "want 4 iteration lines on stdout"
  [ "$(tail -n 1 stdout)" = '{"stop": "iteration cap reached", "iterations": 3}' ] ||
    fail "last log line: $(tail -n 1 stdout)"
  if [ -w /dev/full ]; then
    expect_bad "/dev/full: cannot write the log" "$VITESSE" train --algo lbfgs --items s.items \
      --max-iterations 3 --log /dev/full --quiet -o out/m
  fi
  ;;
unused)
  for opt in "--epochs 3" "--shards 2" "--minibatch 2" "--decoder viterbi" "--min-count 2" \
    "--conllu" "--label-col 1" "--sep tab"; do
    name=${opt%% *}
    # shellcheck disable=SC2086
    expect_bad "$name does nothing with --algo lbfgs over --items" "$VITESSE" train --algo lbfgs \
      --items s.items $opt -o out/m
  done
  expect_bad "--items given 2 times" "$VITESSE" train --algo lbfgs --items s.items \
    --items s.items -o out/m
  expect_bad "--c2 does nothing with --algo ap" "$VITESSE" train --algo ap --items s.items \
    --c2 2 -o out/m
  expect_bad "--num-memories does nothing with --algo l2sgd" "$VITESSE" train --algo l2sgd \
    --items s.items --num-memories 3 -o out/m
  awk 'BEGIN { FS = "\t" } NF { split($2, w, "="); print w[2] " " $1; next } { print "" }' \
    s.items >s.txt
  printf 'U00:%%x[0,0]\nB\n' >tmpl
  expect_bad "--epochs does nothing with --algo lbfgs over templates" "$VITESSE" train \
    --algo lbfgs --template tmpl --train s.txt --epochs 2 -o out/m
  ;;
nonfinite)
  printf 'A\tx:1e308\nB\ty:1e308\n\nB\tx:1e308\nA\ty:1e308\n\n' >huge.items
  for a in ap pa arow l2sgd lbfgs; do
    expect_bad "the attribute values add up to" "$VITESSE" train --algo $a --items huge.items \
      --max-iterations 3 --quiet -o out/m
  done
  # 20,000 items x:1e15: a gradient of -2e19, past the 63 integer bits of the exact sums
  awk 'BEGIN { for (i = 0; i < 20000; i++) print "A\tx:1e15\n"; print "B\ty\n" }' >wide.items
  expect_bad "add up to 2e+19" "$VITESSE" train --algo lbfgs --items wide.items --quiet \
    -o out/m
  expect_bad "is not finite at iteration 0" "$VITESSE" train --algo lbfgs --items s.items \
    --c2 1e308 --log c2.log --quiet -o out/m
  if grep -qiE 'nan|inf' c2.log; then fail "the log holds a non-JSON number: $(cat c2.log)"; fi
  expect_bad "the loss is not finite" "$VITESSE" train --algo l2sgd --items s.items \
    --calibration-eta 1e300 --max-iterations 3 --quiet -o out/m
  ;;
stop)
  "$VITESSE" train --algo lbfgs --items s.items --max-iterations 2 -o m 2>stderr ||
    fail "lbfgs failed"
  grep -q "stopped: iteration cap reached" stderr || fail "lbfgs: no reason"
  "$VITESSE" train --algo lbfgs --items s.items --period 1 --delta 0.5 -o m 2>stderr ||
    fail "lbfgs failed"
  grep -q "stopped: converged (delta over period)" stderr || fail "lbfgs: no convergence reason"
  "$VITESSE" train --algo l2sgd --items s.items --max-iterations 2 -o m 2>stderr ||
    fail "l2sgd failed"
  grep -q "stopped: epoch cap reached" stderr || fail "l2sgd: no reason"
  for a in ap pa arow; do
    "$VITESSE" train --algo $a --items s.items --max-iterations 2 --log $a.log -o m 2>stderr ||
      fail "$a failed"
    grep -q "stopped: " stderr || fail "$a: no reason"
    tail -n 1 $a.log | grep -q '^{"stop": "' || fail "$a: the log does not end with the reason"
  done
  ;;
labels)
  printf 'U00:%%x[0,0]\nB\n' >t.tmpl
  b=0
  while [ $b -lt 128 ]; do
    case $b in 9 | 10 | 32) b=$((b + 1)) && continue ;; 33) b=127 ;; esac # tab, newline: fields
    oct=$(printf '%03o' $b)
    hex=$(printf '%02x' $b)
    # shellcheck disable=SC2059 # the format holds the byte, as an octal escape
    printf "A\tw=1\nB\\${oct}X\tw=2\n\n" >c.items
    # shellcheck disable=SC2059
    printf "w1\tA\nw2\tB\\${oct}X\n\n" >c.txt
    if [ $b -eq 0 ]; then
      expect_bad "c.items:2: a NUL byte in the item" "$VITESSE" train --algo ap --items c.items \
        -o out/m
    else
      for a in ap lbfgs; do
        expect_bad "c.items:2: the label holds the control byte 0x$hex" "$VITESSE" train \
          --algo $a --items c.items --max-iterations 1 -o out/m
      done
    fi
    expect_bad "c.txt:2: the label holds the control byte 0x$hex" "$VITESSE" train \
      --template t.tmpl --train c.txt -o out/m
    expect_bad "c.txt:2: the label holds the control byte 0x$hex" "$VITESSE" train \
      --algo lbfgs --template t.tmpl --train c.txt --max-iterations 1 -o out/m
    b=$((b + 1))
  done
  # joint training (--joint-chunk): a POS tag or a chunk label the model cannot hold
  printf 'the DT B-NP\ncat N\001N I-NP\n\n' >j.txt
  expect_bad "j.txt:2: the POS tag holds the control byte 0x01" "$VITESSE" train --joint-chunk \
    --train j.txt --epochs 1 -o out/m
  printf 'the DT B-NP\ncat N\000N I-NP\n\n' >j.txt
  expect_bad "j.txt:2: the POS tag holds the control byte 0x00" "$VITESSE" train --joint-chunk \
    --train j.txt --epochs 1 -o out/m
  printf 'the DT B-NP\ncat NN I-N\rP\n\n' >j.txt
  expect_bad "j.txt:2: the chunk label holds the control byte 0x0d" "$VITESSE" train \
    --joint-chunk --train j.txt --epochs 1 -o out/m
  printf 'A\tw=1\r\nB\tw=2\r\n\r\nA\tw=1\r\n' >crlf.items
  expect_bad "crlf.items:1: the line ends in CR (CRLF line ends)" "$VITESSE" train --algo lbfgs \
    --items crlf.items -o out/m
  printf 'A\r\n' >crlf.items # the label itself ends in CR
  expect_bad "crlf.items:1: the line ends in CR" "$VITESSE" train --algo ap --items crlf.items \
    -o out/m
  cp s.items dev.items
  printf 'A\tw=1\r\n' >>dev.items
  expect_bad "dev.items:$(wc -l <dev.items | tr -d ' '): the line ends in CR" "$VITESSE" train --algo lbfgs \
    --items s.items --dev dev.items --max-iterations 1 -o out/m
  # what is accepted loads again: a CRLF column corpus reads as LF, a UTF-8 label, a space
  printf 'w1\tA\r\nw2\tB x\r\n\r\nw3\t\303\251\r\n' >crlf.txt
  "$VITESSE" train --algo lbfgs --template t.tmpl --train crlf.txt --max-iterations 2 --quiet \
    -o ok.model 2>stderr || fail "a CRLF column corpus did not train"
  printf 'w1\nw3\n' | "$VITESSE" tag -m ok.model - >stdout 2>stderr || fail "tag refused it"
  [ "$(wc -l <stdout)" -eq 3 ] || fail "tag printed $(wc -l <stdout) lines, want 3"
  printf 'A\tw=1\nB x\tw=2\n\n\303\251\tw=3\n\n' >ok.items
  "$VITESSE" train --algo lbfgs --items ok.items --max-iterations 2 --quiet -o ok.crfsuite \
    2>stderr || fail "UTF-8 and space labels did not train"
  "$VITESSE" tag -m ok.crfsuite ok.items >stdout 2>stderr || fail "tag refused the model"
  ;;
*)
  echo "train_harden: unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
