#!/bin/sh
# tests/mpi_cli.sh VITESSE VITESSE_MPI MPIEXEC NPFLAG CASE [CRFSUITE_SEEDS]: vitesse-mpi under
# mpirun with 1..4
# ranks (oversubscribed, on this machine) writes the very bytes `vitesse tag` / `vitesse decode`
# write, on corpora this script writes (sentences straddling the cuts, CRLF, no final newline,
# fewer sentences than ranks, an empty file, blank and comment lines, tabs, .gz, standard input;
# decode with k-best, log Z, label names and the marginals file; a joint POS + chunk model with
# chunk-tag's options and --eval; a CRFsuite model, made by tests/crfsuite_seeds.c, on item files
# with runs of empty lines and items that are blank lines, with -p -i -l and -k 2),
# for several round sizes and threads per rank; each run also checks that the job really had P
# ranks (two MPI installations can silently start P one-rank jobs). Failures: exit status 2, one
# line "vitesse: ...", no output file; SIGTERM to the ranks or to mpirun likewise, with the
# message of an interrupted run. Cases: tag_plain tag_edges tag_stream tag_joint tag_crfsuite
# decode errors tag_resume (a job killed and rerun with --resume on another number of ranks
# ends with vitesse tag's bytes; a rerun with other options refused).
set -u

if [ $# -ne 5 ] && [ $# -ne 6 ]; then
  echo "usage: $0 VITESSE VITESSE_MPI MPIEXEC NPFLAG CASE [CRFSUITE_SEEDS]" >&2
  exit 64
fi
VITESSE=$1
VMPI=$2
MPIEXEC=$3
NP=$4
CASE=$5
SEEDS=${6:-}
HERE=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_mpi_cli.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1

SUITE=mpi_cli
. "$HERE/mpi_env.sh"

# Sentences "word feature label"; $3: the separator.
corpus() {
  awk -v n="$1" -v seed="$2" -v sep="${3:- }" 'BEGIN {
    split("NN VB DT JJ B-NP I-NP O", lab, " ");
    s = seed;
    for (i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 65536) % 9; prev = 9;
      for (t = 0; t < T; t++) {
        s = (s * 1103515245 + 12345) % 2147483648; w = int(s / 65536) % 8;
        printf "w%d%sx%d%s%s\n", w, sep, w % 3, sep, lab[1 + (w * 5 + prev * 3) % 7]; prev = w;
      }
      printf "\n";
    }
  }'
}

printf 'U00:%%x[0,0]\nU01:%%x[-1,0]/%%x[0,0]\nU02:%%x[0,1]\nB\n' >tmpl
train() {
  corpus 300 7 >train.txt
  "$VITESSE" train --template tmpl --train train.txt --epochs 5 --quiet -o model.bin 2>stderr ||
    fail "train exited $?"
}

# same_tag NAME INPUT [tag options]: vitesse-mpi tag equals vitesse tag for P = 1..4 (or $PS; 2
# threads a rank for odd P, 1 for even P) and the round sizes of $ROUNDS, with model $MODEL
# (default model.bin), stderr too (empty, or $STDERR_SAME=1: the same lines).
same_tag() {
  name=$1
  input=$2
  shift 2
  "$VITESSE" tag -m "${MODEL:-model.bin}" "$@" "$input" -o ref.txt 2>ref.err ||
    fail "$name: vitesse tag exited $?"
  for p in ${PS:-1 2 3 4}; do
    for round in $ROUNDS; do
      th=$((1 + p % 2)) # 2 threads a rank with 1 and 3 ranks, 1 with 2 and 4
      rm -f out.txt
      VITESSE_MPI_ROUND_BYTES=$round run_mpi "$p" tag -m "${MODEL:-model.bin}" --threads "$th" \
        "$@" "$input" -o out.txt || fail "$name: P=$p round=$round threads=$th exited $rc"
      cmp -s ref.txt out.txt || fail "$name: P=$p round=$round threads=$th: output differs"
      if [ "${STDERR_SAME:-0}" = 1 ]; then
        cmp -s ref.err stderr || fail "$name: P=$p: messages differ from vitesse tag's"
      else
        [ ! -s stderr ] || fail "$name: P=$p: unexpected messages"
      fi
    done
  done
}

# one_error NAME: the last run failed with status 2, one line "vitesse: ...", no output file.
one_error() {
  [ "$rc" -eq 2 ] || fail "$1: exit status $rc, expected 2"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "$1: expected one line on stderr"
  grep -q '^vitesse: ' stderr || fail "$1: the line does not start with 'vitesse: '"
  [ -z "$(ls -A out 2>/dev/null)" ] || fail "$1: files left in out/: $(ls -A out)"
}

case $CASE in
tag_plain)
  train
  corpus 400 11 >plain.txt
  ROUNDS="97 1000 100000"
  same_tag plain plain.txt
  corpus 400 12 "	" >tabs.txt
  ROUNDS="97 100000"
  same_tag tabs tabs.txt
  PS="2 3" same_tag kbest plain.txt -k 2
  PS="2 3" same_tag marginals plain.txt -v 2
  ;;
tag_edges)
  train
  ROUNDS="61 1500"
  # A 3000-token sentence (about 30 KB) in the middle straddles many cuts.
  { corpus 50 3; corpus 1 5 | head -n 1 | awk '{for (i = 0; i < 3000; i++) print}'; echo
    corpus 50 4; } >long.txt
  same_tag long long.txt
  corpus 200 13 | sed 's/$/\r/' >crlf.txt
  same_tag crlf crlf.txt
  corpus 200 14 | head -c -2 >nofinal.txt # ends inside the last token line
  same_tag nofinal nofinal.txt
  corpus 2 15 >few.txt
  same_tag few few.txt
  : >empty.txt
  same_tag empty empty.txt
  # Runs of blank lines, blank lines of blanks and tabs, leading and trailing blank lines.
  { printf '\n\n \t\n'; corpus 30 16 | awk '{print} /^$/ && NR % 3 == 0 {print "  "; print ""}'
    printf '\t\n\n'; } >blanks.txt
  same_tag blanks blanks.txt
  # Comment lines (passed through) between and inside sentences.
  corpus 100 17 | awk 'NR % 7 == 1 {print "# c" NR} {print}' >comments.txt
  same_tag comments comments.txt --comments
  ;;
tag_stream)
  train
  ROUNDS="113 4000"
  { corpus 100 21; corpus 1 5 | head -n 1 | awk '{for (i = 0; i < 800; i++) print}'; echo
    corpus 100 22; } >s.txt
  gzip -c s.txt >s.txt.gz
  same_tag gz s.txt.gz
  corpus 150 23 | sed 's/$/\r/' | head -c -3 | gzip -c >crlf.txt.gz
  same_tag gz_crlf crlf.txt.gz
  : | gzip -c >empty.gz
  same_tag gz_empty empty.gz
  # Standard input, and several files one after the other.
  "$VITESSE" tag -m model.bin <s.txt >ref.txt 2>stderr || fail "stdin: vitesse tag exited $?"
  for p in 1 3; do
    VITESSE_MPI_ROUND_BYTES=113 "$MPIEXEC" "$NP" "$p" "$VMPI" tag -m model.bin -o out.txt \
      <s.txt 2>stderr.all || fail "stdin: P=$p exited $?"
    cmp -s ref.txt out.txt || fail "stdin: P=$p: output differs"
  done
  corpus 20 24 >two.txt
  # The ranks of a node share its CPUs: with 2 ranks, rank 0's engine plans half of them.
  n=$(nproc)
  want=$((n / 2 > 0 ? n / 2 : 1))
  run_mpi 2 tag -m model.bin --stats two.txt -o out.txt || fail "share: exited $rc"
  grep -q "\"threads\": $want," stderr || fail "2 ranks on $n CPUs: rank 0 should plan $want workers"
  "$VITESSE" tag -m model.bin s.txt.gz two.txt s.txt -o ref.txt 2>stderr || fail "files: exited $?"
  for p in 2 4; do
    VITESSE_MPI_ROUND_BYTES=301 run_mpi "$p" tag -m model.bin s.txt.gz two.txt s.txt -o out.txt ||
      fail "files: P=$p exited $rc"
    cmp -s ref.txt out.txt || fail "files: P=$p: output differs"
  done
  ;;
tag_joint)
  # A joint POS + chunk model trained on "word POS chunk" lines: DT starts a noun chunk, NN goes on
  # with it, VB is outside.
  corpus 300 7 | awk '!NF {print; np = 0; next}
    {w = substr($1, 2) + 0; pos = w < 3 ? "DT" : w < 6 ? "NN" : "VB"
     c = pos == "DT" ? "B-NP" : pos == "NN" && np ? "I-NP" : "O"; np = c != "O"; print $1, pos, c}' >jtrain.txt
  "$VITESSE" chunk-train --train jtrain.txt --epochs 3 --quiet -o joint.bin 2>stderr ||
    fail "chunk-train exited $?"
  MODEL=joint.bin
  ROUNDS="211 4000"
  # A 300-token sentence in the middle straddles many cuts (the model has no chunk bound: a
  # sentence costs n^2); CRLF; no final newline.
  { corpus 100 41; corpus 1 5 | head -n 1 | awk '{for (i = 0; i < 300; i++) print}'; echo
    corpus 100 42; } >jlong.txt
  same_tag joint jlong.txt
  corpus 120 43 | sed 's/$/\r/' | head -c -3 >jcrlf.txt
  PS="2 3" ROUNDS=211 same_tag joint_crlf jcrlf.txt
  gzip -c jlong.txt >jlong.txt.gz
  PS="2 3" ROUNDS=997 same_tag joint_gz jlong.txt.gz
  # chunk-tag's options: --max-chunk, the word column, and --eval (its counts summed over ranks).
  PS="2 4" ROUNDS=211 same_tag joint_maxchunk jlong.txt --max-chunk 2
  awk 'NF {print "x", $0} !NF {print}' jtrain.txt >jcols.txt
  PS=3 ROUNDS=211 same_tag joint_wordcol jcols.txt --word-col 1
  PS="1 4" ROUNDS=997 STDERR_SAME=1 same_tag joint_eval jtrain.txt --eval
  ;;
tag_crfsuite)
  [ -n "$SEEDS" ] || { echo "mpi_cli.sh: tag_crfsuite needs CRFSUITE_SEEDS" >&2; exit 64; }
  "$SEEDS" . || fail "crfsuite_seeds exited $?"
  MODEL=crfsmodel/good.model
  # Item files: sequences of 1..9 items of the seed model's attributes ended by runs of 1..3
  # empty lines; some items are a line of blanks or a lone "\r" (items in CRFsuite, not ends).
  items() {
    awk -v n="$1" -v seed="$2" 'BEGIN {
      split("w=the x pos=NN U00=the a\\:b c\\\\d", at, " "); split("B-NP I-NP O B-VP", lab, " ");
      s = seed;
      for (i = 0; i < n; i++) {
        s = (s * 1103515245 + 12345) % 2147483648; T = 1 + int(s / 65536) % 9;
        for (t = 0; t < T; t++) {
          s = (s * 1103515245 + 12345) % 2147483648; r = int(s / 65536);
          if (r % 23 == 0) { print (r % 2 ? " \t" : "\r"); continue }
          printf "%s\t%s\t%s:%d\n", lab[1 + r % 4], at[1 + r % 6], at[1 + int(r / 7) % 6], r % 5 - 2;
        }
        for (e = 0; e <= r % 3; e++) printf "\n";
      }
    }'
  }
  ROUNDS="211 4000"
  { items 100 51; items 1 5 | head -n 1 | awk '{for (i = 0; i < 400; i++) print}'; echo
    items 100 52; } >long.items
  cr=$(printf '\r')
  tab=$(printf '\t')
  grep -q "^$cr\$" long.items && grep -q "^ $tab\$" long.items || fail "the item file lacks blank items"
  same_tag items long.items
  items 200 53 | head -c -2 >nofinal.items
  PS="2 3" ROUNDS=211 same_tag items_nofinal nofinal.items
  PS="2 3" ROUNDS=211 same_tag items_marginals long.items -p -i -l
  PS=4 ROUNDS=211 same_tag items_kbest long.items -k 2 --algo kbest-viterbi
  gzip -c long.items >long.items.gz
  PS="1 3" ROUNDS=997 same_tag items_gz long.items.gz -p
  : >empty.items
  PS=2 ROUNDS=211 same_tag items_empty empty.items
  # A bad item far into the file: one line with its line number, exit status 2, no output file.
  mkdir out
  { items 300 54; printf 'O\tx:zz\n\n'; items 20 55; } >bad.items
  "$VITESSE" tag -m "$MODEL" bad.items -o out/ref.txt 2>stderr
  [ $? -eq 2 ] || fail "vitesse tag should fail on bad.items"
  want=$(cat stderr)
  for p in 1 3; do
    VITESSE_MPI_ROUND_BYTES=2000 run_mpi "$p" tag -m "$MODEL" bad.items -o out/o.txt
    one_error "bad item P=$p"
    [ "$(cat stderr)" = "$want" ] || fail "bad item P=$p: '$(cat stderr)', expected '$want'"
  done
  ;;
decode)
  "$VITESSE" synth -o lat --labels 12 --sentences 300 --seed 5 >/dev/null 2>stderr ||
    fail "synth exited $?"
  seq 0 11 | sed 's/^/L/' >names.txt
  D="--emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy --start lat/S.npy --end lat/F.npy"
  for opts in "" "-k 3 --logz" "--labels names.txt --algo iter-viterbi-astar -k 2"; do
    # shellcheck disable=SC2086
    "$VITESSE" decode $D $opts -o ref.txt 2>stderr || fail "decode $opts: exited $?"
    for p in 1 2 3 4; do
      for round in 1 17 100000; do
        # shellcheck disable=SC2086
        VITESSE_MPI_ROUND_SENTENCES=$round run_mpi "$p" decode $D $opts --threads 2 -o out.txt ||
          fail "decode $opts: P=$p round=$round exited $rc"
        cmp -s ref.txt out.txt || fail "decode $opts: P=$p round=$round: output differs"
      done
    done
  done
  # The marginals (.npy): rank 0's first range brings the header.
  # shellcheck disable=SC2086
  "$VITESSE" decode $D --logz --posteriors pref.npy -o ref.txt 2>stderr || fail "posteriors: exited $?"
  for p in 1 2 3 4; do
    for round in 1 29; do
      rm -f post.npy out.txt
      # shellcheck disable=SC2086
      VITESSE_MPI_ROUND_SENTENCES=$round run_mpi "$p" decode $D --logz --posteriors post.npy \
        -o out.txt || fail "posteriors: P=$p round=$round exited $rc"
      cmp -s ref.txt out.txt || fail "posteriors: P=$p round=$round: paths differ"
      cmp -s pref.npy post.npy || fail "posteriors: P=$p round=$round: marginals differ"
    done
  done
  ;;
errors)
  train
  mkdir out
  # A bad line far into the file: found by a rank other than 0; named with its line number.
  { corpus 300 31; printf 'w1 x1\nw2 x2 x3 x4\n\n'; corpus 30 32; } >bad.txt
  "$VITESSE" tag -m model.bin bad.txt -o out/ref.txt 2>stderr
  [ $? -eq 2 ] || fail "vitesse tag should fail on bad.txt"
  want=$(cat stderr)
  for p in 1 3; do
    VITESSE_MPI_ROUND_BYTES=500 run_mpi "$p" tag -m model.bin bad.txt -o out/o.txt
    one_error "bad line P=$p"
    [ "$(cat stderr)" = "$want" ] || fail "bad line P=$p: '$(cat stderr)', expected '$want'"
  done
  gzip -c bad.txt | head -c 3000 >trunc.gz
  run_mpi 2 tag -m model.bin trunc.gz -o out/o.txt
  one_error "truncated gzip"
  run_mpi 3 tag -m missing.bin bad.txt -o out/o.txt
  one_error "missing model"
  run_mpi 2 tag -m model.bin missing.txt -o out/o.txt
  one_error "missing input"
  run_mpi 2 tag -m model.bin bad.txt
  one_error "no -o"
  run_mpi 2 tag -m model.bin --threads -1 bad.txt -o out/o.txt
  one_error "bad option"
  # SIGTERM, as in the single-process engine: every rank stops, one line "vitesse: interrupted by
  # SIGTERM: ...", no output file, a non-zero exit status. The job (640 copies of a corpus in
  # rounds of 40 bytes: some 40 s of work on one core of a 2-core VM, and four times the 10 s
  # below on a faster one) is still running when the signal comes. The
  # signal goes out only once the temporary output exists: rank 0 creates it after every rank set
  # up its engine and its signal handlers (before that, a rank still in MPI_Init dies of the
  # signal). Two ways: (1) to every rank at once, as Slurm's scancel does and as mpirun does
  # itself later; (2) to mpirun: Open MPI 4.1 sends the ranks SIGCONT at once, SIGTERM only
  # odls_base_sigkill_timeout seconds later, and SIGKILL as long again after that (whether they
  # exited or not), and exits 1. Its default timeout, 1 s, is the time a rank has to stop, which a
  # loaded machine may not give: a job that ended within the timeout, or ranks killed mid-way,
  # was why the earlier check failed with no message under load. Here it is 10 s.
  corpus 3000 33 >long.txt
  set -- long.txt long.txt long.txt long.txt long.txt long.txt long.txt long.txt long.txt long.txt
  set -- "$@" "$@"
  set -- "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@"
  set -- "$@" "$@"
  # sigterm_job HOW TIMEOUT P FILE...: starts the job (P ranks, mpirun's SIGKILL timeout), signals
  # it (HOW: ranks or mpirun) once out/ holds the temporary file, waits for it (at most 5 minutes,
  # then kills it: a hung job fails with its messages, not with CTest's timeout).
  sigterm_job() {
    how=$1
    tmo=$2
    np=$3
    shift 3
    OMPI_MCA_odls_base_sigkill_timeout=$tmo VITESSE_MPI_ROUND_BYTES=40 "$MPIEXEC" "$NP" "$np" \
      "$VMPI" tag -m model.bin "$@" -o out/o.txt 2>stderr.all </dev/null &
    job=$!
    i=0
    while [ -z "$(ls -A out)" ] && kill -0 $job 2>/dev/null && [ $i -lt 6000 ]; do
      sleep 0.05
      i=$((i + 1))
    done
    [ -n "$(ls -A out)" ] || { kill -KILL $job; wait $job; cp stderr.all stderr
      fail "SIGTERM $how: no temporary output after $i waits (the job ended or never started)"; }
    if [ "$how" = ranks ]; then
      ranks=$(pgrep -P $job -x vitesse-mpi | tr '\n' ' ')
      [ "$(echo $ranks | wc -w)" -eq "$np" ] || fail "SIGTERM ranks: found ranks '$ranks' of mpirun $job"
      # shellcheck disable=SC2086
      kill -TERM $ranks
    else
      kill -TERM $job
    fi
    i=0
    while kill -0 $job 2>/dev/null && [ $i -lt 3000 ]; do
      sleep 0.1
      i=$((i + 1))
    done
    hung=0
    if kill -0 $job 2>/dev/null; then
      hung=1
      pkill -KILL -P $job
      kill -KILL $job
    fi
    wait $job
    rc=$?
    grep -v '^vitesse-mpi: [0-9]* ranks$' stderr.all >stderr
    [ $hung -eq 0 ] || fail "SIGTERM $how: the job still ran 5 minutes after the signal"
    [ "$rc" -ne 0 ] || fail "SIGTERM $how: the job exited 0 (it ended before the signal?)"
    grep -q '^vitesse: interrupted by SIGTERM: .* sentences were tagged; out/o.txt was not written$' stderr ||
      fail "SIGTERM $how: exit status $rc, expected one 'interrupted by SIGTERM' line"
    [ "$(wc -l <stderr)" -eq 1 ] || fail "SIGTERM $how: exit status $rc, more than one line"
    [ -z "$(ls -A out)" ] || fail "SIGTERM $how: exit status $rc, files left in out/: $(ls -A out)"
  }
  sigterm_job ranks 1 2 "$@"
  [ "$rc" -eq 143 ] || fail "SIGTERM ranks: exit status $rc, expected 143 (128 + SIGTERM)"
  sigterm_job ranks 1 3 "$@"
  sigterm_job mpirun 10 2 "$@"
  "$VITESSE" synth -o lat --labels 5 --sentences 10 --seed 5 >/dev/null 2>&1
  run_mpi 2 decode --emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy \
    --posteriors - -o out/o.txt
  one_error "decode --posteriors -"
  run_mpi 3 decode --emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy \
    --posteriors out/p.npy -o out/nodir/o.txt
  one_error "decode, -o in a missing folder"
  ;;
tag_resume)
  # vitesse-mpi tag -o OUT --resume: the whole job (mpirun and its ranks) SIGKILLed once a place
  # after some rounds is durable, rerun on 3 ranks and killed again further on, then on 2 ranks
  # to its end: OUT is vitesse tag's bytes, nothing left beside it. Places are made durable at
  # every round (VITESSE_RESUME_INTERVAL=0) of 1000 bytes a rank: the job runs for seconds.
  train
  corpus 1500 41 >a.txt
  corpus 1500 42 "	" >b.txt
  "$VITESSE" tag -m model.bin a.txt b.txt -o ref.txt 2>stderr || fail "vitesse tag exited $?"
  export VITESSE_RESUME_INTERVAL=0 VITESSE_MPI_ROUND_BYTES=1000
  # place FILE: the "at" line of progress file FILE (file, offset), or nothing.
  place() { awk '/^at / {print $2, $3}' "$1" 2>/dev/null; }
  # killed_job P BEYOND: starts the job on P ranks, SIGKILLs mpirun and its ranks at once as soon
  # as the progress file's place is past the start and not BEYOND; fails when the job ended first.
  killed_job() {
    np=$1
    beyond=$2
    "$MPIEXEC" "$NP" "$np" "$VMPI" tag -m model.bin a.txt b.txt -o out/r.txt --resume \
      2>stderr.all </dev/null &
    job=$!
    i=0
    while kill -0 $job 2>/dev/null && [ $i -lt 6000 ]; do
      at=$(place out/r.txt.progress)
      [ -n "$at" ] && [ "$at" != "0 0" ] && [ "$at" != "$beyond" ] && break
      sleep 0.02
      i=$((i + 1))
    done
    ranks=$(pgrep -P $job -x vitesse-mpi | tr '\n' ' ')
    # shellcheck disable=SC2086
    kill -KILL $job $ranks 2>/dev/null
    wait $job
    grep -v '^vitesse-mpi: [0-9]* ranks$' stderr.all >stderr
    [ ! -e out/r.txt ] || fail "P=$np: the job ended before it was killed (after $i waits)"
    [ -f out/r.txt.partial ] && [ -n "$(place out/r.txt.progress)" ] ||
      fail "P=$np: no OUT.partial and progress place after the kill"
    i=0 # the ranks are gone before the next job
    while [ -n "$ranks" ] && kill -0 $ranks 2>/dev/null && [ $i -lt 500 ]; do
      sleep 0.02
      i=$((i + 1))
    done
  }
  mkdir -p out
  killed_job 2 ""
  first=$(place out/r.txt.progress)
  # A rerun with other options, or by vitesse tag, is refused: one line, the progress kept.
  run_mpi 2 tag -m model.bin -k 2 a.txt b.txt -o out/r.txt --resume
  [ "$rc" -eq 2 ] && [ "$(wc -l <stderr)" -eq 1 ] && grep -q "the options differ" stderr ||
    fail "a rerun with other options: exit status $rc"
  "$VITESSE" tag -m model.bin a.txt b.txt -o out/r.txt --resume 2>stderr
  rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <stderr)" -eq 1 ] && grep -q "not one of vitesse tag" stderr ||
    fail "vitesse tag --resume took vitesse-mpi's progress: exit status $rc"
  [ "$(place out/r.txt.progress)" = "$first" ] && [ ! -e out/r.txt ] ||
    fail "a refused rerun changed the progress or wrote OUT"
  killed_job 3 "$first"
  run_mpi 2 tag -m model.bin a.txt b.txt -o out/r.txt --resume ||
    fail "the last rerun exited $rc"
  grep -q "^vitesse: tag --resume: continuing after [1-9][0-9]* sentences" stderr ||
    fail "the last rerun did not continue a run"
  cmp -s ref.txt out/r.txt || fail "the resumed job's output differs from vitesse tag's"
  [ "$(ls out)" = r.txt ] || fail "left beside OUT: $(ls out)"
  # SIGTERM to the ranks: the last round written made durable, one line, exit 143; a rerun ends it.
  rm -f out/r.txt
  "$MPIEXEC" "$NP" 2 "$VMPI" tag -m model.bin a.txt b.txt -o out/r.txt --resume 2>stderr.all \
    </dev/null &
  job=$!
  i=0
  while kill -0 $job 2>/dev/null && [ $i -lt 6000 ]; do
    at=$(place out/r.txt.progress)
    [ -n "$at" ] && [ "$at" != "0 0" ] && break
    sleep 0.02
    i=$((i + 1))
  done
  # shellcheck disable=SC2046
  kill -TERM $(pgrep -P $job -x vitesse-mpi) 2>/dev/null
  wait $job
  rc=$?
  grep -v '^vitesse-mpi: [0-9]* ranks$' stderr.all >stderr
  [ "$rc" -eq 143 ] && [ "$(wc -l <stderr)" -eq 1 ] &&
    grep -q '^vitesse: interrupted by SIGTERM: [1-9][0-9]* sentences were tagged in order; out/r.txt.partial keeps them' stderr ||
    fail "SIGTERM with --resume: exit status $rc"
  run_mpi 3 tag -m model.bin a.txt b.txt -o out/r.txt --resume || fail "rerun after SIGTERM: $rc"
  cmp -s ref.txt out/r.txt && [ "$(ls out)" = r.txt ] || fail "after SIGTERM: output differs"
  # Uninterrupted, on 3 ranks: the same bytes, nothing left; .gz and standard input refused.
  rm -f out/r.txt
  run_mpi 3 tag -m model.bin a.txt b.txt -o out/r.txt --resume || fail "P=3 exited $rc"
  cmp -s ref.txt out/r.txt && [ "$(ls out)" = r.txt ] || fail "P=3 --resume: output differs"
  rm -f out/r.txt
  gzip -c a.txt >a.txt.gz
  run_mpi 2 tag -m model.bin a.txt.gz -o out/r.txt --resume
  one_error "--resume with a .gz input"
  run_mpi 2 tag -m model.bin -o out/r.txt --resume
  one_error "--resume with standard input"
  ;;
*)
  echo "mpi_cli.sh: unknown case '$CASE'" >&2
  exit 64
  ;;
esac
exit 0
