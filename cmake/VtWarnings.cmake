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
if(VT_SANITIZE)
  target_compile_options(vt_flags INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all
                                            -fno-omit-frame-pointer)
  target_link_options(vt_flags INTERFACE -fsanitize=address,undefined)
endif()
if(VT_TSAN)
  target_compile_options(vt_flags INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(vt_flags INTERFACE -fsanitize=thread)
endif()
