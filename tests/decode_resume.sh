#!/bin/sh
# tests/decode_resume.sh VITESSE CASE: `vitesse decode -o OUT --resume` on lattices this script
# makes (vitesse synth).
# Cases:
#   kill     a decode job is SIGKILLed at random points (fractions of an uninterrupted run's
#            time) several times: with --posteriors and --logz on one thread, with --posteriors
#            and --labels on two, k-best without posteriors on two; each rerun continues, and OUT
#            (and the posteriors) are the bytes of an uninterrupted run, nothing left beside;
#   term     SIGTERM: exit 143, OUT and the posteriors not written, their .partial kept; the
#            rerun says where it continues and ends the same bytes;
#   refuse   a rerun with other options, other lattices, a changed transitions file, without
#            --posteriors or (with it) at another SIMD level is refused with one line naming
#            what differs (exit 2), OUT not written, the progress kept; no -o and vitesse-mpi
#            are refused;
#   plain    without --resume nothing is left beside OUT and the bytes are those of a run to
#            stdout; a run with --resume that is not killed leaves OUT alone beside it.
# shellcheck source-path=SCRIPTDIR
set -u
SUITE=decode_resume
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/case_env.sh"
. "$HERE/kill_rerun.sh"

# lattices DIR N: N sentences of 40 labels (seeded), and 40 label names.
lattices() {
  "$VITESSE" synth -o "$1" --labels 40 --sentences "$2" --mean-length 20 --seed 7 2>stderr ||
    fail "synth failed"
  awk 'BEGIN { for (i = 0; i < 40; i++) printf "L%d\n", i }' >"$1/labels.txt"
}
LAT="--emissions l/E.npy --lengths l/N.npy --transitions l/A.npy --start l/S.npy --end l/F.npy"

# killed_run REF POSTREF OUT POST ARGS...: `vitesse decode $LAT ARGS -o OUT --resume` (with
# --posteriors POST unless POST is -) SIGKILLed at random points until 5 runs were killed before
# their end (at most 12 tries; a run that ended first is started over, the next delay shorter),
# then run to its end (tests/kill_rerun.sh); OUT (and POST) must be the bytes of REF (and
# POSTREF), nothing left beside.
killed_run() {
  ref=$1
  pref=$2
  out=$3
  post=$4
  shift 4
  [ "$post" = - ] || set -- "$@" --posteriors "$post"
  # shellcheck disable=SC2086
  kill_rerun 12 5 "$ref" "$out" "$VITESSE" decode $LAT "$@" -o "$out" --resume --quiet
  if [ "$post" != - ]; then
    cmp -s "$pref" "$post" || fail "resumed posteriors differ from an uninterrupted run: $*"
  fi
  [ -z "$(ls -d "$out".* "$post".* 2>/dev/null)" ] || fail "left beside: $(ls -d "$out".* "$post".*)"
}
# The posteriors go with OUT: removed when a run ended first, and never committed while OUT's
# .partial is there.
kill_after() {
  [ "$post" = - ] && return
  [ "$1" -eq 0 ] || rm -f "$post"
  [ ! -f "$post" ] || [ -f "$out.partial" ] ||
    fail "the posteriors were committed before OUT's .partial went"
}

case $CASE in
kill)
  lattices l 12000
  # shellcheck disable=SC2086
  timed "$VITESSE" decode $LAT --logz --posteriors ref1.npy -o ref1.out --threads 1 --quiet \
    2>stderr || fail "decode failed"
  killed_run ref1.out ref1.npy res1.out res1.npy --logz --threads 1 --batch-tokens 300
  # shellcheck disable=SC2086
  timed "$VITESSE" decode $LAT --labels l/labels.txt --posteriors ref2.npy -o ref2.out \
    --threads 2 --quiet 2>stderr || fail "decode failed"
  killed_run ref2.out ref2.npy res2.out res2.npy --labels l/labels.txt --threads 2 \
    --batch-tokens 700
  # shellcheck disable=SC2086
  timed "$VITESSE" decode $LAT -k 4 -o ref3.out --threads 2 --quiet 2>stderr || fail "decode failed"
  killed_run ref3.out - res3.out - -k 4 --threads 2 --batch-tokens 200
  ;;
term)
  lattices l 12000
  # shellcheck disable=SC2086
  timed "$VITESSE" decode $LAT --posteriors ref.npy -o ref.out --threads 1 --quiet 2>stderr ||
    fail "decode failed"
  # shellcheck disable=SC2086
  "$VITESSE" decode $LAT --posteriors res.npy -o res.out --resume --quiet --threads 1 \
    --batch-tokens 200 2>stderr &
  pid=$!
  if term_in_time $pid res.out; then # the signal came in time
    [ -f res.out.partial ] && [ -f res.npy.partial ] && [ -f res.out.progress ] ||
      fail "the progress was not kept"
    [ ! -e res.npy ] || fail "the posteriors were written"
    # shellcheck disable=SC2086
    "$VITESSE" decode $LAT --posteriors res.npy -o res.out --resume --threads 2 2>stderr ||
      fail "the rerun failed"
    grep -q "continuing after [1-9]" stderr || fail "the rerun did not say where it continues"
  fi
  cmp -s ref.out res.out || fail "resumed output differs"
  cmp -s ref.npy res.npy || fail "resumed posteriors differ"
  ;;
refuse)
  . "$HERE/expect_bad.sh"
  lattices l 12000
  "$VITESSE" synth -o l2 --labels 40 --sentences 12000 --mean-length 20 --seed 8 2>stderr ||
    fail "synth failed"
  cp -p l/A.npy keepA.npy
  mkdir out
  # A run stopped once its progress file (identity first) is there.
  # shellcheck disable=SC2086
  stop_at_progress out/r "$VITESSE" decode $LAT --posteriors out/p.npy -o out/r --resume \
    --quiet --threads 1 --batch-tokens 100
  # What differs is named; nothing is written; the progress stays.
  bad() {
    refused_kept out/r "$@"
    shift
    [ ! -e out/p.npy ] || fail "the posteriors written: $*"
  }
  # shellcheck disable=SC2086
  bad "the options differ" "$VITESSE" decode $LAT --posteriors out/p.npy -o out/r --resume --logz
  # shellcheck disable=SC2086
  bad "the options differ" "$VITESSE" decode $LAT -o out/r --resume
  bad "the --emissions file l2/E.npy differs" "$VITESSE" decode --emissions l2/E.npy \
    --lengths l2/N.npy --transitions l/A.npy --start l/S.npy --end l/F.npy \
    --posteriors out/p.npy -o out/r --resume
  bad "the --start file (none) differs" "$VITESSE" decode --emissions l/E.npy \
    --lengths l/N.npy --transitions l/A.npy --end l/F.npy --posteriors out/p.npy -o out/r --resume
  cp l2/A.npy l/A.npy # the same name, other bytes
  # shellcheck disable=SC2086
  bad "the --transitions file l/A.npy differs" "$VITESSE" decode $LAT --posteriors out/p.npy \
    -o out/r --resume
  cp -p keepA.npy l/A.npy
  # With --posteriors the SIMD level is part of the run (the marginals' last bits may differ).
  if ! grep -q '^simd scalar$' saved.progress; then
    # shellcheck disable=SC2086
    bad "the SIMD level differs" env VITESSE_SIMD=scalar "$VITESSE" decode $LAT \
      --posteriors out/p.npy -o out/r --resume
  fi
  # Options that change no byte may change (threads, batch size, --stats, --progress), and a
  # file under another name with the same bytes and time: the run ends.
  # shellcheck disable=SC2086
  "$VITESSE" decode $LAT --posteriors ref.npy -o ref.out --quiet 2>stderr || fail "decode failed"
  cp -p l/E.npy E2.npy
  "$VITESSE" decode --emissions E2.npy --lengths l/N.npy --transitions l/A.npy --start l/S.npy \
    --end l/F.npy --posteriors out/p.npy --threads 2 --batch-tokens 999 --stats --progress \
    -o out/r --resume --quiet 2>stderr || fail "a rerun with other engine options was refused"
  cmp -s ref.out out/r || fail "resumed output differs"
  cmp -s ref.npy out/p.npy || fail "resumed posteriors differ"
  rm -rf out
  mkdir out
  # shellcheck disable=SC2086
  expect_bad "needs -o OUT" "$VITESSE" decode $LAT --resume
  # shellcheck disable=SC2086
  expect_bad "needs -o OUT" "$VITESSE" decode $LAT -o - --resume
  MPI="$(dirname "$VITESSE")/vitesse-mpi"
  if [ -x "$MPI" ]; then
    # shellcheck disable=SC2086
    "$MPI" decode $LAT -o out/m --resume >stdout 2>stderr
    rc=$?
    [ $rc -eq 2 ] && grep -q "not with vitesse-mpi" stderr || fail "vitesse-mpi took --resume ($rc)"
  fi
  ;;
plain)
  lattices l 3000
  # shellcheck disable=SC2086
  "$VITESSE" decode $LAT >stdout.out 2>stderr || fail "decode to stdout failed"
  # shellcheck disable=SC2086
  "$VITESSE" decode $LAT -o plain.out --posteriors plain.npy --quiet 2>stderr ||
    fail "decode -o failed"
  cmp -s stdout.out plain.out || fail "-o and stdout differ"
  [ "$(ls | grep -c '^plain\.')" -eq 2 ] || fail "left beside OUT: $(ls)"
  # shellcheck disable=SC2086
  "$VITESSE" decode $LAT -o res.out --posteriors res.npy --resume --stats 2>stderr ||
    fail "--resume failed"
  cmp -s plain.out res.out || fail "--resume changed the bytes"
  cmp -s plain.npy res.npy || fail "--resume changed the posteriors"
  [ "$(ls | grep -c '^res\.')" -eq 2 ] || fail "left beside OUT: $(ls)"
  grep -q '"sentences": 3000' stderr || fail "--stats lacks the sentences: $(cat stderr)"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
