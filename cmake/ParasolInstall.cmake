# Installation: the ICD library, the extension header, the vendors .icd file,
# a CMake package (Parasol::headers), a pkg-config file, parasol-register, and
# an `uninstall` target. Applications link the ICD loader (OpenCL::OpenCL /
# -lOpenCL), never libParasol itself: Parasol is reached through the loader as
# one more platform.
include(CMakePackageConfigHelpers)

# Parasol::headers: include/CL/cl_parasol.h plus the loader.
add_library(parasol_headers INTERFACE)
add_library(Parasol::headers ALIAS parasol_headers)
set_target_properties(parasol_headers PROPERTIES EXPORT_NAME headers)
target_include_directories(parasol_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(parasol_headers INTERFACE OpenCL::OpenCL)

install(TARGETS Parasol LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/CL/cl_parasol.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/CL)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/parasol-register
        DESTINATION ${CMAKE_INSTALL_BINDIR})

set(PARASOL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Parasol)
install(TARGETS parasol_headers EXPORT ParasolTargets)
install(EXPORT ParasolTargets NAMESPACE Parasol:: DESTINATION ${PARASOL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ParasolConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/ParasolConfig.cmake
  INSTALL_DESTINATION ${PARASOL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/ParasolConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/ParasolConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/ParasolConfigVersion.cmake
        DESTINATION ${PARASOL_CMAKE_DIR})

# parasol.icd and parasol.pc hold absolute paths of the installed tree, and
# `cmake --install --prefix P` decides the prefix only at install time: they
# are written then (cmake/ParasolInstallGenerated.cmake), and installed with
# file(INSTALL) so that DESTDIR applies and install_manifest.txt lists them.
install(CODE "
  set(PARASOL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(PARASOL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PARASOL_SYSCONFDIR \"${CMAKE_INSTALL_SYSCONFDIR}\")
  set(PARASOL_SONAME \"$<TARGET_SONAME_FILE_NAME:Parasol>\")
  set(PARASOL_VERSION \"${PROJECT_VERSION}\")
  set(PARASOL_STAGE \"${CMAKE_BINARY_DIR}/install-stage\")
  set(PARASOL_PC_IN \"${CMAKE_CURRENT_LIST_DIR}/parasol.pc.in\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/ParasolInstallGenerated.cmake\")
")

# uninstall: removes every file the last install listed in install_manifest.txt.
add_custom_target(uninstall
  COMMAND ${CMAKE_COMMAND} -DPARASOL_MANIFEST=${CMAKE_BINARY_DIR}/install_manifest.txt
          -P ${CMAKE_CURRENT_LIST_DIR}/ParasolUninstall.cmake
  COMMENT "Removing the files listed in install_manifest.txt"
  VERBATIM)
