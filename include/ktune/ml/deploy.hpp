#pragma once
// ktune deploy as library calls (docs/deploy.md): a recipe (pruner, K, normalization, selector)
// turns a dataset into a selector model, exactly as `ktune prune` + `ktune train` do; models
// become a directory holding an installable CMake package of a tuned library:
//   CMakeLists.txt                       builds ktune_tuned_<name> with ktune_add_tuned_library,
//                                        installs it with its public headers and package config
//   cmake/ktune_tuned_<name>Config.cmake what find_package(ktune_tuned_<name>) loads
//   selectors/<device>/<family>.hpp      the generated selectors (ktune codegen's headers)
//   deploy.json                          what was deployed: name, backends, recipe, selectors
// Several devices' selectors of one family (one model per device) become one header,
// selectors/<family>.hpp (ktune/ml/codegen_devices.hpp): the library serves, at run time, the
// selector of the device it runs on. Family-neutral: a family is the
// name the model carries, handed on to ktune_add_tuned_library.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/codegen_devices.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {

struct DeployRecipe {
  PruneMethod pruner = PruneMethod::pca_kmeans;
  int k = 16;  // 0: every config that is ok on some problem ("all", picked by topn)
  Norm norm = Norm::cutoff;
  std::string selector = "tree-b";        // codegen writes tree selectors only
  SelectorOptions selector_options;       // fallback, seed, unsure rule
  uint64_t seed = 0;                      // the randomized pruners' seed
  bool vendors = false;                   // the vendors as candidates (with_vendor_candidates)
  std::vector<std::string> vendor_names;  // with vendors: only these (empty: every vendor)
  // With vendors: every vendor call shipped besides the K pruned configs (none pruned away), so
  // the selector and the unsure rule (--unsure-vendor) can pick the faster vendor per shape.
  bool ship_vendors = false;
  // With vendors: a vendor cell with no timing is refused, not imputed
  // (refuse_unmeasured_vendor_cells).
  bool refuse_untimed_vendors = false;
};

// The recipe as `ktune deploy` options ("--pruner pca-kmeans --k 16 ..."), defaults included.
std::string recipe_arguments(const DeployRecipe& recipe);

// Prunes the recipe's K configs and fits its selector over them: the model `ktune train` writes
// for the same options, with family, device and "dataset" (= dataset_label) recorded.
nlohmann::json train_recipe(const Dataset& data, const DeployRecipe& recipe,
                            const std::string& dataset_label);

struct PackageSelector {
  nlohmann::json model;  // a tree selector model naming its family and device
  std::string source;    // the dataset or model file it came from (recorded in the header)
  // The device as a multi-device library records it (name, device features); an empty slug is
  // the model's device, with neither name nor features.
  DeviceRecord device = {};
};

struct PackageOptions {
  std::string name;                          // lower-case identifier: ktune_tuned_<name>
  std::vector<std::string> backends{"cpu"};  // cpu, cuda
  std::string command;                       // the deploy command, recorded in every generated file
};

// selectors/<device>/<family>.hpp
std::string package_selector_path(const std::string& device, const std::string& family);
// selectors/<family>.hpp: the header of a family deployed for several devices.
std::string package_multi_device_path(const std::string& family);

// The selector header of one model, as the package holds it (codegen with `command` recorded).
std::string package_selector_header(const PackageSelector& s, const std::string& command);

// Writes each (path relative to dir, text) under dir, making its folders.
void write_package_files(const std::string& dir,
                         const std::vector<std::pair<std::string, std::string>>& files);

// Writes the package into dir (created; its files replaced). Throws Error (one line naming the
// input) for a bad name or backend, a model without family or device, two models of one family and
// device and device, or a model codegen refuses.
void write_deploy_package(const std::string& dir, const std::vector<PackageSelector>& selectors,
                          const PackageOptions& options);

}  // namespace ktune::ml
