cmake_minimum_required(VERSION 3.25)
# Every file a tuned library compiles from the installed package (the families' deploy sources,
# declared by ktune_family_deploy_files) includes only what is installed with it: another deploy
# source, a family's public header (installed as ktune/<name>), or the public API under include/
# (installed whole). A header that a deploy source includes but no family.cmake lists builds here
# and fails in a user's `ktune deploy` package.
#   cmake -DSOURCE_DIR=<repo> -DSOURCES=<deploy sources, absolute, '|'-separated>
#         -DPUBLIC_HEADERS=<the families' public headers, absolute, '|'-separated>
#         -P check_deploy_closure.cmake
string(REPLACE "|" ";" sources "${SOURCES}")
string(REPLACE "|" ";" public_headers "${PUBLIC_HEADERS}")
set(public_names "")
foreach(header IN LISTS public_headers)
  get_filename_component(name "${header}" NAME)
  list(APPEND public_names "ktune/${name}")
endforeach()
set(listed "")
foreach(file IN LISTS sources)
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${file}")
  list(APPEND listed "${relative}")
endforeach()
set(missing "")
foreach(file IN LISTS sources)
  if(NOT file MATCHES "\\.(h|hpp|cuh|inl|cu|cpp)$")
    continue()
  endif()
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${file}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*$" "\\1" included "${line}")
    if(included MATCHES "^ktune/" AND (EXISTS "${SOURCE_DIR}/include/${included}" OR
                                       included IN_LIST public_names))
      continue()  # the public API (installed whole) or a family's public header
    endif()
    if(included IN_LIST listed)
      continue()
    endif()
    # A path relative to the including file's folder (the CUDA headers include siblings so).
    get_filename_component(dir "${relative}" DIRECTORY)
    cmake_path(APPEND dir "${included}" OUTPUT_VARIABLE sibling)
    cmake_path(NORMAL_PATH sibling)
    if(sibling IN_LIST listed)
      continue()
    endif()
    list(APPEND missing "${relative} includes \"${included}\", which no ktune_family_deploy_files lists")
  endforeach()
endforeach()
if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "deploy sources include files the package does not install:\n  ${text}")
endif()
list(LENGTH listed count)
message(STATUS "${count} deploy sources, every include installed with them")
