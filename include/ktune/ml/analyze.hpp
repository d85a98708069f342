#pragma once
// A first look at a dataset: how many directions its normalized performance really has (PCA),
// how many configs are best somewhere, and how much choosing well matters per problem.
#include <Eigen/Dense>
#include <string>
#include <utility>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/normalize.hpp"

namespace ktune::ml {

struct ProblemSpread {
  std::string problem;
  std::string best_config;
  double best_perf = 0;
  double worst_perf = 0;  // worst *valid* perf
  double spread = 0;      // best / worst valid
  int valid_configs = 0;
};

struct AnalysisReport {
  std::string family, device;
  Norm norm = Norm::scale;
  Eigen::Index problems = 0, configs = 0;
  double valid_fraction = 0;          // ok cells / measured cells
  Eigen::Index unmeasured_cells = 0;  // left out of every figure below but the PCA, which
                                      // sees them imputed (normalize.hpp)

  Eigen::VectorXd cumulative_variance;  // PCA of the normalized matrix, all components
  int components_80 = 0, components_90 = 0, components_95 = 0;

  int distinct_best = 0;                                 // configs that are best on some problem
  std::vector<std::pair<std::string, int>> best_counts;  // those configs, most wins first

  std::string best_single_config;  // the fixed config with the best geomean of scaled perf
  double best_single_geomean = 0;  // its geomean of perf / oracle

  std::vector<ProblemSpread> spread;  // per problem, dataset order
  double median_spread = 0, max_spread = 0;
};

AnalysisReport analyze(const Dataset& data, Norm norm);
std::string to_markdown(const AnalysisReport& report, size_t top = 10);
// Long format "section,name,value": summary, pca, best_count and problem rows.
void write_csv(const AnalysisReport& report, const std::string& path);

}  // namespace ktune::ml
