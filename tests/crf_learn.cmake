# tests/crf_learn.cmake: `vitesse crf_learn`, CRF++'s crf_learn (engine/api/crfpp_learn.c).
# test_crf_learn: the objective and gradient against brute force and finite differences, the
# error counts, the double-array trie, the binary model read back by vitesse's CRF++ reader, the
# text model round trip, training lowering the objective.
vt_add_test(test_crf_learn exactness)
# test_crfpp_lattice: the lattice of MIRA and of bigram templates with macros (objective, errors
# and gradient against brute force and finite differences), MIRA's first step worked by hand and
# its stopping rule.
vt_add_test(test_crfpp_lattice exactness)

# crf_learn_cli.CASE (tests/crf_learn_cli.sh): crf_learn's log and model against crf_learn's
# own (fixtures in tests/crf_learn), MIRA's, bigram templates with macros', options, refused
# input, the text model and -C, tagging.
foreach(case peer mira bigram options bad models)
  add_test(NAME crf_learn_cli.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/crf_learn_cli.sh $<TARGET_FILE:vitesse> ${case})
  set(label unit)
  if(case STREQUAL bad)
    set(label badinput)
  endif()
  set_tests_properties(crf_learn_cli.${case} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${label})
endforeach()
