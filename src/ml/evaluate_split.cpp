// Pluggable splits into folds (see evaluate.hpp): k-fold, and leave-one-out or train-on-one
// over keys that come from the data (problem features, devices), never from a family's name.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "ktune/error.hpp"
#include "ktune/ml/evaluate.hpp"

namespace ktune::ml {

Eigen::Index require_feature(const Dataset& d, const std::string& name, const std::string& what) {
  const auto it = std::find(d.feature_names.begin(), d.feature_names.end(), name);
  if (it == d.feature_names.end()) {
    throw Error(
        fmt::format("{} needs the problem feature '{}', which the data lacks (features: {})", what,
                    name, fmt::join(d.feature_names, ", ")));
  }
  return Eigen::Index(it - d.feature_names.begin());
}

std::vector<std::vector<double>> feature_values(const Dataset& data,
                                                const std::vector<std::string>& features,
                                                const std::string& what) {
  std::vector<Eigen::Index> cols;
  for (const auto& f : features) cols.push_back(require_feature(data, f, what));
  std::vector<std::vector<double>> keys(size_t(data.rows()));
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    for (Eigen::Index c : cols) keys[size_t(r)].push_back(data.features(r, c));
  }
  return keys;
}

SplitFolds kfold_splits(const Dataset& data, int k, uint64_t seed) {
  const Eigen::Index n = data.rows();
  if (n < 2) throw Error("split cv: needs at least 2 problems");
  if (k < 2) throw Error("split cv: needs at least 2 folds");
  k = int(std::min<Eigen::Index>(k, n));
  std::vector<Eigen::Index> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(idx.begin(), idx.end(), rng);
  SplitFolds s;
  s.name = "cv" + std::to_string(k);
  for (int f = 0; f < k; ++f) {
    Split fold;
    fold.name = s.name + ":" + std::to_string(f);
    for (size_t i = 0; i < idx.size(); ++i) {
      (int(i % size_t(k)) == f ? fold.test : fold.train).push_back(idx[i]);
    }
    std::sort(fold.test.begin(), fold.test.end());
    std::sort(fold.train.begin(), fold.train.end());
    s.folds.push_back(std::move(fold));
  }
  return s;
}

SplitFolds leave_one_value_out(const std::string& name,
                               const std::vector<std::vector<double>>& keys,
                               const std::vector<std::string>& labels,
                               const std::vector<double>* never_held_out) {
  if (labels.size() != keys.size()) {
    throw Error(fmt::format("split {}: {} labels for {} rows", name, labels.size(), keys.size()));
  }
  std::map<std::vector<double>, std::string> groups;  // key order: numeric, as the keys
  for (size_t r = 0; r < keys.size(); ++r) {
    if (!never_held_out || keys[r] != *never_held_out) groups.emplace(keys[r], labels[r]);
  }
  SplitFolds s;
  s.name = name;
  for (const auto& [key, label] : groups) {
    Split fold;
    fold.name = name + ":" + label;
    for (size_t r = 0; r < keys.size(); ++r)
      (keys[r] == key ? fold.test : fold.train).push_back(Eigen::Index(r));
    if (!fold.train.empty()) s.folds.push_back(std::move(fold));
  }
  if (s.folds.empty()) {
    throw Error(fmt::format("split {}: needs at least two groups to leave one out", name));
  }
  return s;
}

SplitFolds train_on_value(const std::string& name, const std::vector<std::vector<double>>& keys,
                          const std::vector<double>& train_key) {
  Split fold;
  fold.name = name;
  for (size_t r = 0; r < keys.size(); ++r) {
    (keys[r] == train_key ? fold.train : fold.test).push_back(Eigen::Index(r));
  }
  if (fold.train.empty() || fold.test.empty()) {
    throw Error(fmt::format(
        "split {}: needs problems on both sides; found {} to train on (key {}) and {} to test",
        name, fold.train.size(), fmt::join(train_key, "x"), fold.test.size()));
  }
  return {name, {std::move(fold)}};
}

}  // namespace ktune::ml
