# Runs at install time (from cmake_install.cmake), once CMAKE_INSTALL_PREFIX is
# final: writes parasol.icd and parasol.pc with the installed absolute paths.
function(parasol_installed_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

parasol_installed_dir(libdir "${PARASOL_LIBDIR}")
parasol_installed_dir(includedir "${PARASOL_INCLUDEDIR}")
# The ICD loader reads /etc/OpenCL/vendors, not /usr/etc: as GNUInstallDirs
# does for its FULL_ variables, prefix /usr puts etc/ at the root.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND PARASOL_SYSCONFDIR STREQUAL "etc")
  set(sysconfdir "/etc")
else()
  parasol_installed_dir(sysconfdir "${PARASOL_SYSCONFDIR}")
endif()

file(WRITE "${PARASOL_STAGE}/parasol.icd" "${libdir}/${PARASOL_SONAME}\n")
file(INSTALL DESTINATION "${sysconfdir}/OpenCL/vendors" TYPE FILE
     FILES "${PARASOL_STAGE}/parasol.icd")

set(prefix "${CMAKE_INSTALL_PREFIX}")
set(version "${PARASOL_VERSION}")
configure_file("${PARASOL_PC_IN}" "${PARASOL_STAGE}/parasol.pc" @ONLY)
file(INSTALL DESTINATION "${libdir}/pkgconfig" TYPE FILE FILES "${PARASOL_STAGE}/parasol.pc")
