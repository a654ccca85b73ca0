# tests/learn.cmake: `vitesse learn`, crfsuite learn's command line (tests/learn_cli.sh): options
# and -p parameters, the log's lines, holdout evaluation, cross-validation; `peer` compares the
# log with crfsuite's own and is skipped (77) without crfsuite (CRFSUITE=path, or on PATH).
foreach(case options log holdout cv peer)
  add_test(NAME learn_cli.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/learn_cli.sh $<TARGET_FILE:vitesse> ${case})
  set(label unit)
  if(case STREQUAL options)
    set(label "unit;badinput")
  endif()
  set_tests_properties(learn_cli.${case} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${label}")
endforeach()
