# Warnings for every Ripple target, and the optional sanitizer build.
add_library(ripple_warnings INTERFACE)
target_compile_options(ripple_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter)
if(RIPPLE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "Ripple: building with ASan + UBSan")
endif()
