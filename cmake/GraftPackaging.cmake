# Installation: headers, libgraft.so.N and libgraft.a, graft.pc, and a CMake package
# (find_package(Graft) giving Graft::graft and Graft::graft_static).
include(CMakePackageConfigHelpers)

install(TARGETS graft graft_static
  EXPORT GraftTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The C API's debug info is in the build for the ABI check only (c_api/CMakeLists.txt): the
# installed libraries leave it behind (about 7 MB).
if(GRAFT_ABI_CHECK AND CMAKE_STRIP)
  foreach(_lib graft graft_static)
    install(CODE "execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${_lib}>\")")
  endforeach()
endif()

set(GRAFT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Graft)
install(EXPORT GraftTargets NAMESPACE Graft:: DESTINATION ${GRAFT_CMAKE_DIR})
configure_package_config_file(cmake/GraftConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/GraftConfig.cmake
  INSTALL_DESTINATION ${GRAFT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/GraftConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/GraftConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/GraftConfigVersion.cmake
  DESTINATION ${GRAFT_CMAKE_DIR})

# graft.pc: relocatable (prefix from the .pc file's own place), so an install under any
# prefix works without editing it.
file(RELATIVE_PATH GRAFT_PC_TO_PREFIX
  "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" GRAFT_PC_TO_PREFIX "${GRAFT_PC_TO_PREFIX}")
set(GRAFT_PC_LIBS_PRIVATE "-lstdc++ -lm -lpthread")
string(STRIP "libprotobuf-c re2 ${GRAFT_PC_REQUIRES_PRIVATE}" GRAFT_PC_REQUIRES_PRIVATE)
configure_file(pkgconfig/graft.pc.in ${CMAKE_CURRENT_BINARY_DIR}/graft.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/graft.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
