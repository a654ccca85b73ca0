# shellcheck shell=sh disable=SC2034 # OLD, NEW and ab_dir are the sourcing script's
# perf/ab_loop.sh: the alternated A/B loop of the perf scripts that compare two sides, sourced
# by them (`. "$(dirname "$0")/ab_loop.sh"`): two binaries (ab.sh, tag_ab.sh) or one command
# without and with an option (resume_ab.sh, decode_resume_ab.sh, ckpt_ab.sh). The sides run in
# turn, round after round, so that a drift in the machine's speed falls on both alike. Each
# script keeps its own commands; this file runs, times and sums them up. Its own variables start
# with _ab_; it sets OLD, NEW (ab_binaries) and ab_dir (ab_workdir).

# ab_need N USAGE ARGS...: exits 64 after "usage: $0 USAGE" unless ARGS are N words or more.
ab_need() {
  _ab_n=$1 _ab_usage=$2
  shift 2
  if [ $# -lt "$_ab_n" ]; then
    echo "usage: $0 $_ab_usage" >&2
    exit 64
  fi
}

# ab_binaries OLD NEW: sets OLD and NEW to the two binaries' absolute paths.
ab_binaries() {
  OLD=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  NEW=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
}

# ab_which BIN: "old" for $OLD, else "new" (a name for BIN's files).
ab_which() {
  if [ "$1" = "$OLD" ]; then echo old; else echo new; fi
}

# ab_workdir NAME: a new temporary folder NAME.XXXXXX under ${TMPDIR:-/tmp}, in ab_dir; removed
# at exit.
ab_workdir() {
  ab_dir=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  trap 'rm -rf "$ab_dir"' EXIT
}

# ab_alternate ROUNDS RUN CHECK A B [ARGS...]: ROUNDS rounds; each runs `RUN A ARGS...`, then
# `RUN B ARGS...`, then CHECK (a command taking no arguments, `:` for none; it stops the script
# when the sides disagree).
ab_alternate() {
  _ab_rounds=$1 _ab_run=$2 _ab_check=$3 _ab_a=$4 _ab_b=$5
  shift 5
  _ab_r=0
  while [ "$_ab_r" -lt "$_ab_rounds" ]; do
    "$_ab_run" "$_ab_a" "$@"
    "$_ab_run" "$_ab_b" "$@"
    "$_ab_check"
    _ab_r=$((_ab_r + 1))
  done
}

# ab_perf CMD...: runs CMD under `perf stat -e task-clock`, its count written for ab_timed.
ab_perf() {
  perf stat -x, -e task-clock -o "$ab_dir/st" "$@"
}

# ab_timed SIDE CMD...: runs CMD (which runs the measured command through ab_perf) and appends
# "SIDE CPU_MS WALL_S" to $ab_dir/times: the task-clock milliseconds and the wall seconds of CMD.
ab_timed() {
  _ab_label=$1
  shift
  _ab_s=$(date +%s.%N)
  "$@"
  _ab_e=$(date +%s.%N)
  printf '%s %s %s\n' "$_ab_label" "$(grep task-clock "$ab_dir/st" | cut -d, -f1)" \
    "$(awk -v a="$_ab_s" -v b="$_ab_e" 'BEGIN { printf "%.3f", b - a }')" >>"$ab_dir/times"
}

# _ab_min_median FIELD: "min median" of column FIELD of the lines in standard input.
_ab_min_median() {
  sort -n -k"$1" | awk -v f="$1" '{ v[NR] = $f } END { print v[1], v[int((NR + 1) / 2)] }'
}

# ab_times SIDE...: for each SIDE, one line of its minimum and median CPU and wall time (ab_timed).
ab_times() {
  for _ab_label in "$@"; do
    printf '%s: cpu ms (min median) %s; wall s (min median) %s\n' "$_ab_label" \
      "$(grep "^$_ab_label " "$ab_dir/times" | _ab_min_median 2)" \
      "$(grep "^$_ab_label " "$ab_dir/times" | _ab_min_median 3)"
  done
}

# ab_median: the median of the numbers in standard input, one a line (of an even count, the
# lower middle one).
ab_median() {
  sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# ab_same A B: "identical" when the files A and B hold the same bytes, else "DIFFERENT".
ab_same() {
  if cmp -s "$1" "$2"; then echo identical; else echo DIFFERENT; fi
}
