# Ahead-of-time compile check of a family's CUDA kernel headers with nvcc (sm_90, H100/H200):
# a deployed library instantiates its configs from the same headers that NVRTC compiles at run
# time. Included from the top-level CMakeLists.txt when CUDA is built; a family's family.cmake
# calls ktune_add_cuda_aot_check(<family> <file.cu>), which builds the object library
# ktune_<family>_aot_check (part of ALL) when a CUDA compiler works. Optional third and fourth
# arguments: a target-name suffix and the architecture (default 90; 90a for the sm_90a-only
# instructions: wgmma, setmaxnreg).
function(ktune_add_cuda_aot_check family source)
  if(NOT CMAKE_CUDA_COMPILER)
    return()
  endif()
  set(target ktune_${family}_aot_check${ARGV2})
  set(arch 90)
  if(ARGC GREATER 3)
    set(arch ${ARGV3})
  endif()
  add_library(${target} OBJECT ${source})
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR})
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES ${arch})
  # The directory's -Wall -Wextra -Wpedantic (and sanitizer flags) are host-compiler options
  # that nvcc rejects: replace them with their forwarded forms and nvcc's own warnings.
  set_property(TARGET ${target} PROPERTY COMPILE_OPTIONS
    -Xcompiler=-Wall,-Wextra --Werror=all-warnings)
endfunction()

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
message(STATUS "ktune: ahead-of-time CUDA kernel checks for sm_90 with ${CMAKE_CUDA_COMPILER}")
