# Warning and sanitizer flags shared by every target (an INTERFACE target: link vt_flags).
add_library(vt_flags INTERFACE)
target_compile_options(vt_flags INTERFACE -Wall -Wextra -Wshadow -Wstrict-prototypes
                                          -Wmissing-prototypes -Wno-unused-parameter)
if(VT_WERROR)
  target_compile_options(vt_flags INTERFACE -Werror)
endif()
if(VT_SANITIZE AND VT_TSAN)
  message(FATAL_ERROR "VT_SANITIZE and VT_TSAN cannot be combined")
endif()
if(VT_FUZZ AND (VT_SANITIZE OR VT_TSAN))
  message(FATAL_ERROR "VT_FUZZ brings its own sanitizers: drop VT_SANITIZE and VT_TSAN")
endif()
# VT_FUZZ: libFuzzer coverage plus address+undefined in every object; the fuzz targets
# (tests/fuzz/) add -fsanitize=fuzzer at link time. VT_FUZZ_NO_CHECKSUM makes io/binfile.c skip
# its CRC comparisons, so mutated model files reach the section parsers; VT_FUZZ_SMALL_BUFFERS
# makes io/conll.c read in 512-byte chunks and the tagger's row cache hold 64 rows, so small
# inputs reach refill, growth and eviction, and a run does not clear megabytes per input.
if(VT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "VT_FUZZ needs clang (libFuzzer): configure with CC=clang")
  endif()
  target_compile_options(vt_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                            -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_definitions(vt_flags INTERFACE VT_FUZZ_NO_CHECKSUM VT_FUZZ_SMALL_BUFFERS)
  target_link_options(vt_flags INTERFACE -fsanitize=address,undefined)
endif()
if(VT_SANITIZE)
  target_compile_options(vt_flags INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all
                                            -fno-omit-frame-pointer)
  target_link_options(vt_flags INTERFACE -fsanitize=address,undefined)
endif()
if(VT_TSAN)
  target_compile_options(vt_flags INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(vt_flags INTERFACE -fsanitize=thread)
endif()
