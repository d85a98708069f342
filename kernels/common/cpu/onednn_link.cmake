# Links oneDNN into ${KTUNE_TUNED_TARGET} and defines KTUNE_HAVE_ONEDNN there: included by a
# family's deploy/vendors.cmake when the tuned library's selector ships a oneDNN call
# ("vendor=onednn"...). Configuring fails naming dnnl where oneDNN is missing (Debian libdnnl-dev).
find_library(KTUNE_TUNED_DNNL_LIBRARY NAMES dnnl REQUIRED)
find_path(KTUNE_TUNED_DNNL_INCLUDE_DIR NAMES dnnl.hpp REQUIRED)
target_include_directories(${KTUNE_TUNED_TARGET} SYSTEM PRIVATE ${KTUNE_TUNED_DNNL_INCLUDE_DIR})
target_link_libraries(${KTUNE_TUNED_TARGET} PUBLIC ${KTUNE_TUNED_DNNL_LIBRARY})
target_compile_definitions(${KTUNE_TUNED_TARGET} PRIVATE KTUNE_HAVE_ONEDNN=1)
