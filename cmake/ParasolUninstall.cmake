# cmake -DPARASOL_MANIFEST=build/install_manifest.txt -P ParasolUninstall.cmake
# Removes every file (and symlink) the last `cmake --install` listed. The
# manifest lists the final paths, without DESTDIR: set the same DESTDIR as for
# the install (`DESTDIR=/stage cmake --build build --target uninstall`).
if(NOT EXISTS "${PARASOL_MANIFEST}")
  message(FATAL_ERROR "No ${PARASOL_MANIFEST}: nothing was installed from this build tree")
endif()
file(STRINGS "${PARASOL_MANIFEST}" installed)
set(failed "")
foreach(listed IN LISTS installed)
  set(file "$ENV{DESTDIR}${listed}")
  if(EXISTS "${file}" OR IS_SYMLINK "${file}")
    message(STATUS "Removing ${file}")
    file(REMOVE "${file}")
    if(EXISTS "${file}" OR IS_SYMLINK "${file}")
      list(APPEND failed "${file}")
    endif()
  else()
    message(STATUS "Already gone: ${file}")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "Could not remove: ${failed}")
endif()
