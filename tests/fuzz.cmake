# tests/fuzz.cmake: the fuzz targets of issue 13 (tests/fuzz/: harnesses, seed corpora, README).
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/fuzz ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
