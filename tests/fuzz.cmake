# tests/fuzz.cmake: the fuzz targets of every parser (tests/fuzz/: harnesses, seed corpora, README).
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/fuzz ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
