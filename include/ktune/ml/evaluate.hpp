#pragma once
// Evaluation of pruners and selectors on held-out problems.
//
// Scoring rule (shared by every number here): a held-out problem scores
//   ratio = perf(served config) / perf(oracle),  oracle = the best valid config of the WHOLE
//   space for that problem; served = the selector's pick, or its fallback when the problem
//   refuses the pick (classifiers use their configured fallback, baseline by default).
// A ratio of 0 (no shipped config valid on the problem) counts as 1e-3 ("a thousand times
// slower"), the same floor as ktune::ml::ceiling, so one unservable problem cannot zero a
// geometric mean. % of oracle = 100 × geometric mean of the ratios. The ceiling of a shipped set
// is the % of oracle of a perfect selector (the best shipped config on each problem).
// Held-out problems whose whole-space oracle is 0 (no valid config at all) are left out.
// Unmeasured cells (dataset.hpp) score as invalid ones here: the oracle is the best measured ok
// config, an unmeasured pick is treated as refused (its fallback serves a measured ok config),
// and an unmeasured shipped config adds nothing to a ceiling; so every scored ratio is a
// measured one. The training side (safe order, fixed config, pruners, selectors) leaves
// unmeasured cells out as stated in selector.hpp and prune.hpp.
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/metrics.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {

struct Split {
  std::string name;  // "random", "network:<name>", or "<split>:<fold>"
  std::vector<Eigen::Index> train, test;
};

// A named split made of folds; each held-out problem is scored once per fold that tests it and
// the folds' scores are pooled (protocol.hpp). Every split below is data-driven: groups come from
// the problems' tags or features, never from knowing a family.
struct SplitFolds {
  std::string name;
  std::vector<Split> folds;
};

// Seeded k-fold partition, named "cv<k>" (k clamped to the number of rows; an Error below 2 rows
// or 2 folds).
SplitFolds kfold_splits(const Dataset& data, int k, uint64_t seed);
// Per row, the values of the named problem features (an Error naming `what`, the missing feature
// and the features present when one is absent).
std::vector<std::vector<double>> feature_values(const Dataset& data,
                                                const std::vector<std::string>& features,
                                                const std::string& what);
// Leave-one-value-out over per-row keys (e.g. feature_values): one fold per distinct key (in
// key order), named "<name>:<label of the key>"; rows whose key is `never_held_out` always train.
// An Error when fewer than two groups leave a fold with training rows.
SplitFolds leave_one_value_out(const std::string& name,
                               const std::vector<std::vector<double>>& keys,
                               const std::vector<std::string>& labels,
                               const std::vector<double>* never_held_out = nullptr);
// One fold: train on the rows whose key is `train_key`, test on the others (an Error naming the
// split when a side is empty).
SplitFolds train_on_value(const std::string& name, const std::vector<std::vector<double>>& keys,
                          const std::vector<double>& train_key);
// Index of a feature by name, or an Error naming `what` and listing the features present.
Eigen::Index require_feature(const Dataset& d, const std::string& name, const std::string& what);

// Seeded shuffle of the problems; round(test_fraction × rows) of them (at least one when there
// are two or more rows) are held out. Throws Error on an empty dataset.
Split random_split(const Dataset& data, double test_fraction = 0.2, uint64_t seed = 0);
// Leave-one-network-out: one split per network named in problem_groups; a problem that belongs
// to the held-out network is in test (even if other networks also use it), all others train.
// Empty when no problem carries a group.
std::vector<Split> network_splits(const Dataset& data);

// Per-problem ratio as described above, and the shared geomean.
double oracle_ratio(const Dataset& data, Eigen::Index row, Eigen::Index col);
double pct_of_oracle(const std::vector<double>& ratios);  // 100 × geomean, floor 1e-3
double ceiling_pct(const Dataset& test, const std::vector<Eigen::Index>& shipped);

// Whole-space safe order: columns by the share of the (measured) rows they are valid on, then by
// geomean of scaled perf (invalid = kInvalidRatio), as selector.hpp's safer(). Its head is "the
// safest config".
std::vector<Eigen::Index> safe_order(const Dataset& train);
// "The best single fixed config": the config with the best geometric mean of scaled perf over
// the training problems (geomean_scaled of prune.hpp, among configs ok somewhere), followed by
// safe_order(train) as its named fallback: on a held-out problem where it is not valid, the
// first valid config of that order stands in.
std::vector<Eigen::Index> fixed_config_order(const Dataset& train);

// Scores a fitted selector on every problem of `test` (metrics.hpp; the fixed config is the
// reference). fixed_order: fixed_config_order(train) (its first valid entry is the fixed config).
Metrics evaluate_selector(const Selector& selector, const Dataset& test,
                          const std::vector<Eigen::Index>& shipped,
                          const std::vector<Eigen::Index>& fixed_order);

struct EvalOptions {
  bool random_split = true, network_splits = true;
  // More splits, run after the built-in ones (e.g. leave-one-workload-out, built by the caller
  // from the problems' workloads: verb_eval.cpp's --split workload).
  std::vector<Split> splits;
  double test_fraction = 0.2;
  uint64_t seed = 0;
  std::vector<Norm> norms{Norm::scale, Norm::cutoff, Norm::rawcutoff, Norm::sigmoid};
  std::vector<PruneMethod> pruners;    // empty = all (prune_methods())
  std::vector<std::string> selectors;  // empty = selector_names()
  std::vector<int> ceiling_ks{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  std::vector<int> selector_ks{5, 6, 8, 15};
  Fallback fallback = Fallback::baseline;
  UnsureRule unsure{};  // every selector's unsure rule (selector.hpp); off by default
  int threads = 0;      // 0 = OpenMP default
  // Called after each (split, norm, pruner, K) cell with (cells done, cells in all); from worker
  // threads, one call at a time. Empty = silent.
  std::function<void(size_t, size_t)> progress;
};

// The small matrix of `ktune eval --quick`: random split, scale, topn/kmeans/tree, K 4..8
// ceilings, K 5 and 8 for tree-b, knn-3, forest, reg-speedup.
EvalOptions quick_eval_options();

struct EvalRow {
  std::string split, norm, pruner, selector;  // selector empty: a pruner-ceiling row
  int k = 0;
  bool ok = true;    // false: the cell could not be computed (see note)
  std::string note;  // the Error message when !ok
  Metrics metrics;   // pct_of_oracle and ceiling_pct are the CSV columns
};

struct EvalResult {
  std::string family, device;
  Eigen::Index problems = 0, configs = 0;
  std::vector<std::string> split_names;
  std::vector<std::pair<std::string, std::pair<int, int>>> split_sizes;  // name → train, test
  std::vector<std::pair<std::string, double>> fixed_pct;  // split → fixed config % of oracle
  struct FixedConfig {
    std::string split, config, safest;  // the fixed config and its named fallback per split
  };
  std::vector<FixedConfig> fixed_configs;
  std::vector<EvalRow> rows;
  double seconds = 0;
};

// Runs the whole matrix. A cell that cannot be computed (e.g. K larger than the number of
// configs valid somewhere in the training set) becomes a row with ok = false and a note; it
// never aborts the run. Throws Error for fewer than 2 problems or when no split exists.
EvalResult evaluate(const Dataset& data, const EvalOptions& options);

// CSV with exactly: split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct (pct_of_oracle
// empty on ceiling rows; both empty on failed cells).
void write_csv(const EvalResult& r, std::ostream& out);
// Every metric per row: the columns above plus accuracy_oracle, accuracy_shipped, validity,
// refused_rate, unservable_rate, speedup_vs_fixed, predict_us, problems, note.
void write_metrics_csv(const EvalResult& r, std::ostream& out);
// Tables laid out like the seed paper: per split, the pruners' ceiling for each K (Table 1) and
// each selector's % of oracle for K in selector_ks (Table 2: best over pruner × norm, named), and
// the classic metrics at the largest selector K for the best-ceiling pruner/norm.
void write_markdown(const EvalResult& r, std::ostream& out);

}  // namespace ktune::ml
