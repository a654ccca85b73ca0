# perf/crfsuite.cmake: model_load, the in-process load time of model files (perf/crfsuite_bench.sh).
add_executable(model_load model_load.c)
target_include_directories(model_load PRIVATE ${VT_INTERNAL_INCLUDES})
target_link_libraries(model_load PRIVATE vitesse_static vt_flags)
