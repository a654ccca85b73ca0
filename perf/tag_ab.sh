#!/bin/sh
# perf/tag_ab.sh OLD NEW DATA [ROUNDS [REPEAT]]: one-thread `vitesse tag` end to end, two binaries
# side by side in one run. Trains (with NEW) the CoNLL-2000 joint tagger
# (319 POS|chunk labels, perf/templates/conll2000-joint.tmpl, 10 epochs) and the AGLDT Greek one
# (945 labels, 10 epochs) from DATA (a folder holding conll2000/{train,test}.txt and
# agldt-greek/{train,test}.tsv), then alternates OLD and NEW, ROUNDS times
# (default 7), on each test set repeated REPEAT times (default 5): the joint task with the
# default decoder and with --algo staggered-col, the Greek task with the default decoder. Prints
# per configuration the median sentences/s (`sentences_per_second` of --stats: the pipeline after
# model loading, wall clock) and the median sentences per CPU second (sentences / cpu_seconds of
# the whole command, loading included) for OLD and NEW, their ratios NEW/OLD, and whether both
# wrote the same bytes. The corpora are converted in a temporary directory.
set -eu
# shellcheck source=perf/ab_loop.sh
. "$(dirname "$0")/ab_loop.sh"
ab_need 3 "OLD NEW DATA [ROUNDS [REPEAT]]" "$@"
ab_binaries "$1" "$2"
D=$3
ROUNDS=${4:-7}
REPEAT=${5:-5}
T=$(cd "$(dirname "$0")" && pwd)/templates
ab_workdir vt_tag_ab
cd "$ab_dir"

for f in train test; do
  awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/$f.txt" >"$f.joint"
done
i=0
while [ $i -lt "$REPEAT" ]; do
  cat test.joint >>joint.in
  cat "$D/agldt-greek/test.tsv" >>greek.in
  i=$((i + 1))
done
"$NEW" train --template "$T/conll2000-joint.tmpl" --train train.joint --epochs 10 --quiet \
  --decoder staggered-col -o joint.bin
"$NEW" train --template "$T/agldt-greek.tmpl" --train "$D/agldt-greek/train.tsv" --epochs 10 \
  --comments --sep tab --quiet -o greek.bin

json() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 0) }'; }
# run NAME BIN ARGS...: one run; appends "sentences/s sentences/cpu-s" to NAME.old or NAME.new.
run() {
  name=$1 bin=$2
  shift 2
  tag=$(ab_which "$bin")
  "$bin" tag --threads 1 --stats "$@" -o "$name.$tag.out" 2>"$name.$tag.json"
  echo "$(json sentences_per_second "$name.$tag.json")" \
    "$(div "$(json sentences "$name.$tag.json")" "$(json cpu_seconds "$name.$tag.json")")" \
    >>"$name.$tag"
}
configs='joint joint_stc greek'
# one_side BIN: every configuration once with BIN.
one_side() {
  run joint "$1" -m joint.bin joint.in
  run joint_stc "$1" -m joint.bin --algo staggered-col joint.in
  run greek "$1" -m greek.bin greek.in
}
ab_alternate "$ROUNDS" one_side : "$OLD" "$NEW"
echo "# $(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$ROUNDS rounds, test sets x$REPEAT"
printf '%-10s %12s %12s %8s %12s %12s %8s  %s\n' config old_sent/s new_sent/s new/old \
  old_per_cpu new_per_cpu new/old output
for c in $configs; do
  o=$(cut -d' ' -f1 "$c.old" | ab_median)
  n=$(cut -d' ' -f1 "$c.new" | ab_median)
  oc=$(cut -d' ' -f2 "$c.old" | ab_median)
  nc=$(cut -d' ' -f2 "$c.new" | ab_median)
  same=$(ab_same "$c.old.out" "$c.new.out")
  printf '%-10s %12.1f %12.1f %8.3f %12.1f %12.1f %8.3f  %s\n' "$c" "$o" "$n" \
    "$(div "$n" "$o")" "$oc" "$nc" "$(div "$nc" "$oc")" "$same"
done
