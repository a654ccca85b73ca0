# tests/docs.cmake: the documentation's examples (README.md, docs/*.md) run as printed
# (tests/docs_blocks.sh: every ```sh block in a fresh directory with inputs it makes itself, the
# ```c blocks checked against examples/; the ```python blocks are python/tests/test_docs.py's).
# With MPI, the vitesse-mpi blocks run too (mpi/ is configured before tests/).
if(TARGET vitesse-mpi)
  add_test(NAME docs_blocks COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs_blocks.sh
    $<TARGET_FILE:vitesse> ${PROJECT_SOURCE_DIR} $<TARGET_FILE:vitesse-mpi>)
else()
  add_test(NAME docs_blocks COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs_blocks.sh
    $<TARGET_FILE:vitesse> ${PROJECT_SOURCE_DIR})
endif()
set_tests_properties(docs_blocks PROPERTIES LABELS unit PROCESSORS 2)
