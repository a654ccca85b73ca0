# Installs the library, header, CLI (and vitesse-mpi when built), a pkg-config file and a CMake package config.
include(CMakePackageConfigHelpers)
install(TARGETS vitesse_static vitesse_shared EXPORT vitesseTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS vitesse RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET vitesse-mpi)
  install(TARGETS vitesse-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(FILES ${PROJECT_SOURCE_DIR}/engine/vitesse.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT vitesseTargets NAMESPACE vitesse:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vitesse)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vitesseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/vitesseConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vitesse)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vitesseConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vitesseConfig.cmake ${PROJECT_BINARY_DIR}/vitesseConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vitesse)
# Relocatable: the .pc file finds the prefix relative to itself.
file(RELATIVE_PATH VT_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/vitesse.pc.in ${PROJECT_BINARY_DIR}/vitesse.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vitesse.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
