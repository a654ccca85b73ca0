# Finds OpenMP, hwloc (>= 2), jemalloc, zlib, OpenBLAS and liblbfgs; a missing one stops configure
# naming its Debian package.
find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' "
                      "(or run: sh .ci/setup.sh)")
endif()

# vt_require_pkg(PREFIX MODULE WHAT DEBIAN): pkg-config's MODULE as the target PkgConfig::PREFIX;
# a missing one stops configure, naming WHAT and its Debian package.
function(vt_require_pkg prefix module what debian)
  pkg_check_modules(${prefix} IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "${what} not found: install the Debian package '${debian}' "
                        "(or run: sh .ci/setup.sh)")
  endif()
endfunction()

find_package(OpenMP COMPONENTS C)
if(NOT OpenMP_C_FOUND)
  message(FATAL_ERROR "OpenMP for C not found: install the Debian package 'libgomp1' "
                      "(part of gcc; or run: sh .ci/setup.sh)")
endif()

vt_require_pkg(HWLOC "hwloc>=2" "hwloc >= 2" libhwloc-dev)

vt_require_pkg(JEMALLOC "jemalloc" "jemalloc" libjemalloc-dev)

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
vt_require_pkg(OPENBLAS "openblas" "OpenBLAS" libopenblas-dev)
# Where the library this build compiles against lies: the trainer loads that one first.
pkg_get_variable(VT_OPENBLAS_LIBDIR openblas libdir)
find_package(Threads REQUIRED)
vt_require_pkg(LBFGS "liblbfgs" "liblbfgs" liblbfgs-dev)
