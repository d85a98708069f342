# install() + find_package(ktune): the CLI, the families' deploy files (public API headers,
# kernel headers and deploy sources, declared by their family.cmake) with the CMake function that
# builds tuned libraries from them, and the tuned libraries the build exports (the global
# property KTUNE_EXPORTED_TUNED) as imported targets ktune::<EXPORT_NAME>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KTUNE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ktune)
set(KTUNE_INSTALL_SOURCEDIR ${CMAKE_INSTALL_DATADIR}/ktune/source)

install(TARGETS ktune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
get_property(KTUNE_DEPLOY_PUBLIC_HEADERS GLOBAL PROPERTY KTUNE_DEPLOY_PUBLIC_HEADERS)
install(FILES ${KTUNE_DEPLOY_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ktune)
get_property(KTUNE_DEPLOY_SOURCES GLOBAL PROPERTY KTUNE_DEPLOY_SOURCES)
foreach(file IN LISTS KTUNE_DEPLOY_SOURCES)
  file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR} ${file})
  get_filename_component(relative_dir ${relative} DIRECTORY)
  install(FILES ${file} DESTINATION ${KTUNE_INSTALL_SOURCEDIR}/${relative_dir})
endforeach()

get_property(KTUNE_EXPORTED_TUNED GLOBAL PROPERTY KTUNE_EXPORTED_TUNED)
set(KTUNE_PACKAGE_HAS_CUDA OFF)
foreach(tuned IN LISTS KTUNE_EXPORTED_TUNED)
  get_target_property(backends ${tuned} KTUNE_BACKENDS)
  if("cuda" IN_LIST backends)
    set(KTUNE_PACKAGE_HAS_CUDA ON)
  endif()
endforeach()
if(KTUNE_EXPORTED_TUNED)
  install(TARGETS ${KTUNE_EXPORTED_TUNED} EXPORT ktuneTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT ktuneTargets NAMESPACE ktune:: DESTINATION ${KTUNE_INSTALL_CMAKEDIR})
endif()

configure_package_config_file(cmake/ktuneConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/ktuneConfig.cmake INSTALL_DESTINATION ${KTUNE_INSTALL_CMAKEDIR}
  PATH_VARS KTUNE_INSTALL_SOURCEDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/ktuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/ktuneConfig.cmake
              ${CMAKE_BINARY_DIR}/generated/ktuneConfigVersion.cmake
              cmake/KtuneTunedLibrary.cmake
        DESTINATION ${KTUNE_INSTALL_CMAKEDIR})
