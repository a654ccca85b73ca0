# tests/layering.cmake: the include layering of the source tree (tests/layering.sh: no include
# from a lower layer to a higher one, no folder left out of the layer table, every header guard
# by its path), and a self-test showing that check fails on a tree that breaks it.
add_test(NAME layering COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/layering.sh ${PROJECT_SOURCE_DIR})
add_test(NAME layering_selftest COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/layering_selftest.sh)
set_tests_properties(layering layering_selftest PROPERTIES LABELS unit)
# The compiler's own refusal: each layer's include root preprocesses that layer's headers and
# refuses the next layer's; the CLI's root refuses every internal header.
add_test(NAME layering_compiler COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/layering_compiler.sh
  ${CMAKE_C_COMPILER} ${PROJECT_BINARY_DIR}/views ${PROJECT_SOURCE_DIR})
set_tests_properties(layering_compiler PROPERTIES LABELS unit)
# No circle of files: by the symbols the built objects use and define (the library, the CLI,
# vitesse-mpi, the Python extension compiled on the spot), and by includes. Debian's python3
# first: its NumPy headers build the extension's objects.
find_program(VT_CIRCLES_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT VT_CIRCLES_PYTHON)
  find_program(VT_CIRCLES_PYTHON NAMES python3 REQUIRED)
endif()
add_test(NAME circles COMMAND ${VT_CIRCLES_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/circles.py
  ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_C_COMPILER})
set_tests_properties(circles PROPERTIES LABELS unit)
# One internal error channel: below engine/api/, messages go into the caller's buffer only.
add_test(NAME error_channel COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/error_channel.sh
  ${PROJECT_SOURCE_DIR})
set_tests_properties(error_channel PROPERTIES LABELS unit)
