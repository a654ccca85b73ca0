# tests/regressions.cmake: regression tests of the CLI's edges found while hardening it (tests/regressions.sh).
foreach(case regex_huge output_nodir hash_key eval_conllu_default eval_empty eval_full long_line max_tokens_default topo_big synth_mkdir check_logs clang_warnings
        joint_decoder_opts lattice_labels model_from_pipe model_memory bad_option
        crfsuite_stats output_not_file)
  add_test(NAME regressions.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/regressions.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(regressions.${case} PROPERTIES LABELS badinput)
endforeach()
# A second SIGINT removes the temporary output file before the process dies.
add_test(NAME regressions.signal_twice
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/regressions.sh $<TARGET_FILE:vitesse> signal_twice)
set_tests_properties(regressions.signal_twice PROPERTIES LABELS "unit;sched")
# These two tag and decode on the engine's threads: run again in the ThreadSanitizer build.
set_tests_properties(regressions.joint_decoder_opts regressions.lattice_labels PROPERTIES LABELS
  "badinput;threads")
