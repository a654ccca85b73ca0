# tests/train.cmake: the public training API (vitesse.h, "training").
vt_add_test(test_train_api unit)

# train_parallel.CASE: --shards / --threads from the command line (tests/train_parallel.sh): the
# same model bytes for any thread count, --shards 1 = the sequential perceptron, bad values.
# `conll2000` uses ../shared/data when present and is skipped (77) without it.
foreach(case tagger joint bad_options conll2000)
  add_test(NAME train_parallel.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/train_parallel.sh $<TARGET_FILE:vitesse> ${case}
            ${PROJECT_SOURCE_DIR}/../shared/data)
  set(label "unit;threads") # OpenMP threads: run again in the ThreadSanitizer build
  if(case STREQUAL bad_options)
    set(label badinput)
  elseif(case STREQUAL conll2000)
    set(label unit)
  endif()
  set_tests_properties(train_parallel.${case} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${label}")
endforeach()

# Parameter mixing across processes played by threads (tests/comm_threads.c, a vt_train_comm
# over a pthread barrier that other tests may reuse): their weights are one process's.
find_package(Threads REQUIRED)
vt_add_test(test_ipm_span unit)
target_sources(test_ipm_span PRIVATE comm_threads.c)
target_link_libraries(test_ipm_span PRIVATE Threads::Threads)
set_tests_properties(test_ipm_span PROPERTIES LABELS "unit;threads")

# Training across processes through the public part API (vt_train_tagger_part,
# vt_train_items_part), the processes played by threads: the model of one process.
vt_add_test(test_train_part unit)
target_sources(test_train_part PRIVATE comm_threads.c)
target_link_libraries(test_train_part PRIVATE Threads::Threads)
set_tests_properties(test_train_part PROPERTIES LABELS "unit;threads")

# train_harden.CASE: vitesse train on damaged or hostile inputs and options (tests/train_harden.sh):
# an output that is an input, a truncated .gz, --log - and a failing log, options that do
# nothing, values past the bound and non-finite training, why each optimiser stopped, labels a
# model cannot hold.
foreach(case same_file gz log unused nonfinite stop labels)
  add_test(NAME train_harden.${case}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/train_harden.sh $<TARGET_FILE:vitesse> ${case})
  set_tests_properties(train_harden.${case} PROPERTIES LABELS badinput)
endforeach()

# test_blas_load: OpenBLAS is mapped when a trainer starts, not with the library; its header
# comes from pkg-config as the trainer's does.
vt_add_test(test_blas_load unit)
target_include_directories(test_blas_load PRIVATE
  $<TARGET_PROPERTY:PkgConfig::OPENBLAS,INTERFACE_INCLUDE_DIRECTORIES>)
