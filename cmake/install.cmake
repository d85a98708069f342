# install() + find_package(ktune): the CLI, the public GEMM API header, the kernel headers and
# the CMake function that builds tuned libraries from them, and the example tuned libraries as
# imported targets ktune::tuned_gemm_cpu (and ktune::tuned_gemm_cuda when built).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KTUNE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ktune)
set(KTUNE_INSTALL_SOURCEDIR ${CMAKE_INSTALL_DATADIR}/ktune/source)

install(TARGETS ktune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/ktune/gemm.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ktune)
# What ktune_add_tuned_library compiles: the kernel headers and the deploy sources.
install(FILES kernels/gemm/gemm_config.hpp DESTINATION ${KTUNE_INSTALL_SOURCEDIR}/kernels/gemm)
install(FILES kernels/gemm/cpu/gemm_cpu_kernel.hpp kernels/gemm/cpu/gemm_cpu_packed.hpp
              kernels/gemm/cpu/gemm_cpu_packed_split.hpp
        DESTINATION ${KTUNE_INSTALL_SOURCEDIR}/kernels/gemm/cpu)
install(FILES kernels/gemm/cuda/gemm_seed.cuh kernels/gemm/cuda/gemm_seed_launch.hpp
              kernels/gemm/cuda/gemm_tiled.cuh kernels/gemm/cuda/gemm_tiled_launch.hpp
        DESTINATION ${KTUNE_INSTALL_SOURCEDIR}/kernels/gemm/cuda)
install(FILES kernels/gemm/deploy/gemm_validate.hpp kernels/gemm/deploy/tuned_cpu.inl
              kernels/gemm/deploy/tuned_cuda.inl
        DESTINATION ${KTUNE_INSTALL_SOURCEDIR}/kernels/gemm/deploy)

set(KTUNE_EXPORTED_TUNED)
if(TARGET ktune_tuned_gemm_cpu)
  list(APPEND KTUNE_EXPORTED_TUNED ktune_tuned_gemm_cpu)
endif()
set(KTUNE_PACKAGE_HAS_CUDA OFF)
if(TARGET ktune_tuned_gemm_cuda)
  list(APPEND KTUNE_EXPORTED_TUNED ktune_tuned_gemm_cuda)
  set(KTUNE_PACKAGE_HAS_CUDA ON)
endif()
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
