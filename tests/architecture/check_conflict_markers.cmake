cmake_minimum_required(VERSION 3.25)
# No merge-conflict marker in the project's text files (one reached main in docs/ARCHITECTURE.md
# in session 26 and stayed there for a session):
#   cmake -DSOURCE_DIR=<repo> -P check_conflict_markers.cmake
# Reads the hand-written and generated text under the folders below (results/ is data, the
# report's node_modules are npm's), fails naming each file and line that starts with a
# conflict's opening or closing marker ("<<<<<<< " / ">>>>>>> ": the middle "=======" is also a
# Markdown heading underline).
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P check_conflict_markers.cmake")
endif()
set(folders .ci apps cmake docs examples include kernels libraries nn python scripts src tests
            workloads)
set(extensions md txt cpp hpp inl cu h c py sh cmake json toml yml yaml js html csv)
set(globs)
foreach(folder IN LISTS folders)
  foreach(ext IN LISTS extensions)
    list(APPEND globs "${SOURCE_DIR}/${folder}/*.${ext}")
  endforeach()
  list(APPEND globs "${SOURCE_DIR}/${folder}/*/CMakeLists.txt")
endforeach()
file(GLOB_RECURSE files LIST_DIRECTORIES false ${globs})
file(GLOB top LIST_DIRECTORIES false "${SOURCE_DIR}/*.md" "${SOURCE_DIR}/CMakeLists.txt")
list(APPEND files ${top})
list(FILTER files EXCLUDE REGEX "/node_modules/")
set(found "")
foreach(f IN LISTS files)
  file(STRINGS "${f}" hits REGEX "^(<<<<<<<|>>>>>>>)( |$)")
  foreach(line IN LISTS hits)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
    string(APPEND found "\n  ${rel}: ${line}")
  endforeach()
endforeach()
list(LENGTH files n)
if(found)
  message(FATAL_ERROR "merge conflict markers in ${SOURCE_DIR}:${found}")
endif()
message(STATUS "no conflict marker in ${n} text files")
