# cmake/VtIsa.cmake: the one way per-instruction-set code is built.
#
# A kernel family FAMILY in directory DIR is four files with one contract header:
#   DIR/FAMILY.c          the dispatcher: returns the table of a level (built like any source)
#   DIR/FAMILY_scalar.c   the portable table, baseline ISA: the reference every level equals bit
#                         for bit (tests/test_isa_*.c)
#   DIR/FAMILY_avx2.c     built with VT_ISA_FLAGS_avx2, on x86-64 only
#   DIR/FAMILY_avx512.c   built with VT_ISA_FLAGS_avx512, on x86-64 only
# Only the per-level files get the wider flags, so nothing else can pick up an instruction the
# CPU may lack; callers fetch a level's table once (per sentence or row call), and the choice of
# level stays vt_simd_active() (VITESSE_SIMD forces one).

set(VT_X86 OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set(VT_X86 ON)
endif()

# No FMA for AVX2: every level must round exactly as the scalar code (ISO C mode also turns
# contraction off). AVX-512 is F + VL (the 256-bit compress of the degenerate lattice's scan) +
# BW (byte masks: the attribute index compares a name in one masked step).
set(VT_ISA_FLAGS_avx2 -mavx2)
set(VT_ISA_FLAGS_avx512 -mavx512f -mavx512vl -mavx512bw)

# What the sources and their users see: VT_HAVE_AVX2 / VT_HAVE_AVX512 when the per-level tables
# are built (the CPU check stays at run time, vt_simd_supported).
set(VT_ISA_DEFINITIONS)
if(VT_X86)
  set(VT_ISA_DEFINITIONS VT_HAVE_AVX2 VT_HAVE_AVX512)
endif()

# The per-level file names, for excluding them from a glob of plain sources.
set(VT_ISA_SOURCE_REGEX "_(scalar|avx2|avx512)\\.c$")

# vt_isa_family(TARGET DIR FAMILY): adds DIR/FAMILY_scalar.c to TARGET, and on x86-64
# DIR/FAMILY_avx2.c and DIR/FAMILY_avx512.c with their flags. DIR is relative to the calling
# CMakeLists.txt (source file properties are per directory).
function(vt_isa_family target dir family)
  set(base ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/${family})
  if(NOT EXISTS ${base}.c OR NOT EXISTS ${base}_scalar.c)
    message(FATAL_ERROR "vt_isa_family: ${dir}/${family}.c and ${family}_scalar.c must exist")
  endif()
  target_sources(${target} PRIVATE ${base}_scalar.c)
  if(VT_X86)
    foreach(level avx2 avx512)
      target_sources(${target} PRIVATE ${base}_${level}.c)
      set_source_files_properties(${base}_${level}.c PROPERTIES COMPILE_OPTIONS
        "${VT_ISA_FLAGS_${level}}")
    endforeach()
  endif()
endfunction()
