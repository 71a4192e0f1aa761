# What `cmake --install` and `cpack -G DEB` add beyond the targets' own install rules (README,
# "Installing"): the CMake package, a pkg-config file per library, the Python package, share/ripple/,
# the environment module, and the Debian package's settings.
include(CMakePackageConfigHelpers)

# find_package(Ripple): Ripple::trace and Ripple::trace_format, their MPI and HDF5 found by the config.
install(EXPORT RippleTargets NAMESPACE Ripple:: DESTINATION ${RIPPLE_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/install/RippleConfig.cmake.in ${PROJECT_BINARY_DIR}/RippleConfig.cmake
  INSTALL_DESTINATION ${RIPPLE_INSTALL_CMAKEDIR} PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RippleConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RippleConfig.cmake ${PROJECT_BINARY_DIR}/RippleConfigVersion.cmake
  DESTINATION ${RIPPLE_INSTALL_CMAKEDIR})

# pkg-config: relocatable (prefix from ${pcfiledir}); MPI and HDF5 by the names this system's
# pkg-config knows them (Debian: ompi-c, hdf5-openmpi).
find_package(PkgConfig REQUIRED)
pkg_check_modules(RIPPLE_PC_MPI QUIET ompi-c)
set(RIPPLE_PC_MPI_NAME ompi-c)
if(NOT RIPPLE_PC_MPI_FOUND)
  pkg_check_modules(RIPPLE_PC_MPI QUIET mpich)
  set(RIPPLE_PC_MPI_NAME mpich)
endif()
pkg_check_modules(RIPPLE_PC_HDF5 QUIET hdf5-openmpi)
set(RIPPLE_PC_HDF5_NAME hdf5-openmpi)
if(NOT RIPPLE_PC_HDF5_FOUND)
  set(RIPPLE_PC_HDF5_NAME hdf5)
endif()
if(NOT RIPPLE_PC_MPI_FOUND)
  message(STATUS "Ripple: no pkg-config file for MPI (ompi-c, mpich): the .pc files name none")
  set(RIPPLE_PC_MPI_NAME "")
endif()
set(pc_to_prefix "/")
cmake_path(RELATIVE_PATH pc_to_prefix BASE_DIRECTORY "/${CMAKE_INSTALL_LIBDIR}/pkgconfig")
string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
foreach(pc ripple-trace ripple-trace-format)
  configure_file(cmake/install/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The analysis' Python package (reader and figures): under /usr, where Debian's python3 looks.
install(DIRECTORY analysis/plots/ripple_plots jobs/ripple_jobs DESTINATION ${RIPPLE_INSTALL_PYTHONDIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

# share/ripple/: examples, docs, and the Slurm templates and campaigns where the tree has them.
install(DIRECTORY model/examples/ DESTINATION ${RIPPLE_INSTALL_DATADIR}/examples/model)
install(DIRECTORY analysis/examples/ DESTINATION ${RIPPLE_INSTALL_DATADIR}/examples/analysis)
install(DIRECTORY tests/install/consumer/ DESTINATION ${RIPPLE_INSTALL_DATADIR}/examples/link-tracer)
install(DIRECTORY docs/ DESTINATION ${RIPPLE_INSTALL_DATADIR}/docs)
install(FILES README.md DESTINATION ${RIPPLE_INSTALL_DATADIR}/docs)
install(DIRECTORY jobs/ DESTINATION ${RIPPLE_INSTALL_DATADIR}/jobs
  PATTERN ripple_jobs EXCLUDE PATTERN src EXCLUDE PATTERN include EXCLUDE PATTERN CMakeLists.txt EXCLUDE)

# The environment module, one Tcl file that Lmod and Environment Modules both read, written when
# installing so that it names the prefix actually installed into (cmake --install --prefix, or
# /usr in the .deb; DESTDIR is where it is staged, not where it will live).
install(CODE "
  get_filename_component(RIPPLE_ROOT \"\${CMAKE_INSTALL_PREFIX}\" ABSOLUTE)
  set(RIPPLE_VERSION \"${PROJECT_VERSION}\")
  set(RIPPLE_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
  set(RIPPLE_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(RIPPLE_PYTHONDIR \"${RIPPLE_INSTALL_PYTHONDIR}\")
  set(module \"\$ENV{DESTDIR}\${RIPPLE_ROOT}/${RIPPLE_INSTALL_MODULEDIR}/ripple/${PROJECT_VERSION}\")
  message(STATUS \"Writing: \${module}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/install/ripple.modulefile.in\" \"\${module}\" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${module}\")
")

# cpack -G DEB: the same tree under /usr; dependencies from dpkg-shlibdeps (the libraries the
# binaries link) plus what runs beside them (mpirun, python3 with the figures' packages).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ripple)
set(CPACK_PACKAGE_VENDOR "Ripple")
set(CPACK_PACKAGE_CONTACT "Ripple developers <ripple@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Idle waves in MPI programs: oscillator model, PMPI tracer, analyses")
set(CPACK_SET_DESTDIR ON)  # the module file must name /usr, not the staging directory
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)  # the prefix with CPACK_SET_DESTDIR
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin, python3, python3-numpy, python3-h5py, python3-matplotlib")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenmpi-dev, libhdf5-openmpi-dev, lmod | environment-modules")
include(CPack)
