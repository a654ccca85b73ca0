# tests/peer.cmake: models of other toolkits: CRF++ and Wapiti models written by the
# test itself, checked against brute force, converted, damaged (tests/test_peer.c).
vt_add_test(test_peer exactness)

# peer_cli.CASE: CRF++ / Wapiti models on the command line (tests/peer_cli.sh): tag and convert
# (the same bytes), cost factor, Wapiti pattern files in training, refused models, crf_test's
# own output bytes (tests/crf_test: its fixtures); `shared`
# compares with the peers' own outputs in ../shared/peer-models and is skipped (77) without them.
foreach(case convert cost_factor train_wapiti_pattern bad_model crf_test shared)
  add_test(NAME peer_cli.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/peer_cli.sh $<TARGET_FILE:vitesse>
            $<TARGET_FILE:test_peer> ${case} ${PROJECT_SOURCE_DIR}/../shared)
  set(label unit)
  if(case STREQUAL bad_model)
    set(label badinput)
  endif()
  set_tests_properties(peer_cli.${case} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${label})
endforeach()
