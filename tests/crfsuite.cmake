# tests/crfsuite.cmake: CRFsuite crf1d models: the library and CLI against brute
# force on models the test writes itself, models written back as crf1d files, and (skipped
# without ../shared) the sample model's output against crfsuite tag's own.
# test_crfsuite is not labelled threads: check.sh's ThreadSanitizer leg builds only vitesse and a
# few programs; crfsuite_shared tags on 2 threads with vitesse alone, so it runs there.
vt_add_test(test_crfsuite exactness $<TARGET_FILE:vitesse>)
set_tests_properties(test_crfsuite PROPERTIES LABELS "exactness;badinput")
# test_crfsuite_write: models written back as crf1d files (vt_crfs_write_crf1d, convert --to
# crfsuite), read back and tagged the same; with VT_CRFSUITE=PATH, crfsuite tag on them too.
vt_add_test(test_crfsuite_write exactness $<TARGET_FILE:vitesse>)
set_tests_properties(test_crfsuite_write PROPERTIES LABELS "exactness;badinput")
add_test(NAME crfsuite_shared
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/crfsuite_shared.sh $<TARGET_FILE:vitesse>
          ${PROJECT_SOURCE_DIR}/../shared/peer-models/conll2000-chunk)
set_tests_properties(crfsuite_shared PROPERTIES SKIP_RETURN_CODE 77 LABELS "unit;threads")

# The seed writer of the CRFsuite fuzz targets (tests/fuzz/make_seeds.sh runs it).
add_executable(crfsuite_seeds crfsuite_seeds.c)
target_include_directories(crfsuite_seeds PRIVATE ${VT_INTERNAL_INCLUDES} ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(crfsuite_seeds PRIVATE vitesse_static vt_flags)
