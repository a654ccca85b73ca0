# tests/chunk.cmake: tests of the joint label-chunk decoder, its features, training and models
# (Shimizu & Haas 2006).
vt_add_test(test_chunk_decode exactness)
vt_add_test(test_chunk_model unit)

# chunk_badinput.CASE: the joint commands on one bad input exit 2 with one line naming the file
# and leave no output; `good` trains, reloads and tags (also via train --joint-chunk and tag).
set(VT_CHUNK_BADINPUT_CASES good ragged too_few_columns eval_missing_column missing_corpus
  truncated_model corrupt_model name_offset_past_section not_a_model tag_tagger_option
  tag_tagger_long_option)
foreach(case ${VT_CHUNK_BADINPUT_CASES})
  add_test(NAME chunk_badinput.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/chunk_badinput.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(chunk_badinput.${case} PROPERTIES LABELS badinput)
endforeach()
set_tests_properties(chunk_badinput.good PROPERTIES LABELS "badinput;threads") # engine threads
