cmake_minimum_required(VERSION 3.25)  # IN_LIST, continue()
# Fails when the core names a kernel family or includes a family's headers:
#   cmake -DSOURCE_DIR=<repo> -P check_boundaries.cmake
# The family names are the folders of kernels/ (gemm, stencil, conv2d, ...). src/core, src/cuda
# and src/ml must not mention them (in any case, also inside identifiers and comments), and no
# file under src/ may include a kernels/ header.
file(GLOB family_dirs LIST_DIRECTORIES true RELATIVE "${SOURCE_DIR}/kernels" "${SOURCE_DIR}/kernels/*")
set(families)
foreach(dir IN LISTS family_dirs)
  if(IS_DIRECTORY "${SOURCE_DIR}/kernels/${dir}" AND NOT dir STREQUAL "common")  # shared blocks
    list(APPEND families "${dir}")
  endif()
endforeach()
if(NOT families)
  message(FATAL_ERROR "no family folders under ${SOURCE_DIR}/kernels")
endif()
list(JOIN families "|" names)


set(violations "")
file(GLOB_RECURSE core_files "${SOURCE_DIR}/src/core/*" "${SOURCE_DIR}/src/cuda/*"
     "${SOURCE_DIR}/src/ml/*")
foreach(path IN LISTS core_files)
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${path}")
  string(TOLOWER "${relative}" lower_name)
  if(lower_name MATCHES "(${names})")
    string(APPEND violations "  ${relative}: the file name names family '${CMAKE_MATCH_1}'\n")
  endif()
  file(STRINGS "${path}" lines)
  set(line_no 0)
  foreach(line IN LISTS lines)
    math(EXPR line_no "${line_no} + 1")
    string(TOLOWER "${line}" lower)
    if(lower MATCHES "(${names})")
      string(APPEND violations "  ${relative}:${line_no}: names family '${CMAKE_MATCH_1}'\n")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE src_files "${SOURCE_DIR}/src/*")
foreach(path IN LISTS src_files)
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${path}")
  file(STRINGS "${path}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]kernels/")
  foreach(line IN LISTS includes)
    string(STRIP "${line}" line)
    string(APPEND violations "  ${relative}: includes a family header: ${line}\n")
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "the core must not know the families (${families}); "
                      "ask the family through ktune::Family instead:\n${violations}")
endif()
message(STATUS "src/core, src/cuda, src/ml name none of: ${families}; src/ includes no kernels/ header")
