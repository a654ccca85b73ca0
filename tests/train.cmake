# tests/train.cmake: the public training API (vitesse.h, "training").
vt_add_test(test_train_api unit)

# train_parallel.CASE: --shards / --threads from the command line (tests/train_parallel.sh): the
# same model bytes for any thread count, --shards 1 = the sequential perceptron, bad values.
# `conll2000` uses ../shared/data when present and is skipped (77) without it.
foreach(case tagger joint bad_options conll2000)
  add_test(NAME train_parallel.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/train_parallel.sh $<TARGET_FILE:vitesse> ${case}
            ${PROJECT_SOURCE_DIR}/../shared/data)
  set(label unit)
  if(case STREQUAL bad_options)
    set(label badinput)
  endif()
  set_tests_properties(train_parallel.${case} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${label})
endforeach()
