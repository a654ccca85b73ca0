#!/bin/sh
# perf/mpi_train.sh: `vitesse-mpi train` beside `vitesse train`, side by side in one run, on the
# same data and options: CRF L-BFGS over CRFsuite items (a task of perf/crf_items.py: chunk,
# joint, upos, greek) or the averaged perceptron by shards over a CoNLL-2000 column corpus
# (perceptron). For each layout (one process of T threads; P ranks of T threads) it prints the
# wall seconds, the seconds an iteration or epoch from the log, and whether the model equals the
# single process's byte for byte. perf/README.md, "Training across ranks", holds the results.
#
#   sh perf/mpi_train.sh TASK N [VITESSE_BIN] [VITESSE_MPI_BIN]
#
# N: L-BFGS iterations (--max-iterations) or perceptron epochs. Environment:
#   WORK=DIR       scratch (default: a new mktemp -d folder, printed); never the repository
#   DATA=DIR       the corpora, no default (needed unless ITEMS_DIR has the items): a folder
#                  holding conll2000/{train,test}.txt, ud-english-ewt/en_ewt-ud-{train,dev,
#                  test}.conllu and agldt-greek/{train,test}.tsv (those TASK reads)
#   ITEMS_DIR=DIR  TASK.train.items from DIR when there (perf/crf_items.py's output)
#   LAYOUTS="1x1 1x2 2x1"  ranks x threads; 0xT is `vitesse train --threads T`, one process
#   SHARDS=4       the perceptron's --shards
# Needs: mpirun (Open MPI: the variables below let it run as root and oversubscribed), python3.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 TASK N [VITESSE_BIN] [VITESSE_MPI_BIN]" >&2
  exit 64
fi
TASK=$1 N=$2
HERE=$(cd "$(dirname "$0")" && pwd)
V=${3:-$HERE/../build-rel/vitesse}
VM=${4:-$(dirname "$V")/vitesse-mpi}
DATA=${DATA:-}
# need_data WHAT: exits when DATA is not set.
need_data() { [ -n "$DATA" ] || { echo "$0: set DATA to the folder holding $1" >&2; exit 64; }; }
LAYOUTS=${LAYOUTS:-0x1 1x1 0x2 1x2 2x1}
SHARDS=${SHARDS:-4}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/vt_mpi_train.XXXXXX")}
mkdir -p "$WORK"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=
export OMPI_MCA_btl_vader_single_copy_mechanism=none
command -v mpirun >/dev/null || { echo "$0: needs mpirun (apt-get install openmpi-bin)" >&2; exit 69; }

case $TASK in
perceptron)
  need_data conll2000/train.txt
  [ -f "$DATA/conll2000/train.txt" ] || { echo "$0: no $DATA/conll2000/train.txt" >&2; exit 69; }
  set -- --template "$HERE/templates/conll2000-chunk.tmpl" --train "$DATA/conll2000/train.txt" \
    --shards "$SHARDS" --epochs "$N"
  UNIT=epoch
  ;;
chunk | joint | upos | greek)
  ITEMS=$WORK/$TASK.train.items
  if [ -n "${ITEMS_DIR:-}" ] && [ -f "$ITEMS_DIR/$TASK.train.items" ]; then
    ITEMS=$ITEMS_DIR/$TASK.train.items
  elif [ ! -f "$ITEMS" ]; then
    need_data "the corpora (or set ITEMS_DIR)"
    python3 "$HERE/crf_items.py" "$TASK" "$DATA" "$WORK"
  fi
  set -- --algo lbfgs --items "$ITEMS" --max-iterations "$N" --log LOG
  UNIT=iteration
  ;;
*) echo "$0: unknown task $TASK" >&2 && exit 64 ;;
esac

echo "# $TASK, N=$N, $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '%-8s %10s %14s %s\n' layout wall_s "s/$UNIT" "model = 1 process, 1 thread"
ref=""
for lay in $LAYOUTS; do
  p=${lay%x*} t=${lay#*x}
  out=$WORK/$lay.model log=$WORK/$lay.log
  # the log path replaces LOG; the perceptron's epoch lines go to the err file
  args=$(printf '%s\n' "$@" | sed "s|^LOG\$|$log|")
  start=$(date +%s.%N)
  if [ "$p" = 0 ]; then
    # shellcheck disable=SC2086 # one argument a line, none with blanks
    (IFS='
'; "$V" train $args --threads "$t" -o "$out") 2>"$WORK/$lay.err"
  else
    (IFS='
'; mpirun -n "$p" --bind-to none "$VM" train $args --threads "$t" -o "$out") 2>"$WORK/$lay.err"
  fi
  end=$(date +%s.%N)
  if [ "$UNIT" = iteration ]; then
    per=$(python3 -c "import json,sys; r=[json.loads(l) for l in open('$log')]; r=[x for x in r if x['iteration']>0]; print('%.4f' % (sum(x['seconds'] for x in r)/len(r)))")
  else
    per=$(awk '/^epoch [0-9]/ { sub(/^epoch [0-9]+\/[0-9]+: /, ""); s += $1; n++ } END { printf "%.4f", n ? s / n : 0 }' "$WORK/$lay.err")
  fi
  [ -n "$ref" ] || ref=$out
  same=$(cmp -s "$ref" "$out" && echo yes || echo NO)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  printf '%-8s %10s %14s %s\n' "$lay" "$wall" "$per" "$same"
done
echo "# work: $WORK"
