#!/bin/sh
# tests/crf_learn_cli.sh VITESSE CASE: `vitesse crf_learn` on the small corpus
# tests/crf_learn/corpus.awk writes, with the templates tests/crf_learn/chunk.tmpl. Cases:
#   peer     against CRF++'s own crf_learn on the same data (fixtures in tests/crf_learn, how they
#            were made in its README): the log of -m 12 (obj, act and diff as printed; terr and
#            serr within a token or a sentence: Viterbi ties fall by rounding), the text model's
#            header, labels, templates and feature ids the same lines and every weight within
#            1e-9; the model tags the test corpus as crf_test tagged it with crf_learn's model;
#            -f 2 likewise (crf_learn's ids after its shrink); -c 4 to convergence: the same
#            number of evaluations and final objective; CRF-L1 (another line search): its final
#            objective within 0.1%. With crf_test on the PATH (or $CRF_TEST, or built in
#            /tmp/crfpp), crf_test tags with the model as with crf_learn's (skipped without it);
#   mira     -a MIRA against crf_learn's (fixtures likewise): to convergence, the log line for
#            line, the text model's lines before the weights the same and every weight within
#            1e-9, the model tags the test corpus as crf_test with crf_learn's model (and crf_test
#            with ours, when there); -m 3 stops after 3 passes, its lines crf_learn's first 3;
#            -H 1 shrinks (fewer sentences visited in a pass);
#   bigram   the templates tests/crf_learn/bigram.tmpl (a plain B line and one with a macro)
#            against crf_learn: CRF -m 15 (log as in peer, model to 1e-9, tagging) and MIRA -f 2
#            (log line for line, model to 1e-9), -C of the text model is the binary one, crf_test
#            tags with our model as with crf_learn's; templates reading column 0 only write
#            xsize 1; repeated lines (U and B): vitesse tag tags as crf_test (when there);
#   options  --help, --version; long and short options, -p 1 and 2, -H and a lower-case -a give
#            the same model bytes; -m 0 writes a model of zero weights;
#   bad      bad options, files and templates: one line on stderr, exit 2, no model written, no
#            input changed;
#   models   -t writes MODEL and MODEL.txt; -C of MODEL.txt is MODEL byte for byte; vitesse tag
#            and vitesse convert read both alike; the converged model tags the test corpus far
#            above its most frequent label.
# shellcheck source-path=SCRIPTDIR
set -u
SUITE=crf_learn_cli
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/crf_learn
. "$HERE/case_env.sh"
awk -f "$FX/corpus.awk" >train.txt || exit 1
awk -v N=20 -v SEED=7 -f "$FX/corpus.awk" >test.txt || exit 1
cp "$FX/chunk.tmpl" t.tmpl

learn() { "$VITESSE" crf_learn "$@" >stdout 2>stderr; }

# The lines of a text model before its weights; its weights.
head_of() { awk 'NF == 0 { b++ } b < 4' "$1"; }
weights_of() { awk 'NF == 0 { b++; next } b >= 4' "$1"; }

# same_weights A B TOL: every weight of the text models A and B within TOL.
same_weights() {
  weights_of "$1" >wa && weights_of "$2" >wb || return 1
  [ "$(wc -l <wa)" -eq "$(wc -l <wb)" ] || return 1
  paste wa wb | awk -v tol="$3" '{ d = $1 - $2; if (d < 0) d = -d; if (d > tol) bad++ }
    END { exit bad > 0 }'
}

# same_log OURS THEIRS: the iter lines agree: obj, act and diff as printed; terr within one
# token in 167, serr within one sentence in 30.
same_log() {
  grep '^iter=' "$1" | sed 's/[a-z]*=//g' >la
  sed 's/[a-z]*=//g' "$2" >lb
  [ "$(wc -l <la)" -eq "$(wc -l <lb)" ] || return 1
  paste -d ' ' la lb | awk '{ if ($1 != $7 || $4 != $10 || $5 != $11 || $6 != $12) bad++
    d = $2 - $8; if (d < 0) d = -d; if (d > 0.0061) bad++
    d = $3 - $9; if (d < 0) d = -d; if (d > 0.034) bad++ } END { exit bad > 0 }'
}

last_obj() { grep '^iter=' "$1" | tail -n 1 | sed 's/.*obj=\([^ ]*\).*/\1/'; }

# crf_test's path: $CRF_TEST, crf_test on the PATH or the peer's usual build; empty if none.
crf_test_path() {
  CT=${CRF_TEST:-$(command -v crf_test 2>/dev/null || true)}
  [ -z "$CT" ] && [ -x /tmp/crfpp/crf_test ] && CT=/tmp/crfpp/crf_test
  [ -n "$CT" ] && [ -x "$CT" ] && echo "$CT"
}

# same_model OURS THEIRS: the text models' lines before the weights the same, weights to 1e-9.
same_model() {
  head_of "$1" >ha && head_of "$2" >hb && cmp -s ha hb && same_weights "$1" "$2" 1e-9
}

# tags_as MODEL OUT: vitesse tag, and crf_test when there, tag test.txt with MODEL as OUT.
tags_as() {
  "$VITESSE" tag -m "$1" test.txt >tagged 2>stderr || fail "tag -m $1 failed"
  cmp -s tagged "$2" || fail "$1 tags otherwise than crf_learn's model"
  CT=$(crf_test_path)
  if [ -n "$CT" ]; then
    "$CT" -m "$1" test.txt >ct.out 2>stderr || fail "crf_test could not read $1"
    cmp -s ct.out "$2" || fail "crf_test tags otherwise with $1"
  fi
}

case "$CASE" in
peer)
  learn -m 12 -p 1 -t t.tmpl train.txt m || fail "-m 12 failed"
  same_log stdout "$FX/crfpp_m12.log" || fail "-m 12: the log is not crf_learn's"
  head_of m.txt >ha && head_of "$FX/crfpp_m12.model.txt" >hb
  cmp -s ha hb || fail "-m 12: header, labels, templates or feature ids differ from crf_learn's"
  same_weights m.txt "$FX/crfpp_m12.model.txt" 1e-9 || fail "-m 12: weights differ by > 1e-9"
  "$VITESSE" tag -m m test.txt >tagged 2>stderr || fail "tag failed"
  cmp -s tagged "$FX/crf_test_m12.out" || fail "the model tags otherwise than crf_learn's"
  learn -f 2 -m 10 -p 1 -t t.tmpl train.txt f2 || fail "-f 2 failed"
  same_log stdout "$FX/crfpp_f2.log" || fail "-f 2: the log is not crf_learn's"
  head_of f2.txt >ha && head_of "$FX/crfpp_f2.model.txt" >hb
  cmp -s ha hb || fail "-f 2: feature ids differ from crf_learn's"
  same_weights f2.txt "$FX/crfpp_f2.model.txt" 1e-9 || fail "-f 2: weights differ by > 1e-9"
  learn -c 4 -p 1 t.tmpl train.txt c4 || fail "-c 4 failed"
  [ "$(grep -c '^iter=' stdout)" -eq "$(wc -l <"$FX/crfpp_c4.log")" ] ||
    fail "-c 4: not crf_learn's number of evaluations"
  [ "$(last_obj stdout)" = "$(last_obj "$FX/crfpp_c4.log")" ] || fail "-c 4: final objective"
  learn -a CRF-L1 -p 1 t.tmpl train.txt l1 || fail "CRF-L1 failed"
  awk -v a="$(last_obj stdout)" -v b="$(last_obj "$FX/crfpp_l1.log")" \
    'BEGIN { d = (a - b) / b; exit !(d < 1e-3 && d > -1e-3) }' ||
    fail "CRF-L1: final objective $(last_obj stdout), crf_learn's $(last_obj "$FX/crfpp_l1.log")"
  CT=$(crf_test_path)
  if [ -n "$CT" ]; then
    "$CT" -m m test.txt >ct.out 2>stderr || fail "crf_test could not read the model"
    cmp -s ct.out "$FX/crf_test_m12.out" || fail "crf_test tags otherwise with our model"
  fi
  ;;
mira)
  learn -a MIRA -p 1 -t t.tmpl train.txt m || fail "-a MIRA failed"
  grep '^iter=' stdout >log
  cmp -s log "$FX/crfpp_mira.log" || fail "-a MIRA: the log is not crf_learn's"
  grep -q '^shrinking size: *20$' stdout || fail "-a MIRA: the shrinking size line"
  same_model m.txt "$FX/crfpp_mira.model.txt" || fail "-a MIRA: the model is not crf_learn's"
  tags_as m "$FX/crf_test_mira.out"
  learn -a mira -m 3 -p 1 t.tmpl train.txt m3 || fail "-a mira -m 3 failed"
  grep '^iter=' stdout >log3
  head -n 3 "$FX/crfpp_mira.log" | cmp -s - log3 || fail "-m 3: not crf_learn's first 3 passes"
  learn -a MIRA -H 1 -p 1 t.tmpl train.txt h1 || fail "-a MIRA -H 1 failed"
  grep -q '^iter=.* act=[0-9] ' stdout || grep -q '^iter=.* act=[12][0-9] ' stdout ||
    fail "-H 1: every pass visits every sentence"
  ;;
bigram)
  cp "$FX/bigram.tmpl" b.tmpl
  learn -m 15 -p 1 -t b.tmpl train.txt b || fail "bigram templates: -m 15 failed"
  same_log stdout "$FX/crfpp_bigram.log" || fail "bigram templates: the log is not crf_learn's"
  same_model b.txt "$FX/crfpp_bigram.model.txt" || fail "bigram templates: the model differs"
  tags_as b "$FX/crf_test_bigram.out"
  learn -C b.txt bc || fail "-C of the bigram model failed"
  cmp -s b bc || fail "-C of the bigram text model is not the binary model"
  learn -a MIRA -f 2 -p 1 -t b.tmpl train.txt bm || fail "bigram templates: MIRA -f 2 failed"
  grep '^iter=' stdout >log
  cmp -s log "$FX/crfpp_bmira_f2.log" || fail "bigram templates, MIRA -f 2: the log differs"
  same_model bm.txt "$FX/crfpp_bmira_f2.model.txt" || fail "bigram templates, MIRA: the model"
  # only column 0 read: xsize 1, as crf_learn writes it
  printf 'U01:%%x[0,0]\nB\nB02:%%x[-1,0]\n' >c0.tmpl
  learn -a MIRA -m 2 -t c0.tmpl train.txt c0 || fail "templates of column 0 failed"
  grep -q '^xsize: 1$' c0.txt || fail "templates of column 0: xsize is not 1"
  # repeated lines fire their strings once a line, as crf_test counts them; vitesse tag too
  printf 'U01:%%x[0,0]\nU01:%%x[0,0]\nU03:%%x[0,1]\nB\nB\nB03:%%x[0,1]\nB03:%%x[0,1]\n' >dup.tmpl
  learn -a MIRA -p 1 dup.tmpl train.txt dup || fail "repeated template lines failed"
  CT=$(crf_test_path)
  if [ -n "$CT" ]; then
    "$CT" -m dup test.txt >ct.dup 2>stderr || fail "crf_test could not read dup"
    "$VITESSE" tag -m dup test.txt >vt.dup 2>stderr || fail "tag -m dup failed"
    cmp -s ct.dup vt.dup || fail "repeated B lines: vitesse tag and crf_test tag otherwise"
  fi
  ;;
options)
  "$VITESSE" crf_learn --help >stdout 2>stderr || fail "--help"
  grep -q 'usage: vitesse crf_learn' stdout || fail "--help: no usage"
  "$VITESSE" crf_learn --version >stdout 2>stderr || fail "--version"
  grep -q 'crf_learn' stdout || fail "--version: nothing"
  learn -f 2 -m 6 -c 2 -e 0.001 -p 1 t.tmpl train.txt a || fail "short options"
  learn --freq=2 --maxiter 6 --cost=2 --eta=0.001 --thread=2 -H 5 --algorithm=crf t.tmpl \
    train.txt b || fail "long options"
  cmp -s a b || fail "long and short options, -p 1 and 2 give other models"
  grep -q '^Freq: *2$' stdout && grep -q '^C: *2.00000$' stdout || fail "the header lines"
  [ "$(grep -c '^iter=' stdout)" -eq 6 ] || fail "-m 6: not 6 evaluations"
  grep '^iter=' stdout | awk '!/^iter=[0-9]+ terr=[0-9.]+ serr=[0-9.]+ act=[0-9]+ obj=[0-9.]+ diff=[0-9.]+$/ { exit 1 }' ||
    fail "a log line not in crf_learn's format"
  learn -m 0 -t t.tmpl train.txt z || fail "-m 0"
  weights_of z.txt | awk '$1 != 0 { exit 1 }' || fail "-m 0: weights not zero"
  ;;
bad)
  cp train.txt keep.txt
  # expect_bad WHAT ARGS...: one line on stderr, exit 2, no model, the corpus unchanged
  expect_bad() {
    what=$1
    shift
    rm -f out.model out.model.txt
    "$VITESSE" crf_learn "$@" >stdout 2>stderr
    rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, not 2"
    [ "$(wc -l <stderr)" -eq 1 ] || fail "$what: not one line on stderr"
    [ ! -e out.model ] && [ ! -e out.model.txt ] || fail "$what: a model was written"
    cmp -s train.txt keep.txt || fail "$what: the corpus changed"
  }
  expect_bad "an unknown option" --bogus t.tmpl train.txt out.model
  expect_bad "-c 0" -c 0 t.tmpl train.txt out.model
  expect_bad "-c abc" -c abc t.tmpl train.txt out.model
  expect_bad "-e -1" -e -1 t.tmpl train.txt out.model
  expect_bad "-m -3" -m -3 t.tmpl train.txt out.model
  expect_bad "-H 0" -a MIRA -H 0 t.tmpl train.txt out.model
  expect_bad "-a foo" -a foo t.tmpl train.txt out.model
  expect_bad "two files" t.tmpl train.txt
  expect_bad "a missing corpus" t.tmpl nothere.txt out.model
  expect_bad "a missing template" nothere.tmpl train.txt out.model
  expect_bad "the model is the corpus" t.tmpl train.txt train.txt
  ln train.txt hard.txt
  expect_bad "the model is the corpus by a hard link" t.tmpl train.txt hard.txt
  printf 'U00:%%x[0,0]\nB01:%%x[0,7]\n' >obs.tmpl
  expect_bad "a bigram template past the corpus" -a MIRA obs.tmpl train.txt out.model
  printf 'U00:%%x[0,0]\nB01:%%x[9,0]\n' >r9.tmpl
  expect_bad "a row outside -8..8" r9.tmpl train.txt out.model
  grep -q 'r9.tmpl:2' stderr || fail "the template line of the row is not named"
  printf 'U00:%%t[0,0,"^a"]\n' >t.tmpl
  expect_bad "a macro crf_learn lacks" t.tmpl train.txt out.model
  printf 'U00:%%x[0,0]\nX:%%x[0,1]\n' >x.tmpl
  expect_bad "a template line that is neither U nor B" x.tmpl train.txt out.model
  printf 'U00:%%x[0,5]\n' >col.tmpl
  expect_bad "a column past the corpus" col.tmpl train.txt out.model
  : >empty.txt
  expect_bad "an empty corpus" t.tmpl empty.txt out.model
  printf 'version: 100\nmaxid: 3\n' >cut.txt
  expect_bad "-C of a cut text model" -C cut.txt out.model
  echo 'old bytes' >out.model
  "$VITESSE" crf_learn -c 0 t.tmpl train.txt out.model >stdout 2>stderr
  [ "$(cat out.model)" = 'old bytes' ] || fail "a refused run changed the existing model"
  ;;
models)
  learn -m 8 -t t.tmpl train.txt m || fail "-t failed"
  [ -s m ] && [ -s m.txt ] || fail "-t: MODEL and MODEL.txt not both written"
  head -n 1 m.txt | grep -q '^version: 100$' || fail "the text model's first line"
  learn -C m.txt c || fail "-C failed"
  cmp -s m c || fail "-C of MODEL.txt is not MODEL"
  "$VITESSE" tag -m m test.txt >a 2>stderr || fail "tag with the binary model"
  "$VITESSE" tag -m m.txt test.txt >b 2>stderr || fail "tag with the text model"
  cmp -s a b || fail "the binary and the text model tag otherwise"
  "$VITESSE" convert m -o m.vt 2>stderr || fail "convert"
  "$VITESSE" tag -m m.vt test.txt >c 2>stderr || fail "tag with the converted model"
  cmp -s a c || fail "the converted model tags otherwise"
  learn t.tmpl train.txt full || fail "training to convergence failed"
  "$VITESSE" tag -m full test.txt >a 2>stderr || fail "tag with the converged model"
  # the most frequent label is a third of the test tokens; a tenth of the labels are noise
  awk 'NF { n++; if ($3 == $NF) r++ } END { exit !(r / n > 0.7) }' a ||
    fail "the converged model tags the test corpus badly"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
