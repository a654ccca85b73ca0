# tests/text.cmake: tests of the text pipeline (corpora, templates, models, training, tagging,
# evaluation).
vt_add_test(test_template unit)
vt_add_test(test_trans_update exactness)
vt_add_test(test_obsbigram exactness)
vt_add_test(test_tmpl_index exactness)
vt_add_test(test_conll unit)
vt_add_test(test_conlleval unit)
vt_add_test(test_textmodel unit)

# text_cli.CASE: the train / tag / eval / lattice commands end to end (tests/text_cli.sh). They
# tag on the engine's threads: label `threads`, run again in the ThreadSanitizer build.
foreach(case separable threads kbest eval_conlleval conllu lattice)
  add_test(NAME text_cli.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/text_cli.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(text_cli.${case} PROPERTIES LABELS "unit;threads")
endforeach()
foreach(case bad_ragged bad_long bad_model bad_template)
  add_test(NAME text_cli.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/text_cli.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(text_cli.${case} PROPERTIES LABELS badinput)
endforeach()

# filter_cli: vitesse tag as a Hadoop Streaming / Spark pipe() filter over many small pre-sharded
# .gz inputs (tests/filter_cli.sh; the README's recipe).
add_test(NAME filter_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/filter_cli.sh $<TARGET_FILE:vitesse>)
set_tests_properties(filter_cli PROPERTIES LABELS unit)
