#!/bin/sh
# tests/docs_blocks.sh VITESSE REPO [VITESSE_MPI]: runs the examples of the documentation
# (REPO/README.md and REPO/docs/*.md), so that no page shows a command that does not work.
# The convention (docs/testing.md, "The docs test"):
#   ```sh      runnable: each block runs with `sh -e` in a fresh temporary directory, with the
#              directories of VITESSE (and VITESSE_MPI) first on PATH, after this script has
#              prepared there the inputs the blocks name (a small corpus shaped like CoNLL-2000,
#              models trained on it, lattices, small CRF++/Wapiti/CRFsuite models from the fuzz
#              seeds; nothing from outside the repository). Not run, but listed: blocks that
#              build the project, install packages or run the suite (they call .ci/, cmake,
#              ctest or pytest: the README's two commands among them). Skipped, and counted: a
#              block that needs a program this machine lacks (mpirun, srun, hadoop), or
#              vitesse-mpi when no VITESSE_MPI is given.
#   ```c       checked against examples/ (built and run by tests/examples.cmake): a block that
#              starts with "/* examples/NAME.c" equals that file; any other block is a run of
#              consecutive lines of one of examples/*.c.
#   ```python  counted here; python/tests/test_docs.py runs them.
#   ```text, ```console and the rest: not run (synopses, output, placeholders).
# A failing block prints its file, line and first line, and the end of its output; the script
# then exits 1. The MPI blocks run as tests/mpi_cli.sh runs vitesse-mpi: Open MPI allowed to
# run as root and to oversubscribe.
set -u

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 VITESSE REPO [VITESSE_MPI]" >&2
  exit 64
fi
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
VITESSE=$(abs "$1")
REPO=$(cd "$2" && pwd -P)
VMPI=""
[ $# -eq 3 ] && [ -n "$3" ] && VMPI=$(abs "$3")
[ -x "$VITESSE" ] || { echo "docs_blocks: $VITESSE is not an executable" >&2; exit 64; }

base=$(mktemp -d "${TMPDIR:-/tmp}/vt_docs_blocks.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM

PATH=$(dirname "$VITESSE"):$PATH
[ -n "$VMPI" ] && PATH=$(dirname "$VMPI"):$PATH
export PATH
# Open MPI as root (a container), more ranks than cores, no ssh (one machine), no banner.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=
export OMPI_MCA_btl_vader_single_copy_mechanism=none

fail_setup() {
  echo "docs_blocks: setting up the inputs failed: $*" >&2
  [ -s "$base/setup.log" ] && tail -n 20 "$base/setup.log" >&2
  exit 1
}

# ---- the blocks ---------------------------------------------------------------------------------
# Every fenced block of the pages, in order: blocks/N.LANG holds its lines, blocks/index the line
# "N LANG FILE:LINE" (LINE: the fence's). A fence must start its line: an indented ```sh, ```c or
# ```python (which this extraction would miss) is an error.
mkdir "$base/blocks"
cd "$REPO" || exit 1
pages="README.md"
for p in docs/*.md; do [ -f "$p" ] && pages="$pages $p"; done
awk -v dir="$base/blocks" '
  FNR == 1 && inblock { printf "an unclosed fence before %s\n", FILENAME; bad = 1; inblock = 0 }
  !inblock && /^[ \t]+```(sh|c|python)[ \t]*$/ {
    printf "%s:%d: an indented fence: the docs test would not see this block\n", FILENAME, FNR
    bad = 1
  }
  !inblock && /^```/ {
    lang = substr($0, 4); sub(/[ \t].*$/, "", lang); if (lang == "") lang = "none"
    n++; inblock = 1; out = dir "/" n "." lang
    printf "" > out
    printf "%d %s %s:%d\n", n, lang, FILENAME, FNR > (dir "/index")
    next
  }
  inblock && /^```[ \t]*$/ { inblock = 0; close(out); next }
  inblock { print > out }
  END { if (inblock) { print "unclosed fence at the end of " FILENAME; bad = 1 } exit bad }
' $pages || { echo "docs_blocks: the pages' fences are broken" >&2; exit 1; }
[ -s "$base/blocks/index" ] || { echo "docs_blocks: no blocks in $pages" >&2; exit 1; }

# ---- the inputs the blocks name -----------------------------------------------------------------
fx="$base/fixtures"
mkdir "$fx" || exit 1
cd "$fx" || exit 1
# corpus N SEED: N sentences shaped like CoNLL-2000 (word POS chunk): noun phrases, verb groups,
# prepositional phrases, a full stop; a Park-Miller generator, so every awk gives the same text.
corpus() {
  awk -v n="$1" -v seed="$2" '
    function r(k) { x = (x * 16807) % 2147483647; return int(x / 2147483647 * k) }
    function pick(s,   a, m) { m = split(s, a, " "); return a[r(m) + 1] }
    function np() {
      c = r(4)
      if (c == 0) { print pick("he she it they") " PRP B-NP"; return }
      if (c == 1) { print pick("John Mary Paris London") " NNP B-NP"; return }
      print pick("the a this every") " DT B-NP"
      if (r(2)) print pick("big small red old new") " JJ I-NP"
      print pick("dog cat house market price company report plan") " NN I-NP"
    }
    function vp() {
      if (r(3) == 0) { print pick("will can may") " MD B-VP"; print pick("see buy sell like") " VB I-VP"; return }
      print pick("sees buys sells likes") " VBZ B-VP"
    }
    BEGIN {
      x = seed * 7919 + 1
      for (s = 0; s < n; s++) {
        np(); vp(); np()
        if (r(2)) { print pick("in on of near") " IN B-PP"; np() }
        print ". . O"
        print ""
      }
    }'
}
{
  corpus 300 1 >train.txt && corpus 60 2 >dev.txt && corpus 60 3 >test.txt &&
    cp test.txt corpus.txt &&
    { echo "# word<TAB>POS"; awk 'NF { print $1 "\t" $2; next } { print }' train.txt; } >train.tsv &&
    { echo "# word<TAB>POS"; awk 'NF { print $1 "\t" $2; next } { print }' test.txt; } >test.tsv &&
    awk 'NF { print $1, (++k % 3 ? "_" : $2), $2; next } { print }' test.txt >pre-annotated.txt &&
    mkdir -p perf && cp -R "$REPO/perf/templates" perf/ &&
    printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nU02:%%x[1,0]\nU03:%%m[0,0,".?.?$"]\nB\n' >pos.tmpl &&
    vitesse train --template perf/templates/conll2000-chunk.tmpl --train train.txt --epochs 3 \
      --quiet -o chunker.model &&
    vitesse train --template pos.tmpl --train train.txt --label-col 1 --epochs 3 --quiet \
      -o pos.model && rm pos.tmpl &&
    vitesse chunk-train --train train.txt --epochs 3 --quiet -o joint.model &&
    vitesse synth -o . --labels 64 --sentences 200 --seed 1 &&
    vitesse lattice -m chunker.model -o lat test.txt &&
    cp "$REPO/tests/fuzz/seeds/crfpp/good.model" crfpp.model &&
    cp "$REPO/tests/fuzz/seeds/wapiti/good.model" wapiti.model &&
    cp "$REPO/tests/fuzz/seeds/crfsmodel/good.model" chunk.crfsuite &&
    cp "$REPO/tests/fuzz/seeds/crfsitems/good.items" test.items
} >"$base/setup.log" 2>&1 || fail_setup "see above"

# ---- running them -------------------------------------------------------------------------------
if command -v timeout >/dev/null 2>&1; then limit="timeout 120"; else limit=""; fi
uses() { grep -Eq "(^|[^A-Za-z0-9_./-])$1([^A-Za-z0-9_-]|$)" "$2"; }
ran=0 skipped=0 notrun=0 checked=0 python=0 failed=0
while read -r n lang where; do
  blk="$base/blocks/$n.$lang"
  first=$(sed -n '1p' "$blk")
  case $lang in
  sh)
    if grep -Eq '(\.ci/|(^|[^A-Za-z_-])(cmake|ctest|pytest)([^A-Za-z_-]|$))' "$blk"; then
      echo "docs_blocks: not run (builds, installs or runs the suite): $where: $first"
      notrun=$((notrun + 1))
      continue
    fi
    missing=""
    for prog in mpirun srun hadoop; do
      if uses "$prog" "$blk" && ! command -v "$prog" >/dev/null 2>&1; then missing="$missing $prog"; fi
    done
    if uses vitesse-mpi "$blk" && [ -z "$VMPI" ]; then missing="$missing vitesse-mpi"; fi
    if [ -n "$missing" ]; then
      echo "docs_blocks: skipped (no$missing here): $where: $first"
      skipped=$((skipped + 1))
      continue
    fi
    run="$base/run$n"
    mkdir "$run" && cp -R "$fx/." "$run/" || exit 1
    if (cd "$run" && $limit sh -e "$blk") >"$base/out$n" 2>&1 </dev/null; then
      ran=$((ran + 1))
      rm -rf "$run"
    else
      rc=$?
      echo "docs_blocks: FAIL (exit status $rc): $where: $first" >&2
      tail -n 20 "$base/out$n" | sed 's/^/    /' >&2
      failed=1
    fi
    ;;
  c)
    name=$(sed -n '1s|^/\* \(examples/[A-Za-z0-9_]*\.c\).*|\1|p' "$blk")
    if [ -n "$name" ]; then
      if [ -f "$REPO/$name" ] && cmp -s "$blk" "$REPO/$name"; then
        checked=$((checked + 1))
      else
        echo "docs_blocks: FAIL: $where: the block is not $name as it is in the repository" >&2
        failed=1
      fi
    else
      found=""
      for ex in "$REPO"/examples/*.c; do
        if awk 'FNR == NR { b = b $0 "\n"; next } { f = f $0 "\n" }
                END { exit !(index("\n" f, "\n" b) > 0) }' "$blk" "$ex"; then
          found=$ex
          break
        fi
      done
      if [ -n "$found" ]; then
        checked=$((checked + 1))
      else
        echo "docs_blocks: FAIL: $where: the block is no run of lines of examples/*.c: $first" >&2
        failed=1
      fi
    fi
    ;;
  python) python=$((python + 1)) ;;
  esac
done <"$base/blocks/index"

echo "docs_blocks: $ran sh blocks ran, $skipped skipped, $notrun not run (build/suite);" \
  "$checked c blocks checked against examples/; $python python blocks (python/tests/test_docs.py)"
[ "$ran" -gt 0 ] || { echo "docs_blocks: no block ran" >&2; exit 1; }
exit $failed
