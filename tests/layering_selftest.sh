#!/bin/sh
# layering_selftest.sh: shows tests/layering.sh can fail. It runs the check on tiny fake trees
# made in a temporary folder: a clean one must pass; one where alloc/ includes a header of
# engine/core, one where the CLI (a front end) includes an internal header, one where mpi/ (a
# front end on the CLI) does, one with a folder the layer table lacks, one with a header guard
# not by its path, and one with a file stem in two library folders, must each fail with the right
# line.
set -eu
check="$(dirname "$0")/layering.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/clean/alloc" "$tmp/clean/engine/core" "$tmp/clean/engine/cli"
g() { printf '#ifndef %s\n#define %s\n' "$1" "$1"; } # a header's guard, by its path
{ g VT_ALLOC_ARENA_H; printf '#include "vitesse.h"\n#endif\n'; } >"$tmp/clean/alloc/arena.h"
printf '#include "arena.h"\n#include "trans.h"\n' >"$tmp/clean/engine/core/trans.c"
{ g VT_CORE_TRANS_H; printf '#include "arena.h"\n#endif\n'; } >"$tmp/clean/engine/core/trans.h"
printf '#include "vitesse.h"\n#include "cli.h"\n' >"$tmp/clean/engine/cli/main.c"
{ g VT_CLI_CLI_H; printf '#include "vitesse.h"\n#endif\n'; } >"$tmp/clean/engine/cli/cli.h"
{ printf '/* public */\n'; g VT_VITESSE_H; printf '#endif\n'; } >"$tmp/clean/engine/vitesse.h"
sh "$check" "$tmp/clean" || { echo "layering_selftest: clean tree rejected" >&2; exit 1; }

cp -R "$tmp/clean" "$tmp/up"
printf '#include "vitesse.h"\n\n#include "trans.h"\n' >"$tmp/up/alloc/arena.c"
if sh "$check" "$tmp/up" >"$tmp/out"; then
  echo "layering_selftest: an include from alloc into engine/core passed" >&2
  exit 1
fi
grep -qx 'alloc/arena.c:3: includes trans.h from higher layer engine/core' "$tmp/out" || {
  echo "layering_selftest: unexpected report:" >&2
  cat "$tmp/out" >&2
  exit 1
}

cp -R "$tmp/clean" "$tmp/front"
printf '#include "vitesse.h"\n#include "core/trans.h"\n' >"$tmp/front/engine/cli/main.c"
if sh "$check" "$tmp/front" >"$tmp/out"; then
  echo "layering_selftest: the CLI including an internal header passed" >&2
  exit 1
fi
grep -q '^engine/cli/main.c:2: includes core/trans.h from engine/core: a front end' "$tmp/out" || {
  echo "layering_selftest: unexpected report:" >&2
  cat "$tmp/out" >&2
  exit 1
}

# vitesse-mpi (mpi/) may include the CLI's headers (the table says so), not internal ones.
cp -R "$tmp/clean" "$tmp/mpi"
mkdir "$tmp/mpi/mpi"
printf '#include "vitesse.h"\n#include "cli.h"\n' >"$tmp/mpi/mpi/main.c"
sh "$check" "$tmp/mpi" || { echo "layering_selftest: mpi/ including the CLI's header rejected" >&2; exit 1; }
printf '#include "vitesse.h"\n#include "cli.h"\n#include "trans.h"\n' >"$tmp/mpi/mpi/main.c"
if sh "$check" "$tmp/mpi" >"$tmp/out"; then
  echo "layering_selftest: mpi/ including an internal header passed" >&2
  exit 1
fi
grep -q '^mpi/main.c:3: includes trans.h from engine/core: a front end' "$tmp/out" || {
  echo "layering_selftest: unexpected report:" >&2
  cat "$tmp/out" >&2
  exit 1
}

cp -R "$tmp/clean" "$tmp/unlisted"
mkdir "$tmp/unlisted/engine/extra"
printf '#include "arena.h"\n' >"$tmp/unlisted/engine/extra/x.c"
if sh "$check" "$tmp/unlisted" >"$tmp/out"; then
  echo "layering_selftest: a folder missing from the table passed" >&2
  exit 1
fi
grep -q '^engine/extra/x.c: folder engine/extra is not in the layer table' "$tmp/out" || {
  echo "layering_selftest: unexpected report:" >&2
  cat "$tmp/out" >&2
  exit 1
}
# A header whose guard does not follow its path, and one with none.
cp -R "$tmp/clean" "$tmp/guard"
{ g VT_ENGINE_TRANS_H; printf '#include "arena.h"\n#endif\n'; } >"$tmp/guard/engine/core/trans.h"
printf '#include "vitesse.h"\n' >"$tmp/guard/engine/cli/cli.h"
if sh "$check" "$tmp/guard" >"$tmp/out"; then
  echo "layering_selftest: a header with a guard not by its path passed" >&2
  exit 1
fi
grep -qx 'engine/core/trans.h:1: include guard VT_ENGINE_TRANS_H, expected VT_CORE_TRANS_H (its path)' \
  "$tmp/out" && grep -qx 'engine/cli/cli.h: no include guard (expected VT_CLI_CLI_H)' "$tmp/out" || {
  echo "layering_selftest: unexpected report:" >&2
  cat "$tmp/out" >&2
  exit 1
}
# One stem in two library folders.
cp -R "$tmp/clean" "$tmp/stem"
printf '#include "vitesse.h"\n' >"$tmp/stem/alloc/trans.c"
if sh "$check" "$tmp/stem" >"$tmp/out"; then
  echo "layering_selftest: a stem in two library folders passed" >&2
  exit 1
fi
grep -q 'the stem trans is in' "$tmp/out" || {
  echo "layering_selftest: unexpected report:" >&2
  cat "$tmp/out" >&2
  exit 1
}
echo "layering_selftest: passed"
