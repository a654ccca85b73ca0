# tests/defaults.cmake: the default decoder rule (vt_decode_opts_default).
vt_add_test(test_defaults unit)

# The CLI's default decoder (vitesse decode without --algo) and A*'s default heuristic.
add_test(NAME defaults_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/defaults_cli.sh
  $<TARGET_FILE:vitesse>)
set_tests_properties(defaults_cli PROPERTIES LABELS unit)
