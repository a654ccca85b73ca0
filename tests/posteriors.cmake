# tests/posteriors.cmake: forward-backward against brute force and a long-double reference.
vt_add_test(test_posteriors exactness)

# confidence_cli: vitesse decode --posteriors / --logz (shape, bytes, thread-count independence,
# atomic outputs).
add_test(NAME confidence_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/confidence_cli.sh
  $<TARGET_FILE:vitesse>)
set_tests_properties(confidence_cli PROPERTIES LABELS unit)

# test_constraints: allowed labels and forbidden transitions, every decoder against brute force,
# and through the library (tag dictionaries, partial labels, IOB2, bad files).
vt_add_test(test_constraints exactness)
# test_sparse: the sparse route of constrained lattices against the dense references, every
# exact decoder, ties, -inf, 2 to 945 labels.
vt_add_test(test_sparse exactness)

# tag_conf_cli: vitesse tag -v 1/2 and allowed labels through the CLI (layout, thread-count
# independence, the no-path output, bad files).
add_test(NAME tag_conf_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/tag_conf_cli.sh
  $<TARGET_FILE:vitesse>)
set_tests_properties(tag_conf_cli PROPERTIES LABELS "unit;badinput")
