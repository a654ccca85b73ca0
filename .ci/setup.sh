#!/bin/sh
# Installs the Debian packages vitesse needs to build and test, when any is missing.
# Safe to run again: it installs nothing when everything is there.
set -eu
# libudev-dev: hwloc's pkg-config file lists -ludev for static links (Libs.private) without
# libhwloc-dev depending on it; the install test links libvitesse.a through pkg-config --static.
# clang: the fuzz targets (libFuzzer ships with Debian's clang; .ci/check.sh runs them) and the
# ThreadSanitizer build, with libomp-dev: LLVM's OpenMP runtime and its race-detection tool
# (Archer, libarcher.so), so TSan sees the OpenMP forks and joins of the engine's worker team
# and of the training.
# python3-*: the Python package (python/) builds offline from these alone and check.sh runs its
# pytest suite; python3-venv for the README's install command (a venv on the system packages).
# libopenblas-dev liblbfgs-dev: the CRF trainer's batched forward-backward (matrix products) and
# its L-BFGS / OWL-QN optimiser.
# openmpi-bin libopenmpi-dev: vitesse-mpi (mpi/) and its tests (mpirun), built when CMake finds MPI.
pkgs="build-essential cmake pkg-config libhwloc-dev libjemalloc-dev zlib1g-dev libudev-dev clang
libomp-dev python3-dev python3-numpy python3-setuptools python3-wheel python3-pip python3-pytest python3-venv
openmpi-bin libopenmpi-dev libopenblas-dev liblbfgs-dev"
missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  exit 0
fi
echo "setup: installing Debian packages:$missing" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
# Another apt-get or dpkg (an unattended upgrade, a second setup) may hold apt's locks: wait for
# it, up to SETUP_APT_WAIT seconds (default 600), instead of failing at once (exit 100).
wait_s=${SETUP_APT_WAIT:-600}
echo "setup: if another apt-get or dpkg holds apt's lock, waiting for it (up to ${wait_s} s)" >&2
$sudo apt-get -o DPkg::Lock::Timeout="$wait_s" update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout="$wait_s" install -y -qq \
  $missing >/dev/null
