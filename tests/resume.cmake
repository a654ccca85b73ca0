# tag_resume.CASE: `vitesse tag -o OUT --resume` killed and rerun (tests/tag_resume.sh).
foreach(case kill term refuse plain)
  add_test(NAME tag_resume.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tag_resume.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(tag_resume.${case} PROPERTIES LABELS unit)
endforeach()
# decode_resume.CASE: `vitesse decode -o OUT --resume` killed and rerun (tests/decode_resume.sh).
foreach(case kill term refuse plain)
  add_test(NAME decode_resume.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/decode_resume.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(decode_resume.${case} PROPERTIES LABELS unit)
endforeach()
# progress_lines.CASE: the --progress lines of tag, decode and train (tests/progress_lines.sh).
foreach(case tag decode train)
  add_test(NAME progress_lines.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/progress_lines.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(progress_lines.${case} PROPERTIES LABELS unit)
endforeach()

# train_ckpt.CASE: `vitesse train --checkpoint CK` killed and rerun, stopped by SIGTERM/SIGINT
# and rerun, lbfgs.c against liblbfgs,
# refusals (tests/train_ckpt.sh); the MPI case is in mpi.cmake.
foreach(case kill_perceptron kill_crf lbfgs_same refuse term)
  add_test(NAME train_ckpt.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/train_ckpt.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(train_ckpt.${case} PROPERTIES LABELS unit)
endforeach()
