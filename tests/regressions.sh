#!/bin/sh
# tests/regressions.sh VITESSE CASE: regression tests of the CLI's edges found while hardening
# it: each case runs the CLI on a small input this script writes and checks the exit status, the
# one-line message and that nothing is left behind.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 VITESSE CASE" >&2
  exit 64
fi
VITESSE=$1
CASE=$2
SRC=$(cd "$(dirname "$0")/.." && pwd) # the repository
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_regressions.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1
mkdir out

fail() {
  printf 'regressions.%s: FAIL: %s\n' "$CASE" "$*" >&2
  if [ -s stderr ]; then
    printf -- '--- stderr of vitesse:\n' >&2
    cat stderr >&2
  fi
  exit 1
}

# expect_fail RC CMD...: exit status RC, exactly one stderr line starting "vitesse: ", out/ empty.
expect_fail() {
  want=$1
  shift
  "$@" >stdout 2>stderr
  rc=$?
  [ "$rc" -eq "$want" ] || fail "$*: exit status $rc, want $want"
  [ "$(wc -l <stderr)" -eq 1 ] || fail "$*: stderr has $(wc -l <stderr) lines, want 1"
  grep -q '^vitesse: ' stderr || fail "$*: stderr does not start with 'vitesse: '"
  [ -z "$(ls -A out)" ] || fail "$*: output left behind: $(ls -A out)"
}

case $CASE in
regex_huge)
  # A Wapiti pattern of 200,000 '?' items (it overflowed the stack of the recursive matcher):
  # refused at the template's line, exit 2, no model; one at the limit tags a 200,000-byte
  # token; a pattern that made backtracking exponential answers at once.
  printf 'aaa x B\nbbb y I\n\n' >c.txt
  awk 'BEGIN { printf "U:%%m[0,0,\""; for (i = 0; i < 200000; i++) printf "a?"; print "\"]" }' \
    >huge.tmpl
  expect_fail 2 "$VITESSE" train --template huge.tmpl --train c.txt --epochs 1 -o out/m
  grep -q 'huge.tmpl:1: regex .*more than 1024 items' stderr || fail "$(cat stderr)"
  awk 'BEGIN { printf "U:%%m[0,0,\""; for (i = 0; i < 1024; i++) printf "a?"; print "\"]" }' \
    >limit.tmpl
  printf 'U:%%t[0,0,".*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*Q"]\n' >>limit.tmpl
  "$VITESSE" train --template limit.tmpl --train c.txt --epochs 1 --quiet -o m 2>stderr ||
    fail "train at the limit: exit $?"
  awk 'BEGIN { for (i = 0; i < 200000; i++) printf "a"; print " x"; print "" }' >long.txt
  "$VITESSE" tag -m m long.txt -o tagged.txt 2>stderr || fail "tag a long token: exit $?"
  [ "$(grep -c . tagged.txt)" -eq 1 ] || fail "tagged: $(cut -c1-80 tagged.txt)"
  ;;
output_nodir)
  # An output file in a folder that is not there: exit 2 and one line for tag, chunk-tag and
  # decode alike (and for vitesse-mpi: mpi_cli.sh), no temporary file left.
  printf 'a x B\nb y I\n\n' >c.txt
  printf 'U:%%x[0,0]\n' >t.tmpl
  "$VITESSE" train --template t.tmpl --train c.txt --epochs 1 --quiet -o m 2>stderr ||
    fail "train: exit $?"
  expect_fail 2 "$VITESSE" tag -m m c.txt -o out/nodir/o.txt
  grep -q 'out/nodir/o.txt: cannot create temp file' stderr || fail "tag: $(cat stderr)"
  "$VITESSE" synth -o lat --labels 3 --sentences 2 >/dev/null 2>&1 || fail "synth"
  expect_fail 2 "$VITESSE" decode --emissions lat/E.npy --lengths lat/N.npy \
    --transitions lat/A.npy -o out/nodir/o.txt
  ;;
hash_key)
  # The run-time tables hash with a key of the process (VITESSE_HASH_KEY sets it): the models,
  # the tag dictionary and the tagged output are the same bytes under any key.
  awk 'BEGIN { for (s = 0; s < 60; s++) { for (t = 0; t < 6; t++)
    printf "w%d x%d %s\n", (s * 7 + t * 3) % 41, t % 5, (t % 3 ? "I" : "B"); print "" } }' >c.txt
  printf 'U0:%%x[0,0]\nU1:%%x[0,1]\nU2:%%x[-1,0]/%%x[0,0]\nB\n' >t.tmpl
  for k in 1 2; do
    VITESSE_HASH_KEY=$k "$VITESSE" train --template t.tmpl --train c.txt --epochs 3 --quiet \
      -o m$k 2>stderr || fail "train under key $k: exit $?"
    VITESSE_HASH_KEY=$k "$VITESSE" tag-dict -o d$k c.txt 2>stderr || fail "tag-dict: exit $?"
    VITESSE_HASH_KEY=$k "$VITESSE" tag -m m1 --tag-dict d1 c.txt -o o$k 2>stderr ||
      fail "tag under key $k: exit $?"
  done
  # A CRF trained from item files, and its native conversion (a table built keyed, written
  # unkeyed as files keep it).
  awk 'BEGIN { for (s = 0; s < 40; s++) { for (t = 0; t < 5; t++)
    printf "%s\tw=%d\tp=%d\n", (t % 3 ? "I" : "B"), (s * 7 + t * 3) % 29, t % 4; print "" } }' >c.items
  for k in 1 2; do
    VITESSE_HASH_KEY=$k "$VITESSE" train --algo lbfgs --items c.items --quiet -o i$k.crfs \
      2>stderr || fail "train --items under key $k: exit $?"
    VITESSE_HASH_KEY=$k "$VITESSE" convert i1.crfs -o n$k.vtm 2>stderr ||
      fail "convert under key $k: exit $?"
  done
  cmp -s i1.crfs i2.crfs || fail "the CRFsuite model depends on the hash key"
  cmp -s n1.vtm n2.vtm || fail "the native conversion depends on the hash key"
  "$VITESSE" tag -m n1.vtm c.items -o on 2>stderr || fail "tag the native model: exit $?"
  "$VITESSE" tag -m i1.crfs c.items -o oi 2>stderr || fail "tag the crf1d model: exit $?"
  cmp -s on oi || fail "the native conversion tags otherwise"
  cmp -s m1 m2 || fail "the model depends on the hash key"
  cmp -s d1 d2 || fail "the tag dictionary depends on the hash key"
  cmp -s o1 o2 || fail "the tagged output depends on the hash key"
  [ -s o1 ] || fail "nothing tagged"
  ;;
eval_conllu_default)
  # --conllu: gold is UPOS, the prediction the last column (not MISC against the last).
  printf '# c\n1\tdo\tdo\tAUX\tVBP\t_\t0\troot\t_\t_\tAUX\n' >u.txt
  printf '2\tgo\tgo\tVERB\tVB\t_\t1\txcomp\t_\t_\tNOUN\n\n' >>u.txt
  "$VITESSE" eval --conllu u.txt >e.txt 2>stderr || fail "eval --conllu exited $?"
  grep -q 'tokens: 2, correct: 1, accuracy: 50.00%' e.txt || fail "eval --conllu: $(cat e.txt)"
  ;;
eval_empty)
  # No tokens at all: a one-line message and exit 2, no 0.00% report.
  : >empty.txt
  expect_fail 2 "$VITESSE" eval <empty.txt
  grep -q -- '-: no tokens to evaluate' stderr || fail "stdin: $(cat stderr)"
  [ ! -s stdout ] || fail "a report was printed: $(cat stdout)"
  expect_fail 2 "$VITESSE" eval empty.txt
  grep -q 'empty.txt: no tokens to evaluate' stderr || fail "file: $(cat stderr)"
  ;;
eval_full)
  # A failed write of the report: exit 1, "write failed".
  printf 'a x B-NP B-NP\n' >t.txt
  if [ -w /dev/full ]; then
    "$VITESSE" eval t.txt >/dev/full 2>stderr
    rc=$?
    [ "$rc" -eq 1 ] || fail "eval >/dev/full: exit status $rc, want 1"
    grep -q '^vitesse: .*write failed: ' stderr || fail "eval >/dev/full: $(cat stderr)"
  fi
  ;;
long_line)
  # A line over --max-line-bytes (default 1 MiB) is refused with FILE:LINE, exit 2, no output.
  printf 'a\tx\tNN\n\n' >train.txt
  printf 'U00:%%x[0,0]\n' >tmpl
  "$VITESSE" train --template tmpl --train train.txt --epochs 1 --quiet -o m.bin 2>stderr ||
    fail "train exited $?"
  { printf 'a\tx\tNN\nb\t'; head -c 1100000 /dev/zero | tr '\0' 'y'; printf '\tNN\n'; } >long.txt
  expect_fail 2 "$VITESSE" tag -m m.bin long.txt -o out/x
  grep -q 'long.txt:2: line longer than 1048576 bytes (--max-line-bytes)' stderr ||
    fail "tag: $(cat stderr)"
  expect_fail 2 "$VITESSE" train --template tmpl --train long.txt -o out/m
  grep -q 'long.txt:2: line longer than' stderr || fail "train: $(cat stderr)"
  expect_fail 2 "$VITESSE" eval long.txt
  grep -q 'long.txt:2: line longer than' stderr || fail "eval: $(cat stderr)"
  # The same from standard input, with no newline at the end, and with a smaller bound.
  head -c 2000 /dev/zero | tr '\0' 'y' >nonl.txt
  expect_fail 2 "$VITESSE" tag -m m.bin --max-line-bytes 1000 -o out/x <nonl.txt
  grep -q -- '-:1: line longer than 1000 bytes (--max-line-bytes)' stderr || fail "$(cat stderr)"
  # Raising the bound accepts the line.
  "$VITESSE" tag -m m.bin --max-line-bytes 2000000 long.txt -o out/ok 2>stderr ||
    fail "--max-line-bytes 2000000: exit $?"
  rm -f out/ok
  expect_fail 2 "$VITESSE" tag -m m.bin --max-line-bytes 0 long.txt -o out/x
  ;;
max_tokens_default)
  # The default bound of 10000 tokens per sentence holds, with a clear message.
  awk 'BEGIN { for (i = 0; i < 10001; i++) print "w x NN B-NP" }' >big.txt
  expect_fail 2 "$VITESSE" eval big.txt
  grep -q 'big.txt:10001: sentence longer than 10000 tokens (--max-tokens)' stderr ||
    fail "eval: $(cat stderr)"
  "$VITESSE" eval --max-tokens 10001 big.txt >e.txt 2>stderr || fail "--max-tokens 10001: $?"
  ;;
topo_big)
  # Too large a synthetic topology is refused at once (it took minutes and gigabytes).
  to=""
  if command -v timeout >/dev/null 2>&1; then to="timeout 10"; fi
  # shellcheck disable=SC2086
  expect_fail 2 $to "$VITESSE" topo --topology "numa:100 core:100 pu:10"
  grep -q 'too large a synthetic topology (100000 PUs, 100 NUMA nodes; at most 4096 and 1024)' \
    stderr || fail "$(cat stderr)"
  # shellcheck disable=SC2086
  expect_fail 2 $to "$VITESSE" topo --topology "numa:1025"
  # shellcheck disable=SC2086
  expect_fail 2 $to "$VITESSE" topo --topology "pack:99999999999 core:99999999999"
  "$VITESSE" topo --topology "numa:4 core:8 pu:2" >topo.txt 2>stderr || fail "small topology: $?"
  grep -q '4 NUMA node(s), 32 core(s), 64 PU(s)' topo.txt || fail "$(cat topo.txt)"
  ;;
synth_mkdir)
  # synth -o DIR creates DIR (as lattice -o does), and writes into an existing one.
  "$VITESSE" synth -o out/new --sentences 3 2>stderr || fail "synth -o out/new: exit $?"
  for f in E N A S F R; do [ -s out/new/$f.npy ] || fail "no $f.npy"; done
  "$VITESSE" synth -o out/new --sentences 3 2>stderr || fail "synth into an existing dir: $?"
  rm -rf out/new
  expect_fail 1 "$VITESSE" synth -o out/no/such --sentences 3
  grep -q 'out/no/such: cannot create directory' stderr || fail "$(cat stderr)"
  ;;
check_logs)
  # .ci/check.sh keeps its configure logs inside the build trees, and what a run leaves in the
  # repository root is ignored.
  if grep -n 'configure\.log' "$SRC/.ci/check.sh" | grep -v '\$dir/configure\.log'; then
    fail ".ci/check.sh writes a configure log outside its build tree"
  fi
  if command -v git >/dev/null 2>&1 && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    for f in build-check/configure.log build-check-asan.configure.log; do
      git -C "$SRC" check-ignore -q "$f" || fail "$f is not ignored"
    done
  fi
  ;;
output_not_file)
  # An output that is not a file: train writes a FIFO in place and a link's target, never renaming
  # over them (a model staged beside /dev/null and renamed used to replace it, as root);
  # tag --resume refuses them in one line.
  printf 'He PRP B-NP\nran VBD B-VP\n\nShe PRP B-NP\nsat VBD B-VP\n\n' >c.txt
  printf 'U00:%%x[0,0]\nU01:%%x[0,1]\nB\n' >t.tmpl
  mkfifo pipe
  cat pipe >got.model &
  reader=$!
  "$VITESSE" train --template t.tmpl --train c.txt --epochs 1 --quiet -o pipe 2>stderr ||
    { kill $reader; fail "train -o FIFO: exit $? ($(cat stderr))"; }
  [ -p pipe ] || { kill $reader; fail "the FIFO was replaced"; }
  wait $reader
  "$VITESSE" tag -m got.model c.txt >tagged.txt 2>stderr || fail "the model through the FIFO: $?"
  [ -s tagged.txt ] || fail "nothing tagged with the model written through the FIFO"
  ln -s real.model link.model
  "$VITESSE" train --template t.tmpl --train c.txt --epochs 1 --quiet -o link.model 2>stderr ||
    fail "train -o LINK: exit $?"
  [ -L link.model ] && [ -s real.model ] || fail "the link was replaced, or its target not written"
  mkdir out
  expect_fail 2 "$VITESSE" tag -m got.model c.txt -o pipe --resume
  grep -q 'pipe is not a regular file' stderr || fail "$(cat stderr)"
  [ -p pipe ] || fail "tag --resume replaced the FIFO"
  ;;
signal_twice)
  # Two quick SIGINTs to `decode -o OUT`: the second kills the run (exit 130) and still leaves no
  # .OUT.tmp.* behind (it used to kill with the default action, before the first's clean-up);
  # round 4 also writes --posteriors, whose temporary file goes too.
  mkdir lat
  "$VITESSE" synth -o lat --labels 45 --sentences 3000 --seed 5 >/dev/null 2>stderr ||
    fail "synth: $?"
  mkdir w
  for round in 1 2 3 4; do
    post=
    [ $round -eq 4 ] && post="--posteriors w/post.npy"
    # shellcheck disable=SC2086
    env --default-signal=INT "$VITESSE" decode --emissions lat/E.npy --lengths lat/N.npy \
      --transitions lat/A.npy --start lat/S.npy --end lat/F.npy --algo kbest-viterbi -k 64 \
      --threads 2 --batch-tokens 16 -o w/out $post 2>stderr &
    pid=$!
    started=0
    while kill -0 "$pid" 2>/dev/null; do
      for f in w/.out.tmp.*; do [ -s "$f" ] && started=1; done
      [ $started -eq 1 ] && break
      sleep 0.05
    done
    [ $started -eq 1 ] || fail "round $round: the run ended before writing anything"
    kill -INT "$pid"
    # Two signals sent back to back may merge into one: the second follows once the first is
    # seen (the run stops writing), before the clean-up ends.
    sleep "${VT_SIGNAL_GAP:-0.01}"
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    st=$?
    [ $st -eq 130 ] || fail "round $round: exit status $st, expected 130"
    [ -z "$(ls -A w)" ] || fail "round $round: files left behind: $(ls -A w)"
  done
  ;;
clang_warnings)
  # clang compiles the CLI, the benchmark and the tests without a warning (C11 without
  # extensions, the project's warning flags): CLOCK_MONOTONIC needs _POSIX_C_SOURCE there.
  # (The library's SIMD sources need their target flags: the clang build checks those.)
  if ! command -v clang >/dev/null 2>&1; then
    echo "regressions.clang_warnings: no clang, skipped"
    exit 0
  fi
  # One include root with every layer, as the build's views/all (cmake/VtLayers.cmake).
  mkdir -p root
  ln -sf "$SRC/engine/vitesse.h" root/vitesse.h
  ln -sfn "$SRC/alloc" root/alloc
  ln -sfn "$SRC/io" root/io
  for d in "$SRC"/engine/*/; do ln -sfn "$d" "root/$(basename "$d")"; done
  incs="-I$PWD/root -I$SRC/tests -I$SRC/mpi" # mpi/: test_mpi_split reads split.h
  for f in "$SRC"/engine/cli/*.c "$SRC"/perf/vt_bench.c "$SRC"/tests/*.c; do
    # shellcheck disable=SC2086
    clang -std=c11 -fsyntax-only -Werror -Wall -Wextra -Wshadow -Wstrict-prototypes \
      -Wmissing-prototypes -Wno-unused-parameter $incs "$f" 2>stderr || fail "clang warns on $f"
  done
  ;;
joint_decoder_opts)
  # A joint label-chunk model: decoder options get a message saying why (not a usage dump);
  # --algo shimizu-haas is accepted; --stats has the keys of `tag` (sentences_per_second).
  printf 'He PRP B-NP\nran VBD B-VP\n\nShe PRP B-NP\nsat VBD B-VP\n\n' >c.txt
  "$VITESSE" train --joint-chunk --train c.txt --epochs 2 --quiet -o m.joint 2>stderr ||
    fail "train --joint-chunk: exit $?"
  for opt in "--algo viterbi" "-k 3" "--beam 4" "--heuristic m9"; do
    # shellcheck disable=SC2086
    expect_fail 2 "$VITESSE" tag -m m.joint $opt c.txt -o out/x
    grep -q "^vitesse: $opt: a joint label-chunk model has one exact 1-best decoder" stderr ||
      fail "$opt: $(cat stderr)"
  done
  "$VITESSE" tag -m m.joint --algo shimizu-haas --stats --threads 2 c.txt -o out/ok 2>stderr ||
    fail "--algo shimizu-haas: exit $?"
  [ "$(grep -c . out/ok)" -eq 4 ] || fail "output: $(cat out/ok)"
  for key in sentences_per_second decode_sentences_per_second '"algo": "shimizu-haas"'; do
    grep -q "$key" stderr || fail "--stats has no $key: $(cat stderr)"
  done
  if grep -q '"sentences_per_s"' stderr; then fail "--stats still has sentences_per_s"; fi
  rm -f out/ok
  ;;
lattice_labels)
  # lattice writes labels.txt; decode --labels prints the names, which are tag's labels.
  printf 'the\tDT\ndog\tNN\nran\tVBD\n\na\tDT\ncat\tNN\n\nit\tPRP\nran\tVBD\n\n' >t.txt
  printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nB\n' >tmpl
  "$VITESSE" train --template tmpl --train t.txt --epochs 3 --quiet -o m.bin 2>stderr ||
    fail "train: exit $?"
  "$VITESSE" lattice -m m.bin -o lat t.txt 2>stderr || fail "lattice: exit $?"
  [ "$(wc -l <lat/labels.txt)" -eq 4 ] || fail "labels.txt: $(cat lat/labels.txt)"
  "$VITESSE" tag -m m.bin --algo viterbi t.txt 2>stderr |
    awk 'NF { s = s (s == "" ? "" : " ") $NF; next } { print s; s = "" }' >tag.txt
  set -- --emissions lat/E.npy --lengths lat/N.npy --transitions lat/A.npy --start lat/S.npy \
    --end lat/F.npy
  "$VITESSE" decode "$@" --algo viterbi --labels lat/labels.txt -o dec.txt 2>stderr ||
    fail "decode --labels: exit $?"
  cut -f4 dec.txt >names.txt
  cmp -s tag.txt names.txt || fail "decode --labels differs from tag: $(cat names.txt)"
  # Every path of -k 3 named; numbers without --labels map through labels.txt.
  "$VITESSE" decode "$@" -k 3 --labels lat/labels.txt -o k3n.txt 2>stderr || fail "-k 3: $?"
  "$VITESSE" decode "$@" -k 3 -o k3.txt 2>stderr || fail "-k 3 numbers: $?"
  awk -F '\t' 'NR == FNR { name[NR - 1] = $0; next }
    { n = split($4, y, " "); s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") name[y[i]]
      print $1 "\t" $2 "\t" $3 "\t" s }' lat/labels.txt k3.txt >k3m.txt
  cmp -s k3m.txt k3n.txt || fail "-k 3 names differ from labels.txt mapping"
  # Bad label files: one line naming the file (and line), exit 2, no output.
  head -3 lat/labels.txt >short.txt
  expect_fail 2 "$VITESSE" decode "$@" --labels short.txt -o out/x
  grep -q 'short.txt: 3 label names for lattices of 4 labels' stderr || fail "$(cat stderr)"
  { cat lat/labels.txt; echo extra; } >long.txt
  expect_fail 2 "$VITESSE" decode "$@" --labels long.txt -o out/x
  grep -q "long.txt:5: more names than the lattices' 4 labels" stderr || fail "$(cat stderr)"
  printf 'A\n\nB\nC\n' >blank.txt
  expect_fail 2 "$VITESSE" decode "$@" --labels blank.txt -o out/x
  grep -q 'blank.txt:2: expected one label name' stderr || fail "$(cat stderr)"
  expect_fail 2 "$VITESSE" decode "$@" --labels nosuch.txt -o out/x
  grep -q 'nosuch.txt: cannot open' stderr || fail "$(cat stderr)"
  ;;
model_memory)
  # Models that declare many labels in a few bytes. 46,340 labels (a 0.5 MB CRF++ or Wapiti
  # model; the dense tables would take 64 GiB) are refused before anything is allocated: one
  # line naming --max-model-memory, exit 2, even under a 1 GiB address space. The bound can be
  # lowered and raised. A 2,000-label model takes about one copy of its L x L tables (it took
  # four: 238 MB peak; the bound is 40 bytes a label pair), and a Wapiti model of 1,000 labels
  # with 2,147 bigram observations (it asked for one 17 GB block) loads in proportion to its file.
  crfpp() { # crfpp L: a CRF++ text model of L labels, one unigram feature
    awk -v L="$1" 'BEGIN { printf "version: 100\ncost-factor: 1\nmaxid: %d\nxsize: 1\n\n", L
      for (i = 0; i < L; i++) print "l" i; print ""; print "U00:%x[0,0]"; print ""
      print "0 U00:a"; print ""; for (i = 0; i < L; i++) print (i == 7 ? "0.5" : "0") }'
  }
  wapiti() { # wapiti L O KIND: L labels, O observations of one pattern of KIND (u or b)
    awk -v L="$1" -v O="$2" -v K="$3" 'BEGIN { printf "#mdl#2#1\n#rdr#1/1/0\n9:%s:%%x[0,0],\n", K
      printf "#qrk#%d\n", L; for (i = 0; i < L; i++) printf "%d:l%d,\n", length("l" i), i
      printf "#qrk#%d\n", O
      for (o = 0; o < O; o++) printf "%d:%s:%d,\n", length(K ":" o), K, o; print "0=0.5" }'
  }
  crfpp 46340 >big.crfpp
  wapiti 46340 1 u >big.wap
  printf 'a\nb\n\n' >in.txt
  # A sanitizer build reserves terabytes of address space for its shadow memory and keeps its
  # own allocations: it cannot start under the 1 GiB limit, and its peak RSS is not the
  # program's. Those checks need a plain build.
  plain=1
  (ulimit -v 1048576 2>/dev/null; "$VITESSE" --version) >/dev/null 2>&1 || plain=0
  [ $plain = 1 ] || echo "regressions.model_memory: a sanitizer build: no address-space or RSS checks"
  limit() { if [ $plain = 1 ]; then ulimit -v 1048576 2>/dev/null; fi; }
  for m in big.crfpp big.wap; do
    (limit; expect_fail 2 "$VITESSE" tag -m $m in.txt -o out/x) || exit 1
    grep -q "$m: a model of 46340 labels needs 65534 MiB, more than the bound of .* MiB (--max-model-memory)" stderr ||
      fail "$m: $(cat stderr)"
    expect_fail 2 "$VITESSE" convert $m -o out/x.vtm
  done
  crfpp 2000 >c2000.crfpp
  expect_fail 2 "$VITESSE" tag -m c2000.crfpp --max-model-memory 100M in.txt -o out/x
  grep -q 'c2000.crfpp: a model of 2000 labels needs 123 MiB, more than the bound of 100 MiB' stderr ||
    fail "$(cat stderr)"
  expect_fail 2 "$VITESSE" tag -m c2000.crfpp --max-model-memory 12Q in.txt -o out/x
  grep -q -- "--max-model-memory: expected a size in bytes" stderr || fail "$(cat stderr)"
  rss=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$VITESSE" tag -m c2000.crfpp \
    --max-model-memory 130M --threads 2 in.txt) || fail "tag the 2,000-label model"
  [ $plain = 0 ] || [ "$rss" -lt $((40 * 2000 * 2000 / 1024 + 32768)) ] ||
    fail "tagging with a 2,000-label model peaked at $rss KB"
  wapiti 1000 2147 b >b.wap
  (limit; "$VITESSE" tag -m b.wap in.txt -o tagged.txt 2>stderr) ||
    fail "the 1,000-label Wapiti model with 2,147 bigram observations: $(cat stderr)"
  [ "$(grep -c . tagged.txt)" -eq 2 ] || fail "tagged: $(cat tagged.txt)"
  ;;
bad_option)
  # An unknown option, or one without its value, is one line naming it and the --help hint
  # (exit 2), for every command: not the whole usage (it printed 81 lines).
  for cmd in tag decode train convert eval tag-dict lattice topo chunk-tag chunk-train synth demo; do
    expect_fail 2 "$VITESSE" $cmd --bogus
    grep -qx "vitesse: $cmd: unknown option '--bogus' (see vitesse $cmd --help)" stderr ||
      fail "$cmd: $(cat stderr)"
  done
  expect_fail 2 "$VITESSE" tag --threads
  grep -qx "vitesse: tag: option '--threads' needs a value (see vitesse tag --help)" stderr ||
    fail "$(cat stderr)"
  expect_fail 2 "$VITESSE" tag -k
  grep -qx "vitesse: tag: option '-k' needs a value (see vitesse tag --help)" stderr ||
    fail "$(cat stderr)"
  expect_fail 2 "$VITESSE" decode -x
  grep -qx "vitesse: decode: unknown option '-x' (see vitesse decode --help)" stderr ||
    fail "$(cat stderr)"
  expect_fail 2 "$VITESSE" tag --bogus=1
  grep -qx "vitesse: tag: unknown option '--bogus' (see vitesse tag --help)" stderr ||
    fail "$(cat stderr)"
  expect_fail 2 "$VITESSE" nosuch
  grep -qx "vitesse: unknown command 'nosuch' (see vitesse --help)" stderr || fail "$(cat stderr)"
  ;;
crfsuite_stats)
  # tag --stats with a CRFsuite model times the emissions and the decoder (both were always 0).
  awk 'BEGIN { for (s = 0; s < 400; s++) { for (t = 0; t < 8; t++)
    printf "%s\tw=%d\tp=%d\n", (t % 3 ? "I" : "B"), (s * 7 + t * 3) % 29, t % 4; print "" } }' >c.items
  "$VITESSE" train --algo lbfgs --items c.items --max-iterations 5 --quiet -o m.crfs 2>stderr ||
    fail "train --items: exit $?"
  "$VITESSE" tag -m m.crfs --stats --quiet c.items -o tagged.txt 2>stats.json ||
    fail "tag --stats: exit $?"
  for key in feature_seconds decode_seconds; do
    v=$(tr ',{}' '\n\n\n' <stats.json | sed -n "s/^ *\"$key\": *//p" | head -1)
    [ -n "$v" ] || fail "no $key in $(cat stats.json)"
    awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "$key is $v"
  done
  ;;
model_from_pipe)
  # -m /dev/stdin (a pipe) and -m FIFO: the model is read once, whole, and tags as the file does
  # (the kind sniff used to take its first bytes); a joint model too; garbage: one line, exit 2.
  printf 'the\tDT\ndog\tNN\n\na\tDT\ncat\tNN\n\n' >t.txt
  printf 'U00:%%x[0,0]\nB\n' >tmpl
  "$VITESSE" train --template tmpl --train t.txt --epochs 2 --quiet -o m.bin 2>stderr ||
    fail "train: exit $?"
  printf 'He PRP B-NP\nran VBD B-VP\n\n' >c.txt
  "$VITESSE" train --joint-chunk --train c.txt --epochs 2 --quiet -o m.joint 2>stderr ||
    fail "train --joint-chunk: exit $?"
  "$VITESSE" tag -m m.bin t.txt -o want.txt 2>stderr || fail "tag -m m.bin: exit $?"
  "$VITESSE" tag -m /dev/stdin t.txt -o got.txt <m.bin 2>stderr || fail "tag -m /dev/stdin: $?"
  cmp -s want.txt got.txt || fail "-m /dev/stdin tags differently"
  cat m.bin | "$VITESSE" tag -m /dev/stdin t.txt -o got.txt 2>stderr || fail "a pipe: $?"
  cmp -s want.txt got.txt || fail "-m /dev/stdin from a pipe tags differently"
  "$VITESSE" tag -m m.joint c.txt -o jwant.txt 2>stderr || fail "tag -m m.joint: exit $?"
  for cmd in tag chunk-tag; do
    cat m.joint | "$VITESSE" $cmd -m /dev/stdin c.txt -o jgot.txt 2>stderr ||
      fail "$cmd: a joint model from a pipe: $?"
    cmp -s jwant.txt jgot.txt || fail "$cmd: a joint model from a pipe tags differently"
  done
  if mkfifo fifo 2>/dev/null; then
    cat m.bin >fifo &
    "$VITESSE" tag -m fifo t.txt -o got.txt 2>stderr || fail "tag -m FIFO: exit $?"
    wait
    cmp -s want.txt got.txt || fail "-m FIFO tags differently"
  fi
  echo garbage | expect_fail 2 "$VITESSE" tag -m /dev/stdin t.txt -o out/x || exit 1
  grep -q '/dev/stdin: not a vitesse model file (bad magic)' stderr || fail "$(cat stderr)"
  cat m.bin | expect_fail 2 "$VITESSE" chunk-tag -m /dev/stdin c.txt -o out/x || exit 1
  grep -q '/dev/stdin: not a joint label-chunk model' stderr || fail "$(cat stderr)"
  rm -f want.txt got.txt jwant.txt jgot.txt
  ;;
*)
  echo "unknown case $CASE" >&2
  exit 64
  ;;
esac
exit 0
