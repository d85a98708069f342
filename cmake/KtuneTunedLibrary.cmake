# ktune_add_tuned_library(<target> FAMILY <family> BACKENDS cpu [cuda]
#                         SELECTOR <header> | MODELS <model.json>
#                         [STATIC | SHARED] [CUDA_ARCHITECTURES <archs>...] [CPU_FLAGS <flags>...]
#                         [NAMED_SELECTORS <name> <header> ...])
#
# Builds a library that defines the family's deployed API (its public header, ktune/<family>.hpp)
# for the listed backends, holding ahead-of-time instantiations of only the configs listed in
# <header>, a selector written by `ktune codegen` or `ktune deploy`; or, with MODELS, a model
# `ktune train` wrote, turned into that header at build time by the ktune CLI (one model per
# family for now). Any family registered with a deploy/ folder works (cmake/KtuneFamily.cmake):
# its deploy/tuned_<backend>.inl decodes the header's config strings at compile time, so the
# kernels come from the same headers the sweep measured: CPU kernels compiled by the C++ compiler
# (CPU_FLAGS, default -O3 -march=x86-64-v3), CUDA kernels by nvcc for CUDA_ARCHITECTURES
# (default 90: sm_90 code plus compute_90 PTX). BACKENDS cuda needs enable_language(CUDA) in the
# calling project. A family's deploy/vendors.cmake, when it has one, links the vendor libraries
# the selector ships as candidates ("vendor=<name>" configs). The target's property
# KTUNE_PUBLIC_HEADERS lists the family's public headers
# (copies in the build tree, on its include path), for packages that install them.
# NAMED_SELECTORS adds selectors beside SELECTOR that the family's deploy code picks between by
# name: GEMM's ktune::gemm_ex takes one per tensor-core precision (tf32, bf16, fp16), each
# written by `ktune deploy` from that precision's dataset; a precision without one is refused;
# and bf16_c16 / fp16_c16, trained on rows with C in the 16-bit input type, for gemm_ex with that
# C (without one, 16-bit C is served by the precision's selector).
include_guard(GLOBAL)

# Where the kernel headers and include/ktune live: the source tree when included from ktune's
# own build, the installed share/ktune/source and include when loaded through find_package.
if(NOT DEFINED KTUNE_TUNED_SOURCE_ROOT)
  get_filename_component(KTUNE_TUNED_SOURCE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
if(NOT DEFINED KTUNE_TUNED_INCLUDE_DIR)
  set(KTUNE_TUNED_INCLUDE_DIR "${KTUNE_TUNED_SOURCE_ROOT}/include")
endif()
set_property(GLOBAL PROPERTY KTUNE_TUNED_SOURCE_ROOT "${KTUNE_TUNED_SOURCE_ROOT}")
set_property(GLOBAL PROPERTY KTUNE_TUNED_INCLUDE_DIR "${KTUNE_TUNED_INCLUDE_DIR}")

# The tune-and-remember runtime (include/ktune/remember.hpp, src/remember/) that every tuned
# library links: the installed package's ktune::remember, else ktune_remember, built once from
# its sources (ktune's own build, or a package installed without its exported targets).
# KTUNE_REMEMBER_LOCAL (set by the packages `ktune deploy` writes) builds it from the sources even
# where ktune::remember exists: such a package installs its own copy, so that its users need only
# the package, not ktune's.
function(ktune_remember_runtime out)
  if(TARGET ktune::remember AND NOT KTUNE_REMEMBER_LOCAL)
    set(${out} ktune::remember PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET ktune_remember)
    get_property(source_root GLOBAL PROPERTY KTUNE_TUNED_SOURCE_ROOT)
    get_property(include_dir GLOBAL PROPERTY KTUNE_TUNED_INCLUDE_DIR)
    find_package(SQLite3 REQUIRED)
    file(GLOB sources CONFIGURE_DEPENDS "${source_root}/src/remember/*.cpp")
    add_library(ktune_remember STATIC ${sources})
    target_include_directories(ktune_remember
      PUBLIC "$<BUILD_INTERFACE:${include_dir}>" "$<INSTALL_INTERFACE:include>"
      PRIVATE "$<BUILD_INTERFACE:${source_root}>")
    target_compile_features(ktune_remember PUBLIC cxx_std_17)
    target_link_libraries(ktune_remember PRIVATE SQLite::SQLite3)
    set_target_properties(ktune_remember PROPERTIES POSITION_INDEPENDENT_CODE ON
                          EXPORT_NAME remember)
  endif()
  set(${out} ktune_remember PARENT_SCOPE)
endfunction()

# <out> = the absolute path of <path> (relative to the calling directory); an error naming it
# (as <what>) when there is no such file.
function(_ktune_existing_file where what path out)
  get_filename_component(absolute "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${absolute}")
    message(FATAL_ERROR "${where}: ${what} '${absolute}' does not exist")
  endif()
  set(${out} "${absolute}" PARENT_SCOPE)
endfunction()

# A selector header must be a ktune selector: generated, self-contained (it is included inside a
# namespace of the library, so two tuned libraries never share selector symbols). Sets
# <out_selector> to its absolute path and <out_namespace> to the namespace it declares.
function(_ktune_check_selector where selector_arg out_selector out_namespace)
  if(NOT selector_arg)
    message(FATAL_ERROR "${where}: SELECTOR <header> is missing (write one with ktune codegen or ktune deploy)")
  endif()
  _ktune_existing_file("${where}" "selector header" "${selector_arg}" selector)
  file(STRINGS "${selector}" first_line LIMIT_COUNT 1)
  if(NOT first_line MATCHES "^// Generated by ktune")
    message(FATAL_ERROR "${where}: '${selector}' was not written by ktune codegen")
  endif()
  file(STRINGS "${selector}" include_lines REGEX "^[ \t]*#[ \t]*include")
  if(include_lines)
    message(FATAL_ERROR "${where}: '${selector}' includes other headers; regenerate it with ktune codegen")
  endif()
  file(STRINGS "${selector}" namespace_lines REGEX "^namespace [A-Za-z_][A-Za-z0-9_:]* {$")
  if(NOT namespace_lines)
    message(FATAL_ERROR "${where}: '${selector}' declares no namespace")
  endif()
  list(GET namespace_lines 0 namespace_line)
  string(REGEX REPLACE "^namespace ([A-Za-z0-9_:]+) {$" "\\1" namespace "${namespace_line}")
  set(${out_selector} "${selector}" PARENT_SCOPE)
  set(${out_namespace} "${namespace}" PARENT_SCOPE)
endfunction()

# The selector header of a MODELS library: `ktune codegen` at build time, by the CLI of this
# build or of the installed package (KTUNE_EXECUTABLE, set by ktuneConfig.cmake).
function(_ktune_selector_from_model where models generated_dir out_header)
  list(LENGTH models count)
  if(count GREATER 1)
    message(FATAL_ERROR "${where}: MODELS takes one model per family for now")
  endif()
  _ktune_existing_file("${where}" model "${models}" model)
  set(cli_target)
  if(TARGET ktune)
    set(cli "$<TARGET_FILE:ktune>")
    set(cli_target ktune)
  elseif(KTUNE_EXECUTABLE)
    set(cli "${KTUNE_EXECUTABLE}")
  else()
    message(FATAL_ERROR "${where}: MODELS needs the ktune CLI (find_package(ktune) sets it)")
  endif()
  set(header "${generated_dir}/selector.hpp")
  add_custom_command(OUTPUT "${header}"
    COMMAND "${cli}" codegen --model "${model}" -o "${header}"
    DEPENDS "${model}" ${cli_target}
    COMMENT "Generating the selector of ${where} from ${model}" VERBATIM)
  set(${out_header} "${header}" PARENT_SCOPE)
endfunction()

function(ktune_add_tuned_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "STATIC;SHARED" "FAMILY;SELECTOR"
                        "BACKENDS;CUDA_ARCHITECTURES;CPU_FLAGS;MODELS;NAMED_SELECTORS")
  set(where "ktune_add_tuned_library(${target})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_property(source_root GLOBAL PROPERTY KTUNE_TUNED_SOURCE_ROOT)
  get_property(include_dir GLOBAL PROPERTY KTUNE_TUNED_INCLUDE_DIR)
  get_property(deployable GLOBAL PROPERTY KTUNE_DEPLOY_FAMILIES)
  if(NOT ARG_FAMILY OR NOT ARG_FAMILY IN_LIST deployable)
    message(FATAL_ERROR "${where}: FAMILY '${ARG_FAMILY}' has no tuned library (known: ${deployable})")
  endif()
  get_property(family_dir GLOBAL PROPERTY KTUNE_FAMILY_DIR_${ARG_FAMILY})
  get_property(public_headers GLOBAL PROPERTY KTUNE_FAMILY_PUBLIC_HEADERS_${ARG_FAMILY})
  if(NOT ARG_BACKENDS)
    message(FATAL_ERROR "${where}: BACKENDS is missing (cpu, cuda)")
  endif()
  foreach(backend IN LISTS ARG_BACKENDS)
    if(NOT backend MATCHES "^(cpu|cuda)$")
      message(FATAL_ERROR "${where}: unknown backend '${backend}' (known: cpu, cuda)")
    endif()
    if(NOT EXISTS "${source_root}/${family_dir}/deploy/tuned_${backend}.inl")
      message(FATAL_ERROR "${where}: family ${ARG_FAMILY} has no tuned ${backend} library")
    endif()
  endforeach()
  string(MAKE_C_IDENTIFIER "${target}" id)
  set(generated_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_tuned")
  if(ARG_MODELS AND ARG_SELECTOR)
    message(FATAL_ERROR "${where}: give SELECTOR or MODELS, not both")
  elseif(ARG_MODELS)
    _ktune_selector_from_model("${where}" "${ARG_MODELS}" "${generated_dir}" selector)
    set(selector_namespace ktune_selector)  # codegen's default
    _ktune_existing_file("${where}" model "${ARG_MODELS}" configs_file)
  else()
    _ktune_check_selector("${where}" "${ARG_SELECTOR}" selector selector_namespace)
    set(configs_file "${selector}")
  endif()

  # NAMED_SELECTORS <name> <header> ...: further selectors beside SELECTOR that the family's deploy
  # code picks between (GEMM: one per tensor-core precision, tf32 / bf16 / fp16, and per 16-bit C
  # type, bf16_c16 / fp16_c16), each included in
  # its own namespace, aliased as ktune_tuned_selector_<name>, announced by the macro
  # KTUNE_TUNED_SELECTOR_<NAME>.
  set(named_prelude "")
  set(named_headers)
  list(LENGTH ARG_NAMED_SELECTORS named_count)
  math(EXPR named_odd "${named_count} % 2")
  if(named_odd)
    message(FATAL_ERROR "${where}: NAMED_SELECTORS takes <name> <header> pairs")
  endif()
  while(ARG_NAMED_SELECTORS)
    list(POP_FRONT ARG_NAMED_SELECTORS named_name named_header)
    if(NOT named_name MATCHES "^[a-z][a-z0-9_]*$")
      message(FATAL_ERROR "${where}: NAMED_SELECTORS name '${named_name}' is not a lower-case identifier")
    endif()
    _ktune_check_selector("${where}" "${named_header}" named_file named_namespace)
    string(TOUPPER "${named_name}" named_upper)
    # Tune and remember, per selector: KTUNE_TUNED_VERSION_<NAME> keys its answers (its hash),
    # KTUNE_TUNED_UNSURE_<NAME> is its kUnsure, or -1 when the header states no kUnsure rule.
    file(SHA256 "${named_file}" named_hash)
    string(SUBSTRING "${named_hash}" 0 16 named_hash)
    file(STRINGS "${named_file}" named_unsure REGEX "^inline constexpr int kUnsure = ")
    if(named_unsure)
      set(named_unsure "ktune_tuned_selector_${named_name}::kUnsure")
    else()
      set(named_unsure "-1")
    endif()
    string(APPEND named_prelude "namespace ktune_tuned_${id}_${named_name} {
#include \"${named_file}\"
}  // namespace ktune_tuned_${id}_${named_name}
namespace ktune_tuned_selector_${named_name} = ktune_tuned_${id}_${named_name}::${named_namespace};
#define KTUNE_TUNED_SELECTOR_${named_upper} 1
#define KTUNE_TUNED_VERSION_${named_upper} \"${named_hash}\"
#define KTUNE_TUNED_UNSURE_${named_upper} ${named_unsure}
")
    list(APPEND named_headers "${named_file}")
  endwhile()

  string(TOUPPER "${ARG_FAMILY}" family_upper)
  set(sources)
  foreach(backend IN LISTS ARG_BACKENDS)
    if(backend STREQUAL "cuda")
      get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
      if(NOT "CUDA" IN_LIST languages)
        message(FATAL_ERROR "${where}: BACKENDS cuda needs enable_language(CUDA) first")
      endif()
      set(extension cu)
    else()
      set(extension cpp)
    endif()
    set(source "${generated_dir}/${target}_${backend}.${extension}")
    file(CONFIGURE OUTPUT "${source}" CONTENT
"// Generated by ktune_add_tuned_library(${target}): the ${backend} backend of a tuned ${family_upper}
// library shipping the configs of ${selector}.
namespace ktune_tuned_${id} {
#include \"${selector}\"
}  // namespace ktune_tuned_${id}
namespace ktune_tuned_selector = ktune_tuned_${id}::${selector_namespace};
${named_prelude}#include \"${family_dir}/deploy/tuned_${backend}.inl\"
")
    list(APPEND sources "${source}")
  endforeach()

  if(ARG_SHARED)
    set(type SHARED)
  elseif(ARG_STATIC)
    set(type STATIC)
  else()
    set(type "")
  endif()
  # The family's public headers, copied so that one include directory holds them wherever the
  # family's folder is (a package installs the copies: KTUNE_PUBLIC_HEADERS).
  set(header_copies)
  foreach(header IN LISTS public_headers)
    get_filename_component(header_name "${header}" NAME)
    configure_file("${header}" "${generated_dir}/include/ktune/${header_name}" COPYONLY)
    list(APPEND header_copies "${generated_dir}/include/ktune/${header_name}")
  endforeach()
  add_library(${target} ${type} ${sources})
  if(ARG_MODELS)
    target_sources(${target} PRIVATE "${selector}")  # generated before the sources compile
  endif()
  target_include_directories(${target}
    PUBLIC "$<BUILD_INTERFACE:${generated_dir}/include>" "$<BUILD_INTERFACE:${include_dir}>"
           "$<INSTALL_INTERFACE:include>"
    PRIVATE "$<BUILD_INTERFACE:${source_root}>")
  target_compile_features(${target} PUBLIC cxx_std_17)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
    KTUNE_SELECTOR "${selector}" KTUNE_BACKENDS "${ARG_BACKENDS}"
    KTUNE_PUBLIC_HEADERS "${header_copies}")

  set(cpu_flags ${ARG_CPU_FLAGS})
  if(NOT cpu_flags)
    set(cpu_flags -O3 -march=x86-64-v3)
  endif()
  # Replace inherited directory options: nvcc rejects host-only flags such as -Wpedantic.
  set_property(TARGET ${target} PROPERTY COMPILE_OPTIONS
    "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;${cpu_flags}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-O3;-Xcompiler=-Wall,-Wextra>")
  if("cpu" IN_LIST ARG_BACKENDS)
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    find_package(Threads REQUIRED)  # the packed GEMM's helper threads (gemm_cpu_pool.hpp)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX Threads::Threads)
  endif()
  if("cuda" IN_LIST ARG_BACKENDS)
    find_package(CUDAToolkit REQUIRED)
    set(archs ${ARG_CUDA_ARCHITECTURES})
    if(NOT archs)
      set(archs 90)
    endif()
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}"
      CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_RUNTIME_LIBRARY Static)
    target_link_libraries(${target} PUBLIC CUDA::cudart_static)
  endif()
  # Tune and remember: the cache keys the library by its selector's (or model's) hash, and a
  # header that states a kUnsure rule tunes the shapes it answers kUnsure for (the named
  # selectors' own: KTUNE_TUNED_VERSION_<NAME> / KTUNE_TUNED_UNSURE_<NAME> above).
  ktune_remember_runtime(remember_runtime)
  target_link_libraries(${target} PRIVATE ${remember_runtime})
  file(SHA256 "${configs_file}" selector_hash)
  string(SUBSTRING "${selector_hash}" 0 16 selector_hash)
  target_compile_definitions(${target} PRIVATE KTUNE_TUNED_VERSION="${selector_hash}")
  if(NOT ARG_MODELS)
    file(STRINGS "${selector}" unsure_lines REGEX "^inline constexpr int kUnsure = ")
    if(unsure_lines)
      target_compile_definitions(${target} PRIVATE KTUNE_TUNED_HAS_UNSURE=1)
    endif()
  endif()
  if(EXISTS "${source_root}/${family_dir}/deploy/vendors.cmake")
    set(KTUNE_TUNED_TARGET ${target})
    set(KTUNE_TUNED_BACKENDS ${ARG_BACKENDS})
    set(KTUNE_TUNED_SCAN "${configs_file}" ${named_headers})
    include("${source_root}/${family_dir}/deploy/vendors.cmake")
  endif()
endfunction()
