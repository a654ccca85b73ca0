#!/bin/sh
# perf/crf_learn.sh: CRF++'s crf_learn beside `vitesse crf_learn` on the same corpus, templates
# and options, one thread each (-p 1), in one run: CPU seconds (user + system) and peak RSS of
# each, their logs compared (obj, act, diff as printed; terr and serr), the weights of their text
# models compared, and the test corpus tagged by crf_test with both models and by vitesse tag
# with vitesse's (token accuracy; outputs compared byte for byte). perf/README.md, "crf_learn",
# holds the results.
#
#   sh perf/crf_learn.sh TEMPLATE TRAIN TEST [ITERS] [VITESSE_BIN] [CRFPP_DIR]
#
# ITERS: -m (default 25). VITESSE_BIN defaults to build-rel/vitesse of this checkout; CRFPP_DIR
# (default /tmp/crfpp) holds crf_learn and crf_test, CRF++ 0.58 built outside the repository.
# Environment: WORK=DIR where models, logs and outputs go (default: a new mktemp -d folder,
# kept and printed at the end), never the repository; ROUNDS=N runs of each, alternated (1);
# OPTS="..." more options for both (e.g. "-f 3 -c 4", or "-a MIRA": ITERS is then passes).
# Needs GNU time as /usr/bin/time, awk.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 TEMPLATE TRAIN TEST [ITERS] [VITESSE_BIN] [CRFPP_DIR]" >&2
  exit 64
fi
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
HERE=$(cd "$(dirname "$0")" && pwd)
TMPL=$(abs "$1") TRAIN=$(abs "$2") TEST=$(abs "$3")
ITERS=${4:-25}
V=$(abs "${5:-$HERE/../build-rel/vitesse}")
CRFPP=${6:-/tmp/crfpp}
ROUNDS=${ROUNDS:-1}
OPTS=${OPTS:-}
for p in "$V" "$CRFPP/crf_learn" "$CRFPP/crf_test" /usr/bin/time; do
  [ -x "$p" ] || { echo "crf_learn.sh: $p is missing" >&2; exit 69; }
done
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/vt_crf_learn_perf.XXXXXX")}
mkdir -p "$WORK"
cd "$WORK"

# run NAME CMD...: CMD under GNU time; appends "NAME cpu_seconds max_rss_kb" to times.
run() {
  name=$1
  shift
  /usr/bin/time -f '%U %S %M' -o "$name.time" "$@" >"$name.log" 2>"$name.err" ||
    { echo "crf_learn.sh: $name failed" >&2; tail -n 5 "$name.err" >&2; exit 1; }
  awk -v n="$name" '{ printf "%s %.2f %d\n", n, $1 + $2, $3 }' "$name.time" >>times
}

: >times
r=1
while [ "$r" -le "$ROUNDS" ]; do
  # shellcheck disable=SC2086 # OPTS is a list of options
  run crfpp "$CRFPP/crf_learn" -m "$ITERS" -p 1 -t $OPTS "$TMPL" "$TRAIN" crfpp.model
  # shellcheck disable=SC2086
  run vitesse "$V" crf_learn -m "$ITERS" -p 1 -t $OPTS "$TMPL" "$TRAIN" vitesse.model
  r=$((r + 1))
done

# the logs: evaluations whose obj/act/diff print otherwise, and whose terr or serr differ
grep '^iter=' crfpp.log | sed 's/[a-z]*=//g' >l.crfpp
grep '^iter=' vitesse.log | sed 's/[a-z]*=//g' >l.vitesse
# (MIRA's lines, iter terr serr act uact obj kkt, have seven fields: act/uact/obj/kkt compared)
log_cmp=$(paste -d ' ' l.vitesse l.crfpp | awk 'NF == 14 { n++; if ($4 != $11 || $5 != $12 || $6 != $13 || $7 != $14) o++
  if ($2 != $9 || $3 != $10) e++; next }
  { n++; if ($5 != $11 || $4 != $10 || $6 != $12) o++
  if ($2 != $8 || $3 != $9) e++ } END { printf "%d evaluations, %d differ in obj/act/diff (MIRA: act/uact/obj/kkt), %d in terr/serr", n, o, e }')
# the weights: the largest difference, and the largest weight
wdiff=$(awk 'FNR == 1 { f++; b = 0 } NF == 0 { b++; next } b >= 4 { w[f, FNR] = $1 }
  END { for (k in w) { split(k, p, SUBSEP); if (p[1] != 1) continue
          d = w[1, p[2]] - w[2, p[2]]; if (d < 0) d = -d; if (d > m) m = d
          a = w[2, p[2]]; if (a < 0) a = -a; if (a > big) big = a }
        printf "max |difference| %.3g (largest |weight| %.3g)", m, big }' \
  vitesse.model.txt crfpp.model.txt)
awk 'NF == 0 { b++ } b < 4' vitesse.model.txt >head.vitesse
awk 'NF == 0 { b++ } b < 4' crfpp.model.txt >head.crfpp
same_head=no
cmp -s head.vitesse head.crfpp && same_head=yes
"$CRFPP/crf_test" -m crfpp.model "$TEST" >tag.crfpp
"$CRFPP/crf_test" -m vitesse.model "$TEST" >tag.crf_test_vitesse
"$V" tag -m vitesse.model "$TEST" >tag.vitesse
acc() { awk 'NF { n++; if ($(NF - 1) == $NF) r++ } END { printf "%.4f", r / n }' "$1"; }
same() { if cmp -s "$1" "$2"; then echo "same bytes"; else echo "differ"; fi; }

echo "CPU seconds (user + system) and peak RSS, -m $ITERS -p 1 $OPTS, round by round:"
awk '{ printf "  %-8s %8.2f s %8d KB\n", $1, $2, $3 }' times
awk '$1 == "crfpp" { c += $2; nc++ } $1 == "vitesse" { v += $2; nv++ }
  END { printf "  crf_learn / vitesse CPU: %.1fx\n", (c / nc) / (v / nv) }' times
echo "logs: $log_cmp"
echo "text models: header, labels, templates, feature ids the same lines: $same_head; weights: $wdiff"
echo "test accuracy: crf_test + crf_learn's model $(acc tag.crfpp), crf_test + vitesse's $(acc tag.crf_test_vitesse), vitesse tag + vitesse's $(acc tag.vitesse)"
echo "crf_test's output, the two models: $(same tag.crfpp tag.crf_test_vitesse); vitesse tag against crf_test, vitesse's model: $(same tag.vitesse tag.crf_test_vitesse)"
echo "work: $WORK"
