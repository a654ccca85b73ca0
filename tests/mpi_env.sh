# tests/mpi_env.sh: what the vitesse-mpi test scripts (mpi_cli.sh, mpi_train.sh) share, sourced
# by them with SUITE, CASE, MPIEXEC, NP and VMPI set: Open MPI's environment for this machine,
# fail and run_mpi.

# Open MPI as root, more ranks than cores, no ssh, no binding (threads per rank), and no
# "job aborted" banner of its own when a rank exits non-zero (MPICH ignores these).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent= OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_orte_execute_quiet=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# (Not OMPI_MCA_odls_base_sigkill_timeout: Open MPI 4.1's mpirun sleeps that long after any
# job whose ranks exit non-zero, even once they have all exited, so 30 s made each failure case
# take 30 s; the SIGTERM checks set it for their own jobs.)
export VITESSE_MPI_SHOW_SIZE=1

fail() {
  printf '%s.%s: FAIL: %s\n' "$SUITE" "$CASE" "$*" >&2
  if [ -s stderr ]; then
    printf -- '--- stderr:\n' >&2
    head -n 30 stderr >&2
  fi
  exit 1
}

# run_mpi P ARGS...: vitesse-mpi with P ranks, stderr in ./stderr (without the size line, which
# must say P ranks). Returns vitesse-mpi's exit status (also in rc).
run_mpi() {
  p=$1
  shift
  "$MPIEXEC" "$NP" "$p" "$VMPI" "$@" 2>stderr.all </dev/null
  rc=$?
  grep -qx "vitesse-mpi: $p ranks" stderr.all || {
    cp stderr.all stderr
    fail "the job did not have $p ranks (rc $rc)"
  }
  grep -v '^vitesse-mpi: [0-9]* ranks$' stderr.all >stderr
  return $rc
}
