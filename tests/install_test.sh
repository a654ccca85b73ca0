#!/bin/sh
# install_test.sh SOURCE_DIR BUILD_DIR: installs the build into a temporary prefix, then builds
# and runs a tiny program (tests/install_consumer.c) against it four ways: through the CMake
# package (vitesse::vitesse_static and vitesse::vitesse_shared), and through pkg-config, once
# linking the shared library (found at run time through an rpath) and once linking
# libvitesse.a with `pkg-config --static --libs` (which must bring hwloc, jemalloc, zlib,
# OpenMP and libm: vitesse.pc's Requires.private and Libs.private); then the examples, built
# against the installed package the same ways and checked against the installed CLI; then the
# Python package against the installed library.
set -eu
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/vitesse.h"
test -x "$tmp/prefix/bin/vitesse"
"$tmp/prefix/bin/vitesse" --version

# The CMake package, static and shared.
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer"
"$tmp/consumer/consumer_shared"

# pkg-config.
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig"
libdir=$(pkg-config --variable=libdir vitesse)
cflags=$(pkg-config --cflags vitesse)
# Shared: -lvitesse finds libvitesse.so; the rpath finds it at run time.
cc -o "$tmp/consumer_pc" "$src/tests/install_consumer.c" $cflags $(pkg-config --libs vitesse) \
  -Wl,-rpath,"$libdir"
"$tmp/consumer_pc"
# Without the rpath the loader must be told where the library is (docs/library.md: ldconfig
# for /usr/local, LD_LIBRARY_PATH or the rpath elsewhere): it fails at start, then runs.
cc -o "$tmp/consumer_norpath" "$src/tests/install_consumer.c" $cflags $(pkg-config --libs vitesse)
if ! ldconfig -p 2>/dev/null | grep -q 'libvitesse\.so\.0 '; then # none installed system-wide
  if env -u LD_LIBRARY_PATH "$tmp/consumer_norpath" 2>"$tmp/norpath.err"; then
    echo "install_test: a consumer without rpath found the library by itself" >&2
    exit 1
  fi
  grep -q 'libvitesse.so.0: cannot open shared object file' "$tmp/norpath.err"
fi
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_norpath"
# Static: the archive in place of -lvitesse, then everything it needs, from the .pc file alone.
static_libs=$(pkg-config --static --libs vitesse | sed "s|-lvitesse\\b|$libdir/libvitesse.a|")
case $static_libs in
*libvitesse.a*) ;;
*)
  echo "install_test: no -lvitesse in pkg-config --static --libs: $static_libs" >&2
  exit 1
  ;;
esac
cc -o "$tmp/consumer_pc_static" "$src/tests/install_consumer.c" $cflags $static_libs
if readelf -d "$tmp/consumer_pc_static" | grep -q 'libvitesse'; then
  echo "install_test: the static consumer needs libvitesse.so" >&2
  exit 1
fi
"$tmp/consumer_pc_static"

# The examples (examples/*.c), built against the installed package through find_package
# (examples/CMakeLists.txt) and through pkg-config (shared, and static), each checked against
# the installed CLI (tests/examples.sh).
cmake -S "$src/examples" -B "$tmp/examples" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/examples" >/dev/null
sh "$src/tests/examples.sh" "$tmp/examples" "$tmp/prefix/bin/vitesse"
mkdir "$tmp/examples_pc" "$tmp/examples_pc_static"
for example in tag_corpus tag_tokens decode_npy train; do
  cc -o "$tmp/examples_pc/$example" "$src/examples/$example.c" $cflags \
    $(pkg-config --libs vitesse) -lm -Wl,-rpath,"$libdir"
  cc -o "$tmp/examples_pc_static/$example" "$src/examples/$example.c" $cflags $static_libs
done
sh "$src/tests/examples.sh" "$tmp/examples_pc" "$tmp/prefix/bin/vitesse"
sh "$src/tests/examples.sh" "$tmp/examples_pc_static" "$tmp/prefix/bin/vitesse"

# The Python package (python/setup.py) against the installed library, found by pkg-config (its
# static archive), when this machine has what the package builds with (.ci/setup.sh installs
# it): built outside the source tree, then imported from there to decode and train once.
py=${VT_PYTHON:-/usr/bin/python3}
if "$py" -c 'import numpy, setuptools' 2>/dev/null; then
  (cd "$src/python" && "$py" setup.py build --build-base "$tmp/py") >"$tmp/py.log" 2>&1 ||
    { cat "$tmp/py.log"; exit 1; }
  ext=$(find "$tmp/py" -name '_vitesse*.so')
  if readelf -d "$ext" | grep -q 'libvitesse'; then
    echo "install_test: the Python extension needs libvitesse.so" >&2
    exit 1
  fi
  PYTHONPATH=$(dirname "$(dirname "$ext")") "$py" -c '
import numpy as np, vitesse
(score, labels), = vitesse.decode(np.array([[0.0, 1.0], [2.0, 0.0]], np.float32), np.zeros((2, 2)))
assert score == 3.0 and labels.tolist() == [1, 0], (score, labels)
m = vitesse.train("U00:%x[0,0]\nB\n", [[["a", "X"], ["b", "Y"]]] * 3, epochs=2)
assert m.tag(["a", "b"]) == ["X", "Y"]
'
fi
echo "install_test: passed"
