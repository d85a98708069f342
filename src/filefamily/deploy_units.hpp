#pragma once
// The C++ (and CUDA) sources `ktune deploy` writes for one file family's library
// (docs/own-kernels.md, "Deploy"): per shipped config a unit that instantiates the kernel with
// the config's parameters inside a namespace of its own, and the family's launch function, which
// runs the selector's pick on the caller's buffers.
#include <string>
#include <vector>

#include "src/filefamily/file_family.hpp"

namespace ktune::filefamily {

struct DeployedFamily {
  const FileFamily* family = nullptr;
  std::string library;                      // the package's name (ktune_tuned_<library>)
  std::string device;                       // the selector's device slug
  std::vector<std::string> configs;         // the shipped configs, in the selector's order
  std::vector<std::string> model_features;  // the selector's features, in its order
  std::string command;                      // the deploy command, recorded in every file
  std::string kernel_copy;  // the kernel file as the package holds it ("kernels/<family>/k.cu")
  std::string selector;     // the selector header as the package holds it

  bool cuda() const { return family->spec().language == "CUDA"; }
  std::string prefix() const;  // "ktune_tuned_<library>_<family>": the family's symbols
};

// The source of shipped config i (kernel copy included by a path relative to src/).
std::string config_unit(const DeployedFamily& d, size_t i);
// "src/<family>_config_<i>.cpp" (".cu" for CUDA).
std::string config_unit_path(const DeployedFamily& d, size_t i);
// The family's declarations in the public header: its launch function and its pick.
std::string launch_declarations(const DeployedFamily& d);
// The source defining them (src/<family>.cpp).
std::string launch_unit(const DeployedFamily& d);
// Throws Error naming the problem file when the family cannot be a library's function: its name
// or a feature is no C++ identifier, or the selector's features are not the file's.
void check_deployable(const DeployedFamily& d);

}  // namespace ktune::filefamily
