cmake_minimum_required(VERSION 3.25)
# The boundary check fails on each kind of violation: copies the checked folders of SOURCE_DIR to
# WORK_DIR, expects the check to pass there, then plants one violation at a time and expects the
# check to fail naming it.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<tmp> -DFAMILIES=<as check_boundaries.cmake>
#         -DCHECK=<check_boundaries.cmake> -P plant_violations.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
foreach(dir src include apps nn kernels examples/families)
  get_filename_component(parent "${WORK_DIR}/${dir}" DIRECTORY)
  file(COPY "${SOURCE_DIR}/${dir}" DESTINATION "${parent}" PATTERN node_modules EXCLUDE)
endforeach()

function(run_check out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR} "-DFAMILIES=${FAMILIES}"
                  -P ${CHECK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} "${rc}" PARENT_SCOPE)
  set(${out_text} "${out}${err}" PARENT_SCOPE)
endfunction()

run_check(rc text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the unplanted copy fails the check:\n${text}")
endif()

# kind | planted file | its text | what the failure must say
set(cases
  "core names a family|src/core/planted.cpp|// calls the gemm kernel|names family 'gemm'"
  "core names a family of another folder|src/ml/planted.cpp|int conv1d_rows = 0  // no semicolon: the cases are a CMake list|names family 'conv1d'"
  "report includes a family|src/report/planted.cpp|#include \"kernels/stencil/stencil_family.hpp\"|includes family 'stencil'"
  "public API includes a family|include/ktune/planted.hpp|#include \"examples/families/conv1d/conv1d_family.hpp\"|includes family 'conv1d'"
  "public API includes src/|include/ktune/planted.hpp|#include \"src/cuda/cuda_error.hpp\"|includes a private src/ header"
  "family includes a family|kernels/conv2d/cpu/planted.hpp|#include \"kernels/gemm/gemm_family.hpp\"|includes family 'gemm'"
  "family of another folder includes a family|examples/families/conv1d/cpu/planted.cpp|#include \"kernels/conv2d/conv2d_family.hpp\"|includes family 'conv2d'"
  "family includes a family of another folder|kernels/gemm/planted.cpp|#include \"examples/families/conv1d/conv1d_family.hpp\"|includes family 'conv1d'"
  "building blocks include a family|kernels/common/planted.hpp|#include \"kernels/gemm/gemm_family.hpp\"|includes family 'gemm'"
  "CLI includes a family|apps/ktune/planted.cpp|#include \"kernels/gemm/gemm_family.hpp\"|includes family 'gemm'"
  "engine includes a family|nn/cpu/planted.cpp|#include \"kernels/conv2d/conv2d_family.hpp\"|includes family 'conv2d'")
set(failures "")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 kind)
  list(GET fields 1 file)
  list(GET fields 2 text)
  list(GET fields 3 expected)
  file(WRITE "${WORK_DIR}/${file}" "${text}\n")
  run_check(rc output)
  file(REMOVE "${WORK_DIR}/${file}")
  string(FIND "${output}" "${file}" at_file)
  string(FIND "${output}" "${expected}" at_expected)
  if(rc EQUAL 0 OR at_file EQUAL -1 OR at_expected EQUAL -1)
    string(APPEND failures "  ${kind} (${file}): rc ${rc}, expected \"${expected}\":\n${output}\n")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
if(failures)
  message(FATAL_ERROR "planted violations the check missed:\n${failures}")
endif()
list(LENGTH cases count)
message(STATUS "the boundary check fails on each of ${count} planted violations")
