// The Selector base (see selector.hpp): training-set preparation (labels, safe order, config
// features), the fallbacks, and the JSON envelope around each concrete model.
#include "ktune/ml/selector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include "ktune/enum_names.hpp"
#include "ktune/error.hpp"
#include "ktune/vendor_candidates.hpp"
#include "src/ml/argmax.hpp"
#include "src/ml/json_fields.hpp"

namespace ktune::ml {
namespace {

bool all_finite(const Eigen::Ref<const Eigen::RowVectorXd>& x) { return x.allFinite(); }

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Shipped-config features for `nearest` and the regressors: the numeric config params
// standardized over the shipped configs, or a one-hot of the shipped index when there are none.
Eigen::MatrixXd shipped_config_features(const Dataset& train,
                                        const std::vector<Eigen::Index>& shipped) {
  const auto K = static_cast<Eigen::Index>(shipped.size());
  const bool have_params = train.config_params.rows() == train.cols() &&
                           train.config_params.cols() > 0 && train.config_params.allFinite();
  if (!have_params) return Eigen::MatrixXd::Identity(K, K);
  Eigen::MatrixXd P(K, train.config_params.cols());
  for (Eigen::Index k = 0; k < K; ++k) P.row(k) = train.config_params.row(shipped[k]);
  StandardScaler s;
  s.fit(P);
  return s.transform(P);
}

// Per shipped config over the given training rows, leaving unmeasured cells out: rows where it
// was valid, rows where it was measured, and the sum of log(perf / oracle) with an invalid cell
// at kInvalidRatio. The safe order and the best-geomean picks (unsure rule) both rank by these.
struct ConfigLogSums {
  std::vector<int> valid, measured;
  std::vector<double> log_sum;
};

ConfigLogSums config_log_sums(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows) {
  const auto K = static_cast<size_t>(d.perf.cols());
  ConfigLogSums sums{std::vector<int>(K, 0), std::vector<int>(K, 0), std::vector<double>(K, 0.0)};
  for (Eigen::Index i : rows) {
    for (Eigen::Index k = 0; k < d.perf.cols(); ++k) {
      if (!d.measured(i, k)) continue;
      const bool ok = d.valid(i, k) && d.oracle[i] > 0 && d.perf(i, k) > 0;
      sums.valid[size_t(k)] += d.valid(i, k) ? 1 : 0;
      ++sums.measured[size_t(k)];
      sums.log_sum[size_t(k)] += std::log(ok ? d.perf(i, k) / d.oracle[i] : kInvalidRatio);
    }
  }
  return sums;
}

// The config with the best geometric mean (mean log) over its measured rows: the first of equals,
// config 0 when none was measured.
int best_mean_log(const ConfigLogSums& sums) {
  int best = 0;
  double best_mean = -std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < sums.log_sum.size(); ++k) {
    const double mean = sums.measured[k] ? sums.log_sum[k] / sums.measured[k]
                                         : -std::numeric_limits<double>::infinity();
    if (mean > best_mean) {
      best_mean = mean;
      best = static_cast<int>(k);
    }
  }
  return best;
}

}  // namespace

bool safer(int valid_a, int measured_a, double log_sum_a, int valid_b, int measured_b,
           double log_sum_b) {
  if ((measured_a == 0) != (measured_b == 0)) return measured_b == 0;  // never measured: last
  // valid_a / measured_a vs valid_b / measured_b, exactly.
  const int64_t share_a = int64_t(valid_a) * measured_b, share_b = int64_t(valid_b) * measured_a;
  if (share_a != share_b) return share_a > share_b;
  if (measured_a == measured_b) return log_sum_a > log_sum_b;  // fully measured: plain sums
  return log_sum_a / measured_a > log_sum_b / measured_b;
}

namespace {
constexpr EnumName<Fallback> kFallbacks[] = {
    {Fallback::baseline, "baseline"}, {Fallback::random, "random"}, {Fallback::nearest, "nearest"}};
}  // namespace

Fallback parse_fallback(const std::string& text) {
  if (const auto f = enum_value(kFallbacks, text)) return *f;
  throw Error("unknown fallback '" + text + "' (expected " + enum_choices(kFallbacks) + ")");
}

std::string to_string(Fallback f) { return enum_name(kFallbacks, f, "baseline"); }

void Selector::fit(const Dataset& train, const std::vector<Eigen::Index>& shipped, Norm norm) {
  if (train.rows() == 0) throw Error("selector " + kind_ + ": the training set has no problems");
  if (shipped.empty()) throw Error("selector " + kind_ + ": no shipped configs given");
  if (train.features.rows() != train.rows()) {
    throw Error("selector " + kind_ + ": dataset features and perf disagree on the row count");
  }
  std::set<Eigen::Index> seen;
  for (Eigen::Index c : shipped) {
    if (c < 0 || c >= train.cols())
      throw Error("selector " + kind_ + ": shipped column out of range");
    if (!seen.insert(c).second) throw Error("selector " + kind_ + ": shipped configs repeat");
  }
  check_unsure_rule(train.feature_names);
  norm_ = norm;
  const auto K = static_cast<Eigen::Index>(shipped.size());
  config_names_.clear();
  for (Eigen::Index c : shipped) config_names_.push_back(train.config_names.at(c));
  feature_names_ = train.feature_names;
  if (static_cast<Eigen::Index>(feature_names_.size()) != train.features.cols()) {
    feature_names_.clear();
    for (Eigen::Index f = 0; f < train.features.cols(); ++f) {
      std::string name = "f";  // built in two steps: GCC 12 warns falsely on "f" + to_string
      name += std::to_string(f);
      feature_names_.push_back(std::move(name));
    }
  }

  std::vector<Eigen::Index> rows;
  for (Eigen::Index r = 0; r < train.rows(); ++r) {
    if (all_finite(train.features.row(r))) rows.push_back(r);
  }
  dropped_rows_ = static_cast<size_t>(train.rows()) - rows.size();
  if (rows.empty()) {
    throw Error("selector " + kind_ + ": every training problem has a NaN or infinite feature");
  }
  const Eigen::MatrixXd normalized = normalize(train, norm);
  const Eigen::VectorXd oracle_all = train.oracle_perf();

  SelectorTrainingSet data;
  const auto n = static_cast<Eigen::Index>(rows.size());
  data.X.resize(n, train.features.cols());
  data.perf.resize(n, K);
  data.valid.resize(n, K);
  data.measured.resize(n, K);
  data.oracle.resize(n);
  data.labels.assign(n, -1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index r = rows[i];
    data.X.row(i) = train.features.row(r);
    data.oracle[i] = oracle_all[r];
    int best = -1;
    for (Eigen::Index k = 0; k < K; ++k) {
      const Eigen::Index c = shipped[k];
      data.perf(i, k) = train.valid(r, c) ? train.perf(r, c) : 0.0;
      data.valid(i, k) = train.valid(r, c);
      data.measured(i, k) = train.is_measured(r, c);
      if (!data.valid(i, k)) continue;
      const bool better = best < 0 || normalized(r, c) > normalized(r, shipped[best]) ||
                          (normalized(r, c) == normalized(r, shipped[best]) &&
                           train.perf(r, c) > train.perf(r, shipped[best]));
      if (better) best = static_cast<int>(k);
    }
    data.labels[i] = best;
  }

  // Safe order: valid on the largest share of the training problems it was measured on first,
  // then by geomean of scaled perf over those problems (unmeasured cells are left out of both).
  std::vector<Eigen::Index> every_row(static_cast<size_t>(n));
  std::iota(every_row.begin(), every_row.end(), 0);
  const ConfigLogSums sums = config_log_sums(data, every_row);
  safe_order_.resize(K);
  std::iota(safe_order_.begin(), safe_order_.end(), 0);
  std::stable_sort(safe_order_.begin(), safe_order_.end(), [&](int a, int b) {
    return safer(sums.valid[a], sums.measured[a], sums.log_sum[a], sums.valid[b], sums.measured[b],
                 sums.log_sum[b]);
  });
  data.baseline = safe_order_.front();
  unsure_config_ = best_mean_log(sums);
  if (options_.unsure.vendor) {  // the best vendor call, when one is shipped
    ConfigLogSums vendors = sums;
    bool any = false;
    for (size_t k = 0; k < config_names_.size(); ++k) {
      if (is_vendor_config(config_names_[k]) && vendors.measured[k] > 0)
        any = true;
      else
        vendors.measured[k] = 0;  // best_mean_log skips it
    }
    if (any) unsure_config_ = best_mean_log(vendors);
  }
  feature_min_ = data.X.colwise().minCoeff().transpose();
  feature_max_ = data.X.colwise().maxCoeff().transpose();
  config_features_ = shipped_config_features(train, shipped);
  data.config_features = config_features_;
  fit_model(data);
}

Eigen::VectorXd Selector::scores(const Eigen::Ref<const Eigen::RowVectorXd>& features) const {
  if (config_names_.empty()) throw Error("selector " + kind_ + ": used before fit");
  if (features.size() != static_cast<Eigen::Index>(feature_names_.size())) {
    throw Error("selector " + kind_ + ": expected " + std::to_string(feature_names_.size()) +
                " features, got " + std::to_string(features.size()));
  }
  return model_scores(features);
}

int Selector::select(const Eigen::Ref<const Eigen::RowVectorXd>& features) const {
  if (config_names_.empty()) throw Error("selector " + kind_ + ": used before fit");
  if (!all_finite(features)) return baseline();
  const Eigen::VectorXd s = scores(features);
  if (s.size() != static_cast<Eigen::Index>(config_names_.size()))  // never an index past the end
    throw Error("selector " + kind_ + ": the model scores " + std::to_string(s.size()) +
                " configs, the selector ships " + std::to_string(config_names_.size()));
  if (outside_range(features) || outside_leaf(features)) return unsure_fallback(features);
  if (low_share(s)) return unsure_pick(features);
  return floor_pick(features, first_argmax(s));
}

int Selector::floor_pick(const Eigen::Ref<const Eigen::RowVectorXd>&, int pick) const {
  return pick;
}

bool Selector::outside_range(const Eigen::Ref<const Eigen::RowVectorXd>& features) const {
  if (!options_.unsure.range_guard) return false;
  for (Eigen::Index f = 0; f < features.size(); ++f) {
    if (guard_skips(size_t(f))) continue;
    if (features[f] < feature_min_[f] || features[f] > feature_max_[f]) return true;
  }
  return false;
}

bool Selector::guard_skips(size_t feature) const {
  const auto& skip = options_.unsure.range_guard_skip;
  return std::find(skip.begin(), skip.end(), feature_names_.at(feature)) != skip.end();
}

bool Selector::low_share(const Eigen::VectorXd& scores) const {
  const double min_share = options_.unsure.min_vote_share;
  if (min_share <= 0 || !scores_are_shares() || scores.size() == 0) return false;
  // The same expression as the generated code's, on the same doubles: the same decision.
  return scores.maxCoeff() / scores.sum() < min_share;
}

bool Selector::unsure(const Eigen::Ref<const Eigen::RowVectorXd>& features,
                      const Eigen::VectorXd& scores) const {
  return outside_range(features) || outside_leaf(features) || low_share(scores);
}

int Selector::unsure_pick(const Eigen::Ref<const Eigen::RowVectorXd>&) const {
  return unsure_config_;
}

int Selector::unsure_fallback(const Eigen::Ref<const Eigen::RowVectorXd>&) const {
  return unsure_config_;
}

int Selector::best_geomean(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows) {
  return best_mean_log(config_log_sums(d, rows));
}

int Selector::leaf_pick(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows,
                        int safe_config) const {
  const ConfigLogSums sums = config_log_sums(d, rows);
  const int best = best_mean_log(sums);
  const double margin = options_.unsure.leaf_margin;
  if (safe_config < 0) safe_config = unsure_config_;
  const auto safe = size_t(safe_config);
  if (margin <= 0 || best == safe_config || sums.measured[safe] == 0) return best;
  const double gain = sums.log_sum[size_t(best)] / sums.measured[size_t(best)] -
                      sums.log_sum[safe] / sums.measured[safe];
  return gain > std::log1p(margin) ? best : safe_config;
}

int Selector::best_vendor(const SelectorTrainingSet& d,
                          const std::vector<Eigen::Index>& rows) const {
  ConfigLogSums sums = config_log_sums(d, rows);
  const std::vector<std::string>& named = options_.unsure.floor_vendors;
  bool any = false;
  for (size_t k = 0; k < config_names_.size(); ++k) {
    const std::string& name = config_names_[k];
    const bool callable =
        is_vendor_config(name) &&
        (named.empty() || std::find(named.begin(), named.end(),
                                    name.substr(std::strlen(kVendorConfigPrefix))) != named.end());
    if (callable && sums.measured[k] > 0)
      any = true;
    else
      sums.measured[k] = 0;  // best_mean_log skips it
  }
  return any ? best_mean_log(sums) : unsure_config_;
}

int Selector::floored_pick(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows,
                           int pick) const {
  const double floor = options_.unsure.leaf_floor;
  if (floor <= 0 || rows.empty()) return pick;
  const Eigen::Index K = d.perf.cols();
  // The reference of a training problem is the fastest of the shipped vendor calls. Without a
  // shipped vendor it is the problem's best shipped config, and a config the problem refuses is
  // scored as what the deployed library serves instead (the first config of the safe order that
  // accepts it): a leaf's own kernels are then held to each training problem's best. Else a
  // config that two of a leaf's three problems refuse out-voted the config that served the third
  // at 2.6× its fallback (a CPU conv selector; docs/deploy.md).
  // The shipped vendor calls, those floor_vendors names only when `named_only`.
  const std::vector<std::string>& named = options_.unsure.floor_vendors;
  const auto vendor_calls = [&](bool named_only) {
    std::vector<Eigen::Index> calls;
    for (Eigen::Index k = 0; k < K; ++k) {
      const std::string& name = config_names_[size_t(k)];
      if (is_vendor_config(name) &&
          (!named_only || std::find(named.begin(), named.end(),
                                    name.substr(std::strlen(kVendorConfigPrefix))) != named.end()))
        calls.push_back(k);
    }
    return calls;
  };
  std::vector<Eigen::Index> references = vendor_calls(!named.empty());
  if (references.empty()) references = vendor_calls(false);  // none of the named ones shipped
  const bool own = references.empty();
  if (own)
    for (Eigen::Index k = 0; k < K; ++k) references.push_back(k);
  const auto served = [&](Eigen::Index i, Eigen::Index k) {
    if (d.valid(i, k)) return d.perf(i, k);
    if (own)
      for (int f : safe_order_)
        if (d.valid(i, f)) return d.measured(i, f) ? d.perf(i, f) : 0.0;
    return 0.0;
  };
  // Per config, its worst ratio to the reference over the rows where both were measured.
  std::vector<double> worst(size_t(K), std::numeric_limits<double>::infinity());
  std::vector<int> judged(size_t(K), 0);
  for (Eigen::Index i : rows) {
    double reference = 0;
    for (Eigen::Index v : references)
      if (d.measured(i, v)) reference = std::max(reference, served(i, v));
    if (!(reference > 0)) continue;  // no reference answer here: nothing to hold a pick to
    for (Eigen::Index k = 0; k < K; ++k) {
      if (!d.measured(i, k)) continue;
      const double perf = served(i, k);
      const double ratio = perf > 0 ? perf / reference : 0.0;
      worst[size_t(k)] = std::min(worst[size_t(k)], ratio);
      ++judged[size_t(k)];
    }
  }
  const auto passes = [&](size_t k) { return judged[k] > 0 && worst[k] >= floor; };
  if (judged[size_t(pick)] == 0 || passes(size_t(pick))) return pick;
  ConfigLogSums sums = config_log_sums(d, rows);
  bool any = false;
  for (size_t k = 0; k < size_t(K); ++k) {
    if (passes(k))
      any = true;
    else
      sums.measured[k] = 0;  // best_mean_log skips it
  }
  if (any) return best_mean_log(sums);
  int best = pick;  // none passes: the best worst case, the first of equals
  for (size_t k = 0; k < size_t(K); ++k)
    if (judged[k] > 0 && worst[k] > worst[size_t(best)]) best = static_cast<int>(k);
  return best;
}

int Selector::fall_back(int pick, const std::vector<bool>& valid,
                        const Eigen::Ref<const Eigen::RowVectorXd>& features) const {
  if (valid.size() != config_names_.size()) {
    throw Error("selector " + kind_ + ": validity mask has the wrong size");
  }
  std::vector<int> legal;
  for (int k : safe_order_) {
    if (valid[k]) legal.push_back(k);
  }
  if (legal.empty()) return pick;  // nothing to fall back to: the problem is not servable
  switch (options_.fallback) {
    case Fallback::baseline:
      return legal.front();
    case Fallback::random: {
      uint64_t h = splitmix(options_.seed);
      for (Eigen::Index f = 0; f < features.size(); ++f) {
        uint64_t bits = 0;
        const double v = features[f];
        std::memcpy(&bits, &v, sizeof bits);
        h = splitmix(h ^ bits);
      }
      std::sort(legal.begin(), legal.end());  // independent of the safe order
      return legal[h % legal.size()];
    }
    case Fallback::nearest: {
      int best = legal.front();
      double best_d = (config_features_.row(best) - config_features_.row(pick)).squaredNorm();
      for (int k : legal) {
        const double d = (config_features_.row(k) - config_features_.row(pick)).squaredNorm();
        if (d < best_d) {
          best_d = d;
          best = k;
        }
      }
      return best;
    }
  }
  return legal.front();
}

Choice Selector::choose(const Eigen::Ref<const Eigen::RowVectorXd>& features,
                        const std::vector<bool>& valid) const {
  if (valid.size() != config_names_.size()) {
    throw Error("selector " + kind_ + ": validity mask has the wrong size");
  }
  Choice c;
  c.pick = select(features);
  c.served = c.pick;
  if (!valid[c.pick]) {
    c.refused = true;
    c.served = fall_back(c.pick, valid, features);
  }
  return c;
}

nlohmann::json Selector::to_json() const {
  if (config_names_.empty()) throw Error("selector " + kind_ + ": cannot save before fit");
  nlohmann::json j = {
      {"format", "ktune-selector"},
      {"version", 1},
      {"kind", kind_},
      {"norm", to_string(norm_)},
      {"fallback", to_string(options_.fallback)},
      {"seed", options_.seed},
      {"configs", config_names_},
      {"feature_names", feature_names_},
      {"safe_order", safe_order_},
      {"config_features", ml::to_json(config_features_)},
      {"unsure",
       {{"config", unsure_config_},
        {"min_vote_share", options_.unsure.min_vote_share},
        {"range_guard", options_.unsure.range_guard},
        {"leaf_margin", options_.unsure.leaf_margin},
        {"vendor", options_.unsure.vendor},
        {"leaf_floor", options_.unsure.leaf_floor},
        {"range_guard_skip", options_.unsure.range_guard_skip},
        {"feature_min", std::vector<double>(feature_min_.begin(), feature_min_.end())},
        {"feature_max", std::vector<double>(feature_max_.begin(), feature_max_.end())}}},
      {"model", model_json()}};
  if (options_.unsure.leaf_box) j["unsure"]["leaf_box"] = true;  // older readers never see it
  if (options_.unsure.leaf_box_all) j["unsure"]["leaf_box_all"] = true;
  if (!options_.unsure.floor_vendors.empty())
    j["unsure"]["floor_vendors"] = options_.unsure.floor_vendors;
  if (options_.unsure.leaf_vendor) j["unsure"]["leaf_vendor"] = true;
  return j;
}

void Selector::check_model_shape(Eigen::Index features, Eigen::Index classes) const {
  const auto F = static_cast<Eigen::Index>(feature_names_.size());
  const auto K = static_cast<Eigen::Index>(config_names_.size());
  if (features != F || classes != K)
    throw Error(
        fmt::format("field 'model': the {} model takes {} features and scores {} configs; "
                    "the model lists {} feature_names and {} configs",
                    kind_, features, classes, F, K));
}

void Selector::check_unsure_rule(const std::vector<std::string>& features) const {
  const double share = options_.unsure.min_vote_share;
  if (!(share >= 0 && share <= 1))
    throw Error(fmt::format("selector {}: min_vote_share {} is not in [0, 1]", kind_, share));
  if (share > 0 && !scores_are_shares())
    throw Error("selector " + kind_ +
                ": min_vote_share needs a selector that votes (tree-*, forest, knn-*)");
  const double margin = options_.unsure.leaf_margin;
  if (!(margin >= 0 && margin < 1))
    throw Error(fmt::format("selector {}: leaf_margin {} is not in [0, 1)", kind_, margin));
  if (margin > 0 && share <= 0)
    throw Error("selector " + kind_ +
                ": leaf_margin needs min_vote_share (it picks for unsure leaves)");
  const double floor = options_.unsure.leaf_floor;
  if (!(floor >= 0 && floor < 1))
    throw Error(fmt::format("selector {}: leaf_floor {} is not in [0, 1)", kind_, floor));
  if (floor > 0 && !has_leaves())
    throw Error("selector " + kind_ + ": leaf_floor needs a selector with leaves (tree-*)");
  if (!options_.unsure.floor_vendors.empty() && !(floor > 0))
    throw Error("selector " + kind_ + ": floor_vendors needs leaf_floor");
  if (options_.unsure.leaf_vendor && !has_leaves())
    throw Error("selector " + kind_ + ": leaf_vendor needs a selector with leaves (tree-*)");
  if (options_.unsure.leaf_vendor && !options_.unsure.on())
    throw Error("selector " + kind_ +
                ": leaf_vendor needs min_vote_share, range_guard or leaf_box");
  if (options_.unsure.leaf_box && !has_leaves())
    throw Error("selector " + kind_ + ": leaf_box needs a selector with leaves (tree-*)");
  if (options_.unsure.leaf_box_all && !options_.unsure.leaf_box)
    throw Error("selector " + kind_ + ": leaf_box_all needs leaf_box");
  for (const auto& name : options_.unsure.range_guard_skip) {
    if (!options_.unsure.range_guard)
      throw Error("selector " + kind_ + ": range_guard_skip needs range_guard");
    if (std::find(features.begin(), features.end(), name) == features.end())
      throw Error("selector " + kind_ + ": range_guard_skip names '" + name +
                  "', which is not one of the model's features");
  }
  if (options_.unsure.vendor && !options_.unsure.on())
    throw Error("selector " + kind_ +
                ": the vendor unsure config needs min_vote_share, range_guard or leaf_box");
}

namespace {

// The unsure rule's optional list of names (`what`: "feature", "vendor"), empty when absent.
std::vector<std::string> optional_names(const nlohmann::json& j, const std::string& field,
                                        const std::string& what) {
  std::vector<std::string> names;
  if (!j.contains(field)) return names;
  const std::string where = "field 'selector.unsure." + field + "': ";
  if (!j.at(field).is_array()) throw Error(where + "expected a list of " + what + " names");
  for (const auto& name : j.at(field)) {
    if (!name.is_string())
      throw Error(where + "expected " + what + " names, got " + json_fields::shown(name));
    names.push_back(name.get<std::string>());
  }
  return names;
}

// The unsure rule's optional flag, false when absent.
bool optional_flag(const nlohmann::json& j, const std::string& field) {
  if (!j.contains(field)) return false;
  if (!j.at(field).is_boolean())
    throw Error("field 'selector.unsure." + field + "': expected true or false, got " +
                json_fields::shown(j.at(field)));
  return j.at(field).get<bool>();
}

}  // namespace

void Selector::load_unsure(const nlohmann::json& j) {
  namespace jf = json_fields;
  const auto K = static_cast<int64_t>(config_names_.size());
  unsure_config_ = static_cast<int>(jf::integer(j, "config", "selector.unsure", 0, K - 1));
  UnsureRule& rule = options_.unsure;
  rule.min_vote_share = jf::number(jf::member(j, "min_vote_share", "selector.unsure"),
                                   "selector.unsure.min_vote_share");
  const auto& guard = jf::member(j, "range_guard", "selector.unsure");
  if (!guard.is_boolean())
    throw Error("field 'selector.unsure.range_guard': expected true or false, got " +
                jf::shown(guard));
  rule.range_guard = guard.get<bool>();
  // Absent in models saved before the leaf margin: off.
  rule.leaf_margin = j.contains("leaf_margin")
                         ? jf::number(j.at("leaf_margin"), "selector.unsure.leaf_margin")
                         : 0.0;
  // Absent in models saved before it: every feature checked.
  rule.range_guard_skip = optional_names(j, "range_guard_skip", "feature");
  // Absent in models saved before the leaf floor: off.
  rule.leaf_floor =
      j.contains("leaf_floor") ? jf::number(j.at("leaf_floor"), "selector.unsure.leaf_floor") : 0.0;
  // Absent in models saved without it: every vendor call.
  rule.floor_vendors = optional_names(j, "floor_vendors", "vendor");
  // Flags absent in models saved before them: off.
  rule.leaf_box = optional_flag(j, "leaf_box");
  rule.leaf_vendor = optional_flag(j, "leaf_vendor");
  rule.leaf_box_all = optional_flag(j, "leaf_box_all");
  rule.vendor = optional_flag(j, "vendor");
  const auto lo = jf::numbers(j, "feature_min", "selector.unsure");
  const auto hi = jf::numbers(j, "feature_max", "selector.unsure");
  if (lo.size() != feature_names_.size() || hi.size() != feature_names_.size())
    throw Error(fmt::format("field 'selector.unsure': {} and {} feature bounds for {} features",
                            lo.size(), hi.size(), feature_names_.size()));
  feature_min_ = Eigen::Map<const Eigen::VectorXd>(lo.data(), Eigen::Index(lo.size()));
  feature_max_ = Eigen::Map<const Eigen::VectorXd>(hi.data(), Eigen::Index(hi.size()));
  check_unsure_rule(feature_names_);
}

std::unique_ptr<Selector> Selector::from_json(const nlohmann::json& j) {
  namespace jf = json_fields;
  try {
    if (!j.is_object() || !j.contains("format") || j["format"] != "ktune-selector") {
      throw Error("not a ktune selector model (format field missing)");
    }
    SelectorOptions options;
    options.fallback = parse_fallback(jf::text(j, "fallback", "selector"));
    const auto& seed = jf::member(j, "seed", "selector");
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0))
      throw Error("field 'selector.seed': expected a non-negative integer, got " + jf::shown(seed));
    options.seed = seed.get<uint64_t>();
    auto s = make_selector(jf::text(j, "kind", "selector"), options);
    s->norm_ = parse_norm(jf::text(j, "norm", "selector"));
    for (const char* key : {"configs", "feature_names"}) {
      const auto& list = jf::array(j, key, "selector");
      auto& out = std::string(key) == "configs" ? s->config_names_ : s->feature_names_;
      for (size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string())
          throw Error(fmt::format("field 'selector.{}[{}]': expected a string, got {}", key, i,
                                  jf::shown(list[i])));
        out.push_back(list[i].get<std::string>());
      }
    }
    const auto K = static_cast<int64_t>(s->config_names_.size());
    if (K == 0) throw Error("field 'selector.configs': no configs");
    for (int64_t k : jf::integers(j, "safe_order", "selector", 0, K - 1))
      s->safe_order_.push_back(static_cast<int>(k));
    s->config_features_ = matrix_from_json(jf::member(j, "config_features", "selector"));
    std::vector<int> sorted = s->safe_order_;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> expected(static_cast<size_t>(K));
    std::iota(expected.begin(), expected.end(), 0);
    if (sorted != expected)
      throw Error("field 'selector.safe_order': not a permutation of the configs' indices");
    if (s->config_features_.rows() != K)
      throw Error(fmt::format("field 'selector.config_features': {} rows for {} configs",
                              s->config_features_.rows(), K));
    s->load_model(jf::member(j, "model", "selector"));      // its shape errors say most: first
    if (j.contains("unsure")) s->load_unsure(j["unsure"]);  // older models: no unsure rule
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed selector model: ") + e.what());
  }
}

}  // namespace ktune::ml
