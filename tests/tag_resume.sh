#!/bin/sh
# tests/tag_resume.sh VITESSE CASE: `vitesse tag -o OUT --resume` on data this script writes.
# Cases:
#   kill     a tag job is SIGKILLed at random points several times (a template model on a plain
#            and a .gz corpus, one thread and two; a CRFsuite model on an item file; a joint
#            model), each rerun continues, and OUT is the bytes of an uninterrupted run;
#   term     SIGTERM: exit 143, OUT not written, OUT.partial kept; the rerun ends the same bytes;
#   refuse   a rerun with other options, another input, a changed input, another model or a
#            changed --tag-dict is refused with one line naming what differs (exit 2), OUT not
#            written, the progress kept; standard input, no -o, -t and --eval are refused
#            (decode --resume: tests/decode_resume.sh; vitesse-mpi: tests/mpi_cli.sh);
#   plain    without --resume nothing is left beside OUT and the bytes are today's; a run with
#            --resume that is not killed leaves OUT alone beside it.
# shellcheck source-path=SCRIPTDIR
set -u
SUITE=tag_resume
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/case_env.sh"
. "$HERE/kill_rerun.sh"

# corpus N SEED: N sentences of "WORD<TAB>SHAPE<TAB>LABEL" lines, 5 labels.
corpus() {
  awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (s = 0; s < n; s++) {
    T = 3 + int(rand() * 12); for (t = 0; t < T; t++) { w = int(rand() * 500)
      printf "w%d\t%s\t%s\n", w, (w % 7 < 3 ? "X" : "Y"), substr("ABCDE", 1 + (w + t) % 5, 1) }
    print "" } }'
}
# items N SEED: N sequences of CRFsuite items, 3 labels.
items() {
  awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++) {
    T = 1 + int(rand() * 8); for (t = 0; t < T; t++) { w = int(rand() * 300)
      printf "%s\tw=%d\tc=%d:0.5\n", substr("ABC", 1 + (w + t) % 3, 1), w, t % 2 }
    print "" } }'
}
# joint N SEED: N sentences of "WORD POS CHUNK" lines.
joint() {
  awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (s = 0; s < n; s++) {
    T = 3 + int(rand() * 10); for (t = 0; t < T; t++) { w = int(rand() * 200)
      printf "w%d %s %s\n", w, (w % 2 ? "NN" : "VB"), (t % 3 == 0 ? "B-NP" : t % 3 == 1 ? "I-NP" : "O") }
    print "" } }'
}

template_model() {
  corpus 1500 1 >train.txt
  printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nU02:%%x[0,1]\nU03:%%x[1,0]/%%x[0,0]\nB\n' >tmpl
  "$VITESSE" train --template tmpl --train train.txt --epochs 2 -o m.bin --quiet 2>stderr ||
    fail "training failed"
}

# killed_run REF OUT ARGS...: `vitesse tag ARGS -o OUT --resume` SIGKILLed at random points until
# 5 runs were killed before their end (at most 12 tries; a run that ended first is started over,
# and the next delay is shorter), then run to its end (tests/kill_rerun.sh); OUT must be the
# bytes of REF, nothing left beside it.
killed_run() {
  ref=$1
  out=$2
  shift 2
  kill_rerun 12 5 "$ref" "$out" "$VITESSE" tag "$@" -o "$out" --resume --quiet
  [ ! -e "$out.partial" ] && [ ! -e "$out.progress" ] || fail "left beside $out: $(ls "$out".*)"
}

case $CASE in
kill)
  template_model
  corpus 60000 2 >a.txt
  corpus 40000 3 | gzip -c >b.txt.gz
  timed "$VITESSE" tag -m m.bin a.txt b.txt.gz -o ref.out --threads 1 --quiet 2>stderr ||
    fail "tag failed"
  killed_run ref.out res1.out -m m.bin a.txt b.txt.gz --threads 1 --batch-tokens 300
  killed_run ref.out res2.out -m m.bin a.txt b.txt.gz --threads 2 --batch-tokens 700
  items 1000 4 >train.items
  "$VITESSE" train --algo ap --items train.items --max-iterations 3 -o it.model --quiet \
    2>stderr || fail "item training failed"
  items 60000 5 >big.items
  timed "$VITESSE" tag -m it.model -p -i big.items -o iref.out --threads 2 --quiet 2>stderr ||
    fail "tag items"
  killed_run iref.out ires.out -m it.model -p -i big.items --threads 2 --batch-tokens 300
  joint 1500 6 >jtrain.txt
  "$VITESSE" chunk-train --train jtrain.txt --epochs 2 -o j.model --quiet 2>stderr ||
    fail "joint training failed"
  joint 40000 7 >jbig.txt
  timed "$VITESSE" tag -m j.model jbig.txt -o jref.out --threads 2 --quiet 2>stderr ||
    fail "tag joint"
  killed_run jref.out jres.out -m j.model jbig.txt --threads 2 --batch-tokens 300
  ;;
term)
  template_model
  corpus 80000 2 >a.txt
  timed "$VITESSE" tag -m m.bin a.txt -o ref.out --threads 1 --quiet 2>stderr || fail "tag failed"
  "$VITESSE" tag -m m.bin a.txt -o res.out --resume --quiet --threads 1 --batch-tokens 200 \
    2>stderr &
  pid=$!
  if term_in_time $pid res.out; then # the signal came in time
    [ -f res.out.partial ] && [ -f res.out.progress ] || fail "the progress was not kept"
    "$VITESSE" tag -m m.bin a.txt -o res.out --resume --threads 2 2>stderr ||
      fail "the rerun failed"
    grep -q "continuing after [1-9]" stderr || fail "the rerun did not say where it continues"
  fi
  cmp -s ref.out res.out || fail "resumed output differs"
  ;;
refuse)
  . "$HERE/expect_bad.sh"
  template_model
  corpus 60000 2 >a.txt
  corpus 60000 3 >b.txt
  cp -p a.txt keep.txt
  mkdir out
  # A run stopped once its progress file (identity first) is there.
  stop_at_progress out/r "$VITESSE" tag -m m.bin a.txt b.txt -o out/r --resume --quiet \
    --threads 1 --batch-tokens 100
  # What differs is named; nothing is written; the progress stays.
  bad() { refused_kept out/r "$@"; }
  bad "the options differ" "$VITESSE" tag -m m.bin a.txt b.txt -o out/r --resume -k 2
  bad "the options differ" "$VITESSE" tag -m m.bin a.txt b.txt -o out/r --resume --label-sep space
  bad "the input b.txt differs" "$VITESSE" tag -m m.bin b.txt b.txt -o out/r --resume
  bad "the number of input files differs" "$VITESSE" tag -m m.bin a.txt -o out/r --resume
  "$VITESSE" train --template tmpl --train train.txt --epochs 3 -o m2.bin --quiet 2>stderr ||
    fail "training failed"
  bad "the model m2.bin differs" "$VITESSE" tag -m m2.bin a.txt b.txt -o out/r --resume
  printf 'w1\tX\tA\n\n' >>a.txt # the same name, other bytes
  bad "the input a.txt differs" "$VITESSE" tag -m m.bin a.txt b.txt -o out/r --resume
  cp -p keep.txt a.txt
  touch -d '2001-01-01' a.txt # the same bytes, another time: refused too (it may have changed)
  bad "the input a.txt differs" "$VITESSE" tag -m m.bin a.txt b.txt -o out/r --resume
  # Options that change no byte may change (threads, batch size, --stats): the run ends.
  cp -p keep.txt a.txt
  "$VITESSE" tag -m m.bin a.txt b.txt -o ref.out --quiet 2>stderr || fail "tag failed"
  "$VITESSE" tag -m m.bin a.txt b.txt --threads 2 --batch-tokens 999 --stats -o out/r --resume \
    --quiet 2>stderr || fail "a rerun with other engine options was refused"
  cmp -s ref.out out/r || fail "resumed output differs"
  # A file an option names is part of the run: its content too.
  rm -rf out saved.progress
  mkdir out
  cp -p keep.txt a.txt
  printf 'w1 A B\nw2 C\n' >d.dict
  kill_once_there out/r.progress 500 "$VITESSE" tag -m m.bin --tag-dict d.dict a.txt b.txt \
    -o out/r --resume --quiet --threads 1 --batch-tokens 100
  if [ ! -f out/r ]; then
    cp out/r.progress saved.progress
    printf 'w3 D\n' >>d.dict
    bad "a file an option names" "$VITESSE" tag -m m.bin --tag-dict d.dict a.txt b.txt -o out/r \
      --resume
  fi
  rm -rf out
  mkdir out
  expect_bad "standard input cannot resume" "$VITESSE" tag -m m.bin -o out/s --resume
  expect_bad "standard input cannot resume" "$VITESSE" tag -m m.bin - -o out/s --resume
  expect_bad "needs -o OUT" "$VITESSE" tag -m m.bin a.txt --resume
  items 200 4 >t.items
  "$VITESSE" train --algo ap --items t.items --max-iterations 2 -o it.model --quiet 2>stderr ||
    fail "item training failed"
  expect_bad "not with -t or -q" "$VITESSE" tag -m it.model -t t.items -o out/t --resume
  joint 300 6 >j.txt
  "$VITESSE" chunk-train --train j.txt --epochs 1 -o j.model --quiet 2>stderr ||
    fail "joint training failed"
  expect_bad "not with --eval" "$VITESSE" chunk-tag -m j.model --eval j.txt -o out/j --resume
  ;;
plain)
  template_model
  corpus 5000 2 >a.txt
  "$VITESSE" tag -m m.bin a.txt >stdout.out 2>stderr || fail "tag to stdout failed"
  "$VITESSE" tag -m m.bin a.txt -o plain.out --quiet 2>stderr || fail "tag -o failed"
  cmp -s stdout.out plain.out || fail "-o and stdout differ"
  [ "$(ls | grep -c '^plain\.out')" -eq 1 ] || fail "left beside OUT: $(ls)"
  "$VITESSE" tag -m m.bin a.txt -o res.out --resume --stats 2>stderr || fail "--resume failed"
  cmp -s plain.out res.out || fail "--resume changed the bytes"
  [ "$(ls | grep -c '^res\.out')" -eq 1 ] || fail "left beside OUT: $(ls)"
  grep -q '"sentences": 5000' stderr || fail "--stats lacks the sentences: $(cat stderr)"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
