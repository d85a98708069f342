cmake_minimum_required(VERSION 3.25)
# The main job's build (cmake/main_job.cmake, scripts/demo.sh) builds only what `ktune demo`
# runs: configured here (no build: seconds, not minutes), its generated registration and the
# commands Ninja would run for bin/ktune are read back.
#   cmake -DSOURCE_DIR=<repo> "-DFAMILIES=gemm=kernels/gemm|..." -DNINJA=<ninja>
#         -DWORK_DIR=<scratch> -P check_family_subset.cmake
# FAMILIES is every family of the full build (name=folder, as the boundary check takes it).
# Checks: (1) the family list register_builtin() calls is exactly KTUNE_FAMILIES, no CUDA list;
# (2) bin/ktune compiles a source of each chosen family's folder and links its library, and
# nothing of another family, of src/cuda, of src/filefamily but its refusing stand-in, of the
# tests, benchmarks, examples, tuned libraries, Python package or network engine; nvcc never
# runs; (3) the checks fail on a build with one family more than expected (gemm;<another>);
# (4) configuring refuses an unknown family, a list without gemm and a subset with the tests.
if(NOT SOURCE_DIR OR NOT FAMILIES OR NOT NINJA OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=... -DFAMILIES=... -DNINJA=... -DWORK_DIR=... -P check_family_subset.cmake")
endif()
set(cache_file ${SOURCE_DIR}/cmake/main_job.cmake)
string(REPLACE "|" ";" FAMILIES "${FAMILIES}")

# Configures SOURCE_DIR into WORK_DIR/<name> as scripts/build.sh does (its -DKTUNE_CUDA=AUTO
# first, then the main job's cache file) plus ARGN; result code and output in <name>_rc/_out.
function(configure name)
  file(REMOVE_RECURSE ${WORK_DIR}/${name})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/${name} -G Ninja
                          -DCMAKE_MAKE_PROGRAM=${NINJA} -DCMAKE_BUILD_TYPE=Release
                          -DKTUNE_CUDA=AUTO -C ${cache_file} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(${name}_rc ${rc} PARENT_SCOPE)
  set(${name}_out "${out}" PARENT_SCOPE)
endfunction()

# The violations of build dir `dir` against the chosen families `expected`, in out_var.
function(violations dir expected out_var)
  set(problems "")
  file(READ ${dir}/generated/families/families.cpp registry)
  string(REGEX MATCHALL "ktune_family_entry_[a-z0-9_]+\\(\\)" calls "${registry}")
  list(TRANSFORM calls REPLACE "^ktune_family_entry_([a-z0-9_]+)\\(\\)$" "\\1")
  list(SORT calls)
  set(want ${expected})
  list(SORT want)
  if(NOT calls STREQUAL want)
    list(APPEND problems "register_builtin() calls the entries of '${calls}', not '${want}'")
  endif()
  if(EXISTS ${dir}/generated/families/families_cuda.cpp)
    list(APPEND problems "a CUDA family list was generated")
  endif()

  execute_process(COMMAND ${NINJA} -C ${dir} -t commands bin/ktune
                  RESULT_VARIABLE rc OUTPUT_VARIABLE commands ERROR_VARIABLE commands)
  if(rc)
    message(FATAL_ERROR "ninja -t commands bin/ktune in ${dir}: ${commands}")
  endif()
  if(commands MATCHES "nvcc")
    list(APPEND problems "nvcc runs")
  endif()
  # Every compiled source, unity batches opened: paths relative to SOURCE_DIR.
  string(REGEX MATCHALL " -c [^ \n]+" compiled "${commands}")
  set(sources "")
  foreach(c IN LISTS compiled)
    string(REGEX REPLACE "^ -c " "" c "${c}")
    if(NOT IS_ABSOLUTE "${c}")
      set(c ${dir}/${c})
    endif()
    if(c MATCHES "/Unity/unity_[0-9]+_cxx\\.cxx$")
      file(STRINGS ${c} included REGEX "^#include \"")
      list(TRANSFORM included REPLACE "^#include \"(.*)\"$" "\\1")
      list(APPEND sources ${included})
    else()
      list(APPEND sources ${c})
    endif()
  endforeach()
  list(TRANSFORM sources REPLACE "^${SOURCE_DIR}/" "")
  string(REGEX MATCHALL "lib(ktune_[a-z0-9_]+)\\.a" archives "${commands}")
  list(TRANSFORM archives REPLACE "^lib(.*)\\.a$" "\\1")

  foreach(entry IN LISTS FAMILIES)
    string(REGEX MATCH "^([a-z][a-z0-9_]*)=(.+)$" match "${entry}")
    set(name ${CMAKE_MATCH_1})
    set(folder ${CMAKE_MATCH_2})
    set(of_it ${sources})
    list(FILTER of_it INCLUDE REGEX "^${folder}/")
    if(name IN_LIST expected)
      if(NOT of_it OR NOT ktune_family_${name} IN_LIST archives)
        list(APPEND problems "family ${name} (${folder}) is not compiled and linked")
      endif()
    elseif(of_it OR ktune_family_${name} IN_LIST archives)
      list(APPEND problems "family ${name} is built: ${of_it}")
    endif()
  endforeach()
  set(outside ${sources})
  list(FILTER outside INCLUDE REGEX
       "^(src/cuda|src/filefamily|tests|bench|libraries|python|nn|examples)/")
  list(FILTER outside EXCLUDE REGEX "^src/filefamily/off/")
  foreach(entry IN LISTS FAMILIES)  # a chosen family's folder may lie under examples/
    string(REGEX REPLACE "^([a-z0-9_]+)=(.+)$" "\\1;\\2" pair "${entry}")
    list(GET pair 0 name)
    list(GET pair 1 folder)
    if(name IN_LIST expected)
      list(FILTER outside EXCLUDE REGEX "^${folder}/")
    endif()
  endforeach()
  if(outside)
    list(APPEND problems "compiles what the demo does not run: ${outside}")
  endif()
  if(NOT "src/filefamily/off/file_family_off.cpp" IN_LIST sources)
    list(APPEND problems "the families-from-files stand-in is not compiled")
  endif()
  set(${out_var} "${problems}" PARENT_SCOPE)
endfunction()

# (1), (2): the main job's own configuration.
configure(main_job)
if(main_job_rc)
  message(FATAL_ERROR "the main job's build does not configure:\n${main_job_out}")
endif()
file(STRINGS ${WORK_DIR}/main_job/CMakeCache.txt chosen REGEX "^KTUNE_FAMILIES:")
string(REGEX REPLACE "^[^=]*=" "" chosen "${chosen}")
violations(${WORK_DIR}/main_job "${chosen}" problems)
if(problems)
  list(JOIN problems "\n  " problems)
  message(FATAL_ERROR "the main job's build (KTUNE_FAMILIES=${chosen}):\n  ${problems}")
endif()
message(STATUS "main job: registers and builds only ${chosen}")

# (3): one family more than expected must be found.
set(other "")
foreach(entry IN LISTS FAMILIES)
  string(REGEX REPLACE "=.*" "" name "${entry}")
  if(NOT name IN_LIST chosen AND NOT other)
    set(other ${name})
  endif()
endforeach()
configure(planted "-DKTUNE_FAMILIES=${chosen}\\;${other}")  # one argument
if(planted_rc)
  message(FATAL_ERROR "KTUNE_FAMILIES=${chosen};${other} does not configure:\n${planted_out}")
endif()
violations(${WORK_DIR}/planted "${chosen}" problems)
if(NOT problems MATCHES "calls the entries" OR NOT problems MATCHES "family ${other} is built")
  message(FATAL_ERROR "the check missed family ${other} built beside ${chosen}: '${problems}'")
endif()
message(STATUS "planted: ${other} beside ${chosen} found")

# (4): lists the build refuses, each in one message naming the input.
foreach(case "nosuch|KTUNE_FAMILIES: unknown family 'nosuch'"
             "${other}|the ktune CLI needs gemm"
             "TESTS|KTUNE_TESTS=ON covers every family")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 value)
  list(GET case 1 expect)
  if(value STREQUAL "TESTS")
    configure(refused -DKTUNE_TESTS=ON)
  else()
    configure(refused "-DKTUNE_FAMILIES=${value}")
  endif()
  string(FIND "${refused_out}" "${expect}" at)
  if(NOT refused_rc OR at LESS 0)
    message(FATAL_ERROR "configuring with ${value}: exit ${refused_rc}, no '${expect}':\n${refused_out}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR}/refused ${WORK_DIR}/planted)
message(STATUS "refused: an unknown family, a list without gemm, a subset with the tests")
