#!/bin/sh
# The test command: installs missing Debian packages, then builds and runs the whole test suite
# twice: a normal build with warnings as errors (and the Python package built against it, with
# its pytest suite; with MPI found, vitesse-mpi and its mpirun tests, label `mpi`), and an
# address+undefined sanitizer build (without vitesse-mpi); then
# the scheduler tests and the CLI tests that start threads (labels `sched`,
# `threads`) once more in a ThreadSanitizer build; then a short run of
# every fuzz target (clang + libFuzzer; VT_FUZZ_SECONDS, default 20, per target).
# Usage: sh .ci/check.sh            (from the repository root; build trees go to build-check*/)
set -eu
cd "$(dirname "$0")/.."
sh .ci/setup.sh
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

# The Python package (python/), built against a build tree's static library as a wheel (`pip
# wheel` in a venv on the Debian packages, offline, no build isolation), that wheel installed
# into a fresh venv, then the pytest suite on it, from the repository root so the installed
# package is the one imported. VT_PYTHON: the interpreter (default /usr/bin/python3, the one the
# Debian packages serve).
python_suite() { # python_suite BUILD_DIR
  dir=$1
  py=${VT_PYTHON:-/usr/bin/python3}
  echo "== python $dir"
  rm -rf "$dir/venv" "$dir/venv-build" "$dir/wheel"
  "$py" -m venv --system-site-packages "$dir/venv-build"
  VITESSE_BUILD_DIR="$PWD/$dir" VITESSE_WERROR=1 "$dir/venv-build/bin/pip" wheel -q \
    --no-build-isolation --no-index --no-deps -w "$dir/wheel" ./python
  "$py" -m venv --system-site-packages "$dir/venv"
  "$dir/venv/bin/pip" install -q --no-index "$dir"/wheel/vitesse-*.whl
  VITESSE_CLI="$PWD/$dir/vitesse" "$dir/venv/bin/python" -m pytest -q python/tests
}

mkdir -p build-check build-check-asan build-check-tsan
run_suite build-check "" ""
python_suite build-check
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-check-asan "" "" -DVT_SANITIZE=ON
# Threads under ThreadSanitizer: the scheduler tests (`sched`) and the CLI tests that tag, decode
# and train on several threads (`threads`); only the programs they run are built. clang and LLVM's
# OpenMP runtime, whose Archer tool (OMP_TOOL_LIBRARIES) tells TSan about the OpenMP forks and
# joins of the engine's worker team and of the training (libgomp's are invisible to it); jemalloc
# is left out of this build.
archer=$(find /usr/lib/llvm-*/lib -name libarcher.so 2>/dev/null | sort | tail -1)
[ -n "$archer" ] || { echo "check.sh: no libarcher.so (Debian package libomp-dev)" >&2; exit 1; }
CC=clang OMP_TOOL_LIBRARIES=$archer \
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1 \
  run_suite build-check-tsan "-L sched|threads" \
  "vitesse test_topo test_sched test_library test_crf_train test_ipm_span test_train_part" \
  -DVT_TSAN=ON
# Fuzzing smoke run (tests/fuzz/README.md): each libFuzzer target for $VT_FUZZ_SECONDS seconds
# (default 20) from a copy of its seed corpus (nothing is written into the repository); any
# crash, leak, sanitizer report or timeout fails. VT_FUZZ_SECONDS=0 skips this leg.
fuzz_secs=${VT_FUZZ_SECONDS:-20}
if [ "$fuzz_secs" -gt 0 ]; then
  dir=build-check-fuzz
  mkdir -p "$dir"
  echo "== configure $dir -DVT_FUZZ=ON (clang)"
  CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVT_FUZZ=ON \
    >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  echo "== build $dir"
  cmake --build "$dir" -j "$jobs" --target fuzz_targets
  # fuzz_one TARGET: one run; its log ends with "rc=N".
  fuzz_one() {
    rm -rf "$dir/corpus/$1" "$dir/artifacts/$1"
    mkdir -p "$dir/corpus/$1" "$dir/artifacts/$1"
    cp tests/fuzz/seeds/"$1"/* "$dir/corpus/$1/"
    rc=0
    "$dir/tests/fuzz/fuzz_$1" -max_total_time="$fuzz_secs" -rss_limit_mb=2048 -timeout=25 \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/$1/" "$dir/corpus/$1" \
      >"$dir/fuzz_$1.log" 2>&1 || rc=$?
    echo "rc=$rc" >>"$dir/fuzz_$1.log"
  }
  # $jobs targets at a time, each on its own core.
  set -- npy lattice conll template textmodel chunkmodel crfpp wapiti crfsmodel crfsitems crftrain
  while [ $# -gt 0 ]; do
    batch=""
    while [ $# -gt 0 ] && [ "$(echo $batch | wc -w)" -lt "$jobs" ]; do
      batch="$batch $1"
      shift
    done
    echo "== fuzz$batch, ${fuzz_secs}s each"
    for t in $batch; do fuzz_one "$t" & done
    wait
    for t in $batch; do
      if [ "$(tail -n 1 "$dir/fuzz_$t.log")" != "rc=0" ]; then
        tail -n 60 "$dir/fuzz_$t.log"
        echo "== fuzz $t FAILED: the input is in $dir/artifacts/$t/"
        exit 1
      fi
      printf '%s: %s\n' "$t" "$(grep '^stat::number_of_executed_units' "$dir/fuzz_$t.log")"
    done
  done
fi
echo "== all test suites passed"
