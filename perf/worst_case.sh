#!/bin/sh
# perf/worst_case.sh: the worst-case table (perf/README.md, "Worst case and the work budget"):
# every exact decoder against its full decoder (SIMD viterbi for k = 1, kbest-viterbi for k = 5)
# on real and synthetic lattice sets of 17 to 2602 labels, with the library's default work budget
# (iter-viterbi-astar at k = 5 also with --refine expand).
#
#   sh perf/worst_case.sh BUILD [WORKDIR]      (BUILD: a Release tree with vitesse and perf/)
#
# Environment, both optional (no default: the sets they give are left out when unset):
#   LATTICES=DIR  a folder of lattice sets (subfolders holding E.npy, N.npy, A.npy, S.npy, F.npy)
#   DATA=DIR      a folder holding conll2000/{train,test}.txt,
#                 ud-english-ewt/en_ewt-ud-{train,test}.conllu, agldt-greek/{train,test}.tsv
#
# Sets: `vitesse synth` (peaked, a tagger's shape) and perf/lattice_shape's uniform, flat, ties,
# forbidden and adversarial shapes at each L (100 sentences of about 23 tokens, 40 at 945 labels,
# 10 at 2602), each set of LATTICES when given, and with DATA the lattices
# `vitesse lattice` writes for the test splits under models `vitesse train` makes from the train
# splits (perf/templates; 10 epochs): UD EWT UPOS (17 labels) and XPOS (49), CoNLL-2000 chunking
# (22) and joint POS|chunk (319), AGLDT Greek (945). vt_bench interleaves every configuration
# over ROUNDS rounds (default 3) of at most SECONDS s (default 0.3) and takes the median of each
# round's ratio, so machine noise hits both sides of a ratio. Prints a markdown table: per set
# the full decoders' sentences/s, then per decoder `x full` (bold below 0.8) and, where any
# sentence fell back, the share that did. Takes about 10 minutes at ROUNDS=3 (the first run
# also trains the five models, about a minute).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD [WORKDIR]" >&2
  exit 64
fi
B=$1
W=${2:-$(mktemp -d)}
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${SECONDS:-0.3}
ALGOS=viterbi,kbest-viterbi,staggered,staggered-col,astar,iter-astar,viterbi-astar,iter-viterbi-astar,carpediem
HERE=$(cd "$(dirname "$0")" && pwd)
LATTICES=${LATTICES:-}
LABEL_COL=
mkdir -p "$W"
sets=""
for L in 45 319 945 2602; do
  case $L in 945) N=40 ;; 2602) N=10 ;; *) N=100 ;; esac
  d=$W/peaked-$L
  [ -f "$d/E.npy" ] || "$B/vitesse" synth -o "$d" --labels $L --sentences $N --mean-length 23 \
    --seed 7 >/dev/null
  sets="$sets $d"
  for shape in uniform flat ties forbidden adversarial; do
    d=$W/$shape-$L
    mkdir -p "$d"
    [ -f "$d/E.npy" ] || "$B/perf/lattice_shape" $shape $L $N 23 7 "$d" >/dev/null
    sets="$sets $d"
  done
done
# real NAME TEMPLATE TRAIN TEST [corpus options]: trains $W/real-NAME.bin (with $LABEL_COL as
# --label-col when set) and writes its lattices of TEST to $W/real-NAME
real() {
  name=$1 tmpl=$HERE/templates/$2 train=$3 test=$4
  shift 4
  if [ ! -f "$W/real-$name/E.npy" ]; then
    "$B/vitesse" train --template "$tmpl" --train "$train" --epochs 10 --quiet \
      --decoder staggered-col ${LABEL_COL:+--label-col "$LABEL_COL"} "$@" -o "$W/real-$name.bin"
    "$B/vitesse" lattice -m "$W/real-$name.bin" -o "$W/real-$name" "$@" "$test" 2>/dev/null
  fi
  sets="$sets $W/real-$name"
}
DATA=${DATA:-}
if [ -n "$DATA" ] && [ -d "$DATA/conll2000" ]; then
  for f in train test; do
    [ -s "$W/$f.joint" ] ||
      awk '{ if (NF) print $1, $2 "|" $3; else print "" }' "$DATA/conll2000/$f.txt" >"$W/$f.joint"
  done
  real conll2000-chunk conll2000-chunk.tmpl "$DATA/conll2000/train.txt" "$DATA/conll2000/test.txt"
  real conll2000-joint conll2000-joint.tmpl "$W/train.joint" "$W/test.joint"
fi
E=$DATA/ud-english-ewt
if [ -n "$DATA" ] && [ -d "$E" ]; then
  for col in UPOS XPOS; do
    LABEL_COL=$col
    real "ewt-$col" ud-ewt-pos.tmpl "$E/en_ewt-ud-train.conllu" "$E/en_ewt-ud-test.conllu" --conllu
  done
  LABEL_COL=
fi
G=$DATA/agldt-greek
if [ -n "$DATA" ] && [ -d "$G" ]; then
  real greek agldt-greek.tmpl "$G/train.tsv" "$G/test.tsv" --comments --sep tab
fi
if [ -n "$LATTICES" ]; then
  for d in "$LATTICES"/*/; do
    [ -f "$d/E.npy" ] && sets="$sets ${d%/}"
  done
fi
rm -f "$W/worst.csv"
# shellcheck disable=SC2086 # $sets is a list of paths without spaces
"$B/perf/vt_bench" --rounds "$ROUNDS" --seconds "$SECONDS_EACH" --heuristic m9 -k 5 \
  --algos "$ALGOS" --csv "$W/worst.csv" $sets >"$W/worst.txt"
python3 - "$W/worst.csv" <<'EOF'
import csv, sys
cols = ["staggered", "staggered-col", "astar", "iter-astar", "viterbi-astar",
        "iter-viterbi-astar", "carpediem"]
kcols = ["astar", "viterbi-astar", "iter-viterbi-astar", "iter-viterbi-astar/expand"]
rows = {}
order = []
for r in csv.reader(open(sys.argv[1])):
    ds, L, algo, k = r[1], int(r[2]), r[3], int(r[4])
    if (ds, L) not in rows:
        rows[(ds, L)] = {}
        order.append((ds, L))
    # viterbi comes at every SIMD level, the best last: it is the one kept
    rows[(ds, L)][(algo, k)] = (float(r[7]), float(r[13]), float(r[14]))
def cell(v):
    if v is None:
        return ""
    sps, xf, fb = v
    s = "**%.2f**" % xf if xf < 0.8 else "%.2f" % xf
    return s + (" (%d%%)" % round(100 * fb) if fb > 0 else "")
head = ["lattices", "L", "viterbi sent/s", "kbest-viterbi k=5 sent/s"] + cols + [c + " k=5" for c in kcols]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for key in order:
    d = rows[key]
    get = lambda a, k: d.get((a, k))
    name = key[0].split("/")[-1]
    line = [name, str(key[1]), "%.1f" % get("viterbi", 1)[0], "%.1f" % get("kbest-viterbi", 5)[0]]
    line += [cell(get(c, 1)) for c in cols] + [cell(get(c, 5)) for c in kcols]
    print("| " + " | ".join(line) + " |")
EOF
