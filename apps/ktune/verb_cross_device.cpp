// ktune cross-device: selectors trained on one device served on another
// (ktune/ml/cross_device.hpp).
#include <fmt/format.h>

#include <memory>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/cross_device.hpp"

namespace ktune::cli {
namespace {

struct CrossDeviceArgs {
  std::vector<std::string> data;
  std::string family, pruner = "pca-kmeans", norm = "cutoff", selector = "tree-b", markdown;
  int k = 16;
  uint64_t seed = 0;
};

int run_cross_device(const CrossDeviceArgs& a) {
  if (a.data.size() < 2) throw Error("cross-device: give --data for two devices or more");
  std::vector<Dataset> datasets;
  for (const auto& d : a.data) {
    DatasetSource source;
    source.data = d;
    source.family = a.family;
    datasets.push_back(source.load());
  }
  ml::DeployRecipe recipe;
  recipe.pruner = ml::parse_prune_method(a.pruner);
  recipe.k = a.k;
  recipe.norm = ml::parse_norm(a.norm);
  recipe.selector = a.selector;
  recipe.seed = a.seed;
  const std::string table = fmt::format(
      "Selectors trained with the deploy recipe ({}) on one device, served on another device's "
      "problems (those every dataset holds); % of the run-on device's oracle (geometric "
      "mean).\n\n{}",
      ml::recipe_arguments(recipe),
      ml::cross_device_markdown(ml::cross_device_table(datasets, recipe)));
  if (a.markdown.empty())
    fmt::print("{}", table);
  else
    write_text_file(a.markdown, table);
  return 0;
}

void cross_device_options(CLI::App& sub, CrossDeviceArgs& a) {
  sub.add_option("--data", a.data, "One device's dataset (repeatable: two or more)")->required();
  sub.add_option("--family", a.family, "Kernel family (needed when the data holds several)");
  sub.add_option("--pruner", a.pruner, "Recipe: pruner")->capture_default_str();
  sub.add_option("--k", a.k, "Recipe: configs shipped")->capture_default_str();
  sub.add_option("--norm", a.norm, "Recipe: normalization")->capture_default_str();
  sub.add_option("--selector", a.selector, "Recipe: tree selector")->capture_default_str();
  sub.add_option("--seed", a.seed, "Recipe: seed")->capture_default_str();
  sub.add_option("--markdown", a.markdown, "Write the table here (default: stdout)");
}

const bool verb_cross_device_registered =
    add_verb("cross-device", "Score selectors trained on one device on another device's oracle",
             cross_device_options, run_cross_device);

}  // namespace
}  // namespace ktune::cli
