#pragma once
// Offline evaluation of search strategies against a stored dataset (the simulation runner in
// memory: a "measurement" returns the dataset's cell). For each strategy and seed, one search
// runs to the largest budget; the result at a budget B is the prefix of B measurements per
// problem, which is exactly what a run with budget B measures (round sizes do not depend on the
// budget and a round cut short takes the head of the same ranking; a test checks this).
//
// Scores: % of the per-problem oracle = 100 × geomean over problems of (best perf found) /
// (best perf of the whole dataset row), a problem with nothing valid found counting as 1e-3;
// averaged over seeds. Downstream: the sampled dataset (measured cells, unmeasured ones filled
// with a forest's prediction fitted on those measured cells) goes through prune K + train
// selector on a seeded random split's training problems; the selector is scored on the held-out
// problems of the exhaustive dataset, beside the same pipeline trained on the exhaustive data.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/search_model.hpp"
#include "ktune/search.hpp"

namespace ktune::ml {

// All rows searched; a cell is a candidate when the dataset measured it (all cells for now).
SearchState search_state_from_dataset(const Dataset& data);

// Returns the dataset's cell: ok with its perf, or invalid.
class DatasetMeasurer final : public Measurer {
 public:
  explicit DatasetMeasurer(const Dataset& data) : data_(data) {}
  Measurement measure(Eigen::Index row, Eigen::Index col) override;

 private:
  const Dataset& data_;
};

// The dataset as a sampled run would have it after `budget` measurements per problem: the first
// `budget` measured cells of each row keep their value; the others are filled with the forest's
// prediction (fitted on the kept cells) and marked valid, or left invalid when impute is false.
Dataset sampled_dataset(const Dataset& data, const SearchState& run, int64_t budget, bool impute,
                        const ModelStrategyOptions& model);

struct SampledEvalOptions {
  std::vector<std::string> strategies{"random", "model"};
  std::vector<int64_t> budgets{1, 2, 4, 8, 16, 32, 43, 64, 87, 128, 256};
  int seeds = 3;
  std::vector<int64_t> selector_budgets{16, 43, 87};  // downstream pipeline at these budgets
  int k = 8;
  std::string pruner = "pca-kmeans";
  Norm norm = Norm::cutoff;
  std::string selector = "tree-b";
  double test_fraction = 0.2;
  uint64_t split_seed = 0;
  ModelStrategyOptions model;  // its seed is replaced by 0, 1, ... seeds - 1
};

struct SampledEvalRow {
  std::string strategy;
  int64_t budget = 0;  // measurements per problem
  int seeds = 0;
  double pct_of_oracle = 0;            // mean over seeds
  std::optional<double> selector_pct;  // mean over seeds, when the pipeline ran at this budget
  double seconds = 0;                  // search time per seed (to the largest budget)
};

struct SampledEvalResult {
  std::string family, device;
  Eigen::Index problems = 0, configs = 0;
  double exhaustive_selector_pct = 0;  // the pipeline trained on the exhaustive dataset
  std::vector<SampledEvalRow> rows;
  double seconds = 0;
};

SampledEvalResult evaluate_sampled(const Dataset& data, const SampledEvalOptions& options);

// strategy,budget_per_problem,seeds,pct_of_oracle,selector_pct_of_oracle (the exhaustive
// pipeline is the row strategy=exhaustive, budget = configs).
void write_sampled_csv(const SampledEvalResult& r, std::ostream& out);
void write_sampled_markdown(const SampledEvalResult& r, const SampledEvalOptions& o,
                            std::ostream& out);

}  // namespace ktune::ml
