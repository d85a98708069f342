// The forest-guided search strategy (see search_model.hpp).
#include "ktune/ml/search_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "ktune/error.hpp"

namespace ktune::ml {
namespace {

constexpr double kInvalidLog = -6.907755278982137;  // log(1e-3): the shared invalid floor

// log of each row's best ok perf; NaN for rows without one.
Eigen::VectorXd row_offsets(const SearchState& s) {
  Eigen::VectorXd out = Eigen::VectorXd::Constant(s.rows(), NAN);
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    double best = 0;
    for (Eigen::Index c : s.order[size_t(r)])
      if (s.cell(r, c) == cell::ok) best = std::max(best, s.perf(r, c));
    if (best > 0) out[r] = std::log(best);
  }
  return out;
}

// Sum and sum of squares of the trees' leaf values for x (no allocation per tree).
void forest_moments(const RandomForest& forest, const double* x, double& mean, double& spread) {
  double sum = 0, sq = 0;
  for (const auto& tree : forest.trees()) {
    const auto& nodes = tree.nodes();
    int n = 0;
    while (nodes[size_t(n)].feature >= 0) {
      const auto& node = nodes[size_t(n)];
      n = x[node.feature] <= node.threshold ? node.left : node.right;
    }
    const double v = nodes[size_t(n)].value[0];
    sum += v;
    sq += v * v;
  }
  const double t = double(forest.trees().size());
  mean = sum / t;
  spread = std::sqrt(std::max(0.0, sq / t - mean * mean));
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI); }

class ModelStrategy final : public SearchStrategy {
 public:
  explicit ModelStrategy(const ModelStrategyOptions& o) : o_(o) {
    if (o.initial < 1 || o.round_cap < 1 || o.n_trees < 1 || o.max_train_rows < 2 ||
        o.min_samples_leaf < 1 || !(o.max_features > 0 && o.max_features <= 1) ||
        !std::isfinite(o.kappa))
      throw Error(
          "model strategy: initial, round_cap, n_trees, min_samples_leaf >= 1, "
          "max_train_rows >= 2, max_features in (0, 1]");
  }
  std::string name() const override { return "model"; }
  int64_t round_size(int64_t measured) const override {
    if (measured < o_.initial) return o_.initial - measured;
    return std::clamp<int64_t>(measured, 1, o_.round_cap);
  }
  std::vector<std::vector<Eigen::Index>> propose(const SearchState& s,
                                                 const std::vector<Eigen::Index>& rows,
                                                 const std::vector<int64_t>& want) override {
    const int64_t total = int64_t((s.cell.array() != cell::unmeasured).count());
    SearchModel model;
    bool fitted = false, tried = false;
    const Eigen::VectorXd offset = row_offsets(s);
    std::vector<std::vector<Eigen::Index>> out;
    for (size_t i = 0; i < rows.size(); ++i) {
      const Eigen::Index r = rows[i];
      std::vector<Eigen::Index> open;
      for (Eigen::Index c = 0; c < s.cols(); ++c)
        if (s.candidate(r, c) && s.cell(r, c) == cell::unmeasured) open.push_back(c);
      if (!tried && s.measured(r) >= o_.initial && !std::isnan(offset[r])) {
        fitted = model.fit(s, o_, search_seed(o_.seed, "fit", uint64_t(total)));
        tried = true;
      }
      if (s.measured(r) < o_.initial || std::isnan(offset[r]) || !fitted) {
        // Random anchors (and the fallback while nothing ok is known): a permutation of the
        // open configs seeded by the problem key and its measured count, so a resumed run
        // draws the same.
        std::mt19937_64 rng(
            search_seed(o_.seed, s.problem_keys[size_t(r)], uint64_t(s.measured(r))));
        for (size_t k = open.size(); k > 1; --k) std::swap(open[k - 1], open[size_t(rng() % k)]);
        open.resize(std::min<size_t>(open.size(), size_t(want[i])));
        out.push_back(std::move(open));
        continue;
      }
      std::vector<std::pair<double, Eigen::Index>> scored;
      scored.reserve(open.size());
      for (Eigen::Index c : open) {
        double mean, spread;
        model.predict(s, r, c, mean, spread);
        scored.emplace_back(-acquire(mean, spread, offset[r]), c);
      }
      const size_t n = std::min<size_t>(scored.size(), size_t(want[i]));
      std::partial_sort(scored.begin(), scored.begin() + ptrdiff_t(n), scored.end());
      std::vector<Eigen::Index> picks;
      for (size_t k = 0; k < n; ++k) picks.push_back(scored[k].second);
      out.push_back(std::move(picks));
    }
    return out;
  }

 private:
  // best: log of the problem's best measured perf (the incumbent).
  double acquire(double mean, double spread, double best) const {
    switch (o_.acquisition) {
      case Acquisition::mean:
        return mean;
      case Acquisition::ucb:
        return mean + o_.kappa * spread;
      case Acquisition::ei:
        break;
    }
    const double d = mean - best;
    if (spread <= 1e-12) return std::max(d, 0.0) + 1e-9 * mean;  // tie-break by the mean
    const double z = d / spread;
    return d * normal_cdf(z) + spread * normal_pdf(z);
  }
  ModelStrategyOptions o_;
};

}  // namespace

Acquisition parse_acquisition(const std::string& text) {
  if (text == "ei") return Acquisition::ei;
  if (text == "ucb") return Acquisition::ucb;
  if (text == "mean") return Acquisition::mean;
  throw Error(fmt::format("unknown acquisition '{}' (ei, ucb, mean)", text));
}

void SearchModel::features(const SearchState& s, Eigen::Index row, Eigen::Index col,
                           double* out) const {
  size_t j = 0;
  for (Eigen::Index f = 0; f < s.problem_features.cols(); ++f)
    out[j++] = s.problem_features(row, f);
  for (Eigen::Index f = 0; f < s.config_features.cols(); ++f) out[j++] = s.config_features(col, f);
  if (kind_column_ >= 0)
    for (int k = 0; k < n_kinds_; ++k) out[j++] = s.config_features(col, kind_column_) == k;
  if (n_sources_ > 1)
    for (int k = 0; k < n_sources_; ++k) out[j++] = s.source[size_t(row)] == k;
}

bool SearchModel::fit(const SearchState& s, const ModelStrategyOptions& o, uint64_t seed) {
  forest_ = RandomForest{};
  const auto kind = std::find(s.config_feature_names.begin(), s.config_feature_names.end(), "kind");
  kind_column_ =
      kind == s.config_feature_names.end() ? -1 : int(kind - s.config_feature_names.begin());
  n_kinds_ = kind_column_ < 0 ? 0 : int(s.config_features.col(kind_column_).maxCoeff()) + 1;
  if (n_kinds_ < 2) kind_column_ = -1, n_kinds_ = 0;
  n_sources_ = s.source.empty() ? 1 : *std::max_element(s.source.begin(), s.source.end()) + 1;
  n_features_ = size_t(s.problem_features.cols() + s.config_features.cols() + n_kinds_ +
                       (n_sources_ > 1 ? n_sources_ : 0));

  const Eigen::VectorXd offset = row_offsets(s);
  std::vector<std::pair<Eigen::Index, Eigen::Index>> cells;
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    if (std::isnan(offset[r])) continue;  // nothing ok: no scale for an invalid cell
    for (Eigen::Index c : s.order[size_t(r)]) cells.emplace_back(r, c);
  }
  if (cells.empty()) return false;
  std::mt19937_64 rng(seed);
  if (cells.size() > size_t(o.max_train_rows)) {
    // The searched problems' own cells first (prior data can be a whole other sweep), then a
    // seeded uniform sample: a partial Fisher-Yates over each group in turn.
    std::stable_partition(cells.begin(), cells.end(),
                          [&](const auto& rc) { return bool(s.searched[size_t(rc.first)]); });
    const size_t own = size_t(std::count_if(cells.begin(), cells.end(), [&](const auto& rc) {
      return bool(s.searched[size_t(rc.first)]);
    }));
    auto sample = [&](size_t begin, size_t end, size_t n) {
      for (size_t k = begin; k < begin + n; ++k)
        std::swap(cells[k], cells[k + size_t(rng() % (end - k))]);
    };
    const size_t keep = size_t(o.max_train_rows);
    if (own >= keep) {
      sample(0, own, keep);
    } else {
      sample(own, cells.size(), keep - own);
    }
    cells.resize(keep);
  }
  Eigen::MatrixXd X(Eigen::Index(cells.size()), Eigen::Index(n_features_));
  Eigen::MatrixXd Y(Eigen::Index(cells.size()), 1);
  std::vector<double> x(n_features_);
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto [r, c] = cells[i];
    features(s, r, c, x.data());
    for (size_t j = 0; j < n_features_; ++j) X(Eigen::Index(i), Eigen::Index(j)) = x[j];
    Y(Eigen::Index(i), 0) =
        s.cell(r, c) == cell::ok ? std::log(s.perf(r, c)) : offset[r] + kInvalidLog;
  }
  ForestParams p;
  p.n_trees = o.n_trees;
  p.seed = rng();
  p.tree.min_samples_leaf = o.min_samples_leaf;
  p.tree.max_features = std::max(1, int(std::ceil(o.max_features * double(n_features_))));
  forest_.fit_regressor(X, Y, p);
  return true;
}

void SearchModel::predict(const SearchState& s, Eigen::Index row, Eigen::Index col, double& mean,
                          double& spread) const {
  double x[256];
  std::vector<double> big;
  double* px = x;
  if (n_features_ > 256) {
    big.resize(n_features_);
    px = big.data();
  }
  features(s, row, col, px);
  forest_moments(forest_, px, mean, spread);
}

std::unique_ptr<SearchStrategy> model_strategy(const ModelStrategyOptions& options) {
  return std::make_unique<ModelStrategy>(options);
}

std::vector<std::string> search_strategy_names() { return {"exhaustive", "random", "model"}; }

std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& name,
                                                     const ModelStrategyOptions& options) {
  if (name == "exhaustive") return exhaustive_strategy();
  if (name == "random") return random_strategy(options.seed);
  if (name == "model") return model_strategy(options);
  throw Error(fmt::format("unknown strategy '{}' (exhaustive, random, model)", name));
}

}  // namespace ktune::ml
