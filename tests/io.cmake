# tests/io.cmake: tests of io/ (.npy reader/writer, atomic output files, lattice-set validation,
# whole files mapped or read, the page advice the loaders give, %a-written doubles read back, and
# CRFsuite item files mapped, gzipped or in memory).
vt_add_test(test_npy unit)
vt_add_test(test_filemap unit)
vt_add_test(test_hexfloat unit)
vt_add_test(test_crfs_items unit)

# badinput.CASE: `vitesse decode` on one malformed input exits 2 with one line naming the file
# and leaves no output; `good` is the control case.
set(VT_BADINPUT_CASES good fortran bigendian wrongdtype wrongshape_A wrongshape_E
  lengths_mismatch negative_length truncated_data truncated_header badmagic badversion nan_E
  posinf_A huge_E huge_A nan_S rank_not_permutation rank_out_of_range missing_file empty_file)
foreach(case ${VT_BADINPUT_CASES})
  add_test(NAME badinput.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/badinput.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(badinput.${case} PROPERTIES LABELS badinput)
endforeach()
