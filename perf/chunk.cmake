# perf/chunk.cmake: drivers of the joint label-chunk decoder; see perf/README.md.
add_executable(chunk_bench chunk_bench.c)
target_include_directories(chunk_bench PRIVATE ${VT_INTERNAL_INCLUDES})
target_link_libraries(chunk_bench PRIVATE vitesse_static vt_flags)
