#pragma once
// Pruners pick the K configurations to ship from a training dataset.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/normalize.hpp"

namespace ktune::ml {

// The closed set of pruners; parsed once at the edge (CLI, JSON) by parse_prune_method.
enum class PruneMethod { topn, kmeans, pca_kmeans, spectral, hdbscan, tree, cover };
PruneMethod parse_prune_method(const std::string& text);  // Error listing the known names
std::string to_string(PruneMethod method);
std::vector<PruneMethod> prune_methods();  // every method, in pruner_names() order

struct PruneOptions {
  PruneMethod method = PruneMethod::topn;
  int k = 8;
  Norm norm = Norm::scale;
  uint64_t seed = 0;
};

// topn, kmeans, pca-kmeans, spectral, hdbscan, tree, cover
std::vector<std::string> pruner_names();

// Returns exactly k distinct column indices of train. Throws ktune::Error for k < 1, or k larger
// than the number of configs with any valid entry. Unmeasured cells: the clustering pruners
// (kmeans, pca-kmeans, spectral, hdbscan, tree) see them imputed as normalize() does; topn and
// the geomean fill-up leave them out (geomean_scaled); a config is a candidate only when it is
// ok on some training problem.
// cover: greedy set cover of the problems by quality. Each step adds the config that most raises
// sum over problems of w · log(best picked ratio), ratio = perf / the problem's oracle (invalid
// and unmeasured cells serve nothing; floor kInvalidRatio), the weights w making every size
// class (size_classes) weigh the same; so it maximizes the stratified geomean ceiling on the
// training problems, and no class of sizes is left without a config. Ignores the norm option.
std::vector<Eigen::Index> prune(const Dataset& train, const PruneOptions& options);

// Per row, its size class for the cover pruner: floor(log10(work)) (decades of the family's
// work per problem, Dataset::work); all 0 when the dataset has no work column.
std::vector<int> size_classes(const Dataset& data);

// Candidate score shared by the pruners: per config, the geometric mean over rows of the scaled
// perf (perf / best of the row), an invalid entry counting as kInvalidRatio; unmeasured entries
// are left out (the mean runs over the rows the config was measured on; 0 if none).
Eigen::VectorXd geomean_scaled(const Dataset& data, const std::vector<Eigen::Index>& rows = {});

// Ceiling of a set of configs: geometric mean over rows of max over the picked configs of
// perf / oracle perf (0 for a row where none of them is valid, then the geomean uses
// kInvalidRatio). A row where none is ok and some picked config is unmeasured is left out
// (unknown); NaN when every row is.
double ceiling(const Dataset& data, const std::vector<Eigen::Index>& picked);

}  // namespace ktune::ml
