// ktune prune: pick K configs to ship from a dataset and report their ceiling.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apps/ktune/dataset_source.hpp"
#include "apps/ktune/verb.hpp"
#include "apps/ktune/verb_output.hpp"
#include "ktune/dataset.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/ml/prune.hpp"

namespace ktune::cli {
namespace {

struct PruneArgs {
  DatasetSource source;
  std::string method, norm = "scale", output;
  int k = 8;
  uint64_t seed = 0;
};

int run_prune(const PruneArgs& a) {
  ml::PruneOptions options;
  options.method = ml::parse_prune_method(a.method);
  options.k = a.k;
  options.norm = ml::parse_norm(a.norm);
  options.seed = a.seed;
  const Dataset data = a.source.load();
  const auto picks = ml::prune(data, options);
  std::string list;
  std::fprintf(stdout, "%s on %s/%s (%lld problems, %lld configs), norm %s:\n", a.method.c_str(),
               data.device.c_str(), data.family.c_str(), (long long)data.rows(),
               (long long)data.cols(), a.norm.c_str());
  for (auto c : picks) {
    const std::vector<Eigen::Index> one = {c};
    std::fprintf(stdout, "  %-40s alone %5.1f %% of oracle\n", data.config_names[size_t(c)].c_str(),
                 100 * ml::ceiling(data, one));
    list += data.config_names[size_t(c)] + "\n";
  }
  std::fprintf(stdout, "ceiling of the %d configs: %.1f %% of oracle (geometric mean)\n", a.k,
               100 * ml::ceiling(data, picks));
  if (!a.output.empty()) write_output(a.output, list);
  return 0;
}

void prune_options(CLI::App& sub, PruneArgs& a) {
  a.source.add_options(sub);
  sub.add_option("--method", a.method, "topn, kmeans, pca-kmeans, spectral, hdbscan, tree or cover")
      ->required();
  sub.add_option("--k", a.k, "Number of configs to ship")->capture_default_str();
  sub.add_option("--norm", a.norm, "Normalization: scale, cutoff, rawcutoff, sigmoid")
      ->capture_default_str();
  sub.add_option("--seed", a.seed, "Seed for the randomized methods")->capture_default_str();
  sub.add_option("-o,--output", a.output, "Write the picked configs here, one per line");
}

const bool verb_prune_registered =
    add_verb("prune", "Pick the K configs to ship from a dataset", prune_options, run_prune);

}  // namespace
}  // namespace ktune::cli
