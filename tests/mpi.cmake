# vitesse-mpi (mpi/): mpirun with 1..4 ranks on this machine writes the bytes vitesse tag /
# vitesse decode write, with tagger, joint and CRFsuite models (tests/mpi_cli.sh); only when CMake found MPI (VT_HAVE_MPI).
if(VT_HAVE_MPI)
  foreach(case tag_plain tag_edges tag_stream tag_joint tag_crfsuite decode errors tag_resume)
    add_test(NAME mpi_cli.${case}
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/mpi_cli.sh $<TARGET_FILE:vitesse>
        $<TARGET_FILE:vitesse-mpi> ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${case}
        $<TARGET_FILE:crfsuite_seeds>)
    set_tests_properties(mpi_cli.${case} PROPERTIES LABELS mpi PROCESSORS 2)
  endforeach()
endif()

# vitesse-mpi train: the model vitesse train writes, for 1..4 ranks and 1..2 threads
# (tests/mpi_train.sh).
if(VT_HAVE_MPI)
  foreach(case perceptron crf_templates crf_items errors)
    add_test(NAME mpi_train.${case}
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/mpi_train.sh $<TARGET_FILE:vitesse>
        $<TARGET_FILE:vitesse-mpi> ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${case})
    set_tests_properties(mpi_train.${case} PROPERTIES LABELS mpi PROCESSORS 2)
  endforeach()
endif()

# vitesse-mpi train --checkpoint: ranks killed once the checkpoint is there, the job rerun on
# another number of ranks writes vitesse train's model (tests/train_ckpt.sh).
if(VT_HAVE_MPI)
  add_test(NAME train_ckpt.mpi
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/train_ckpt.sh $<TARGET_FILE:vitesse> mpi
      $<TARGET_FILE:vitesse-mpi> ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
  set_tests_properties(train_ckpt.mpi PROPERTIES LABELS mpi PROCESSORS 2)
endif()

# mpi/split.c alone (no MPI): a file shorter than measured is a read error that says so.
vt_add_test(test_mpi_split unit)
target_sources(test_mpi_split PRIVATE ${PROJECT_SOURCE_DIR}/mpi/split.c)
target_include_directories(test_mpi_split PRIVATE ${PROJECT_SOURCE_DIR}/mpi)
