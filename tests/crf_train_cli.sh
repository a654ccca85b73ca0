#!/bin/sh
# tests/crf_train_cli.sh VITESSE CASE: CRF training on the command line, on the small item file
# tests/crf_train/items.awk writes. Cases:
#   crfsuite  the loss of every L-BFGS and OWL-QN iteration agrees with CRFsuite's (fixtures in
#             tests/crf_train, how they were made in its README) to 1e-6, and tagging the items
#             with the model prints what crfsuite tag -p -i printed with CRFsuite's own model;
#   online    ap, pa (PA-II, c 0.3) and arow (variance 0.5, gamma 2) print CRFsuite's loss and
#             feature norm at every epoch (%f, as crfsuite learn prints them), and the ap model
#             tags as CRFsuite's ap model does (tag -qt); the same model for --threads 1 and 2;
#   threads   the model file is the same bytes for --threads 1, 2 and 3 (lbfgs and l2sgd);
#   log       --log has one JSON object per iteration with the documented keys, iteration 0's
#             loss is sum T log L, and l2sgd lowers it; lbfgs's eval_seconds within seconds;
#   init      --init continues: its iteration 0 loss is the saved model's last loss;
#   templates --algo lbfgs over templates and a column corpus writes a tagger model that tags,
#             --init continues it, and refuses a model of another kind;
#   bad       bad items (a:nan, a:1e999, a:, no label, a NUL byte), an empty corpus, --init with
#             a model of another kind, bad options: one line naming the file (and line), exit 2,
#             no model written.
# shellcheck source-path=SCRIPTDIR
set -u
SUITE=crf_train_cli
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/crf_train
. "$HERE/case_env.sh"
mkdir out
awk -v N=60 -f "$FX/items.awk" >train.items || exit 1

# The "loss" values of a --log file, one a line, iteration 0 first.
losses() { sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$1"; }

. "$HERE/expect_bad.sh"
. "$HERE/close_lines.sh"

# The loss and feature norm of every iteration of a --log file, %f each.
loss_norms() { sed -n 's/.*"loss": \([^,]*\), "feature_norm": \([^,]*\),.*/\1 \2/p' "$1" |
  awk '{ printf "%f %f\n", $1, $2 }'; }

case $CASE in
online)
  for a in ap pa arow; do
    case $a in
    ap) opts= ;;
    pa) opts="--pa-type 2 --c 0.3" ;;
    arow) opts="--variance 0.5 --gamma 2" ;;
    esac
    # shellcheck disable=SC2086
    "$VITESSE" train --algo $a $opts --items train.items --max-iterations 10 --log $a.log \
      -o out/$a 2>stderr || fail "$a training failed"
    loss_norms $a.log >$a.loss
    cmp -s $a.loss "$FX/crfsuite_$a.loss" ||
      fail "$a: loss and norm differ from CRFsuite's: $(diff $a.loss "$FX/crfsuite_$a.loss")"
  done
  "$VITESSE" tag -qt -m out/ap train.items 2>stderr | grep -v '^Elapsed time' >qt.out
  cmp -s qt.out "$FX/crfsuite_ap_tag_qt.out" || fail "the ap model tags otherwise than CRFsuite's"
  "$VITESSE" train --algo ap --items train.items --max-iterations 10 --threads 2 -o out/ap2 \
    2>stderr || fail "ap on 2 threads failed"
  cmp -s out/ap out/ap2 || fail "ap: another model on 2 threads"
  ;;
crfsuite)
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 15 --log l2.log \
    -o out/m 2>stderr || fail "lbfgs training failed"
  losses l2.log | tail -n +2 >l2.loss
  close_lines "$FX/crfsuite_lbfgs.loss" l2.loss 1e-6 || fail "L-BFGS losses differ from CRFsuite's"
  "$VITESSE" train --algo lbfgs --c1 0.5 --c2 0.1 --items train.items --max-iterations 15 \
    --log l1.log -o out/m1 2>stderr || fail "owl-qn training failed"
  losses l1.log | tail -n +2 >l1.loss
  close_lines "$FX/crfsuite_owlqn.loss" l1.loss 1e-6 || fail "OWL-QN losses differ from CRFsuite's"
  [ "$(head -c 4 out/m)" = lCRF ] || fail "the model is not a CRFsuite crf1d file"
  "$VITESSE" tag -p -i -m out/m train.items >tag.out 2>stderr || fail "tag failed"
  cmp -s tag.out "$FX/crfsuite_tag_p_i.out" || fail "tag -p -i differs from crfsuite tag's"
  # -r (the reference label before each one), and what vitesse eval makes of it: the item and
  # instance accuracy crfsuite tag -qt reports.
  "$VITESSE" tag -r -m out/m train.items >tag_r.out 2>stderr || fail "tag -r failed"
  cmp -s tag_r.out "$FX/crfsuite_tag_r.out" || fail "tag -r differs from crfsuite tag's"
  "$VITESSE" eval tag_r.out >eval.out 2>stderr || fail "eval of tag -r failed"
  items=$(sed -n 's/^Item accuracy: \([0-9]*\) \/ \([0-9]*\) .*/tokens: \2, correct: \1,/p' \
    "$FX/crfsuite_tag_qt.out")
  seqs=$(sed -n 's/^Instance accuracy: \([0-9]*\) \/ \([0-9]*\) .*/sentences: \2, exactly right: \1 /p' \
    "$FX/crfsuite_tag_qt.out")
  grep -q "^$items" eval.out || fail "eval: $(cat eval.out), crfsuite: $items"
  grep -q "^$seqs" eval.out || fail "eval: $(cat eval.out), crfsuite: $seqs"
  # A reference label the model lacks prints as crfsuite prints it, "(null)" (with -p -i -l).
  { head -n 5 train.items; printf 'ZZ\tw=the\nB-NP\tx\\:y:2\n\n'; } >unk.items
  "$VITESSE" tag -r -p -i -l -m out/m unk.items >unk.out 2>stderr || fail "tag -r -p -i -l failed"
  cmp -s unk.out "$FX/crfsuite_tag_rpil_unknown.out" || fail "tag -r -p -i -l differs"
  # -t / -q: crfsuite's evaluation after the labels (its last line, the time, differs)
  "$VITESSE" tag -qt -m out/m train.items >qt.out 2>stderr || fail "tag -qt failed"
  grep -q '^Elapsed time: [0-9.]* \[sec\] ([0-9.]* \[instance/sec\])$' qt.out ||
    fail "tag -qt: no elapsed time line"
  grep -v '^Elapsed time' qt.out | cmp -s - "$FX/crfsuite_tag_qt.out" || fail "tag -qt differs"
  # a reference label the model lacks ends its sequence's scoring, as in crfsuite
  { head -n 5 train.items; printf 'ZZ\tw=the\nB-NP\tx\\:y:2\n\n'; sed -n 20,40p train.items
    printf 'I-NP\tw=a\nQQ\tw=b\nO\tw=c\n\n'; } >unk2.items
  "$VITESSE" tag -t -i -m out/m unk2.items >ti.out 2>stderr || fail "tag -t -i failed"
  grep -v '^Elapsed time' ti.out | cmp -s - "$FX/crfsuite_tag_t_i_unknown.out" ||
    fail "tag -t -i differs"
  # labels no reference holds: stars, and the macro averages still divide by every label
  printf 'O\tw=7\tc=3\nB-NP\tw=20\tc=0\n\nB-NP\tw=5\n\n' >few.items
  "$VITESSE" tag -qt -m out/m few.items >few.out 2>stderr || fail "tag -qt (few) failed"
  grep -v '^Elapsed time' few.out | cmp -s - "$FX/crfsuite_tag_qt_unseen.out" ||
    fail "tag -qt (labels without references) differs"
  # -q alone prints nothing; -t wants a CRFsuite model and one path
  "$VITESSE" tag -q -m out/m train.items >q.out 2>stderr || fail "tag -q failed"
  [ ! -s q.out ] || fail "tag -q printed something"
  "$VITESSE" tag -t -k 2 -m out/m train.items >k.out 2>stderr
  [ $? -eq 2 ] && [ ! -s k.out ] && grep -q '^vitesse: tag: -t .*not with -k 2' stderr ||
    fail "tag -t -k 2: $(cat stderr)"
  ;;
threads)
  for algo in lbfgs l2sgd; do
    for t in 1 2 3; do
      "$VITESSE" train --algo $algo --items train.items --max-iterations 8 --threads $t --quiet \
        -o out/$algo.$t 2>stderr || fail "$algo with $t threads failed"
    done
    cmp -s out/$algo.1 out/$algo.2 || fail "$algo: 2 threads give another model"
    cmp -s out/$algo.1 out/$algo.3 || fail "$algo: 3 threads give another model"
  done
  ;;
log)
  "$VITESSE" train --algo l2sgd --items train.items --max-iterations 6 --log sgd.log --quiet \
    -o out/m 2>stderr || fail "l2sgd training failed"
  [ "$(grep -c '^{"iteration": ' sgd.log)" -eq 7 ] ||
    fail "want 7 iteration lines (0..6), got $(grep -c '^{"iteration": ' sgd.log)"
  [ "$(tail -n 1 sgd.log)" = '{"stop": "epoch cap reached", "iterations": 6}' ] ||
    fail "the log's last line does not say why training stopped: $(tail -n 1 sgd.log)"
  for key in iteration loss feature_norm error_norm active_features step evaluations seconds \
    total_seconds; do
    [ "$(grep -c "\"$key\": " sgd.log)" -eq 7 ] || fail "key $key missing from some log lines"
  done
  # sum over items of log L: 5 labels, items = non-empty lines
  want=$(awk 'NF { n++ } END { printf "%.10f\n", n * log(5) }' train.items)
  got=$(losses sgd.log | head -1)
  echo "$want" >want
  echo "$got" >got
  close_lines want got 1e-12 || fail "iteration 0 loss $got, want $want"
  losses sgd.log | awk 'NR == 1 { first = $1 } END { exit !($1 < 0.8 * first) }' ||
    fail "l2sgd did not lower the loss: $(losses sgd.log | tr '\n' ' ')"
  # lbfgs says which of an iteration's seconds went to the objective and gradient
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 4 --log lb.log --quiet \
    -o out/lb 2>stderr || fail "lbfgs training failed"
  grep '^{"iteration": ' lb.log | awk '!/"eval_seconds": / { bad = 1 }
    { s = $0; sub(/.*"seconds": /, "", s); e = $0; sub(/.*"eval_seconds": /, "", e)
      if (e + 0 < 0 || e + 0 > s + 0) bad = 1 }
    END { exit bad }' || fail "eval_seconds missing or beyond seconds: $(cat lb.log)"
  grep -q '"eval_seconds"' sgd.log && fail "l2sgd logs eval_seconds"
  ;;
init)
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 5 --log a.log --quiet \
    -o out/a 2>stderr || fail "first training failed"
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 3 --init out/a \
    --log b.log --quiet -o out/b 2>stderr || fail "continued training failed"
  losses a.log | tail -1 >a.last
  losses b.log | head -1 >b.first
  close_lines a.last b.first 1e-12 || fail "--init does not start at the saved model's loss"
  losses b.log | tail -1 >b.last
  awk 'NR == FNR { a = $1; next } { exit !($1 < a) }' a.last b.last ||
    fail "continued training did not lower the loss"
  ;;
templates)
  awk 'BEGIN { FS = "\t" } NF { split($2, w, "="); c = $1; print w[2] " " substr(c, 1, 1) " " c; next }
       { print "" }' train.items >train.txt
  printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nU02:%%x[0,1]\nB\n' >tmpl
  "$VITESSE" train --algo lbfgs --template tmpl --train train.txt --max-iterations 20 \
    --log t.log --quiet -o t.model 2>stderr || fail "template training failed"
  losses t.log | awk 'NR == 1 { first = $1 } END { exit !($1 < 0.7 * first) }' ||
    fail "the loss did not fall: $(losses t.log | tr '\n' ' ')"
  "$VITESSE" tag -m t.model train.txt >tagged 2>stderr || fail "tagging with it failed"
  [ "$(grep -c . tagged)" -eq "$(grep -c . train.txt)" ] || fail "tagged another token count"
  # --init continues a template model: its first loss is the saved one's (to the float weights
  # the model file keeps), and it goes on down
  "$VITESSE" train --algo lbfgs --template tmpl --train train.txt --max-iterations 3 \
    --init t.model --log t2.log --quiet -o t2.model 2>stderr || fail "continued training failed"
  losses t.log | tail -1 >t.last
  losses t2.log | head -1 >t2.first
  close_lines t.last t2.first 1e-5 || fail "--init does not start at the saved model's loss"
  losses t2.log | tail -1 >t2.last
  awk 'NR == FNR { a = $1; next } { exit !($1 < a) }' t.last t2.last ||
    fail "continued training did not lower the loss"
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 2 --quiet -o items.model \
    2>stderr || fail "item training failed"
  expect_bad "items.model" "$VITESSE" train --algo lbfgs --template tmpl --train train.txt \
    --init items.model -o out/t3
  printf 'U00:%%x[0,0]\nB01:%%x[0,0]\n' >tmpl2
  expect_bad "observation-dependent bigram" "$VITESSE" train --algo lbfgs --template tmpl2 \
    --train train.txt -o out/t2
  ;;
bad)
  printf 'A\tx:nan\n' >nan.items
  expect_bad "nan.items:1: .*not a finite number" "$VITESSE" train --algo lbfgs --items nan.items \
    -o out/m
  printf 'A\tx\n\nB\tx:1e999\n' >big.items
  expect_bad "big.items:3: .*not a finite number" "$VITESSE" train --algo lbfgs --items big.items \
    -o out/m
  printf 'A\tx\nB\tx:\n' >empty_value.items
  expect_bad "empty_value.items:2: .*not a finite number" "$VITESSE" train --algo lbfgs \
    --items empty_value.items -o out/m
  printf 'A\tx\n\ty\n' >nolabel.items
  expect_bad "nolabel.items:2: the item has no label" "$VITESSE" train --algo lbfgs \
    --items nolabel.items -o out/m
  printf 'A\tx\0y\n' >nul.items
  expect_bad "nul.items:1: a NUL byte" "$VITESSE" train --algo lbfgs --items nul.items -o out/m
  printf '\n\n' >empty.items
  expect_bad "empty.items: no sequence to train on" "$VITESSE" train --algo lbfgs \
    --items empty.items -o out/m
  awk 'BEGIN { FS = "\t" } NF { split($2, w, "="); print w[2] " " $1; next } { print "" }' \
    train.items >train.txt
  printf 'U00:%%x[0,0]\nB\n' >tmpl
  mkdir other
  "$VITESSE" train --template tmpl --train train.txt --epochs 1 --quiet -o other/perc \
    2>stderr || fail "perceptron training failed"
  expect_bad "other/perc" "$VITESSE" train --algo lbfgs --items train.items --init other/perc \
    -o out/m
  expect_bad "l2sgd needs c2 > 0" "$VITESSE" train --algo l2sgd --c2 0 --items train.items -o out/m
  expect_bad "expected perceptron, lbfgs, l2sgd, ap, pa or arow" "$VITESSE" train --algo newton \
    --items train.items -o out/m
  expect_bad "add --algo lbfgs, l2sgd, ap, pa or arow" "$VITESSE" train --items train.items \
    -o out/m
  expect_bad "pa and arow train from --items" "$VITESSE" train --algo pa --template tmpl \
    --train train.txt -o out/m
  expect_bad "expected an integer in 0..2" "$VITESSE" train --algo pa --pa-type 3 \
    --items train.items -o out/m
  expect_bad "bad ap/pa/arow parameter" "$VITESSE" train --algo arow --gamma 0 \
    --items train.items -o out/m
  expect_bad "need --algo lbfgs or l2sgd" "$VITESSE" train --c2 2 --template tmpl \
    --train train.txt -o out/m
  ;;
*)
  echo "crf_train_cli: unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
