# tests/engine.cmake: tests of the engine (topology and plan, arenas and memory sources, model
# replicas, the batch scheduler, steady-state allocations, and `vitesse decode` on the engine).
# Tests labelled `sched` also run under ThreadSanitizer (.ci/check.sh, build-check-tsan).

# vt_engine_test(NAME LABEL [sched]): vt_add_test, plus the `sched` label when asked.
function(vt_engine_test name label)
  vt_add_test(${name} ${label})
  if(ARGN)
    set_property(TEST ${name} APPEND PROPERTY LABELS ${ARGN})
  endif()
endfunction()

vt_engine_test(test_topo unit sched)
vt_engine_test(test_arena unit)
vt_engine_test(test_sched unit sched)
vt_engine_test(test_alloc unit)

# sched_cli: byte-identical decode output over threads, batch sizes, binding, SIMD levels and a
# 4-node plan; `vitesse topo` output.
add_test(NAME sched_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sched_cli.sh $<TARGET_FILE:vitesse>)
set_tests_properties(sched_cli PROPERTIES LABELS "unit;sched")

# omp_cli: the OpenMP team: byte-identical tag and decode output for 1, 2, 3, 5 threads and
# batch sizes, OMP_NUM_THREADS as the default worker count, OMP_THREAD_LIMIT (a smaller team),
# OMP_PROC_BIND, the serial/worker CPU keys of --stats, a worker's bad-line report.
add_test(NAME omp_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/omp_cli.sh $<TARGET_FILE:vitesse>)
set_tests_properties(omp_cli PROPERTIES LABELS "unit;sched")

# sched_signal: SIGINT/SIGTERM stop a run cleanly (in-order prefix, no complete-looking -o file);
# a closed stdout ends it quietly.
add_test(NAME sched_signal COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sched_signal.sh
  $<TARGET_FILE:vitesse>)
set_tests_properties(sched_signal PROPERTIES LABELS "unit;sched")

# demo: the README's main job, small: every algorithm runs and every exact one agrees with the
# reference Viterbi on the sentences it checks (the demo exits 1 otherwise).
add_test(NAME demo COMMAND $<TARGET_FILE:vitesse> demo --labels 40 --sentences 60 --seconds 1)
set_tests_properties(demo PROPERTIES LABELS unit)
