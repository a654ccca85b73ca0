#!/bin/sh
# perf/crf_train.sh: CRF training with CRFsuite's objective, `crfsuite learn -a lbfgs` beside
# `vitesse train --algo lbfgs` (1 and 2 threads), on the same item files and parameters, in one
# run; then both models tag the test items. perf/README.md, "CRF training", holds the results.
#
#   sh perf/crf_train.sh TASK ITERS [VITESSE_BIN] [CRFSUITE_BIN]
#
# TASK: chunk, joint, upos or greek (perf/crf_items.py says what each labels and which attributes
# it makes); ITERS: the L-BFGS iteration cap (max_iterations / --max-iterations). VITESSE_BIN
# (default build-rel/vitesse of this checkout) may be `-`: CRFsuite alone (vitesse's columns
# print "pending"); CRFSUITE_BIN defaults to /tmp/peer/bin/crfsuite, CRFsuite 0.12 built outside
# the repository (perf/README.md says how). Environment:
#   WORK=DIR       where the items, models, logs and outputs go (default: a new mktemp -d
#                  folder, kept and printed at the end); never the repository
#   DATA=DIR       the corpora, no default (needed unless ITEMS_DIR has the items): a folder
#                  holding conll2000/{train,test}.txt, ud-english-ewt/en_ewt-ud-{train,dev,
#                  test}.conllu and agldt-greek/{train,test}.tsv (those TASK reads)
#   ITEMS_DIR=DIR  take TASK.train.items and TASK.test.items from DIR when they are there
#                  (perf/crf_items.py's output) instead of making them
#   MAX_SENTENCES=N  train on the first N training sentences only (0: all)
#   C1=0 C2=1 NUM_MEMORIES=6 EPSILON=0.00001 PERIOD=10 DELTA=0.00001 LINESEARCH=MoreThuente
#                  the L-BFGS parameters, CRFsuite's defaults, given to both explicitly
#   THREADS="1 2"  vitesse's thread counts
#   RUNS="crfsuite vitesse"  which trainers run (one alone: the other's columns print pending)
# Needs: python3 (the items, the report), GNU time as /usr/bin/time (Debian: apt-get install
# time), awk. CRFsuite's per-iteration seconds are process CPU time (clock()); vitesse's are its
# log's `seconds` (one iteration's, VT_LOG_SECONDS=cumulative if the log counts from the start).
set -eu

# How vitesse tags the test items with the model it trained (the trained model's format is not
# settled: change it here, or give VITESSE_TAG). Evaluated with $MODEL and $ITEMS set; it must
# print what `crfsuite tag` prints: one label a line, an empty line after each sequence.
# shellcheck disable=SC2016 # expanded by eval below
VITESSE_TAG=${VITESSE_TAG:-'tag -m "$MODEL" --threads 1 "$ITEMS"'}

if [ $# -lt 2 ]; then
  echo "usage: $0 TASK ITERS [VITESSE_BIN|-] [CRFSUITE_BIN]" >&2
  exit 64
fi
TASK=$1 ITERS=$2
HERE=$(cd "$(dirname "$0")" && pwd)
V=${3:-$HERE/../build-rel/vitesse}
C=${4:-/tmp/peer/bin/crfsuite}
DATA=${DATA:-}
MAX_SENTENCES=${MAX_SENTENCES:-0}
C1=${C1:-0} C2=${C2:-1} NUM_MEMORIES=${NUM_MEMORIES:-6} EPSILON=${EPSILON:-0.00001}
PERIOD=${PERIOD:-10} DELTA=${DELTA:-0.00001} LINESEARCH=${LINESEARCH:-MoreThuente}
THREADS=${THREADS:-1 2}
RUNS=${RUNS:-crfsuite vitesse}
case $TASK in chunk | joint | upos | greek) ;; *) echo "$0: unknown task $TASK" >&2 && exit 64 ;; esac

need() { # what it is, how to get it
  echo "$0: needs $1 ($2)" >&2
  exit 69
}
command -v python3 >/dev/null || need python3 "apt-get install python3"
/usr/bin/time -f %M true 2>/dev/null || need "GNU time as /usr/bin/time" "apt-get install time"
case " $RUNS " in *" crfsuite "*)
  [ -x "$C" ] || need "crfsuite 0.12 at $C" "give CRFSUITE_BIN; perf/README.md, CRF training" ;;
esac
if [ "$V" = - ]; then RUNS=$(echo " $RUNS " | sed 's/ vitesse / /'); fi
case " $RUNS " in *" vitesse "*) [ -x "$V" ] || need "vitesse at $V" "build it, or give -" ;; esac

W=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/vt_crf_train.XXXXXX")}
case $W in /*) abs=$W ;; *) abs=$PWD/$W ;; esac
case $abs/ in "$(cd "$HERE/.." && pwd)"/*)
  echo "$0: WORK must lie outside the repository" >&2 && exit 64 ;;
esac
mkdir -p "$W"

# The items: the training set cut to MAX_SENTENCES, the whole test set.
items() { # SPLIT MAX -> $W/SPLIT.items
  if [ -n "${ITEMS_DIR:-}" ] && [ -f "$ITEMS_DIR/$TASK.$1.items" ]; then
    awk -v max="$2" '{ print } /^$/ && max > 0 && ++n >= max { exit }' "$ITEMS_DIR/$TASK.$1.items"
  else
    [ -d "$DATA" ] || need "the corpora in DATA=$DATA" "give DATA=DIR or ITEMS_DIR=DIR"
    python3 "$HERE/crf_items.py" "$TASK" "$1" --data "$DATA" --max-sentences "$2"
  fi >"$W/$1.items"
}
items train "$MAX_SENTENCES"
items test 0
# The gold labels of the test items, unescaped, an empty line after each sequence.
awk -F '\t' '{
  s = $1; out = ""
  while ((i = index(s, "\\")) > 0) { out = out substr(s, 1, i - 1) substr(s, i + 1, 1); s = substr(s, i + 2) }
  print out s
}' "$W/test.items" >"$W/gold"

{
  echo "task $TASK, iterations $ITERS, c1 $C1 c2 $C2, num_memories $NUM_MEMORIES, epsilon $EPSILON," \
    "period $PERIOD, delta $DELTA, linesearch $LINESEARCH, max_sentences $MAX_SENTENCES"
  echo "date $(date -u +%Y-%m-%dT%H:%MZ), $(lscpu | sed -n 's/^Model name: *//p'), simd $(
    if grep -qw avx512f /proc/cpuinfo; then echo AVX-512; elif grep -qw avx2 /proc/cpuinfo; then
      echo AVX2; else echo scalar; fi), $(nproc) CPUs, load at start $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$W/header"

# timed NAME CMD...: runs CMD with its stdout and stderr in $W/NAME.out; "wall user sys KB" in
# $W/NAME.time. A failing command shows its output's first and last lines, leaves no
# NAME.time and returns 1.
timed() {
  name=$1
  shift
  if ! /usr/bin/time -f '%e %U %S %M' -o "$W/$name.time" "$@" >"$W/$name.out" 2>&1; then
    awk '{ l[NR] = $0 } END { for (i = 1; i <= NR; i++) if (i <= 3 || i > NR - 5) print l[i];
      else if (i == 4) print "..." }' "$W/$name.out" >&2
    echo "$0: $name failed: $*" >&2
    rm -f "$W/$name.time"
    return 1
  fi
}
# tags NAME CMD...: the labels CMD prints for the test items in $W/NAME.tags.
tags() {
  name=$1
  shift
  "$@" >"$W/$name.tags"
}

for run in $RUNS; do
  case $run in
  crfsuite)
    echo "crfsuite learn ..." >&2
    timed crfsuite "$C" learn -a lbfgs -p max_iterations="$ITERS" -p c1="$C1" -p c2="$C2" \
      -p num_memories="$NUM_MEMORIES" -p epsilon="$EPSILON" -p period="$PERIOD" \
      -p delta="$DELTA" -p linesearch="$LINESEARCH" -m "$W/crfsuite.model" "$W/train.items" ||
      exit 1
    "$C" tag -qt -m "$W/crfsuite.model" "$W/test.items" >"$W/crfsuite.eval"
    tags crfsuite "$C" tag -m "$W/crfsuite.model" "$W/test.items"
    ;;
  vitesse)
    for t in $THREADS; do
      echo "vitesse train --threads $t ..." >&2
      # A vitesse without the trainer (or a failing run) leaves its columns pending.
      timed "vitesse$t" "$V" train --algo lbfgs --items "$W/train.items" --max-iterations "$ITERS" \
        --c1 "$C1" --c2 "$C2" --num-memories "$NUM_MEMORIES" --epsilon "$EPSILON" \
        --period "$PERIOD" --delta "$DELTA" --linesearch "$LINESEARCH" --threads "$t" \
        --log "$W/vitesse$t.log" -o "$W/vitesse$t.model" || continue
      # shellcheck disable=SC2034 # MODEL and ITEMS are read by the eval of VITESSE_TAG
      MODEL=$W/vitesse$t.model ITEMS=$W/test.items
      eval "set -- $VITESSE_TAG"
      tags "vitesse$t" "$V" "$@" || {
        echo "$0: vitesse could not tag with its model (see VITESSE_TAG): $*" >&2
        rm -f "$W/vitesse$t.tags"
      }
    done
    ;;
  *) echo "$0: unknown run $run" >&2 && exit 64 ;;
  esac
done
echo "load at end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$W/header"

python3 - "$W" "$THREADS" "$RUNS" "${VT_LOG_SECONDS:-per-iteration}" <<'EOF'
import json, os, re, statistics, sys

W, threads, runs, vt_seconds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4]
# Every column is printed; a trainer that did not run shows "pending".
cols = [("crfsuite", "crfsuite")] + [("vitesse %st" % t, "vitesse" + t) for t in threads]

def crfsuite_log(path):
    """[{iteration, loss, seconds, trials, active_features}] and the feature count."""
    its, feats, cur = [], None, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"\*\*\*\*\* Iteration #(\d+)", line)
        if m:
            cur = {"iteration": int(m.group(1))}
            its.append(cur)
            continue
        m = re.match(r"(Loss|Active features|Line search trials|Seconds required for this iteration|"
                     r"Feature norm|Error norm): (\S+)", line)
        if m and cur is not None:
            key = {"Loss": "loss", "Active features": "active_features",
                   "Line search trials": "trials", "Feature norm": "feature_norm",
                   "Error norm": "error_norm",
                   "Seconds required for this iteration": "seconds"}[m.group(1)]
            cur[key] = float(m.group(2))
        m = re.match(r"Number of features: (\d+)", line)
        if m:
            feats = int(m.group(1))
    return its, feats


def vitesse_log(path):
    its = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    its = [o for o in its if "iteration" in o]
    if vt_seconds == "cumulative":
        prev = 0.0
        for o in its:
            o["seconds"], prev = o["seconds"] - prev, o["seconds"]
    # Iteration 0 is the starting point: its evaluation is part of CRFsuite's iteration 1.
    start = [o for o in its if o["iteration"] == 0]
    its = [o for o in its if o["iteration"] >= 1]
    if start and its:
        its[0]["seconds"] += start[0]["seconds"]
        if "evaluations" in its[0]:
            its[0]["evaluations"] += start[0].get("evaluations", 0)
    return its


def accuracy(name):
    if not os.path.exists(os.path.join(W, name + ".tags")):
        return None, "not tagged"
    gold = open(os.path.join(W, "gold"), encoding="utf-8").read().split("\n")
    pred = open(os.path.join(W, name + ".tags"), encoding="utf-8").read().split("\n")
    if len(gold) != len(pred):
        return None, "output has %d lines, the items %d" % (len(pred), len(gold))
    n = ok = 0
    for g, p in zip(gold, pred):
        if g:
            n += 1
            ok += g == p
    return ok / n, "%d / %d" % (ok, n)


def sequences(name):
    return open(os.path.join(W, name + ".tags"), encoding="utf-8").read().split("\n\n")


data = {}
for title, name in cols:
    if name is None or not os.path.exists(os.path.join(W, name + ".time")):
        continue
    d = {}
    if name == "crfsuite":
        d["its"], d["features"] = crfsuite_log(os.path.join(W, "crfsuite.out"))
    else:
        d["its"] = vitesse_log(os.path.join(W, name + ".log"))
    wall, user, sys_, kb = open(os.path.join(W, name + ".time")).read().split()[-4:]
    d["wall"], d["cpu"], d["kb"] = float(wall), float(user) + float(sys_), int(kb)
    d["acc"] = accuracy(name)
    data[name] = d

print(open(os.path.join(W, "header")).read().rstrip())
train = open(os.path.join(W, "train.items"), encoding="utf-8").read()
print("train items: %d sequences, %d items" % (train.count("\n\n"), sum(1 for l in train.split("\n") if l)))
del train


def cell(v, fmt):
    return fmt % v if v is not None else "pending"


names = [n for _, n in cols]
titles = [t for t, _ in cols]
print("\n| loss | " + " | ".join(titles) + " | " +
      " | ".join("rel. diff %s" % t for t, n in cols if t != "crfsuite") + " |")
print("|---" * (1 + len(cols) + len(cols) - 1) + "|")
ref = data.get("crfsuite", {}).get("its", [])
n_its = max([len(d["its"]) for d in data.values()] + [0])
show = sorted(set(list(range(1, min(5, n_its) + 1)) + ([n_its] if n_its else [])))
for k in show:
    row, diffs = [], []
    base = ref[k - 1]["loss"] if len(ref) >= k else None
    for t, n in cols:
        d = data.get(n)
        v = d["its"][k - 1]["loss"] if d and len(d["its"]) >= k else None
        row.append(cell(v, "%.6f"))
        if t != "crfsuite":
            diffs.append(cell(abs(v - base) / abs(base) if v is not None and base else None, "%.2e"))
    print("| iteration %d | " % k + " | ".join(row) + " | " + " | ".join(diffs) + " |")


def per_it(n):
    d = data.get(n)
    if not d or not d["its"]:
        return None, None, None, None, None
    s = [o.get("seconds") for o in d["its"]]
    rest = [x for x in s[1:] if x is not None]
    # Objective evaluations per iteration (line-search trials), where the log says them.
    tr = [next((o[k] for k in TRIALS if k in o), None) for o in d["its"]]
    per_eval = [x / n for x, n in zip(s[1:], tr[1:]) if x is not None and n]
    return (s[0], (statistics.median(rest) if rest else None), tr[0],
            statistics.median(per_eval) if per_eval else None,
            sum(n for n in tr if n) if all(tr) else None)


TRIALS = ("trials", "linesearch_trials", "line_search_trials", "evaluations")


print("\n| | " + " | ".join(titles) + " |")
print("|---" * (1 + len(cols)) + "|")
first = [per_it(n) for n in names]
print("| iteration 1 s (initial evaluation + line search) | " + " | ".join(
    cell(f[0], "%.3f") + ("" if f[2] is None else " (%d trials)" % f[2]) if f[0] is not None
    else "pending" for f in first) + " |")
print("| s/iteration, median of 2..N | " + " | ".join(cell(f[1], "%.3f") for f in first) + " |")
cs = first[0][1] if names and names[0] == "crfsuite" else None
print("| s/evaluation (iteration s / line-search trials), median of 2..N | " + " | ".join(
    cell(f[3], "%.3f") for f in first) + " |")


def split(n):
    """vitesse's median seconds an evaluation in the gradient and in the optimiser (L-BFGS's
    own vector work), from its log's eval_seconds, iterations 2..N."""
    d = data.get(n)
    its = [o for o in (d["its"][1:] if d else []) if o.get("eval_seconds", -1) >= 0 and
           o.get("evaluations")]
    if n == "crfsuite" or not its:
        return None, None
    return (statistics.median(o["eval_seconds"] / o["evaluations"] for o in its),
            statistics.median((o["seconds"] - o["eval_seconds"]) / o["evaluations"] for o in its))


parts = [split(n) for n in names]
print("| of which the objective and gradient (vitesse's eval_seconds) | " + " | ".join(
    cell(p[0], "%.4f") for p in parts) + " |")
print("| of which the optimiser (liblbfgs: the rest) | " + " | ".join(
    cell(p[1], "%.4f") for p in parts) + " |")
one = first[1][3] if len(names) > 1 else None
print("| %s s/evaluation / this | " % (titles[1] if len(titles) > 1 else "") + " | ".join(
    cell(one / f[3] if one and f[3] and n != "crfsuite" else None, "%.2fx")
    for n, f in zip(names, first)) + " |")
print("| objective evaluations in all (+1: the initial one) | " + " | ".join(
    cell(f[4], "%d + 1") for f in first) + " |")
ce = first[0][3] if names and names[0] == "crfsuite" else None
print("| crfsuite s/evaluation / this | " + " | ".join(
    cell(ce / f[3] if ce and f[3] else None, "%.2fx") for f in first) + " |")
print("| crfsuite s/iteration / this | " + " | ".join(
    cell(cs / f[1] if cs and f[1] else None, "%.2fx") for f in first) + " |")
print("| whole command wall / CPU s | " + " | ".join(
    "%.1f / %.1f" % (data[n]["wall"], data[n]["cpu"]) if n in data else "pending" for n in names) + " |")
print("| peak RSS MB | " + " | ".join(
    cell(data[n]["kb"] / 1024 if n in data else None, "%.1f") for n in names) + " |")
print("| features (crfsuite: generated; vitesse: active at the end) | " + " | ".join(
    cell(data[n].get("features") if n == "crfsuite" else
         (data[n]["its"][-1].get("active_features") if data[n]["its"] else None), "%s")
    if n in data else "pending" for n in names) + " |")
print("| test item accuracy (every item; a label training never saw counts as an error) | " + " | ".join(
    ("%.4f (%s)" % data[n]["acc"] if data[n]["acc"][0] is not None else data[n]["acc"][1])
    if n in data else "pending" for n in names) + " |")
if "crfsuite" in data:
    ev = open(os.path.join(W, "crfsuite.eval"), encoding="utf-8").read()
    m = re.search(r"Item accuracy: (.*)", ev)
    m2 = re.search(r"Instance accuracy: (.*)", ev)
    print("\ncrfsuite tag -qt: item accuracy %s, instance accuracy %s (it stops counting a "
          "sequence at its first item whose label training never saw)" % (m.group(1) if m else "?", m2.group(1) if m2 else "?"))
    cseq = sequences("crfsuite")
    for n in names[1:]:
        if n in data and os.path.exists(os.path.join(W, n + ".tags")):
            vseq = sequences(n)
            diff = sum(a != b for a, b in zip(cseq, vseq)) + abs(len(cseq) - len(vseq))
            print("%s: test sequences whose labels differ from crfsuite's: %d of %d" % (n, diff, len(cseq) - 1))
print("\nwork folder: %s" % W)
EOF
