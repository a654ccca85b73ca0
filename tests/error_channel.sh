#!/bin/sh
# error_channel.sh [ROOT]: the library has one internal error channel. Below the public boundary
# a failure's one-line message travels in the caller's buffer (`char *err, size_t errlen`: it
# crosses threads inside a batch and costs nothing when the caller ignores it); only engine/api/,
# where the functions vitesse.h declares live, records it as the thread's last error (vt_fail,
# read with vt_last_error), and core/status.c keeps that record. Prints each file of another
# layer that records or reads it, and exits 1 when there is any.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
if git rev-parse --show-toplevel >/dev/null 2>&1; then
  files=$(git ls-files -co --exclude-standard -- 'engine/*.c' 'engine/*.h' 'io/*.c' 'io/*.h' \
    'alloc/*.c' 'alloc/*.h')
else
  files=$(find engine io alloc -name '*.[ch]')
fi
bad=0
checked=0
for f in $files; do
  [ -f "$f" ] || continue # deleted in the work tree
  checked=$((checked + 1))
  case $f in
  engine/api/* | engine/cli/* | engine/core/status.c | engine/core/errmsg.h | engine/vitesse.h)
    continue
    ;;
  esac
  if grep -n 'vt_fail(\|vt_last_error(' "$f"; then
    echo "$f: records or reads the thread's last error below the public boundary"
    bad=$((bad + 1))
  fi
done
echo "$checked files checked, $bad below the public boundary use vt_fail or vt_last_error"
[ "$bad" -eq 0 ]
