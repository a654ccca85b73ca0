# Finds OpenMP, hwloc (>= 2) and jemalloc; a missing one stops configure naming the Debian package.
find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' "
                      "(or run: sh .ci/setup.sh)")
endif()

find_package(OpenMP COMPONENTS C)
if(NOT OpenMP_C_FOUND)
  message(FATAL_ERROR "OpenMP for C not found: install the Debian package 'libgomp1' "
                      "(part of gcc; or run: sh .ci/setup.sh)")
endif()

pkg_check_modules(HWLOC IMPORTED_TARGET hwloc>=2)
if(NOT HWLOC_FOUND)
  message(FATAL_ERROR "hwloc >= 2 not found: install the Debian package 'libhwloc-dev' "
                      "(or run: sh .ci/setup.sh)")
endif()

pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
if(NOT JEMALLOC_FOUND)
  message(FATAL_ERROR "jemalloc not found: install the Debian package 'libjemalloc-dev' "
                      "(or run: sh .ci/setup.sh)")
endif()

# The ThreadSanitizer build leaves jemalloc out: TSan's allocator is the process's malloc there
# anyway, and LLVM's OpenMP race detector (Archer) aborts in TSan's allocator when jemalloc is
# linked. VT_NO_JEMALLOC tells alloc/heap_stats.c that no jemalloc counter exists.
if(VT_TSAN)
  set(VT_JEMALLOC_TARGET "")
  add_compile_definitions(VT_NO_JEMALLOC)
else()
  set(VT_JEMALLOC_TARGET PkgConfig::JEMALLOC)
endif()

find_library(VT_LIBM m)

# zlib: the CoNLL reader reads .gz corpora; the model format checksums its sections with crc32.
find_package(ZLIB)
if(NOT ZLIB_FOUND)
  message(FATAL_ERROR "zlib not found: install the Debian package 'zlib1g-dev' "
                      "(or run: sh .ci/setup.sh)")
endif()

# OpenBLAS: the CRF trainer's forward-backward runs a batch of sentences at once as matrix
# products. liblbfgs: its L-BFGS / OWL-QN optimiser (the one CRFsuite uses).
pkg_check_modules(OPENBLAS IMPORTED_TARGET openblas)
if(NOT OPENBLAS_FOUND)
  message(FATAL_ERROR "OpenBLAS not found: install the Debian package 'libopenblas-dev' "
                      "(or run: sh .ci/setup.sh)")
endif()
pkg_check_modules(LBFGS IMPORTED_TARGET liblbfgs)
if(NOT LBFGS_FOUND)
  message(FATAL_ERROR "liblbfgs not found: install the Debian package 'liblbfgs-dev' "
                      "(or run: sh .ci/setup.sh)")
endif()
