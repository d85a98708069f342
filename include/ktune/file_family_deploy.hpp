#pragma once
// `ktune deploy` of families from tuning-problem files (docs/own-kernels.md, "Deploy"): the
// selectors of file families become a self-contained CMake package of a library, built with
// the system's C++ compiler (C++ kernels) or nvcc (CUDA kernels), needing muparser but not ktune:
//   CMakeLists.txt, cmake/ktune_tuned_<name>Config.cmake   build, install, find_package
//   include/ktune_tuned/<name>.hpp   per family: <family>(buffers..., features...) and
//                                    <family>_config(features...), in namespace ktune_tuned::<name>
//   kernels/<family>/<kernel file>   the kernel source, as the problem file names it
//   selectors/<device>/<family>.hpp  the generated selector (ktune codegen's header)
//   src/<family>_config_<i>.cpp|cu   shipped config i: the kernel with its parameters
//   src/<family>.cpp                 the launch function: pick, launch sizes, scalar arguments
//   src/runtime.hpp, src/python_spellings.hpp   the problem file's expressions at run time
//   deploy.json                      what was deployed
#include <string>
#include <vector>

#include "ktune/ml/deploy.hpp"

namespace ktune {

// Whether `family` was registered from a tuning-problem file (register_file_family).
bool is_file_family(const std::string& family);

// Writes the package into dir. options.backends, when backends_given, must be the backend of
// every family's language (C++: cpu, CUDA: cuda); otherwise the languages decide. Throws Error
// (one line naming the input) for a selector of a family not from a file, two selectors of one
// family, a bad library name, or a family whose names cannot be C++ identifiers.
void write_file_family_package(const std::string& dir,
                               const std::vector<ml::PackageSelector>& selectors,
                               ml::PackageOptions options, bool backends_given);

}  // namespace ktune
