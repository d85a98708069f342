#pragma once
// The model-guided search strategy: a random forest regresses log performance on problem
// features (raw and the family's derived ones), config params (numeric, plus a one-hot of the
// kind) and the data source (prior devices), fitted on every measured cell of the state (the
// searched problems, the device's other problems, imported devices). Each round it measures, per
// problem, the unmeasured configs with the best acquisition value over the trees' spread:
// expected improvement over the problem's best so far (default), an upper confidence bound, or
// the mean alone. A problem's first `initial` configs are drawn at random (seeded by the problem
// key), so every problem anchors the model. The target is log perf (an invalid cell: 1000 times
// slower than the problem's best measured).
// Everything depends only on the state and the seed, so a resumed run proposes as a fresh one
// would from the same store.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ktune/ml/forest.hpp"
#include "ktune/search.hpp"

namespace ktune::ml {

enum class Acquisition { ei, ucb, mean };
Acquisition parse_acquisition(const std::string& text);  // ei, ucb, mean; throws Error

struct ModelStrategyOptions {
  uint64_t seed = 0;
  int initial = 1;            // random configs per problem before the model guides it
  int round_cap = 8;          // round size doubles with a problem's measured count, up to this
  int n_trees = 16;           // small forests: a refit per round must stay cheap on 2 cores
  int max_train_rows = 6000;  // measured cells subsampled (seeded) to at most this many
  int min_samples_leaf = 2;
  double max_features = 0.5;  // fraction of the features drawn per node
  Acquisition acquisition = Acquisition::ei;
  double kappa = 1.0;  // UCB: mean + kappa × spread
};

// A forest over the state's measured cells predicting log perf (an invalid cell counts as 1000
// times slower than its problem's best measured perf).
class SearchModel {
 public:
  // Fits on the measured cells; false (and no model) when nothing ok was measured yet.
  bool fit(const SearchState& state, const ModelStrategyOptions& options, uint64_t seed);
  bool fitted() const { return !forest_.trees().empty(); }
  // Mean and standard deviation over the trees of the predicted log perf of a cell.
  void predict(const SearchState& state, Eigen::Index row, Eigen::Index col, double& mean,
               double& spread) const;
  size_t n_features() const { return n_features_; }

 private:
  void features(const SearchState& state, Eigen::Index row, Eigen::Index col, double* out) const;
  RandomForest forest_;
  size_t n_features_ = 0;
  int kind_column_ = -1, n_kinds_ = 0, n_sources_ = 1;
};

std::unique_ptr<SearchStrategy> model_strategy(const ModelStrategyOptions& options);

// exhaustive, random, model.
std::vector<std::string> search_strategy_names();
std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& name,
                                                     const ModelStrategyOptions& options = {});

}  // namespace ktune::ml
