# Version and git revision, recorded in every file Ripple writes.
execute_process(COMMAND git describe --always --dirty --abbrev=12
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
  OUTPUT_VARIABLE RIPPLE_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT RIPPLE_GIT_REVISION)
  set(RIPPLE_GIT_REVISION "unknown")
endif()
