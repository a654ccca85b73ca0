# tests/symbols.cmake: the shared library exports exactly the functions engine/vitesse.h marks
# VT_API (tests/symbols.sh), in every build (the sanitizers' hooks stay in their own runtimes).
add_test(NAME symbols COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/symbols.sh
  $<TARGET_FILE:vitesse_shared> ${PROJECT_SOURCE_DIR}/engine/vitesse.h)
set_tests_properties(symbols PROPERTIES LABELS unit)
