#!/bin/sh
# install_test.sh SOURCE_DIR BUILD_DIR: installs the build into a temporary prefix, then builds
# and runs a tiny program against it twice: through the CMake package and through pkg-config.
set -eu
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/vitesse.h"
test -x "$tmp/prefix/bin/vitesse"
"$tmp/prefix/bin/vitesse" --version
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer"
# pkg-config: link the shared library, found at run time through an rpath.
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig"
libdir=$(pkg-config --variable=libdir vitesse)
cc -o "$tmp/consumer_pc" "$src/tests/install_consumer.c" $(pkg-config --cflags --libs vitesse) \
  -Wl,-rpath,"$libdir"
"$tmp/consumer_pc" "$src/tests/install_consumer.c" \
  $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig" \
    pkg-config --cflags --libs --static vitesse)
"$tmp/consumer_pc"
echo "install_test: passed"
