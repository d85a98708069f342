# The vendor libraries a tuned GEMM library links: those its selectors ship as candidates
# ("vendor=openblas", "vendor=onednn", "vendor=cublas", "vendor=cublaslt" and its
# "vendor=cublaslt;heuristic=<i>": ktune/dataset.hpp, gemm_vendor_config.hpp).
# Included by ktune_add_tuned_library with KTUNE_TUNED_TARGET, KTUNE_TUNED_BACKENDS and
# KTUNE_TUNED_SCAN (the selector headers, named ones included, or the model the selector is
# generated from: all spell the config strings).
set(_ktune_scan "")
foreach(_ktune_file IN LISTS KTUNE_TUNED_SCAN)
  file(READ "${_ktune_file}" _ktune_text)
  string(APPEND _ktune_scan "${_ktune_text}")
endforeach()
if("cpu" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=openblas\"")
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(KTUNE_TUNED_OPENBLAS REQUIRED openblas)
  target_include_directories(${KTUNE_TUNED_TARGET} SYSTEM PRIVATE ${KTUNE_TUNED_OPENBLAS_INCLUDE_DIRS})
  target_link_directories(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_TUNED_OPENBLAS_LIBRARY_DIRS})
  target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_TUNED_OPENBLAS_LIBRARIES})
  target_compile_definitions(${KTUNE_TUNED_TARGET} PRIVATE KTUNE_HAVE_OPENBLAS=1)
endif()
if("cpu" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=onednn\"")
  include("${CMAKE_CURRENT_LIST_DIR}/../../common/cpu/onednn_link.cmake")
endif()
if("cuda" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=cublas\"")
  target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC CUDA::cublas)
endif()
if("cuda" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=cublaslt[\";]")
  target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC CUDA::cublasLt)
endif()
