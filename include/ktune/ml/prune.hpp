#pragma once
// Pruners pick the K configurations to ship from a training dataset.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/normalize.hpp"

namespace ktune::ml {

struct PruneOptions {
  std::string method;
  int k = 8;
  Norm norm = Norm::scale;
  uint64_t seed = 0;
};

std::vector<std::string> pruner_names();  // topn, kmeans, pca-kmeans, spectral, hdbscan, tree

// Returns exactly k distinct column indices of train. Throws ktune::Error for unknown methods,
// k < 1, or k larger than the number of configs with any valid entry.
std::vector<Eigen::Index> prune(const Dataset& train, const PruneOptions& options);

// Candidate score shared by the pruners: per config, the geometric mean over rows of the scaled
// perf (perf / best of the row), an invalid entry counting as 1e-3 (a thousand times slower).
Eigen::VectorXd geomean_scaled(const Dataset& data, const std::vector<Eigen::Index>& rows = {});

// Ceiling of a set of configs: geometric mean over rows of max over the picked configs of
// perf / oracle perf (0 for a row where none of them is valid, then the geomean uses 1e-3).
double ceiling(const Dataset& data, const std::vector<Eigen::Index>& picked);

}  // namespace ktune::ml
