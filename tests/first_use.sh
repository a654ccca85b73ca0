#!/bin/sh
# tests/first_use.sh VITESSE REPO CASE: what a new user meets first. Cases:
#   threads0  --threads 0 means one per core (as Python's threads=0) for tag, train and
#             chunk-train, and the outputs equal those of --threads 1; -1 is refused;
#   cpu_log   --log's objects carry cpu_seconds beside seconds, non-negative numbers;
#   sgd_lines l2sgd's stderr lines have no |g|, and its calibration trials are printed, one
#             line each, before iteration 0;
#   summary   the closing line of a CRF over templates gives the last iteration's active
#             weights and the model file's size;
#   setup     .ci/setup.sh asks apt-get to wait for apt's lock (DPkg::Lock::Timeout) and says
#             so (apt-get and dpkg-query replaced by stand-ins that record their arguments).
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 VITESSE REPO CASE" >&2
  exit 64
fi
VITESSE=$1
REPO=$2
CASE=$3
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_first_use.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1
awk -v N=60 -f "$REPO/tests/crf_train/items.awk" >train.items || exit 1
# A column corpus: word, POS, chunk.
awk 'BEGIN { RS = ""; FS = "\n" } { for (i = 1; i <= NF; i++) { split($i, f, "\t");
  sub(/^w=/, "", f[2]); sub(/^c=/, "", f[3]); print "w" f[2], "P" f[3], f[1] } print "" }' \
  train.items >train.txt
printf 'U00:%%x[0,0]\nU01:%%x[0,1]\nU02:%%x[-1,0]\nB\n' >t.tmpl

fail() {
  printf 'first_use.%s: FAIL: %s\n' "$CASE" "$*" >&2
  [ -s stderr ] && { printf -- '--- stderr:\n' >&2; cat stderr >&2; }
  exit 1
}

case $CASE in
threads0)
  "$VITESSE" train --template t.tmpl --train train.txt --epochs 2 --threads 0 --quiet -o p0.model \
    2>stderr || fail "train --threads 0"
  "$VITESSE" train --template t.tmpl --train train.txt --epochs 2 --threads 1 --quiet -o p1.model \
    2>stderr || fail "train --threads 1"
  cmp -s p0.model p1.model || fail "train: the models differ for --threads 0 and 1"
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 5 --threads 0 --quiet \
    -o c0.model 2>stderr || fail "train --algo lbfgs --threads 0"
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 5 --threads 1 --quiet \
    -o c1.model 2>stderr || fail "train --algo lbfgs --threads 1"
  cmp -s c0.model c1.model || fail "lbfgs: the models differ for --threads 0 and 1"
  "$VITESSE" tag -m p0.model --threads 0 train.txt >t0.out 2>stderr || fail "tag --threads 0"
  "$VITESSE" tag -m p0.model --threads 1 train.txt >t1.out 2>stderr || fail "tag --threads 1"
  cmp -s t0.out t1.out || fail "tag: the outputs differ for --threads 0 and 1"
  "$VITESSE" chunk-train --train train.txt --epochs 1 --chunk-types all --threads 0 --quiet \
    -o j.model 2>stderr || fail "chunk-train --threads 0"
  "$VITESSE" tag -m p0.model --threads -1 train.txt >/dev/null 2>stderr &&
    fail "tag --threads -1 accepted"
  grep -q "0..4096" stderr || fail "the refusal does not say 0..4096"
  ;;
cpu_log)
  "$VITESSE" train --algo lbfgs --items train.items --max-iterations 4 --log log.jsonl --quiet \
    -o m 2>stderr || fail "train --log"
  n=$(grep -c '"iteration"' log.jsonl)
  [ "$n" -eq 5 ] || fail "$n iteration objects, want 5"
  [ "$(grep -c '"seconds": [0-9.]*, "cpu_seconds": [0-9.]*, "total_seconds"' log.jsonl)" -eq "$n" ] ||
    fail "not every object has seconds then cpu_seconds: $(head -n 2 log.jsonl)"
  ;;
sgd_lines)
  "$VITESSE" train --algo l2sgd --items train.items --max-iterations 3 -o m 2>stderr ||
    fail "train --algo l2sgd"
  grep -q '|g|' stderr && fail "l2sgd prints |g|"
  grep -q '^calibration trial 1: eta 0.100000, loss [0-9.]*' stderr || fail "no calibration trial"
  first_trial=$(grep -n '^calibration trial' stderr | head -n 1 | cut -d: -f1)
  it0=$(grep -n '^iteration 0:' stderr | cut -d: -f1)
  [ -n "$it0" ] && [ "$first_trial" -lt "$it0" ] || fail "the trials do not come before iteration 0"
  [ "$(grep -c '^iteration [0-9]*: loss [0-9.]*, |w| [0-9.]*, [0-9]* active' stderr)" -eq 4 ] ||
    fail "want 4 iteration lines without |g|"
  # --quiet: neither.
  "$VITESSE" train --algo l2sgd --items train.items --max-iterations 3 --quiet -o m 2>stderr ||
    fail "train --quiet"
  [ -s stderr ] && fail "--quiet printed"
  ;;
summary)
  "$VITESSE" train --algo lbfgs --template t.tmpl --train train.txt --max-iterations 6 \
    -o crf.model 2>stderr || fail "train --algo lbfgs --template"
  active=$(sed -n 's/^iteration 6: .* \([0-9]*\) active.*/\1/p' stderr)
  [ -n "$active" ] || fail "no iteration 6 line"
  grep -q "model crf.model: $active non-zero weights over [0-9]* feature strings, " stderr ||
    fail "the summary does not give the $active active weights: $(tail -n 1 stderr)"
  mb=$(tail -n 1 stderr | sed -n 's/.*, \([0-9.]*\) MB$/\1/p')
  want=$(wc -c <crf.model | awk '{ printf "%.1f", $1 / 1e6 }')
  [ "$mb" = "$want" ] || fail "the summary's size $mb MB, the file's $want MB"
  ;;
setup)
  mkdir bin
  # dpkg-query: nothing installed; apt-get: records its arguments; id: root (no sudo).
  printf '#!/bin/sh\nexit 1\n' >bin/dpkg-query
  printf '#!/bin/sh\necho "$*" >>"%s/apt.args"\n' "$base" >bin/apt-get
  printf '#!/bin/sh\necho 0\n' >bin/id
  chmod +x bin/*
  PATH=$base/bin:$PATH SETUP_APT_WAIT=42 sh "$REPO/.ci/setup.sh" 2>stderr || fail "setup.sh failed"
  [ "$(grep -c 'DPkg::Lock::Timeout=42' apt.args)" -eq 2 ] ||
    fail "apt-get was not asked to wait: $(cat apt.args)"
  grep -q 'update' apt.args && grep -q 'install' apt.args || fail "no update and install"
  grep -q "waiting for it (up to 42 s)" stderr || fail "setup.sh does not say it waits"
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
