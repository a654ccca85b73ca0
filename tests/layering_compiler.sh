#!/bin/sh
# layering_compiler.sh CC VIEWS SRC: proves that the compiler, not only tests/layering.sh, keeps
# the layers. VIEWS is the build tree's views/ folder (cmake/VtLayers.cmake): one include root
# per layer holding vitesse.h and the layers it may use. For each layer, every header of its
# folder preprocesses against its own root (so none includes a higher layer, even indirectly),
# and a header of the next layer up is refused there ("No such file"). The CLI's root (front)
# takes vitesse.h and its own headers and refuses every internal header; the public root takes
# vitesse.h alone. Exits 1 on the first layer the compiler does not hold.
set -eu
CC=$1
VIEWS=$2
SRC=$3
layers="alloc core io decode text chunk models train sched api"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt_layering.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

# pp ROOT HEADER: preprocesses a file that includes HEADER against ROOT alone; 0 when it does.
pp() {
  printf '#include "%s"\n' "$2" >"$tmp/probe.c"
  "$CC" -E -I"$1" "$tmp/probe.c" -o /dev/null 2>"$tmp/err"
}
accept() { # accept ROOT HEADER
  if pp "$1" "$2"; then passes=$((passes + 1)); else
    echo "FAIL: $2 does not preprocess against $(basename "$1")'s include root:"
    head -3 "$tmp/err"
    fails=$((fails + 1))
  fi
}
refuse() { # refuse ROOT HEADER
  if pp "$1" "$2"; then
    echo "FAIL: $(basename "$1")'s include root lets $2 in"
    fails=$((fails + 1))
  elif grep -q "No such file" "$tmp/err"; then passes=$((passes + 1)); else
    echo "FAIL: $2 was refused against $(basename "$1")'s root, but not for its path:"
    head -3 "$tmp/err"
    fails=$((fails + 1))
  fi
}
dir_of() { case $1 in alloc | io) echo "$SRC/$1" ;; *) echo "$SRC/engine/$1" ;; esac; }
first_header() { (cd "$(dir_of "$1")" && ls ./*.h | head -n 1 | sed 's|^\./||'); }

prev=""
for layer in $layers; do
  for h in $(cd "$(dir_of "$layer")" && ls ./*.h | sed 's|^\./||'); do
    accept "$VIEWS/$layer" "$layer/$h"
  done
  [ -n "$prev" ] && refuse "$VIEWS/$prev" "$layer/$(first_header "$layer")"
  prev=$layer
done
accept "$VIEWS/front" "vitesse.h"
accept "$VIEWS/front" "cli/cli.h"
for layer in $layers; do refuse "$VIEWS/front" "$layer/$(first_header "$layer")"; done
refuse "$VIEWS/front" "api/model_impl.h"
accept "$VIEWS/public" "vitesse.h"
refuse "$VIEWS/public" "cli/cli.h"
refuse "$VIEWS/public" "core/trans_layout.h"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
