# Ahead-of-time compile check of the CUDA kernel headers with nvcc (sm_90, H100/H200): the
# deployed library instantiates its configs from the same headers that NVRTC compiles at run
# time. Include from the top-level CMakeLists.txt after the KTUNE_HAVE_CUDA block:
#   include(cmake/cuda_aot.cmake)
# Builds the object library ktune_cuda_aot_check (part of ALL) when a CUDA compiler works.
if(NOT KTUNE_HAVE_CUDA)
  return()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "ktune: no working CUDA compiler: ahead-of-time kernel check skipped")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)

add_library(ktune_cuda_aot_check OBJECT ${CMAKE_SOURCE_DIR}/kernels/gemm/cuda/aot_check.cu
  ${CMAKE_SOURCE_DIR}/kernels/conv2d/cuda/aot_check.cu)
target_include_directories(ktune_cuda_aot_check PRIVATE ${CMAKE_SOURCE_DIR})
set_target_properties(ktune_cuda_aot_check PROPERTIES CUDA_ARCHITECTURES 90)
# The directory's -Wall -Wextra -Wpedantic (and sanitizer flags) are host-compiler options
# that nvcc rejects: replace them with their forwarded forms and nvcc's own warnings.
set_property(TARGET ktune_cuda_aot_check PROPERTY COMPILE_OPTIONS
  -Xcompiler=-Wall,-Wextra --Werror=all-warnings)
message(STATUS "ktune: ahead-of-time CUDA kernel check for sm_90 with ${CMAKE_CUDA_COMPILER}")
