# GEMM (included by ktune_add_family): the OpenBLAS / oneDNN / cuBLAS baselines, the
# ahead-of-time nvcc check of the CUDA kernels, and what ktune_add_tuned_library(FAMILY gemm)
# compiles.
if(OPENBLAS_FOUND)
  target_link_libraries(${KTUNE_FAMILY_TARGET} PRIVATE PkgConfig::OPENBLAS)
  target_compile_definitions(${KTUNE_FAMILY_TARGET} PRIVATE KTUNE_HAVE_OPENBLAS=1)
endif()
if(dnnl_FOUND)  # found in the top-level CMakeLists.txt, as for the conv2d family
  target_include_directories(${KTUNE_FAMILY_TARGET} SYSTEM PRIVATE ${DNNL_INCLUDE_DIR})
  target_link_libraries(${KTUNE_FAMILY_TARGET} PRIVATE ${DNNL_LIBRARY})
  target_compile_definitions(${KTUNE_FAMILY_TARGET} PRIVATE KTUNE_HAVE_ONEDNN=1)
endif()
# The shared building blocks (kernels/common): packed CPU and tiled CUDA GEMM, reference.
target_link_libraries(${KTUNE_FAMILY_TARGET} PUBLIC ktune_kernels_common)
if(KTUNE_FAMILY_CUDA_TARGET)
  target_link_libraries(${KTUNE_FAMILY_CUDA_TARGET} PUBLIC ktune_kernels_common_cuda)
  # cuBLAS(Lt) through ktune_cuda, which loads it on first use (src/cuda/cublas_lazy.cpp).
  ktune_add_cuda_aot_check(gemm ${KTUNE_FAMILY_DIR}/cuda/aot_check.cu)
  ktune_add_cuda_aot_check(gemm ${KTUNE_FAMILY_DIR}/cuda/aot_check_wgmma.cu _wgmma 90a)
endif()
ktune_family_deploy_files(
  SOURCES cpu/gemm_cpu_packedz.hpp cpu/gemm_cpu_packedz_pack.hpp cuda/gemm_seed.cuh cuda/gemm_seed_launch.hpp cuda/gemm_warp.cuh
          cuda/gemm_warp_launch.hpp cuda/gemm_mma.cuh cuda/gemm_mma_launch.hpp
          cuda/gemm_wgmma.cuh cuda/gemm_wgmma_launch.hpp cuda/gemm_out16.cuh
          deploy/gemm_validate.hpp gemm_vendor_config.hpp cpu/gemm_cpu_vendor_calls.hpp
          deploy/vendor_cpu.hpp deploy/vendor_cuda.hpp cuda/cublas_precision.hpp
          deploy/remember_gemm.hpp deploy/vendors.cmake
          deploy/tuned_cpu.inl deploy/tuned_cuda.inl deploy/tuned_cuda_tc.inl
  PUBLIC_HEADERS include/ktune/gemm.hpp)
# The seed kernel's two instantiation tables, each a unit of its own that compiles beside the
# other (cpu/gemm_cpu_seed_table.hpp).
set_source_files_properties(${KTUNE_FAMILY_DIR}/cpu/gemm_cpu_seed_table_n.cpp
  ${KTUNE_FAMILY_DIR}/cpu/gemm_cpu_seed_table_t.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
