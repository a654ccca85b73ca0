# tests/examples.cmake: the example programs (examples/*.c), built in this build tree (so that the
# sanitizer builds run them too) and checked against the CLI (tests/examples.sh). The install test
# builds and checks them again against the installed package.
foreach(example tag_corpus tag_tokens decode_npy train)
  add_executable(example_${example} ${PROJECT_SOURCE_DIR}/examples/${example}.c)
  target_include_directories(example_${example} PRIVATE ${VT_PUBLIC_INCLUDES})
  target_link_libraries(example_${example} PRIVATE vitesse_static vt_flags)
  set_target_properties(example_${example} PROPERTIES OUTPUT_NAME ${example}
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/examples)
endforeach()
add_test(NAME examples COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/examples.sh
  ${PROJECT_BINARY_DIR}/examples $<TARGET_FILE:vitesse>)
set_tests_properties(examples PROPERTIES LABELS unit)
# The public API's own test; it runs the engine with several threads, so ThreadSanitizer runs it
# too (label sched).
vt_add_test(test_library unit)
set_property(TEST test_library APPEND PROPERTY LABELS sched)
target_link_libraries(test_library PRIVATE OpenMP::OpenMP_C) # it calls the engine in a region
