# tests/first_use.cmake: what a new user meets first (tests/first_use.sh): --threads 0, --log's
# cpu_seconds, l2sgd's lines and calibration trials, the template CRF's closing line, and
# .ci/setup.sh waiting for apt's lock.
foreach(case threads0 cpu_log sgd_lines summary setup)
  add_test(NAME first_use.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/first_use.sh $<TARGET_FILE:vitesse> ${PROJECT_SOURCE_DIR}
            ${case})
  set_tests_properties(first_use.${case} PROPERTIES LABELS unit)
endforeach()
