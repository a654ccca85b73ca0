# tag_resume.CASE: `vitesse tag -o OUT --resume` killed and rerun (tests/tag_resume.sh).
foreach(case kill term refuse plain)
  add_test(NAME tag_resume.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tag_resume.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(tag_resume.${case} PROPERTIES LABELS unit)
endforeach()

# train_ckpt.CASE: `vitesse train --checkpoint CK` killed and rerun, lbfgs.c against liblbfgs,
# refusals (tests/train_ckpt.sh); the MPI case is in mpi.cmake.
foreach(case kill_perceptron kill_crf lbfgs_same refuse)
  add_test(NAME train_ckpt.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/train_ckpt.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(train_ckpt.${case} PROPERTIES LABELS unit)
endforeach()
