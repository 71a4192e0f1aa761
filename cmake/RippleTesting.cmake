# ripple_add_mpi_test(NAME TARGET NP 1 2 4 [LABELS ...] [ARGS ...])
# registers NAME_np<k> for each k, launched through MPIEXEC_EXECUTABLE with --oversubscribe.
set(RIPPLE_MPIEXEC_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1)

function(ripple_add_mpi_test NAME TARGET)
  cmake_parse_arguments(ARG "" "" "NP;LABELS;ARGS" ${ARGN})
  if(NOT ARG_NP)
    set(ARG_NP 1)
  endif()
  foreach(np IN LISTS ARG_NP)
    add_test(NAME ${NAME}_np${np}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe ${MPIEXEC_PREFLAGS}
              $<TARGET_FILE:${TARGET}> ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
    set_tests_properties(${NAME}_np${np} PROPERTIES
      PROCESSORS ${np} LABELS "mpi;${ARG_LABELS}" ENVIRONMENT "${RIPPLE_MPIEXEC_ENV}" TIMEOUT 600)
  endforeach()
endfunction()

# ripple_add_script_test(NAME SCRIPT [LABELS ...] [PROCESSORS n]): a bash test driving the built tools.
function(ripple_add_script_test NAME SCRIPT)
  cmake_parse_arguments(ARG "" "PROCESSORS" "LABELS" ${ARGN})
  if(NOT ARG_PROCESSORS)
    set(ARG_PROCESSORS 1)
  endif()
  add_test(NAME ${NAME} COMMAND bash ${SCRIPT})
  set_tests_properties(${NAME} PROPERTIES PROCESSORS ${ARG_PROCESSORS} LABELS "${ARG_LABELS}" TIMEOUT 900
    ENVIRONMENT "${RIPPLE_MPIEXEC_ENV};RIPPLE_BIN=$<TARGET_FILE:ripple>;MPIEXEC=${MPIEXEC_EXECUTABLE};RIPPLE_SOURCE_DIR=${PROJECT_SOURCE_DIR};RIPPLE_WORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/${NAME}.work")
endfunction()
