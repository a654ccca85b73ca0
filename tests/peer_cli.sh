#!/bin/sh
# tests/peer_cli.sh VITESSE TEST_PEER CASE [SHARED]: CRF++ and Wapiti models on the command line
#. The models come from test_peer's own writers (tests/peer_write.h); `shared`
# compares with the peers' own outputs in SHARED/peer-models (skipped, 77, without them).
# Bad-input cases: exit status 2, one line "vitesse: FILE: problem", no output file.
set -u

if [ $# -lt 3 ]; then
  echo "usage: $0 VITESSE TEST_PEER CASE [SHARED]" >&2
  exit 64
fi
VITESSE=$1
TEST_PEER=$2
CASE=$3
SHARED=${4:-}
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_peer_cli.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1
mkdir out

fail() {
  printf 'peer_cli.%s: FAIL: %s\n' "$CASE" "$*" >&2
  if [ -s stderr ]; then
    printf -- '--- stderr of vitesse:\n' >&2
    cat stderr >&2
  fi
  exit 1
}

expect_bad_input() {
  "$@" >stdout 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit status $rc, want 2: $*"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "stderr has $(wc -l <stderr) lines, want 1"
  grep -q '^vitesse: ' stderr || fail "stderr does not start with 'vitesse: '"
  [ -z "$(ls -A out)" ] || fail "output left behind: $(ls -A out)"
}

# models/crfpp/good.model (binary), good.model.txt, bad_version.model, bad_truncated.model;
# models/wapiti/good.model, bad_truncated.model.
mkdir models
"$TEST_PEER" --case write_seeds --write-seeds models >/dev/null || fail "test_peer --write-seeds"
# A corpus over the models' vocabulary (word, tag), and words they never saw.
cat >test.txt <<'T'
a X
Cc Y
dD X

b Y

zz X
a Q
Cc Y
b X
dD Y
T

case $CASE in
convert)
  # tag -m PEER and tag -m CONVERTED: the same bytes, 1-best and 3-best; by content, any name.
  for m in crfpp/good.model crfpp/good.model.txt wapiti/good.model; do
    cp "models/$m" noext
    "$VITESSE" tag -m noext test.txt -o a.txt 2>stderr || fail "tag -m $m"
    "$VITESSE" tag -m noext -k 3 test.txt -o a3.txt 2>stderr || fail "tag -k 3 -m $m"
    "$VITESSE" convert noext -o conv.vt 2>stderr || fail "convert $m"
    "$VITESSE" tag -m conv.vt test.txt -o b.txt 2>stderr || fail "tag converted $m"
    "$VITESSE" tag -m conv.vt -k 3 test.txt -o b3.txt 2>stderr || fail "tag -k 3 converted $m"
    cmp -s a.txt b.txt || fail "$m: converted model tags differently"
    cmp -s a3.txt b3.txt || fail "$m: converted model's 3-best differ"
    [ "$(grep -c . a.txt)" -eq 9 ] || fail "$m: 9 token lines expected"
    # --label-sep tab: the line as read, a tab, the label (as wapiti label writes); a CRF++
    # model's columns joined by tabs too (as crf_test writes them)
    # (a CRF++ model's default, crf_test's bytes); --label-sep input: the input's separator
    "$VITESSE" tag -m conv.vt --label-sep tab test.txt -o t.txt 2>stderr || fail "--label-sep"
    "$VITESSE" tag -m conv.vt --label-sep input test.txt -o i.txt 2>stderr || fail "input"
    case $m in
    crfpp*)
      join='NF { print $1 " " $2 " " $3 } !NF { print }'
      cmp -s t.txt a.txt || fail "$m: the default output is not crf_test's (--label-sep tab)"
      ;;
    *)
      join='NF { print $1 " " $2 } !NF { print }'
      cmp -s i.txt a.txt || fail "$m: the default output is not --label-sep input's"
      ;;
    esac
    awk -F '\t' "$join" t.txt | cmp -s - i.txt ||
      fail "$m: --label-sep tab is not the line, a tab and the label"
  done
  # the binary and the text CRF++ model are one model: the same conversion
  "$VITESSE" convert --from crfpp models/crfpp/good.model -o bin.vt 2>stderr || fail "convert bin"
  "$VITESSE" convert --from crfpp models/crfpp/good.model.txt -o txt.vt 2>stderr || fail "txt"
  cmp -s bin.vt txt.vt || fail "binary and text CRF++ models convert differently"
  ;;
bad_model)
  for m in crfpp/bad_version.model crfpp/bad_truncated.model wapiti/bad_truncated.model; do
    expect_bad_input "$VITESSE" tag -m "models/$m" test.txt -o out/x
    grep -q "models/$m: " stderr || fail "message does not name $m"
    expect_bad_input "$VITESSE" convert "models/$m" -o out/x.vt
  done
  grep -q 'version 200' stderr || true
  expect_bad_input "$VITESSE" convert --from wapiti models/crfpp/good.model -o out/x.vt
  expect_bad_input "$VITESSE" convert --from crfpp models/wapiti/good.model -o out/x.vt
  expect_bad_input "$VITESSE" convert --from nosuch models/wapiti/good.model -o out/x.vt
  expect_bad_input "$VITESSE" tag -m models/wapiti/good.model --cost-factor 2 test.txt -o out/x
  expect_bad_input "$VITESSE" tag -m models/crfpp/good.model --cost-factor -1 test.txt -o out/x
  expect_bad_input "$VITESSE" tag -m models/crfpp/good.model --label-sep comma test.txt -o out/x
  expect_bad_input "$VITESSE" tag -m models/crfpp/good.model -t test.txt -o out/x
  grep -q 'only with a CRFsuite model' stderr || fail "tag -t with a CRF++ model: $(cat stderr)"
  printf 'version: 100\ncost-factor: 1\nmaxid: 1\nxsize: 1\n\nA\n\nU01:%%x[9,0]\n\n0 U01:a\n\n0.5\n' \
    >badtmpl.txt
  expect_bad_input "$VITESSE" tag -m badtmpl.txt test.txt -o out/x
  grep -q 'row' stderr || fail "template row out of range not said"
  ;;
cost_factor)
  # crf_test -c C: scores times C (the writers' weights are multiples of 1/8: exact); the
  # engine's k-best prints the scores (crf_test's own search prints probabilities)
  "$VITESSE" tag -m models/crfpp/good.model -k 2 --algo kbest-viterbi test.txt -o a.txt \
    2>stderr || fail "tag"
  "$VITESSE" tag -m models/crfpp/good.model -k 2 --algo kbest-viterbi --cost-factor 2 test.txt \
    -o b.txt 2>stderr || fail "tag --cost-factor 2"
  awk '/^# /{print $3 * 2}' a.txt >as.txt
  awk '/^# /{print $3 + 0}' b.txt >bs.txt
  cmp -s as.txt bs.txt || fail "scores not doubled"
  ;;
train_wapiti_pattern)
  # Wapiti pattern files unchanged: u/b/* in either case, # comments anywhere, blanks inside
  # brackets, @ positions, %m/%t, a bare *.
  cat >pattern.txt <<'P'
# a Wapiti pattern file
*

U:wrd X=%x[ 0,0]
u:wrd L=%X[-1,0]   # the previous word, lower-cased
u:wrd first=%x[@1,0]
*:tag X=%x[ 0,1]
*:suf X=%m[ 0,0,".?$"]
*:cap X=%t[ 0,0,"^\u"]
b
P
  awk 'BEGIN { for (i = 0; i < 200; i++) { print "a X L1"; print "Cc Y L2"; print "b X L1"; print "" } }' \
    >train.txt
  "$VITESSE" train --template pattern.txt --train train.txt --epochs 3 --quiet -o m.vt \
    2>stderr || fail "train with a Wapiti pattern file"
  "$VITESSE" tag -m m.vt train.txt -o tagged.txt 2>stderr || fail "tag"
  awk 'NF && $3 != $4 { bad++ } END { exit bad > 0 }' tagged.txt || fail "training set not learnt"
  ;;
crf_test)
  # crf_test's own bytes (tests/crf_test/README.md): its columns joined by tabs whatever the
  # input's separators, its n-best order among exact ties, its probabilities to the last digit
  F=$(dirname "$0")/crf_test
  "$TEST_PEER" --case write_fixtures --write-fixtures models >/dev/null || fail "--write-fixtures"
  awk -v N=60 -f "$F/corpus.awk" >corpus.txt || fail "corpus.awk"
  check() { # check FIXTURE VITESSE-ARGS...: vitesse tag ARGS prints FIXTURE's bytes
    want=$1
    shift
    "$VITESSE" tag "$@" -o got.txt 2>stderr || fail "tag $*"
    cmp -s got.txt "$F/$want" || { diff got.txt "$F/$want" | head -5 >&2; fail "tag $*: not $want"; }
  }
  check ties.out -m models/ties.model --label-sep tab corpus.txt
  check ties.out -m models/ties.model corpus.txt # a CRF++ model's default: crf_test's bytes
  check ties_v1_n4.out -m models/ties.model --label-sep tab -v 1 -k 4 corpus.txt
  check fine_v1_n4.out -m models/fine.model --label-sep tab -v 1 -k 4 corpus.txt
  check fine_v1_n4.out --model=models/fine.model --label-sep tab --verbose=1 --nbest=4 corpus.txt
  check fine_v1_n4.out -m models/fine.model --label-sep tab -v 1 -n 4 corpus.txt
  check fine_v2.out -m models/fine.model --label-sep tab -v 2 corpus.txt
  # converted, the same bytes
  "$VITESSE" convert models/ties.model -o ties.vt 2>stderr || fail "convert"
  check ties_v1_n4.out -m ties.vt --label-sep tab -v 1 -k 4 corpus.txt
  # tab-separated input: the same bytes; a file whose first line has a tab is split at tabs
  # only, so a mixed one wants --sep space to be split as crf_test splits it
  awk 'NF { $1 = $1 } { print }' OFS='\t' corpus.txt >tabs.txt
  check ties_v1_n4.out -m models/ties.model --label-sep tab -v 1 -k 4 tabs.txt
  check ties_v1_n4.out -m models/ties.model -v 1 -k 4 tabs.txt
  check ties_v1_n4.out -m ties.vt -v 1 -k 4 corpus.txt
  { printf 'b\tX\n'; tail -n +2 corpus.txt; } >mixed.txt
  check ties.out -m models/ties.model --label-sep tab --sep space mixed.txt
  # the exact ties of the 4-best are really there: the engine's own k-best orders them otherwise
  "$VITESSE" tag -m models/ties.model --label-sep tab -k 4 --algo kbest-viterbi corpus.txt \
    -o own.txt 2>stderr || fail "--algo kbest-viterbi"
  awk '/^# /{ print "#"; next } { sub(/\/[^\/]*$/, "", $NF); print $NF }' "$F/ties_v1_n4.out" >a.lab
  awk '/^# /{ print "#"; next } { print $NF }' own.txt >b.lab
  ! cmp -s a.lab b.lab || fail "no tie ordered differently by the engine's k-best: a weak fixture"
  ;;
shared)
  P=$SHARED/peer-models/conll2000-chunk
  [ -f "$P/test.txt" ] && [ -f "$P/crfpp.model" ] || exit 77
  sh "$(dirname "$0")/peer_compare.sh" "$VITESSE" "$P" >report.txt 2>stderr ||
    { cat report.txt >&2; fail "peer outputs differ"; }
  cat report.txt
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
