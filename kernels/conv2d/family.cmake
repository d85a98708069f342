# conv2d (included by ktune_add_family): the oneDNN CPU baseline (found in the top-level
# CMakeLists.txt), the cuDNN 9 CUDA baseline, the shared GEMM building blocks it runs, and the
# ahead-of-time nvcc check of its CUDA kernels.
# im2col, 1x1 and Winograd run on the packed CPU and tiled CUDA GEMM of kernels/common.
target_link_libraries(${KTUNE_FAMILY_TARGET} PUBLIC ktune_kernels_common)
if(dnnl_FOUND)
  target_include_directories(${KTUNE_FAMILY_TARGET} SYSTEM PRIVATE ${DNNL_INCLUDE_DIR})
  target_link_libraries(${KTUNE_FAMILY_TARGET} PRIVATE ${DNNL_LIBRARY})
  target_compile_definitions(${KTUNE_FAMILY_TARGET} PRIVATE KTUNE_HAVE_ONEDNN=1)
endif()
if(KTUNE_FAMILY_CUDA_TARGET)
  target_link_libraries(${KTUNE_FAMILY_CUDA_TARGET} PUBLIC ktune_kernels_common_cuda)
  # cuDNN 9, shipped beside the toolkit's libraries.
  find_library(KTUNE_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR}
    ${CUDAToolkit_LIBRARY_ROOT}/lib ${CUDAToolkit_LIBRARY_ROOT}/lib64)
  if(KTUNE_CUDNN_LIBRARY)
    target_link_libraries(${KTUNE_FAMILY_CUDA_TARGET} PUBLIC ${KTUNE_CUDNN_LIBRARY})
    target_compile_definitions(${KTUNE_FAMILY_CUDA_TARGET} PRIVATE KTUNE_HAVE_CUDNN=1)
  else()
    get_target_property(sources ${KTUNE_FAMILY_CUDA_TARGET} SOURCES)
    list(FILTER sources EXCLUDE REGEX "conv2d_cudnn(_engines)?\\.cpp$")
    set_property(TARGET ${KTUNE_FAMILY_CUDA_TARGET} PROPERTY SOURCES ${sources})
  endif()
  message(STATUS "ktune: cuDNN ${KTUNE_CUDNN_LIBRARY}")
  ktune_add_cuda_aot_check(conv2d ${KTUNE_FAMILY_DIR}/cuda/aot_check.cu)
  ktune_add_cuda_aot_check(conv2d ${KTUNE_FAMILY_DIR}/cuda/aot_check_wgmma.cu _wgmma 90a)
  # ktune::conv2d_wgmma_bf16 (include/ktune/conv2d_wgmma.hpp): the wgmma kind's fixed configs
  # with the bf16 epilogue, for engines that pick per layer (nn/cuda); sm_90a code.
  add_library(ktune_conv2d_wgmma_call STATIC ${KTUNE_FAMILY_DIR}/cuda/conv2d_wgmma_call.cu)
  target_include_directories(ktune_conv2d_wgmma_call PRIVATE ${PROJECT_SOURCE_DIR}
    PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(ktune_conv2d_wgmma_call PUBLIC ktune_cuda)
  set_target_properties(ktune_conv2d_wgmma_call PROPERTIES CUDA_ARCHITECTURES 90a-real)
  set_property(TARGET ktune_conv2d_wgmma_call PROPERTY COMPILE_OPTIONS
    -Xcompiler=-Wall,-Wextra --Werror=all-warnings)
endif()
# What ktune_add_tuned_library(FAMILY conv2d) compiles: the CPU kernels as templates
# instantiated for the shipped configs only, the CUDA kernels (with the shared tiled GEMM files,
# declared by kernels/common/CMakeLists.txt) and the public ktune::conv2d API.
ktune_family_deploy_files(
  SOURCES conv2d_features.hpp conv2d_shape.hpp cpu/conv2d_cpu_args.hpp cpu/conv2d_cpu_config.hpp
          cpu/conv2d_cpu_vec.hpp cpu/conv2d_cpu_direct.hpp cpu/conv2d_cpu_gemm.hpp
          cpu/conv2d_cpu_winograd.hpp cpu/conv2d_cpu_plan.hpp cuda/conv2d_cuda_config.hpp cuda/conv2d_cuda_launch.hpp cuda/conv2d_direct.cuh
          cuda/conv2d_im2col.cuh cuda/conv2d_winograd.cuh deploy/conv2d_validate.hpp
          cuda/conv2d_igemm_mma.cuh cuda/conv2d_wgmma.cuh cuda/conv2d_wgmma_launch.hpp
          cuda/conv2d_cudnn_engine_search.hpp cuda/conv2d_cudnn_precision.hpp
          cpu/conv2d_onednn_call.hpp deploy/vendor_onednn_cpu.hpp
          deploy/tuned_cpu.inl deploy/tuned_cuda.inl deploy/tuned_cuda_tc.inl deploy/vendor_cudnn.hpp
          deploy/remember_conv2d.hpp
          deploy/vendors.cmake
  PUBLIC_HEADERS include/ktune/conv2d.hpp)
