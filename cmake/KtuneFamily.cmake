# ktune_add_family(<name> [DIR <dir>]): builds a kernel family from its folder (default
# kernels/<name>) and adds it to the generated family list, so that register_builtin() and
# register_cuda_backends() call its registration entries. Nothing else names the family.
#
# The folder holds (all but the entry optional):
#   *.cpp, cpu/*.cpp   -> library ktune_family_<name> (links ktune_core); one of them defines
#                         KTUNE_FAMILY_ENTRY(<name>) { register_family(...); register_backend(...); }
#   cuda/*.cpp         -> library ktune_family_<name>_cuda (links ktune_cuda) when CUDA is built;
#                         one of them defines KTUNE_FAMILY_CUDA_ENTRY(<name>) { ... }
#   cuda/*.cuh, workloads/*.csv (and workloads/<name>/*.csv at the top) -> embedded in the binary,
#                         read with ktune::embedded_file("<file name>")
#   deploy/tuned_<backend>.inl -> what ktune_add_tuned_library(FAMILY <name> BACKENDS <backend>)
#                         compiles (cmake/KtuneTunedLibrary.cmake), from any folder
#   family.cmake       -> included with KTUNE_FAMILY_NAME, KTUNE_FAMILY_TARGET,
#                         KTUNE_FAMILY_CUDA_TARGET (empty without CUDA) and KTUNE_FAMILY_DIR set: extra link libraries, and the
#                         deploy files of ktune_add_tuned_library (ktune_family_deploy_files()).
# Programs that run kernels link ktune_families (and ktune_families_cuda); ktune_core and
# ktune_ml never do.
#
# KTUNE_FAMILIES (cache, default "all") lists the families the build compiles, links and
# registers; ktune_add_family() of any other family only records its name, so a build that
# runs one family (scripts/demo.sh: gemm) compiles none of the others.
include_guard(GLOBAL)

set(KTUNE_FAMILY_GENERATED "${CMAKE_BINARY_DIR}/generated/families")
file(MAKE_DIRECTORY "${KTUNE_FAMILY_GENERATED}")
add_library(ktune_families STATIC "${KTUNE_FAMILY_GENERATED}/families.cpp")
target_link_libraries(ktune_families PUBLIC ktune_core)
if(KTUNE_HAVE_CUDA)
  add_library(ktune_families_cuda STATIC "${KTUNE_FAMILY_GENERATED}/families_cuda.cpp")
  target_link_libraries(ktune_families_cuda PUBLIC ktune_families ktune_cuda)
endif()

# Files of the family's tuned library (installed under share/ktune/source/<path relative to the
# source root>); public headers (installed under include/ktune/; a path relative to the family's
# folder, or else to the source root) in PUBLIC_HEADERS. A family with a deploy/ folder is
# deployable: ktune_add_tuned_library finds it through the properties set here and in
# ktune_add_family (KTUNE_DEPLOY_FAMILIES, KTUNE_FAMILY_DIR_<name>,
# KTUNE_FAMILY_PUBLIC_HEADERS_<name>), which install.cmake writes out for the installed package.
function(ktune_family_deploy_files)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "" "SOURCES;PUBLIC_HEADERS")
  foreach(f IN LISTS ARG_SOURCES)
    set_property(GLOBAL APPEND PROPERTY KTUNE_DEPLOY_SOURCES "${KTUNE_FAMILY_DIR}/${f}")
  endforeach()
  foreach(f IN LISTS ARG_PUBLIC_HEADERS)
    set(header "${KTUNE_FAMILY_DIR}/${f}")
    if(NOT EXISTS "${header}")
      set(header "${CMAKE_SOURCE_DIR}/${f}")
    endif()
    set_property(GLOBAL APPEND PROPERTY KTUNE_DEPLOY_PUBLIC_HEADERS "${header}")
    set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_PUBLIC_HEADERS_${KTUNE_FAMILY_NAME} "${header}")
  endforeach()
endfunction()

# Embeds files into `target` (ktune::embedded_file("<file name>")) through a generated function
# ktune_embed_<id>() that register_builtin() calls: the families' kernel sources and workloads,
# and the shared building blocks' kernel sources (kernels/common).
function(ktune_embed_files target id)
  set(embed_cpp "${KTUNE_FAMILY_GENERATED}/embedded_${id}.cpp")
  string(REPLACE ";" "|" embed_list "${ARGN}")
  add_custom_command(OUTPUT ${embed_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${embed_cpp} "-DFILES=${embed_list}"
            -DFUNCTION=ktune_embed_${id} -P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${ARGN} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding the ${id} workloads and kernel sources" VERBATIM)
  target_sources(${target} PRIVATE ${embed_cpp})
  set_property(GLOBAL APPEND PROPERTY KTUNE_EMBEDS ${id})
  target_link_libraries(ktune_families PUBLIC ${target})
endfunction()

function(ktune_add_family name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DIR" "")
  if(NOT name MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "ktune_add_family(${name}): a family name is a lower-case identifier")
  endif()
  get_property(known GLOBAL PROPERTY KTUNE_FAMILIES_AVAILABLE)
  if(name IN_LIST known)
    message(FATAL_ERROR "ktune_add_family(${name}): added twice")
  endif()
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILIES_AVAILABLE ${name})
  if(NOT KTUNE_FAMILIES STREQUAL "all" AND NOT name IN_LIST KTUNE_FAMILIES)
    return()  # not selected: nothing built, linked or registered
  endif()
  if(NOT ARG_DIR)
    set(ARG_DIR kernels/${name})
  endif()
  get_filename_component(dir "${ARG_DIR}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")

  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp ${dir}/cpu/*.cpp)
  set(target ktune_family_${name})
  add_library(${target} STATIC ${sources})
  # Embedded files: one generated source per family that registers them by file name.
  file(GLOB embed CONFIGURE_DEPENDS ${dir}/cuda/*.cuh ${dir}/workloads/*.csv
       ${CMAKE_SOURCE_DIR}/workloads/${name}/*.csv)
  ktune_embed_files(${target} ${name} ${embed})
  # kernels/... include paths, private: a user of the family sees include/ (through ktune_core);
  # tests and tools that include family headers add the source root themselves.
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC ktune_core)
  target_compile_options(${target} PRIVATE ${KTUNE_KERNEL_FLAGS})
  target_link_libraries(ktune_families PUBLIC ${target})
  # A family source that uses Eigen instantiates the templates ktune_ml does (Eigen's double GEMM);
  # the linker keeps one copy of each, so one built for the kernels' ISA (-march=native) handed ML
  # its AVX-512 code and other roundings (SearchGolden's selector figure moved). Such a source is
  # built for ktune_ml's ISA instead (the last -march wins).
  foreach(source IN LISTS sources)
    file(STRINGS ${source} eigen REGEX "^#include <Eigen/")
    if(eigen)
      set_source_files_properties(${source} PROPERTIES COMPILE_OPTIONS "-march=x86-64;-mtune=generic"
                                  SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()

  set(cuda_target "")
  if(KTUNE_HAVE_CUDA)
    file(GLOB cuda_sources CONFIGURE_DEPENDS ${dir}/cuda/*.cpp)
    if(cuda_sources)
      set(cuda_target ktune_family_${name}_cuda)
      add_library(${cuda_target} STATIC ${cuda_sources})
      target_include_directories(${cuda_target} PRIVATE ${CMAKE_SOURCE_DIR})
      target_link_libraries(${cuda_target} PUBLIC ${target} ktune_cuda)
      target_link_libraries(ktune_families_cuda PUBLIC ${cuda_target})
      set_property(GLOBAL APPEND PROPERTY KTUNE_CUDA_FAMILIES ${name})
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILIES ${name})
  # name=folder, for what covers every family wherever it lives (the boundary check, deploy).
  file(RELATIVE_PATH relative_dir "${CMAKE_SOURCE_DIR}" "${dir}")
  set_property(GLOBAL APPEND PROPERTY KTUNE_FAMILY_DIRS "${name}=${relative_dir}")
  if(EXISTS ${dir}/deploy)
    set_property(GLOBAL APPEND PROPERTY KTUNE_DEPLOY_FAMILIES ${name})
    set_property(GLOBAL PROPERTY KTUNE_FAMILY_DIR_${name} "${relative_dir}")
  endif()
  # The family's figures of the HTML report (docs/report.md), compiled into ktune_report.
  file(GLOB report_sources CONFIGURE_DEPENDS ${dir}/report/*.cpp)
  if(report_sources)
    target_sources(ktune_report PRIVATE ${report_sources})
  endif()

  if(EXISTS ${dir}/family.cmake)
    set(KTUNE_FAMILY_NAME ${name})
    set(KTUNE_FAMILY_TARGET ${target})
    set(KTUNE_FAMILY_CUDA_TARGET ${cuda_target})
    set(KTUNE_FAMILY_DIR ${dir})
    include(${dir}/family.cmake)
  endif()
endfunction()

# After every ktune_add_family(): fails on a name of KTUNE_FAMILIES that no call added.
function(ktune_check_selected_families)
  get_property(available GLOBAL PROPERTY KTUNE_FAMILIES_AVAILABLE)
  if(KTUNE_FAMILIES STREQUAL "all")
    return()
  endif()
  if(NOT KTUNE_FAMILIES)
    message(FATAL_ERROR "KTUNE_FAMILIES is empty (\"all\" or a ;-list of: ${available})")
  endif()
  foreach(name IN LISTS KTUNE_FAMILIES)
    if(NOT name IN_LIST available)
      list(JOIN available ", " available)
      message(FATAL_ERROR "KTUNE_FAMILIES: unknown family '${name}' (known: ${available})")
    endif()
  endforeach()
endfunction()

# Writes the family list once every ktune_add_family() has run (deferred to the end of the
# top-level CMakeLists.txt), only rewriting files whose text changed.
function(_ktune_write_family_lists)
  get_property(families GLOBAL PROPERTY KTUNE_FAMILIES)
  get_property(cuda_families GLOBAL PROPERTY KTUNE_CUDA_FAMILIES)
  set(head "// Generated by cmake/KtuneFamily.cmake from the ktune_add_family() calls; do not edit.\n#include <mutex>\n\n")
  set(decl "")
  set(calls "")
  get_property(embeds GLOBAL PROPERTY KTUNE_EMBEDS)
  foreach(e IN LISTS embeds)
    string(APPEND decl "void ktune_embed_${e}();\n")
    string(APPEND calls "    ktune_embed_${e}();\n")
  endforeach()
  foreach(f IN LISTS families)
    string(APPEND decl "KTUNE_FAMILY_ENTRY(${f});\n")
    string(APPEND calls "    ktune_family_entry_${f}();\n")
  endforeach()
  file(CONFIGURE OUTPUT "${KTUNE_FAMILY_GENERATED}/families.cpp" CONTENT
"${head}#include \"ktune/family.hpp\"\n\n${decl}\nnamespace ktune {\n\nvoid register_builtin() {\n  static std::once_flag once;  // the CLI and tests may both call it\n  std::call_once(once, [] {\n${calls}  });\n}\n\n}  // namespace ktune\n")
  if(KTUNE_HAVE_CUDA)
    set(decl "")
    set(calls "")
    foreach(f IN LISTS cuda_families)
      string(APPEND decl "KTUNE_FAMILY_CUDA_ENTRY(${f});\n")
      string(APPEND calls "    ktune_family_cuda_entry_${f}();\n")
    endforeach()
    file(CONFIGURE OUTPUT "${KTUNE_FAMILY_GENERATED}/families_cuda.cpp" CONTENT
"${head}#include \"ktune/cuda.hpp\"\n#include \"ktune/family.hpp\"\n\n${decl}\nnamespace ktune {\n\nvoid register_cuda_backends() {\n  static std::once_flag once;\n  std::call_once(once, [] {\n    register_builtin();\n${calls}  });\n}\n\n}  // namespace ktune\n")
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _ktune_write_family_lists)
