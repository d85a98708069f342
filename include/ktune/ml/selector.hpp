#pragma once
// Selectors map a problem's features to one of the K shipped configs.
//
// Classifiers (tree-a/b/c, knn-1/3/7, svm-linear, svm-rbf, forest, mlp, naive-bayes, logreg)
// learn the label argmax over the shipped configs of the normalized perf of each training
// problem (ties, e.g. several zeros after `cutoff`, go to the higher raw perf, then the lower
// index; problems where no shipped config is valid carry no label and are left out). Trees and
// forests see raw features (so thresholds stay in feature units for code generation); kNN, SVMs,
// the MLP, naive Bayes and logistic regression see features standardized by a StandardScaler
// fitted on the training problems.
//
// Regressors (reg-runtime, reg-speedup) are random-forest regressions over one row per
// (problem, shipped config) = [problem features, config params] (one-hot of the shipped index
// when the dataset has no numeric config params). reg-runtime predicts log time per unit of
// work, -log(perf); reg-speedup predicts log2(perf / perf of the baseline config). An invalid
// entry counts as a thousand times slower than the problem's best (perf = oracle × 1e-3), so the
// models learn to avoid configs that are refused; they pick the config with the best prediction.
//
// Fallback when the pick is refused (invalid) for the problem, shared by every selector:
//  - baseline: the first valid config in the safe order (shipped configs sorted by how many
//    training problems they are valid on, then by geomean of scaled perf, invalid = 1e-3);
//    its head is the "best safe single config".
//  - random: a uniformly drawn valid config, seeded by (seed, feature values): deterministic.
//  - nearest: the valid config closest to the pick in standardized config-parameter space
//    (ties: safe order).
// Unmeasured cells (dataset.hpp): they never give a label (the label is the best *ok* shipped
// config), regressors get no (problem, config) row for them (reg-speedup leaves out problems whose
// baseline config is unmeasured), and the safe order ranks by the share of *measured* training
// problems a config is valid on, then by the geomean over those problems (safer() below).
// NaN in features: training rows with a NaN feature are dropped (an Error when none remains);
// select() on a row with a NaN feature returns the baseline config.
#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ktune/dataset.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/scaler.hpp"

namespace ktune::ml {

// Safe-order comparison: a larger share valid / measured first (configs measured nowhere last),
// then a larger mean of log scaled perf; exact, so fully measured data orders by plain sums.
bool safer(int valid_a, int measured_a, double log_sum_a, int valid_b, int measured_b,
           double log_sum_b);

enum class Fallback { baseline, random, nearest };
Fallback parse_fallback(const std::string& text);  // throws Error naming the text
std::string to_string(Fallback f);

// When the model is unsure, serve a safe choice in place of its pick:
//  - min_vote_share > 0 and the share of the votes for the pick is below it (selectors whose
//    scores are vote shares: tree-*, forest, knn-*; for a tree the leaf's majority fraction):
//    unsure_pick(), for a tree the shipped config with the best geometric mean of perf / oracle
//    over the training problems that reach the leaf (the leaf's own safe choice), for the others
//    unsure_config();
//  - range_guard and a feature outside its range over the training problems: unsure_config(),
//    the shipped config with the best geometric mean over all the training problems (features
//    named in range_guard_skip are not checked).
// leaf_margin > 0 (a tree with min_vote_share): an unsure leaf serves its own best-geomean
// config only where that beats unsure_config()'s geometric mean over the leaf's training problems
// by more than this fraction, else unsure_config(): one noisy row must not turn a leaf whose
// majority is the safe config into a kernel's (docs/deploy.md).
// vendor (with a vendor candidate shipped): unsure_config() is the shipped vendor call with the
// best geometric mean instead of the best config of all: a kernel that wins on average can run
// at a fraction of the vendor on the shapes the model is unsure about, the vendor rarely.
// leaf_floor F > 0 (trees): every leaf's answer, sure or unsure, must run at >= F x the
// reference on each training problem reaching the leaf, the reference being the fastest shipped
// vendor call on that problem; a refused cell fails. With no vendor shipped, the reference is the
// problem's best shipped config and a refused cell counts as the config that serves the problem
// instead (the first of the safe order that accepts it), as the deployed library falls back.
// A leaf whose answer fails serves the shipped config with the best geometric mean among those
// that pass there (the reference's own calls pass by construction unless two vendors trade
// places), else the one with the best worst-case ratio: a geometric mean hides the one shape at
// 0.4x that a user meets (docs/deploy.md).
// floor_vendors (with leaf_floor): the vendor calls whose fastest is the reference, by name
// ("vendor=<name>" configs; empty: every shipped vendor call, as when none of them is shipped).
// A vendor call's variants shipped as candidates (another of its algorithms, say) are then held to
// the calls a user would make instead, rather than raising the reference to the best variant per
// problem: there no config may pass, and the best worst case can be a variant at 0.76x the
// vendor's default call (docs/deploy.md).
// leaf_box (trees): per leaf, each feature its path splits on is bounded on the side the split
// bounds (x <= t: by the largest value over the training problems reaching the leaf; x > t: by
// the smallest), features in range_guard_skip left out; a problem outside is served
// unsure_config(). CART places each threshold half-way
// between two training values, so a leaf's answer was never checked in the gap between the
// threshold and its nearest training problem: a held-out shape with a few tiles less than any
// the leaf saw (a wave left half empty) is not a shape the leaf's kernel was shown to win on.
// leaf_box_all (with leaf_box): every feature (range_guard_skip left out) bounded on both sides
// by the leaf's training problems, not only the path's: a leaf's kernel shown to win at shallow k
// is not shown to win at 16x the depth when k is on no split of its path (docs/deploy.md).
// leaf_vendor (trees): an unsure problem (outside the range guard or its leaf's box, or a leaf
// under min_vote_share: leaf_margin's safe choice) is served, in place of unsure_config(), by the
// shipped vendor call with the best geometric mean over the training problems reaching the leaf
// it falls in (among floor_vendors' calls when named; unsure_config() where the leaf measured
// none): one global vendor call can run at 0.4x the other vendor on the shapes of one leaf
// (docs/deploy.md).
// Geometric means as the safe order's: invalid = kInvalidRatio, unmeasured cells left out. All
// off by default. A tree's rules are written by ktune codegen.
struct UnsureRule {
  double min_vote_share = 0;
  bool range_guard = false;
  double leaf_margin = 0;
  bool vendor = false;
  double leaf_floor = 0;
  // Features the range guard leaves out (by name), e.g. residues such as n % 8 whose training
  // values are a handful of classes: an unseen class is no larger or smaller problem.
  std::vector<std::string> range_guard_skip{};
  bool leaf_box = false;
  bool leaf_box_all = false;
  std::vector<std::string> floor_vendors{};
  bool leaf_vendor = false;
  bool on() const { return min_vote_share > 0 || range_guard || leaf_box; }
};

struct SelectorOptions {
  Fallback fallback = Fallback::baseline;
  uint64_t seed = 0;
  UnsureRule unsure{};
};

// What the training step hands to a concrete model.
struct SelectorTrainingSet {
  Eigen::MatrixXd X;                // usable problems × features (raw)
  std::vector<int> labels;          // per problem: best shipped index, or -1 when none is valid
  Eigen::MatrixXd perf;             // problems × K raw perf of the shipped configs (0 = invalid)
  BoolMatrix valid;                 // problems × K
  BoolMatrix measured;              // problems × K (false: unmeasured)
  Eigen::VectorXd oracle;           // per problem: best valid perf of the whole space
  Eigen::MatrixXd config_features;  // K × p, standardized config params (or one-hot)
  int baseline = 0;                 // index into shipped of the best safe single config
};

// One decision: the model's pick, what is served after the fallback, and whether it was refused.
struct Choice {
  int pick = 0;
  int served = 0;  // == pick unless refused; == pick when no shipped config is valid
  bool refused = false;
};

class Selector {
 public:
  virtual ~Selector() = default;
  const std::string& kind() const { return kind_; }
  const SelectorOptions& options() const { return options_; }

  // shipped: distinct column indices of train (the K configs); norm shapes classifier labels.
  void fit(const Dataset& train, const std::vector<Eigen::Index>& shipped, Norm norm);

  // The model's pick (index into the shipped list), knowing nothing about validity; the
  // unsure config where the unsure rule says so.
  int select(const Eigen::Ref<const Eigen::RowVectorXd>& features) const;
  // Whether the unsure rule overrides the model for these (finite) features and their scores.
  bool unsure(const Eigen::Ref<const Eigen::RowVectorXd>& features,
              const Eigen::VectorXd& scores) const;
  // What a pick with too small a vote share gives way to (see UnsureRule).
  virtual int unsure_pick(const Eigen::Ref<const Eigen::RowVectorXd>& features) const;
  // What a problem outside the range guard or its leaf's box is served: unsure_config(), or
  // under leaf_vendor the vendor call of the leaf it reaches.
  virtual int unsure_fallback(const Eigen::Ref<const Eigen::RowVectorXd>& features) const;
  // Whether the features lie outside the training box of the leaf they reach (UnsureRule's
  // leaf_box); false for selectors without leaves.
  virtual bool outside_leaf(const Eigen::Ref<const Eigen::RowVectorXd>&) const { return false; }
  // What a sure pick gives way to under the leaf floor (see UnsureRule); the pick by default.
  virtual int floor_pick(const Eigen::Ref<const Eigen::RowVectorXd>& features, int pick) const;
  // The pick, then the fallback when valid[pick] is false (valid: one flag per shipped config).
  Choice choose(const Eigen::Ref<const Eigen::RowVectorXd>& features,
                const std::vector<bool>& valid) const;
  // Fallback from a refused pick (exposed for tests and the generated code's reference).
  int fall_back(int pick, const std::vector<bool>& valid,
                const Eigen::Ref<const Eigen::RowVectorXd>& features) const;
  // Per shipped config: higher = better (class scores or predicted -log time / log speedup).
  Eigen::VectorXd scores(const Eigen::Ref<const Eigen::RowVectorXd>& features) const;

  const std::vector<std::string>& config_names() const { return config_names_; }
  const std::vector<std::string>& feature_names() const { return feature_names_; }
  const std::vector<int>& safe_order() const { return safe_order_; }
  int baseline() const { return safe_order_.empty() ? 0 : safe_order_.front(); }
  int unsure_config() const { return unsure_config_; }
  // Per feature, its smallest and largest value over the training problems (range_guard).
  const Eigen::VectorXd& feature_min() const { return feature_min_; }
  const Eigen::VectorXd& feature_max() const { return feature_max_; }
  // Whether the range guard leaves this feature (an index into feature_names()) out.
  bool guard_skips(size_t feature) const;
  // True when scores() are vote shares (non-negative, summing to 1): min_vote_share applies.
  virtual bool scores_are_shares() const { return false; }
  // True for selectors that answer per leaf (trees): leaf_floor applies.
  virtual bool has_leaves() const { return false; }
  Norm norm() const { return norm_; }
  size_t dropped_rows() const { return dropped_rows_; }

  nlohmann::json to_json() const;
  // Type-, range- and shape-checked: throws Error naming the first bad field.
  static std::unique_ptr<Selector> from_json(const nlohmann::json& j);

 protected:
  Selector(std::string kind, SelectorOptions options) : kind_(std::move(kind)), options_(options) {}
  virtual void fit_model(const SelectorTrainingSet& data) = 0;
  virtual Eigen::VectorXd model_scores(const Eigen::RowVectorXd& features) const = 0;
  virtual nlohmann::json model_json() const = 0;
  virtual void load_model(const nlohmann::json& j) = 0;
  // For load_model: throws Error unless the loaded model takes the envelope's features and
  // scores its configs (a tree with more classes than configs would pick past the list).
  void check_model_shape(Eigen::Index features, Eigen::Index classes) const;
  void load_unsure(const nlohmann::json& j);  // the "unsure" field of to_json()
  // The shipped config (index) with the best mean log of perf / oracle over the given training
  // rows (invalid = kInvalidRatio; unmeasured cells left out, a config measured on none of them
  // last; the first on ties): the geometric-mean choice among the shipped configs.
  static int best_geomean(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows);
  // An unsure leaf's pick over the rows reaching it: best_geomean, or `safe` (-1:
  // unsure_config()) where that is not better by more than the rule's leaf_margin (set
  // unsure_config() first).
  int leaf_pick(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows,
                int safe = -1) const;
  // The shipped vendor call (floor_vendors' when named) with the best geometric mean over the
  // rows, or unsure_config() when the rows measured none (leaf_vendor).
  int best_vendor(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows) const;
  // The leaf floor's answer for a leaf whose answer is `pick` over the rows reaching it: pick when
  // it passes (or the floor is off), else the best passing config, else the best worst case.
  int floored_pick(const SelectorTrainingSet& d, const std::vector<Eigen::Index>& rows,
                   int pick) const;
  bool outside_range(const Eigen::Ref<const Eigen::RowVectorXd>& features) const;
  bool low_share(const Eigen::VectorXd& scores) const;
  // Error for a share outside [0, 1], on a non-voting model, or a skipped feature not in features.
  void check_unsure_rule(const std::vector<std::string>& features) const;

  Eigen::MatrixXd config_features_;  // K × p, used by nearest and by the regressors

 private:
  std::string kind_;
  SelectorOptions options_;
  Norm norm_ = Norm::scale;
  std::vector<std::string> config_names_, feature_names_;
  std::vector<int> safe_order_;
  int unsure_config_ = 0;
  Eigen::VectorXd feature_min_, feature_max_;
  size_t dropped_rows_ = 0;
};

// tree-a, tree-b, tree-c, knn-1, knn-3, knn-7, svm-linear, svm-rbf, forest, mlp, naive-bayes,
// logreg, reg-runtime, reg-speedup.
std::vector<std::string> selector_names();
// What a registered selector learns (from the registry, never from its name's spelling);
// an Error listing the known names for an unknown one.
enum class SelectorRole { classifier, runtime_regressor, speedup_regressor };
SelectorRole selector_role(const std::string& name);
std::unique_ptr<Selector> make_selector(const std::string& name,
                                        const SelectorOptions& options = {});

}  // namespace ktune::ml
