# Warnings for every Ripple target, and the optional sanitizer build.
add_library(ripple_warnings INTERFACE)
target_compile_options(ripple_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter)
# No fused multiply-add contraction: the same source must round the same way in vectorised and
# scalar code paths, which keeps simulations bitwise identical for any number of ranks.
# No trapping math: Ripple never reads floating-point exception flags, and without the flag GCC
# will not vectorise loops that select between values (a clamp, a NaN test). Rounding is unchanged.
add_compile_options(-ffp-contract=off -fno-trapping-math)
if(RIPPLE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "Ripple: building with ASan + UBSan")
endif()
