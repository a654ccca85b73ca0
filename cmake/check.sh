#!/bin/sh
# The test command: installs missing Debian packages, then builds and runs the whole test suite
# twice: a normal build with warnings as errors, and an address+undefined sanitizer build; then
# the scheduler tests (label `sched`) once more in a ThreadSanitizer build.
# Usage: sh cmake/check.sh            (from the repository root; build trees go to build-check*/)
set -eu
cd "$(dirname "$0")/.."
sh cmake/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

run_suite() { # run_suite BUILD_DIR CTEST_ARGS TARGETS [cmake options...] ("" = all)
  dir=$1
  ctest_args=$2
  targets=$3
  shift 3
  echo "== configure $dir $*"
  mkdir -p "$dir" # the configure log goes inside the build tree (ignored), not beside it
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVT_WERROR=ON "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; exit 1; }
  echo "== build $dir"
  # shellcheck disable=SC2086
  cmake --build "$dir" -j "$jobs" ${targets:+--target $targets}
  echo "== test $dir"
  # shellcheck disable=SC2086
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" $ctest_args
}

mkdir -p build-check build-check-asan build-check-tsan
run_suite build-check "" ""
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-check-asan "" "" -DVT_SANITIZE=ON
# The engine's threads under ThreadSanitizer (pthreads; libgomp is not instrumented, and the
# engine does not use it): only the programs the `sched` tests run are built.
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  run_suite build-check-tsan "-L sched" "vitesse test_topo test_sched test_library" -DVT_TSAN=ON
echo "== all test suites passed"
