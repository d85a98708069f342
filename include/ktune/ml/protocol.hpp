#pragma once
// Per-problem selection over every config, on one or several devices: the second protocol of
// the one evaluation stack (evaluate.hpp holds the first, pruner × selector over K shipped
// configs, and what both share: the scoring rule and its floor, the safe order, the splits). It
// knows no family: what its splits group by comes from the data (problem features, devices);
// `ktune eval --protocol stencil` (apps/ktune/verb_stencil_eval.cpp) is this protocol with the
// splits, expert config and reference figures of the stencil seed paper (Cummins et al.).
//
// Data: one Dataset per device, merged into one problem set whose rows are (device, problem),
// keys "<device>/<problem key>", features = the problem features followed by the device's
// hardware features ("device_<name>"; only those every device has). Columns are the union of
// the devices' configs; a config a device never measured is an unmeasured cell there
// (dataset.hpp), which the protocol treats as a refused one (evaluate.hpp's rule): a pick there
// is served by the fallback, and it is never a baseline or an oracle.
//
// Splits: any SplitFolds (evaluate.hpp) over the merged rows, plus leave_one_device_out below.
// Every split's folds are pooled: each test problem is predicted once per fold it is held out in.
//
// Methods, each trained on the fold's training problems with every config as a candidate:
//  - classifier × fallback: the Selector of that name (label = the oracle config); when its pick
//    is not valid on the problem, the fallback (baseline / random / nearest) serves instead;
//  - reg-runtime, reg-speedup: the Selector regressors' scores rank every config; the served one
//    is the best-ranked valid config (refused ones are dropped as it goes; fallback "next-best");
//  - fixed: the baseline (see below) and the expert config, for reference; fallback "safe-order".
//
// Metrics per (split, method, model, fallback), over the pooled test problems: the one metrics
// set (metrics.hpp) with the baseline as its reference; the ones the protocol reports:
//  pct_of_oracle   100 × geomean(perf(served) / perf(oracle)); a problem where nothing could be
//                  served counts as kInvalidRatio (as in evaluate.hpp)
//  speedup vs baseline: ratio(served) / ratio(baseline) per problem (ratios to the oracle,
//                  floored as metrics.hpp says); median and arithmetic mean.
//                  baseline = the head of safe_order(train) (valid on the largest share of the
//                  training problems, then best geomean of perf/oracle): the best fixed config
//                  valid everywhere in training when one exists (the seed paper's baseline). On a
//                  test problem where it is not valid, the next valid config along that order
//                  stands in.
//  speedup vs expert: median of ratio(served) / ratio(expert); where the expert config is missing
//  or
//                  not valid on a problem, the first valid config along the same safe order
//                  stands in (counted in expert_substituted), as the baseline does.
//  accuracy        fraction whose pick (before any fallback) is the oracle config
//  validity        fraction whose pick is valid (ok) on the problem
//  refused_rate    fraction whose pick is not valid (refused, failed, unmeasured): fallback used
//  predict_ns      mean wall time of one prediction including the fallback (after one untimed
//                  warm-up call; folds run in parallel, so use threads = 1 for clean timings)
#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/metrics.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {

// One device's slice with what the protocol needs beyond the Dataset.
struct DeviceData {
  Dataset data;
  std::vector<std::pair<std::string, double>> device_features;  // may be empty
};

// Every device of `family` in a store (.sqlite/.db), CSV export or T4 file; device empty = all
// devices present. Device features come from the store's device table (CSV and T4 carry none).
std::vector<DeviceData> load_device_data(const std::string& path, const std::string& device = "",
                                         const std::string& family = "");

struct MergedData {
  Dataset data;
  std::vector<std::string> devices;  // slugs, in input order
  std::vector<int> device_of;        // per row: index into devices
};

// Throws Error when the parts disagree on the family or the problem feature names, or when a
// device appears twice.
MergedData merge_devices(const std::vector<DeviceData>& parts);

// Leave one device out, folds named "device:<slug>"; an Error with fewer than 2 devices.
SplitFolds leave_one_device_out(const MergedData& d);

struct ProtocolOptions {
  int folds = 10;  // for the splits a caller builds with kfold_splits
  uint64_t seed = 0;
  std::vector<std::string> classifiers{"tree-a", "forest", "naive-bayes", "logreg", "svm-rbf"};
  std::vector<Fallback> fallbacks{Fallback::baseline, Fallback::random, Fallback::nearest};
  std::vector<std::string> regressors{"reg-runtime", "reg-speedup"};
  std::string expert;  // a config name, or the value of its single param ("wg=32x4"); "" = none
  int threads = 0;     // 0 = OpenMP default
  // Called after each (fold, method) task with (tasks done, tasks in all); from worker threads,
  // one call at a time. Empty = silent.
  std::function<void(size_t, size_t)> progress;
};

// One (split, method, model, fallback) of the result, scored over its pooled test problems.
struct ProtocolRow {
  std::string split, method, model, fallback;
  Metrics metrics;  // reference = the baseline
};

struct ProtocolResult {
  std::string family;
  std::vector<std::string> devices;
  Eigen::Index problems = 0, configs = 0;
  std::string expert_config;  // the matched column name ("" when absent everywhere)
  std::vector<std::pair<std::string, int>> split_folds;         // split → number of folds
  std::vector<std::pair<std::string, int>> expert_substituted;  // split → test problems
  std::vector<std::string> notes;
  std::vector<ProtocolRow> rows;
  double seconds = 0;
};

// The served config for a ranking of candidates (best first): the first valid one, or the head
// when none is valid.
Eigen::Index first_valid(const MergedData& d, Eigen::Index row,
                         const std::vector<Eigen::Index>& ranking);

// Runs every method on every fold of `splits` (in that order). Throws Error for fewer than 2
// problems, no split, or an unknown selector name.
ProtocolResult evaluate_protocol(const MergedData& data, const std::vector<SplitFolds>& splits,
                                 const ProtocolOptions& options);

}  // namespace ktune::ml
