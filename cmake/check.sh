#!/bin/sh
# The test command: installs missing Debian packages, then builds and runs the whole test suite
# twice: a normal build with warnings as errors, and an address+undefined sanitizer build.
# Usage: sh cmake/check.sh            (from the repository root; build trees go to build-check*/)
set -eu
cd "$(dirname "$0")/.."
sh cmake/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

run_suite() { # run_suite BUILD_DIR [cmake options...]
  dir=$1
  shift
  echo "== configure $dir $*"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVT_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
  echo "== build $dir"
  cmake --build "$dir" -j "$jobs"
  echo "== test $dir"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

mkdir -p build-check build-check-asan
run_suite build-check
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-check-asan -DVT_SANITIZE=ON
echo "== all test suites passed"
