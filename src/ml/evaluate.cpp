// Splits, the scoring rule and the per-selector metrics (see evaluate.hpp).
#include "ktune/ml/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/prune.hpp"

namespace ktune::ml {
namespace {

double best_valid(const Dataset& d, Eigen::Index r) {
  double best = 0;
  for (Eigen::Index c = 0; c < d.cols(); ++c) {
    if (d.valid(r, c) && d.perf(r, c) > best) best = d.perf(r, c);
  }
  return best;
}

}  // namespace

Split random_split(const Dataset& data, double test_fraction, uint64_t seed) {
  const Eigen::Index n = data.rows();
  if (n == 0) throw Error("eval: cannot split an empty dataset");
  if (!(test_fraction >= 0 && test_fraction < 1)) {
    throw Error("eval: test fraction must be in [0, 1)");
  }
  std::vector<Eigen::Index> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(idx.begin(), idx.end(), rng);
  auto n_test = static_cast<Eigen::Index>(std::llround(test_fraction * static_cast<double>(n)));
  if (n >= 2)
    n_test = std::clamp<Eigen::Index>(n_test, 1, n - 1);
  else
    n_test = 0;
  Split s;
  s.name = "random";
  s.test.assign(idx.begin(), idx.begin() + n_test);
  s.train.assign(idx.begin() + n_test, idx.end());
  std::sort(s.test.begin(), s.test.end());
  std::sort(s.train.begin(), s.train.end());
  return s;
}

std::vector<Split> network_splits(const Dataset& data) {
  std::set<std::string> names;
  for (const auto& groups : data.problem_groups) names.insert(groups.begin(), groups.end());
  std::vector<Split> splits;
  for (const auto& name : names) {
    Split s;
    s.name = "network:" + name;
    for (Eigen::Index r = 0; r < data.rows(); ++r) {
      const auto& g = r < static_cast<Eigen::Index>(data.problem_groups.size())
                          ? data.problem_groups[r]
                          : std::vector<std::string>{};
      (std::find(g.begin(), g.end(), name) != g.end() ? s.test : s.train).push_back(r);
    }
    if (!s.train.empty() && !s.test.empty()) splits.push_back(std::move(s));
  }
  return splits;
}

double oracle_ratio(const Dataset& data, Eigen::Index row, Eigen::Index col) {
  const double oracle = best_valid(data, row);
  if (oracle <= 0 || !data.valid(row, col)) return 0.0;
  return data.perf(row, col) / oracle;
}

double pct_of_oracle(const std::vector<double>& ratios) {
  if (ratios.empty()) return std::numeric_limits<double>::quiet_NaN();
  double log_sum = 0;
  for (double r : ratios) log_sum += std::log(std::max(r, kInvalidRatio));
  return 100.0 * std::exp(log_sum / static_cast<double>(ratios.size()));
}

double ceiling_pct(const Dataset& test, const std::vector<Eigen::Index>& shipped) {
  std::vector<double> ratios;
  for (Eigen::Index r = 0; r < test.rows(); ++r) {
    const double oracle = best_valid(test, r);
    if (oracle <= 0) continue;
    double best = 0;
    for (Eigen::Index c : shipped) {
      if (test.valid(r, c)) best = std::max(best, test.perf(r, c));
    }
    ratios.push_back(best / oracle);
  }
  return pct_of_oracle(ratios);
}

std::vector<Eigen::Index> safe_order(const Dataset& train) {
  const Eigen::Index C = train.cols();
  std::vector<int> count(C, 0), measured(C, 0);
  std::vector<double> log_sum(C, 0.0);
  for (Eigen::Index r = 0; r < train.rows(); ++r) {
    const double oracle = best_valid(train, r);
    for (Eigen::Index c = 0; c < C; ++c) {
      if (!train.is_measured(r, c)) continue;
      const bool ok = train.valid(r, c) && oracle > 0 && train.perf(r, c) > 0;
      count[c] += train.valid(r, c) ? 1 : 0;
      ++measured[c];
      log_sum[c] +=
          std::log(ok ? std::max(train.perf(r, c) / oracle, kInvalidRatio) : kInvalidRatio);
    }
  }
  std::vector<Eigen::Index> order(C);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return safer(count[a], measured[a], log_sum[a], count[b], measured[b], log_sum[b]);
  });
  return order;
}

std::vector<Eigen::Index> fixed_config_order(const Dataset& train) {
  std::vector<Eigen::Index> order = safe_order(train);
  if (order.empty()) return order;
  const Eigen::VectorXd score = geomean_scaled(train);
  Eigen::Index best = -1;
  for (Eigen::Index c = 0; c < train.cols(); ++c) {
    if (train.valid.col(c).any() && (best < 0 || score(c) > score(best))) best = c;
  }
  if (best >= 0) {
    order.erase(std::find(order.begin(), order.end(), best));
    order.insert(order.begin(), best);
  }
  return order;
}

Metrics evaluate_selector(const Selector& selector, const Dataset& test,
                          const std::vector<Eigen::Index>& shipped,
                          const std::vector<Eigen::Index>& fixed_order) {
  if (shipped.size() != selector.config_names().size()) {
    throw Error("eval: the shipped list and the selector's configs differ in size");
  }
  std::vector<Outcome> outcomes;
  for (Eigen::Index r = 0; r < test.rows(); ++r) {
    std::vector<bool> valid(shipped.size());
    for (size_t k = 0; k < shipped.size(); ++k) valid[k] = test.valid(r, shipped[k]);
    Outcome o;
    o.row = r;
    const auto t0 = std::chrono::steady_clock::now();
    const Choice choice = selector.choose(test.features.row(r), valid);
    o.ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    o.pick = shipped[size_t(choice.pick)];
    o.served = shipped[size_t(choice.served)];
    // The fixed config, or the first valid config along its fallback order.
    o.reference = fixed_order.empty() ? o.served : fixed_order.front();
    for (Eigen::Index c : fixed_order) {
      if (test.valid(r, c)) {
        o.reference = c;
        break;
      }
    }
    o.expert = o.reference;
    outcomes.push_back(o);
  }
  return score(test, outcomes, shipped);
}

}  // namespace ktune::ml
