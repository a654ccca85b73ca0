#!/bin/sh
# tests/learn_cli.sh VITESSE CASE: `vitesse learn`, crfsuite learn's command line, on the small
# item file tests/crf_train/items.awk writes. Cases:
#   options  -H lists each algorithm's crfsuite parameters with crfsuite's defaults; refused: an
#            unknown parameter, one of another algorithm, a bad value, an unknown option or
#            algorithm, no data set, -e past the groups, -x with one group, -m naming a data
#            set: one line, exit 2, nothing written;
#   log      the log has crfsuite's blocks (start, reading, statistics, feature generation,
#            parameters, one block of its lines per iteration, the end); the Loss: lines of
#            lbfgs are CRFsuite's (tests/crf_train fixtures, to 1e-6), those of ap, pa and arow
#            and their feature norms CRFsuite's to the printed digits; -l writes the log to
#            crfsuite's file name (log base, algorithm, parameters) and nothing to stdout;
#   holdout  two data sets and -e 2: every iteration is followed by the evaluation of the held
#            out set, whose #ref per label are its label counts and whose item and instance
#            totals are its own; the last one equals what `vitesse tag -t` prints with the model;
#            l2sgd prints its calibration trials and epochs;
#   cv       -g 3 -x: three folds, each holding out one third, together every instance once;
#            no model written;
#   peer     with crfsuite (CRFSUITE=path, or on PATH), the logs of lbfgs (-e 2; -g 3 -e 1), ap
#            and arow (-e 2) and pa (-e 1: the held-out set before the training set, whose labels
#            crfsuite numbers first) equal crfsuite's but for the times and the active features
#            after the first step; skipped (77) without it.
# shellcheck source-path=SCRIPTDIR
set -u
SUITE=learn_cli
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/crf_train
. "$HERE/case_env.sh"
mkdir out
awk -v N=60 -f "$FX/items.awk" >train.items || exit 1
# A second data set: the last 20 sequences (a blank line ends each).
awk -v N=80 -f "$FX/items.awk" | awk 'BEGIN { RS = ""; ORS = "\n\n" } NR > 60' >test.items

. "$HERE/expect_bad.sh"
. "$HERE/close_lines.sh"

# The value of every "NAME: VALUE" line of a log.
values() { sed -n "s/^$1: //p" "$2"; }

case $CASE in
options)
  "$VITESSE" learn -H >h.out 2>stderr || fail "-H failed"
  for p in 'float feature.minfreq = 0.000000;' 'int feature.possible_states = 0;' \
    'float c1 = 0.000000;' 'float c2 = 1.000000;' 'int max_iterations = 2147483647;' \
    'int num_memories = 6;' 'float epsilon = 0.000010;' 'int period = 10;' \
    'float delta = 0.000010;' 'string linesearch = MoreThuente;' 'int max_linesearch = 20;'; do
    grep -qxF "$p" h.out || fail "lbfgs -H lacks '$p'"
  done
  "$VITESSE" learn -a l2sgd -H >h.out || fail "-a l2sgd -H failed"
  for p in 'float delta = 0.000001;' 'int max_iterations = 1000;' 'int calibration.samples = 1000;' \
    'float calibration.eta = 0.100000;' 'int calibration.max_trials = 20;'; do
    grep -qxF "$p" h.out || fail "l2sgd -H lacks '$p'"
  done
  grep -q '^float c1' h.out && fail "l2sgd -H lists c1"
  "$VITESSE" learn -a pa -H >h.out || fail "-a pa -H failed"
  for p in 'int type = 1;' 'float c = 1.000000;' 'int error_sensitive = 1;' 'int averaging = 1;' \
    'int max_iterations = 100;' 'float epsilon = 0.000000;'; do
    grep -qxF "$p" h.out || fail "pa -H lacks '$p'"
  done
  "$VITESSE" learn -a arow -H | grep -qxF 'float variance = 1.000000;' || fail "arow -H"
  "$VITESSE" learn --help | grep -q -- '--holdout' || fail "--help lacks --holdout"
  expect_bad 'parameter not found: foo' "$VITESSE" learn -p foo=1 -m out/m train.items
  expect_bad 'parameter not found: c1' "$VITESSE" learn -a ap -p c1=1 -m out/m train.items
  expect_bad 'parameter not found: type' "$VITESSE" learn --set=type=2 -m out/m train.items
  expect_bad "c2: expected a number, got 'x'" "$VITESSE" learn -p c2=x -m out/m train.items
  expect_bad "max_iterations: expected an integer" "$VITESSE" learn -p max_iterations=1.5 \
    -m out/m train.items
  expect_bad "linesearch: expected MoreThuente" "$VITESSE" learn -p linesearch=Fast \
    -m out/m train.items
  expect_bad "unknown algorithm: sgd" "$VITESSE" learn -a sgd -m out/m train.items
  expect_bad "unknown option '-z'" "$VITESSE" learn -z -m out/m train.items
  expect_bad "unknown graphical model: 2d" "$VITESSE" learn -t 2d -m out/m train.items
  expect_bad "no data set" "$VITESSE" learn -m out/m
  expect_bad "-e 3: there are 2 groups" "$VITESSE" learn -e 3 -m out/m train.items test.items
  expect_bad "-e 4: there are 3 groups" "$VITESSE" learn -g 3 -e 4 -m out/m train.items
  expect_bad "-g: expected a positive integer" "$VITESSE" learn -g 0 -m out/m train.items
  expect_bad "-x needs at least two groups" "$VITESSE" learn -x train.items
  [ -s stdout ] && fail "-x with one group printed a log before refusing"
  cp train.items out.items
  expect_bad "same file" "$VITESSE" learn -m out.items out.items
  cmp -s out.items train.items || fail "-m overwrote its data set"
  # A bad item is the library's refusal, naming the file and line.
  printf 'O\ta:nan\n' >bad.items
  expect_bad "bad.items:1: attribute 'a'" "$VITESSE" learn -m out/m bad.items
  # With -g (and standard input) the library reads parts written out: the message still names
  # the data set and its line.
  printf 'O\ta\n\nO\tb\nB\tc\n\nO\ta:nan\n\nO\tb\n\nO\td\n' >bad.items
  for e in 1 2; do
    expect_bad "bad.items:6: attribute 'a'" "$VITESSE" learn -g 2 -e $e -m out/m bad.items
  done
  expect_bad "standard input:6: attribute 'a'" sh -c "\"\$0\" learn -m out/m - <bad.items" \
    "$VITESSE"
  ;;
log)
  "$VITESSE" learn -p max_iterations=15 -m out/lbfgs.model train.items >log 2>stderr ||
    fail "learn failed"
  for l in 'Start time of the training: ' 'Reading the data set(s)' '[1] train.items' \
    'Statistics the data set(s)' 'Number of data sets (groups): 1' 'Number of instances: 60' \
    'Feature generation' 'type: CRF1d' 'L-BFGS optimization' 'c2: 1.000000' \
    'max_iterations: 15' 'linesearch: MoreThuente' \
    'L-BFGS terminated with the maximum number of iterations' \
    'Total seconds required for training: ' 'Storing the model' 'End time of the training: '; do
    grep -qF "$l" log || fail "the log lacks '$l'"
  done
  [ "$(grep -c '^\*\*\*\*\* Iteration #[0-9]* \*\*\*\*\*$' log)" -eq 15 ] ||
    fail "$(grep -c 'Iteration #' log) iteration blocks, want 15"
  for k in 'Loss' 'Feature norm' 'Error norm' 'Active features' 'Line search trials' \
    'Line search step' 'Seconds required for this iteration'; do
    [ "$(values "$k" log | grep -c '^[0-9.]*$')" -eq 15 ] || fail "want 15 numeric '$k:' lines"
  done
  [ "$(sed -n '/Iteration #1 /,/^$/p' log | sed -n 2p | cut -d: -f1)" = Loss ] ||
    fail "Loss: is not the first line of a block"
  values Loss log >vt.loss
  close_lines vt.loss "$FX/crfsuite_lbfgs.loss" 1e-6 || fail "lbfgs losses differ from CRFsuite's"
  n_items=$(grep -c . train.items)
  grep -qx "Number of items: $n_items" log || fail "Number of items is not $n_items"
  for spec in "ap" "pa -p type=2 -p c=0.3" "arow -p variance=0.5 -p gamma=2"; do
    a=${spec%% *}
    # shellcheck disable=SC2086
    "$VITESSE" learn -p max_iterations=10 -a $spec train.items >log.$a 2>stderr ||
      fail "learn -a $a failed"
    values Loss log.$a >l
    values 'Feature norm' log.$a >n
    paste -d' ' l n >vt.$a
    cmp -s vt.$a "$FX/crfsuite_$a.loss" || fail "$a: losses or norms differ from CRFsuite's"
  done
  grep -qx 'Averaged perceptron' log.ap || fail "ap's parameter block"
  grep -qx 'type: 2' log.pa || fail "pa's parameter block"
  grep -qx 'variance: 0.500000' log.arow || fail "arow's parameter block"
  # -l: the log goes to BASE_ALGORITHM_PARAMS, nothing to standard output.
  "$VITESSE" learn -l -L out/lg -a ap -p max_iterations=2 train.items >stdout 2>stderr ||
    fail "-l failed"
  [ -s stdout ] && fail "-l printed on stdout"
  [ -f "out/lg_averaged-perceptron_max_iterations=2" ] || fail "-l's file: $(ls out)"
  grep -q '^\*\*\*\*\* Iteration #2 ' "out/lg_averaged-perceptron_max_iterations=2" ||
    fail "-l's file lacks the iterations"
  ;;
holdout)
  "$VITESSE" learn -p max_iterations=8 -e 2 -m out/m train.items test.items >log 2>stderr ||
    fail "learn -e 2 failed"
  grep -qx 'Holdout group: 2' log || fail "no 'Holdout group: 2'"
  [ "$(grep -c '^Performance by label (#match, #model, #ref) (precision, recall, F1):$' log)" \
    -eq 8 ] || fail "want 8 evaluations"
  n_items=$(grep -c . test.items)
  n_seqs=$(awk 'BEGIN { RS = "" } END { print NR }' test.items)
  [ "$(grep -c "^Item accuracy: [0-9]* / $n_items (" log)" -eq 8 ] ||
    fail "item totals are not $n_items"
  [ "$(grep -c "^Instance accuracy: [0-9]* / $n_seqs (" log)" -eq 8 ] ||
    fail "instance totals are not $n_seqs"
  # #ref of each label: its count in the held-out set.
  cut -f1 test.items | grep . | sort | uniq -c | awk '{ print $2, $1 }' | sort >want.ref
  sed -n '/Iteration #8 /,/^$/p' log | sed -n 's/^    \([^:]*\): ([0-9]*, [0-9]*, \([0-9]*\)).*/\1 \2/p' |
    awk '$2 > 0' | sort >got.ref
  cmp -s want.ref got.ref || fail "#ref per label: $(cat got.ref) vs $(cat want.ref)"
  # The last evaluation is the model's: vitesse tag -t prints the same block.
  "$VITESSE" tag -m out/m -qt test.items | sed '/^Elapsed time/d' >tag.eval ||
    fail "vitesse tag -t failed"
  sed -n '/Iteration #8 /,/^$/p' log | sed -n '/^Performance by label/,/^Instance accuracy/p' >last.eval
  cmp -s tag.eval last.eval || fail "the last evaluation differs from vitesse tag -t's"
  # l2sgd: the calibration trials and the epochs, each evaluated.
  "$VITESSE" learn -a l2sgd -p max_iterations=3 -e 2 train.items test.items >log.sgd 2>stderr ||
    fail "learn -a l2sgd failed"
  for l in 'Stochastic Gradient Descent (SGD)' 'Calibrating the learning rate (eta)' \
    'calibration.samples: 60' 'SGD terminated with the maximum number of iterations'; do
    grep -qxF "$l" log.sgd || fail "l2sgd's log lacks '$l'"
  done
  grep -q '^Initial loss: [0-9.]*$' log.sgd || fail "no Initial loss line"
  grep -q '^Trial #1 (eta = 0.100000): [0-9.]*' log.sgd || fail "no calibration trial"
  grep -q '^Best learning rate (eta): [0-9.]*$' log.sgd || fail "no best rate"
  [ "$(grep -c '^\*\*\*\*\* Epoch #[123] \*\*\*\*\*$' log.sgd)" -eq 3 ] || fail "want 3 epochs"
  [ "$(grep -c '^Item accuracy: ' log.sgd)" -eq 3 ] || fail "want 3 evaluations"
  grep -qx 'Total number of feature updates: 180' log.sgd || fail "updates after 3 epochs"
  ;;
cv)
  # Standard input is a data set as a file is: the same log but for its name.
  "$VITESSE" learn -a ap -p max_iterations=2 -e 2 train.items test.items >f.log 2>stderr ||
    fail "learn from files failed"
  "$VITESSE" learn -a ap -p max_iterations=2 -e 2 - test.items <train.items >s.log 2>stderr ||
    fail "learn from standard input failed"
  sed -e '/time of the training/d' -e '/^Seconds/d' -e '/^Total seconds/d' f.log >f.s
  sed -e '/time of the training/d' -e '/^Seconds/d' -e '/^Total seconds/d' \
    -e 's/^\[1\] -$/[1] train.items/' s.log >s.s
  cmp -s f.s s.s || fail "standard input's log differs: $(diff f.s s.s | head -5)"
  "$VITESSE" learn -a ap -p max_iterations=2 -g 3 -x train.items >log 2>stderr ||
    fail "learn -x failed"
  for k in 1 2 3; do
    grep -qx "===== Cross validation ($k/3) =====" log || fail "fold $k missing"
    grep -qx "Holdout group: $k" log || fail "holdout $k missing"
  done
  grep -qx 'Number of data sets (groups): 3' log || fail "not 3 groups"
  # Each fold's last evaluation: the instances held out add up to all 60.
  total=$(awk '/^===== Cross/ { f++ } /^Instance accuracy/ { n[f] = $5 } END {
    for (k in n) s += n[k]; print s }' log)
  [ "$total" -eq 60 ] || fail "the folds hold out $total instances, want 60"
  [ -z "$(ls -A out)" ] || fail "-x wrote a model"
  ;;
peer)
  CS=${CRFSUITE:-$(command -v crfsuite || true)}
  [ -z "$CS" ] && [ -x /tmp/cs/bin/crfsuite ] && CS=/tmp/cs/bin/crfsuite
  if [ -z "$CS" ] || ! [ -x "$CS" ]; then
    echo "learn_cli.peer: skipped: no crfsuite (set CRFSUITE)"
    exit 77
  fi
  # The lines that change from run to run, those of the model writing vitesse leaves out, and
  # the active features: a feature whose gradient at 0 is exactly 0 stays 0 after vitesse's first
  # step (exact sums), where crfsuite's -ffast-math build leaves it a rounding error off 0.
  strip() {
    sed -e '/^CRFSuite /d' -e '/^vitesse /d' -e '/time of the training/d' -e '/^Seconds/d' \
      -e '/^Total seconds/d' -e '/^Number of active attributes/d' -e '/^Writing /d' \
      -e '/^Active features/d' "$1" |
      cat -s
  }
  for args in "-p max_iterations=6 -e 2" "-p max_iterations=4 -g 3 -e 1" "-a ap -p max_iterations=3 -e 2" \
    "-a pa -p max_iterations=3 -e 1" "-a arow -p max_iterations=3 -e 2"; do
    # shellcheck disable=SC2086
    "$CS" learn $args train.items test.items >cs.log 2>stderr || fail "crfsuite learn $args"
    # shellcheck disable=SC2086
    "$VITESSE" learn $args train.items test.items >vt.log 2>stderr || fail "vitesse learn $args"
    strip cs.log >cs.s
    strip vt.log >vt.s
    diff cs.s vt.s >d || fail "learn $args: the logs differ: $(head -20 d)"
  done
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
