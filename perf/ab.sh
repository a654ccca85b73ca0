#!/bin/sh
# perf/ab.sh OLD NEW DATA [ROUNDS]: two vitesse binaries side by side in one run, for a change
# that must not cost speed. On CoNLL-2000 (DATA/conll2000, the papers' joint task: 319
# POS|chunk labels) it trains one tagger (with NEW), then alternates OLD and NEW, ROUNDS times
# (default 5): `tag --algo staggered-col` on the test set (1 and 2 threads), `decode` of its
# score lattices (staggered-col and viterbi, 1 thread), and joint label-chunk tagging (Shimizu
# & Haas, a model trained on the paper's 447 sentences; one thread). Prints each configuration's
# median sentences/s (from --stats) for OLD and NEW and their ratio NEW/OLD, and checks both
# write the same bytes.
set -eu
# shellcheck source=perf/ab_loop.sh
. "$(dirname "$0")/ab_loop.sh"
ab_need 3 "OLD NEW DATA [ROUNDS]" "$@"
ab_binaries "$1" "$2"
D=$3
ROUNDS=${4:-5}
T=$(cd "$(dirname "$0")" && pwd)/templates
ab_workdir vt_ab
cd "$ab_dir"

for f in train test; do
  awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$D/conll2000/$f.txt" >"$f.joint"
done
"$NEW" train --template "$T/conll2000-joint.tmpl" --train train.joint --epochs 10 --quiet \
  --decoder staggered-col -o joint.bin
"$NEW" lattice -m joint.bin -o lat test.joint 2>/dev/null
"$NEW" train --joint-chunk --train "$D/conll2000/train.txt" --sentences 447 --collapse paper \
  --update mmvp --epochs 10 --quiet -o chunk.bin

# run NAME BIN KEY ARGS...: one run; appends its sentences/s (JSON key KEY) to NAME.BIN-NAME.
run() {
  name=$1 bin=$2 key=$3
  shift 3
  tag=$(ab_which "$bin")
  "$bin" "$@" --stats -o "$name.$tag.out" 2>"$name.$tag.json"
  sed -n "s/.*\"$key\": \([0-9.e+-]*\).*/\1/p" "$name.$tag.json" >>"$name.$tag.sps"
}

configs='tag1 tag2 dec_sta dec_vit chunk'
# one_side BIN: every configuration once with BIN.
one_side() {
  bin=$1
  # The decoder named: both binaries decode the same way whatever their defaults.
  run tag1 "$bin" sentences_per_second tag -m joint.bin test.joint --threads 1 \
    --algo staggered-col
  run tag2 "$bin" sentences_per_second tag -m joint.bin test.joint --threads 2 \
    --algo staggered-col
  for a in staggered-col viterbi; do
    name=dec_$(echo $a | cut -c1-3)
    run "$name" "$bin" sentences_per_second decode --emissions lat/E.npy --lengths lat/N.npy \
      --transitions lat/A.npy --start lat/S.npy --end lat/F.npy --rank lat/R.npy --algo "$a" \
      --threads 1
  done
  run chunk "$bin" sentences_per_second tag -m chunk.bin "$D/conll2000/test.txt" --threads 1
}
ab_alternate "$ROUNDS" one_side : "$OLD" "$NEW"
printf '%-10s %14s %14s %10s  %s\n' config old_sent/s new_sent/s new/old output
for c in $configs; do
  o=$(ab_median <"$c.old.sps")
  n=$(ab_median <"$c.new.sps")
  same=$(ab_same "$c.old.out" "$c.new.out")
  printf '%-10s %14.1f %14.1f %10.3f  %s\n' "$c" "$o" "$n" "$(echo "$n / $o" | bc -l)" "$same"
done
