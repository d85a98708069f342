cmake_minimum_required(VERSION 3.25)  # IN_LIST, continue()
# The layering rules of docs/ARCHITECTURE.md, checked on the sources:
#   cmake -DSOURCE_DIR=<repo> "-DFAMILIES=gemm=kernels/gemm|conv1d=examples/families/conv1d"
#         -P check_boundaries.cmake
# FAMILIES is the registered family list (ktune_add_family: name=folder relative to the repo),
# so a family added from any folder is covered. Rules:
#   1. src/core, src/cuda (with its public headers include/ktune/cuda/), src/ml and the
#      tune-and-remember runtime (src/remember, include/ktune/remember.hpp) name no family
#      (in any case, also inside identifiers and comments).
#   2. Nothing under src/ (src/report too) and nothing under include/ includes a family header
#      (kernels/ or a family's folder); include/ also includes no src/ header.
#   3. No family includes another family's headers; kernels/common (the building blocks
#      several families run) includes none.
#   4. apps/ and nn/ include no family header, except the files listed in kKnownExceptions
#      (debt, each with its reason: the list only shrinks).
set(kKnownExceptions
  "apps/ktune/verb_demo.cpp"            # the demo prints GEMM shapes (kernels::gemm::shape_of)
  "apps/ktune/demo_vendor.cpp"          # the demo times the GEMM family's CPU vendors beside it
  "nn/cuda/cudnn_layer_conv.cpp")       # wraps the conv2d family's CudnnConv and cuDNN handle
if(NOT SOURCE_DIR OR NOT FAMILIES)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -DFAMILIES=name=dir|... -P check_boundaries.cmake")
endif()

string(REPLACE "|" ";" FAMILIES "${FAMILIES}")
set(families)
set(family_dirs)  # folders relative to SOURCE_DIR, parallel to families
foreach(entry IN LISTS FAMILIES)
  string(REGEX MATCH "^([a-z][a-z0-9_]*)=(.+)$" match "${entry}")
  if(NOT match)
    message(FATAL_ERROR "FAMILIES entry '${entry}' is not name=folder")
  endif()
  list(APPEND families "${CMAKE_MATCH_1}")
  list(APPEND family_dirs "${CMAKE_MATCH_2}")
endforeach()
list(JOIN families "|" names)

# The family whose folder holds `relative` ("" when none) in out_var.
function(owner_of relative out_var)
  set(owner "")
  foreach(name dir IN ZIP_LISTS families family_dirs)
    string(FIND "${relative}" "${dir}/" at)
    if(at EQUAL 0)
      set(owner "${name}")
    endif()
  endforeach()
  set(${out_var} "${owner}" PARENT_SCOPE)
endfunction()

# The family a quoted include path names ("" when none): kernels/<x>/... names family x (any
# folder under kernels/ but common), <family folder>/... names that family.
function(family_of_include path out_var)
  set(found "")
  if(path MATCHES "^kernels/([^/]+)/" AND NOT CMAKE_MATCH_1 STREQUAL "common")
    set(found "${CMAKE_MATCH_1}")
  endif()
  owner_of("${path}" owner)
  if(owner)
    set(found "${owner}")
  endif()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

set(violations "")
# Appends to `violations` every quoted include of `path` that names a family other than `self`
# (or a src/ header when forbid_src is set).
function(check_includes path self forbid_src)
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${path}")
  file(STRINGS "${path}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*$" "\\1" included "${line}")
    family_of_include("${included}" family)
    if(family AND NOT family STREQUAL self)
      string(APPEND violations "  ${relative}: includes family '${family}': ${included}\n")
    elseif(forbid_src AND included MATCHES "^src/")
      string(APPEND violations "  ${relative}: includes a private src/ header: ${included}\n")
    endif()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

# 1. The core names no family (nor does the deployed libraries' tune-and-remember runtime).
file(GLOB_RECURSE core_files "${SOURCE_DIR}/src/core/*" "${SOURCE_DIR}/src/cuda/*"
     "${SOURCE_DIR}/include/ktune/cuda/*" "${SOURCE_DIR}/src/ml/*" "${SOURCE_DIR}/src/remember/*"
     "${SOURCE_DIR}/include/ktune/remember.hpp")
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
    # A vendor library's own identifiers are not family names: cuBLAS's entry points
    # (cublasSgemm, cublasLtMatmul...) are forwarded by the CUDA plumbing (src/cuda/cublas_lazy.cpp).
    string(REGEX REPLACE "cublas(lt)?[a-z0-9_]*" "" lower "${lower}")
    if(lower MATCHES "(${names})")
      string(APPEND violations "  ${relative}:${line_no}: names family '${CMAKE_MATCH_1}'\n")
    endif()
  endforeach()
endforeach()

# 2. src/ and the public API include no family header; the public API no src/ header either.
file(GLOB_RECURSE src_files "${SOURCE_DIR}/src/*.hpp" "${SOURCE_DIR}/src/*.cpp"
     "${SOURCE_DIR}/src/*.cuh" "${SOURCE_DIR}/src/*.cu" "${SOURCE_DIR}/src/*.inl")
list(FILTER src_files EXCLUDE REGEX "/node_modules/")
foreach(path IN LISTS src_files)
  check_includes("${path}" "" OFF)
endforeach()
file(GLOB_RECURSE api_files "${SOURCE_DIR}/include/*")
foreach(path IN LISTS api_files)
  check_includes("${path}" "" ON)
endforeach()

# 3. Families (from any folder) and the shared building blocks include no other family.
foreach(name dir IN ZIP_LISTS families family_dirs)
  file(GLOB_RECURSE files "${SOURCE_DIR}/${dir}/*.hpp" "${SOURCE_DIR}/${dir}/*.cpp"
       "${SOURCE_DIR}/${dir}/*.cuh" "${SOURCE_DIR}/${dir}/*.cu" "${SOURCE_DIR}/${dir}/*.inl")
  foreach(path IN LISTS files)
    check_includes("${path}" "${name}" OFF)
  endforeach()
endforeach()
file(GLOB_RECURSE common_files "${SOURCE_DIR}/kernels/common/*")
foreach(path IN LISTS common_files)
  check_includes("${path}" "" OFF)
endforeach()

# 4. The CLI and the inference engine include no family header (known exceptions aside).
file(GLOB_RECURSE app_files "${SOURCE_DIR}/apps/*" "${SOURCE_DIR}/nn/*")
foreach(path IN LISTS app_files)
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${path}")
  if(relative IN_LIST kKnownExceptions)
    continue()
  endif()
  check_includes("${path}" "" OFF)
endforeach()

if(violations)
  message(FATAL_ERROR "layer boundaries broken (families: ${families}); "
                      "see docs/ARCHITECTURE.md, Layers:\n${violations}")
endif()
message(STATUS "boundaries hold for the families ${families}: the core names none; src/, "
               "include/, apps/ and nn/ include none; no family includes another")
