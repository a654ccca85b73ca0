#!/bin/sh
# tests/filter_cli.sh VITESSE: `vitesse tag` as the filter Hadoop Streaming and Spark's pipe()
# run (docs/cluster.md): the corpus pre-sharded at sentence boundaries with the
# README's splitter into many small .gz files; each shard through its own `vitesse tag` process
# (a map task: stdin to stdout), and several shards' lines concatenated into one process (a Spark
# partition); the outputs concatenated in shard order are the bytes of one `vitesse tag` over
# the whole corpus. A bad shard makes the filter exit non-zero (the framework then fails the
# task), with one line on stderr.
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 VITESSE" >&2
  exit 64
fi
VITESSE=$1
HERE=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/vt_filter_cli.XXXXXX") || exit 1
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
cd "$base" || exit 1

fail() {
  printf 'filter_cli: FAIL: %s\n' "$*" >&2
  [ -s stderr ] && head -n 20 stderr >&2
  exit 1
}

printf 'U00:%%x[0,0]\nU01:%%x[-1,0]/%%x[0,0]\nU02:%%x[0,1]\nB\n' >tmpl
awk -v N=300 -v SEED=7 -f "$HERE/toy_corpus.awk" >train.txt
"$VITESSE" train --template tmpl --train train.txt --epochs 5 --quiet -o model.bin 2>stderr ||
  fail "train exited $?"
# one CRLF line too
awk -v N=700 -v SEED=9 -f "$HERE/toy_corpus.awk" | sed '100s/$/\r/' >corpus.txt
"$VITESSE" tag -m model.bin corpus.txt >ref.txt 2>stderr || fail "vitesse tag exited $?"

# The README's pre-sharding: a new shard after a blank line once a shard has 200 lines.
mkdir shards
awk -v lines=200 -v out=shards/part- '
  BEGIN { f = sprintf("%s%05d", out, 0) }
  { print > f; n++ }
  /^[ \t\r]*$/ && n >= lines { close(f); f = sprintf("%s%05d", out, ++k); n = 0 }' corpus.txt
for f in shards/part-*; do gzip "$f" || fail "gzip $f"; done
count=$(ls shards | wc -l)
[ "$count" -ge 10 ] || fail "only $count shards"

# Hadoop Streaming, one map task per (non-splittable) .gz shard: zcat | vitesse tag.
: >hadoop.txt
for f in shards/part-*.gz; do
  gzip -dc "$f" | "$VITESSE" tag -m model.bin >part.out 2>stderr || fail "$f: exited $?"
  cat part.out >>hadoop.txt
done
cmp -s ref.txt hadoop.txt || fail "one process per shard: output differs"

# Spark pipe(): a partition's elements (lines) written one per line to one process's stdin;
# partitions of 3 shards, one process each.
: >spark.txt
set -- shards/part-*.gz
while [ $# -gt 0 ]; do
  group=""
  for i in 1 2 3; do
    [ $# -gt 0 ] || break
    group="$group $1"
    shift
  done
  # shellcheck disable=SC2086
  gzip -dc $group | while IFS= read -r line; do printf '%s\n' "$line"; done |
    "$VITESSE" tag -m model.bin >part.out 2>stderr || fail "partition$group: exited $?"
  cat part.out >>spark.txt
done
cmp -s ref.txt spark.txt || fail "partitions of 3 shards: output differs"

# A bad shard: non-zero exit, one line naming the problem, for the framework to report.
printf 'w1 x1 NN\nw2 x2\n\n' | gzip -c >bad.gz
gzip -dc bad.gz | "$VITESSE" tag -m model.bin >part.out 2>stderr
rc=$?
[ "$rc" -ne 0 ] || fail "a bad shard exited 0"
[ "$(wc -l <stderr)" -eq 1 ] && grep -q '^vitesse: -:2: ' stderr || fail "bad shard: stderr"
echo "filter_cli: $count shards, passed"
