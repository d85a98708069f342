# The vendor libraries a tuned GEMM library links: those its selector ships as candidates
# ("vendor=openblas", "vendor=onednn", "vendor=cublas": ktune/dataset.hpp). Included by
# ktune_add_tuned_library with KTUNE_TUNED_TARGET, KTUNE_TUNED_BACKENDS and KTUNE_TUNED_SCAN (the
# selector header, or the model it is generated from: both spell the config strings).
file(READ "${KTUNE_TUNED_SCAN}" _ktune_scan)
if("cpu" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=openblas\"")
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(KTUNE_TUNED_OPENBLAS REQUIRED openblas)
  target_include_directories(${KTUNE_TUNED_TARGET} SYSTEM PRIVATE ${KTUNE_TUNED_OPENBLAS_INCLUDE_DIRS})
  target_link_directories(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_TUNED_OPENBLAS_LIBRARY_DIRS})
  target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_TUNED_OPENBLAS_LIBRARIES})
  target_compile_definitions(${KTUNE_TUNED_TARGET} PRIVATE KTUNE_HAVE_OPENBLAS=1)
endif()
if("cpu" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=onednn\"")
  find_library(KTUNE_TUNED_DNNL_LIBRARY NAMES dnnl REQUIRED)
  find_path(KTUNE_TUNED_DNNL_INCLUDE_DIR NAMES dnnl.hpp REQUIRED)
  target_include_directories(${KTUNE_TUNED_TARGET} SYSTEM PRIVATE ${KTUNE_TUNED_DNNL_INCLUDE_DIR})
  target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_TUNED_DNNL_LIBRARY})
  target_compile_definitions(${KTUNE_TUNED_TARGET} PRIVATE KTUNE_HAVE_ONEDNN=1)
endif()
if("cuda" IN_LIST KTUNE_TUNED_BACKENDS AND _ktune_scan MATCHES "\"vendor=cublas\"")
  target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC CUDA::cublas)
endif()
