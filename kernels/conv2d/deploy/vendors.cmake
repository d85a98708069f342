# The vendor library a tuned conv2d library links: cuDNN when a selector ships it as a candidate
# ("vendor=cudnn": ktune deploy --vendors), for ktune::conv2d_ex (deploy/vendor_cudnn.hpp).
# Included by ktune_add_tuned_library with KTUNE_TUNED_TARGET, KTUNE_TUNED_BACKENDS and
# KTUNE_TUNED_SCAN (the selector headers, named ones included). Without cuDNN the candidate is
# compiled as always refused: the selector's fallback order serves its layers with ktune's kernels.
set(_ktune_scan "")
foreach(_ktune_file IN LISTS KTUNE_TUNED_SCAN)
  file(READ "${_ktune_file}" _ktune_text)
  string(APPEND _ktune_scan "${_ktune_text}")
endforeach()
if("cuda" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=cudnn\"")
  # cuDNN 9 beside the toolkit's libraries (the family's KTUNE_CUDNN_LIBRARY when ktune's own
  # build found it), its header in the include folder beside that lib folder.
  if(NOT KTUNE_CUDNN_LIBRARY)
    find_package(CUDAToolkit REQUIRED)
    find_library(KTUNE_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR}
      ${CUDAToolkit_LIBRARY_ROOT}/lib ${CUDAToolkit_LIBRARY_ROOT}/lib64)
  endif()
  if(KTUNE_CUDNN_LIBRARY)
    get_filename_component(_ktune_cudnn_dir "${KTUNE_CUDNN_LIBRARY}" DIRECTORY)
    find_path(KTUNE_TUNED_CUDNN_INCLUDE_DIR cudnn.h HINTS "${_ktune_cudnn_dir}/../include"
      ${CUDAToolkit_INCLUDE_DIRS})
  endif()
  if(KTUNE_CUDNN_LIBRARY AND KTUNE_TUNED_CUDNN_INCLUDE_DIR)
    target_include_directories(${KTUNE_TUNED_TARGET} SYSTEM PRIVATE ${KTUNE_TUNED_CUDNN_INCLUDE_DIR})
    target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_CUDNN_LIBRARY})
    target_compile_definitions(${KTUNE_TUNED_TARGET} PRIVATE KTUNE_TUNED_HAVE_CUDNN=1)
  else()
    message(STATUS "${KTUNE_TUNED_TARGET}: no cuDNN: its vendor=cudnn candidate always refuses")
  endif()
endif()
# oneDNN where a CPU selector ships one of its calls ("vendor=onednn", "vendor=onednn_winograd":
# deploy/vendor_onednn_cpu.hpp); a selector shipping one where oneDNN is missing fails to configure.
if("cpu" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=onednn")
  include("${CMAKE_CURRENT_LIST_DIR}/../../common/cpu/onednn_link.cmake")
endif()
