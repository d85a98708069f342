// The concrete selectors and their factory (see selector.hpp for the rules they share).
// Hyperparameters are fixed here so that the names in the report mean one thing:
//   tree-a: unlimited; tree-b: max depth 6, min split 4, min leaf 3; tree-c: depth 3, 5, 4.
//   knn-k: k neighbours, uniform votes, standardized features.
//   svm-linear: C = 1 (one-vs-rest hinge, dual coordinate descent); svm-rbf: C = 1,
//   gamma = 1 / (n_features var(X)) on standardized features (sklearn's "scale").
//   forest: 50 trees, bootstrap, sqrt(n_features) candidates per node, unlimited depth.
//   mlp: 16-16 ReLU, Adam (lr 1e-3), 200 epochs of mini-batches of 32, L2 1e-4.
//   naive-bayes: Gaussian, var_smoothing 1e-9 (sklearn's default), standardized features.
//   logreg: multinomial, L2 with C = 1, L-BFGS to a gradient below 1e-8, standardized features.
//   reg-*: 30 trees, bootstrap, max depth 12, min leaf 2, a third of the inputs per node; kept
//   small because one row per (problem, config) makes these the slowest to train.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>

#include "ktune/error.hpp"
#include "ktune/ml/cart.hpp"
#include "ktune/ml/forest.hpp"
#include "ktune/ml/knn.hpp"
#include "ktune/ml/logreg.hpp"
#include "ktune/ml/mlp.hpp"
#include "ktune/ml/naive_bayes.hpp"
#include "ktune/ml/selector.hpp"
#include "ktune/ml/svm.hpp"
#include "src/ml/argmax.hpp"
#include "src/ml/json_fields.hpp"
#include "src/ml/leaf_box.hpp"

namespace ktune::ml {
namespace {

// {features, outputs} every tree of a loaded forest agrees on (kind as expected).
std::pair<Eigen::Index, Eigen::Index> forest_shape(const RandomForest& f, bool classifier) {
  if (f.is_classifier() != classifier)
    throw Error(std::string("field 'model.forest.kind': expected ") +
                (classifier ? "a classifier" : "a regressor"));
  const DecisionTree& first = f.trees().front();
  for (const DecisionTree& t : f.trees()) {
    if (t.n_features() != first.n_features() || t.n_outputs() != first.n_outputs() ||
        t.is_classifier() != classifier)
      throw Error("field 'model.forest.trees': the trees disagree on features, outputs or kind");
  }
  return {first.n_features(), first.n_outputs()};
}

// Shared by the classifiers: keeps labelled problems, standardizes when the model needs it.
class ClassifierSelector : public Selector {
 protected:
  ClassifierSelector(std::string kind, SelectorOptions o, bool standardize)
      : Selector(std::move(kind), o), standardize_(standardize) {}

  virtual void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) = 0;
  virtual Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const = 0;
  virtual nlohmann::json classes_json() const = 0;
  virtual void load_classes(const nlohmann::json& j) = 0;
  // What the loaded model takes and gives: {features, classes}.
  virtual std::pair<Eigen::Index, Eigen::Index> class_shape() const = 0;
  // After fit_classes, with every training problem (the tree's per-leaf unsure picks).
  virtual void fit_unsure(const SelectorTrainingSet&) {}

  void fit_model(const SelectorTrainingSet& d) override {
    std::vector<Eigen::Index> rows;
    std::vector<int> y;
    for (size_t i = 0; i < d.labels.size(); ++i) {
      if (d.labels[i] >= 0) {
        rows.push_back(static_cast<Eigen::Index>(i));
        y.push_back(d.labels[i]);
      }
    }
    if (rows.empty()) {
      throw Error("selector " + kind() + ": no training problem where any shipped config is valid");
    }
    Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()), d.X.cols());
    for (size_t i = 0; i < rows.size(); ++i) X.row(static_cast<Eigen::Index>(i)) = d.X.row(rows[i]);
    if (standardize_) {
      scaler_.fit(X);
      X = scaler_.transform(X);
    }
    fit_classes(X, y, static_cast<int>(d.perf.cols()));
    fit_unsure(d);
  }

  Eigen::VectorXd model_scores(const Eigen::RowVectorXd& x) const override {
    return class_scores(standardize_ ? scaler_.transform_row(x) : x);
  }

  nlohmann::json model_json() const override {
    nlohmann::json j = classes_json();
    if (standardize_) j["scaler"] = scaler_.to_json();
    return j;
  }

  void load_model(const nlohmann::json& j) override {
    if (standardize_) scaler_ = StandardScaler::from_json(j.at("scaler"));
    load_classes(j);
    const auto [features, classes] = class_shape();
    check_model_shape(features, classes);
    if (standardize_) check_model_shape(scaler_.mean().size(), Eigen::Index(config_names().size()));
  }

 private:
  bool standardize_;
  StandardScaler scaler_;
};

class TreeSelector : public ClassifierSelector {
 public:
  bool scores_are_shares() const override { return true; }
  TreeSelector(std::string kind, SelectorOptions o, TreeParams p)
      : ClassifierSelector(std::move(kind), o, false), params_(p) {}

 protected:
  void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) override {
    params_.seed = kSklearnSeed0 + options().seed;  // seed 0 = sklearn random_state=0
    tree_.fit_classifier(X, y, K, params_);
  }
  Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const override {
    return tree_.predict_values(x);
  }
  bool has_leaves() const override { return true; }
  // Per leaf, the shipped config with the best geomean over the training problems reaching it
  // (or the unsure config where that is not better by the rule's leaf margin), and where the
  // leaf floor replaces a sure leaf's class, the replacement; both held to the leaf floor.
  void fit_unsure(const SelectorTrainingSet& d) override {
    std::map<int, std::vector<Eigen::Index>> reaching;
    for (Eigen::Index i = 0; i < d.X.rows(); ++i)
      reaching[tree_.leaf_index(d.X.row(i))].push_back(i);
    leaf_configs_.assign(tree_.nodes().size(), -1);
    floor_configs_.clear();
    if (options().unsure.leaf_floor > 0) floor_configs_.assign(tree_.nodes().size(), -1);
    leaf_vendors_.clear();
    if (options().unsure.leaf_vendor) leaf_vendors_.assign(tree_.nodes().size(), -1);
    for (const auto& [leaf, rows] : reaching) {
      int safe = -1;  // leaf_pick's: unsure_config()
      if (!leaf_vendors_.empty()) safe = leaf_vendors_[size_t(leaf)] = best_vendor(d, rows);
      leaf_configs_[size_t(leaf)] = floored_pick(d, rows, leaf_pick(d, rows, safe));
      if (floor_configs_.empty()) continue;
      const int k = tree_class(leaf), floored = floored_pick(d, rows, k);
      if (floored != k) floor_configs_[size_t(leaf)] = floored;
    }
    leaf_boxes_.clear();
    if (options().unsure.leaf_box)
      leaf_boxes_ = fit_leaf_boxes(
          tree_, d.X, [&](int f) { return guard_skips(size_t(f)); }, options().unsure.leaf_box_all);
  }
  bool outside_leaf(const Eigen::Ref<const Eigen::RowVectorXd>& x) const override {
    return !leaf_boxes_.empty() && outside_box(leaf_boxes_[size_t(tree_.leaf_index(x))], x);
  }
  int unsure_fallback(const Eigen::Ref<const Eigen::RowVectorXd>& x) const override {
    if (leaf_vendors_.empty()) return Selector::unsure_fallback(x);
    const int k = leaf_vendors_[size_t(tree_.leaf_index(x))];
    return k >= 0 ? k : Selector::unsure_fallback(x);
  }
  int unsure_pick(const Eigen::Ref<const Eigen::RowVectorXd>& x) const override {
    if (leaf_configs_.empty()) return Selector::unsure_pick(x);  // a model saved before them
    const int k = leaf_configs_[size_t(tree_.leaf_index(x))];
    return k >= 0 ? k : Selector::unsure_pick(x);
  }
  int floor_pick(const Eigen::Ref<const Eigen::RowVectorXd>& x, int pick) const override {
    if (floor_configs_.empty()) return pick;
    const int k = floor_configs_[size_t(tree_.leaf_index(x))];
    return k >= 0 ? k : pick;
  }
  nlohmann::json classes_json() const override {
    nlohmann::json j = {{"tree", tree_.to_json()}, {"leaf_configs", leaf_configs_}};
    if (!floor_configs_.empty()) j["floor_configs"] = floor_configs_;
    if (!leaf_boxes_.empty()) j["leaf_boxes"] = leaf_boxes_json(leaf_boxes_);
    if (!leaf_vendors_.empty()) j["leaf_vendors"] = leaf_vendors_;
    return j;
  }
  void load_classes(const nlohmann::json& j) override {
    tree_ = DecisionTree::from_json(j.at("tree"));
    if (!tree_.is_classifier()) throw Error("field 'tree.kind': a selector's tree is a classifier");
    leaf_boxes_.clear();  // absent when saved without the leaf box
    if (j.contains("leaf_boxes"))
      leaf_boxes_ = leaf_boxes_from_json(j.at("leaf_boxes"), tree_.nodes().size(),
                                         static_cast<int>(tree_.n_features()));
    leaf_vendors_.clear();  // absent when saved without leaf_vendor
    if (j.contains("leaf_vendors")) leaf_vendors_ = node_configs(j, "leaf_vendors");
    leaf_configs_.clear();
    if (!j.contains("leaf_configs")) return;
    // Bounded by the tree's classes: load_model then checks them against the configs.
    const auto classes = static_cast<int64_t>(tree_.n_outputs());
    for (int64_t k : json_fields::integers(j, "leaf_configs", "model", -1, classes - 1))
      leaf_configs_.push_back(static_cast<int>(k));
    if (leaf_configs_.size() != tree_.nodes().size())
      throw Error(fmt::format("field 'model.leaf_configs': {} entries for {} tree nodes",
                              leaf_configs_.size(), tree_.nodes().size()));
    floor_configs_.clear();
    if (!j.contains("floor_configs")) return;  // saved without the leaf floor
    for (int64_t k : json_fields::integers(j, "floor_configs", "model", -1, classes - 1))
      floor_configs_.push_back(static_cast<int>(k));
    if (floor_configs_.size() != tree_.nodes().size())
      throw Error(fmt::format("field 'model.floor_configs': {} entries for {} tree nodes",
                              floor_configs_.size(), tree_.nodes().size()));
  }
  std::pair<Eigen::Index, Eigen::Index> class_shape() const override {
    return {tree_.n_features(), tree_.n_outputs()};
  }

 private:
  // The class a leaf votes for: the first of its largest scores, as Selector::select.
  int tree_class(int leaf) const { return first_argmax(tree_.nodes()[size_t(leaf)].value); }

  TreeParams params_;
  DecisionTree tree_;
  std::vector<int> leaf_configs_;   // per node: a leaf's unsure pick, -1 for a split
  std::vector<int> floor_configs_;  // per node: the leaf floor's answer for a sure leaf, or -1
  LeafBoxes leaf_boxes_;            // per node: a leaf's box (leaf_box), empty when off
  std::vector<int> leaf_vendors_;   // per node: a leaf's vendor call (leaf_vendor), empty when off

  // A per-node list of configs of a saved model: each in [-1, classes), one per tree node.
  std::vector<int> node_configs(const nlohmann::json& j, const char* field) const {
    const auto classes = static_cast<int64_t>(tree_.n_outputs());
    std::vector<int> configs;
    for (int64_t k : json_fields::integers(j, field, "model", -1, classes - 1))
      configs.push_back(static_cast<int>(k));
    if (configs.size() != tree_.nodes().size())
      throw Error(fmt::format("field 'model.{}': {} entries for {} tree nodes", field,
                              configs.size(), tree_.nodes().size()));
    return configs;
  }
};

class KnnSelector : public ClassifierSelector {
 public:
  bool scores_are_shares() const override { return true; }
  KnnSelector(std::string kind, SelectorOptions o, int k)
      : ClassifierSelector(std::move(kind), o, true), k_(k) {}

 protected:
  void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) override {
    knn_.fit(X, y, K, k_);
  }
  Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const override {
    return knn_.predict_proba(x);
  }
  nlohmann::json classes_json() const override { return {{"knn", knn_.to_json()}}; }
  void load_classes(const nlohmann::json& j) override {
    knn_ = KnnClassifier::from_json(j.at("knn"));
  }
  std::pair<Eigen::Index, Eigen::Index> class_shape() const override {
    return {knn_.n_features(), knn_.n_classes()};
  }

 private:
  int k_;
  KnnClassifier knn_;
};

// A classifier over one model fitted with default Params and the selector's seed, its per-class
// scores from Scores, stored under `key` in the selector's JSON: the SVMs (decision values, key
// "svm") and the MLP (probabilities, key "mlp").
template <class Model, class Params,
          Eigen::VectorXd (Model::*Scores)(const Eigen::Ref<const Eigen::RowVectorXd>&) const>
class SeededModelSelector : public ClassifierSelector {
 public:
  SeededModelSelector(std::string kind, SelectorOptions o, std::string key)
      : ClassifierSelector(std::move(kind), o, true), key_(std::move(key)) {}

 protected:
  void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) override {
    Params p;
    p.seed = options().seed;
    model_.fit(X, y, K, p);
  }
  Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const override {
    return (model_.*Scores)(x);
  }
  nlohmann::json classes_json() const override { return {{key_, model_.to_json()}}; }
  void load_classes(const nlohmann::json& j) override { model_ = Model::from_json(j.at(key_)); }
  std::pair<Eigen::Index, Eigen::Index> class_shape() const override {
    return {model_.n_features(), model_.n_classes()};
  }

 private:
  std::string key_;
  Model model_;
};

template <class Svm>
using SvmSelector = SeededModelSelector<Svm, SvmParams, &Svm::decision>;
using MlpSelector = SeededModelSelector<Mlp, MlpParams, &Mlp::predict_proba>;

class ForestSelector : public ClassifierSelector {
 public:
  bool scores_are_shares() const override { return true; }
  ForestSelector(std::string kind, SelectorOptions o)
      : ClassifierSelector(std::move(kind), o, false) {}

 protected:
  void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) override {
    ForestParams p;
    p.n_trees = 50;
    p.seed = options().seed;
    forest_.fit_classifier(X, y, K, p);
  }
  Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const override {
    return forest_.predict_proba(x);
  }
  nlohmann::json classes_json() const override { return {{"forest", forest_.to_json()}}; }
  void load_classes(const nlohmann::json& j) override {
    forest_ = RandomForest::from_json(j.at("forest"));
  }
  std::pair<Eigen::Index, Eigen::Index> class_shape() const override {
    return forest_shape(forest_, true);
  }

 private:
  RandomForest forest_;
};

class NaiveBayesSelector : public ClassifierSelector {
 public:
  NaiveBayesSelector(std::string kind, SelectorOptions o)
      : ClassifierSelector(std::move(kind), o, true) {}

 protected:
  void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) override {
    nb_.fit(X, y, K);
  }
  Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const override {
    return nb_.joint_log_likelihood(x);  // same argmax as the probabilities, never underflows
  }
  nlohmann::json classes_json() const override { return {{"naive_bayes", nb_.to_json()}}; }
  void load_classes(const nlohmann::json& j) override {
    nb_ = GaussianNaiveBayes::from_json(j.at("naive_bayes"));
  }
  std::pair<Eigen::Index, Eigen::Index> class_shape() const override {
    return {nb_.means().cols(), nb_.means().rows()};
  }

 private:
  GaussianNaiveBayes nb_;
};

class LogRegSelector : public ClassifierSelector {
 public:
  LogRegSelector(std::string kind, SelectorOptions o)
      : ClassifierSelector(std::move(kind), o, true) {}

 protected:
  void fit_classes(const Eigen::MatrixXd& X, const std::vector<int>& y, int K) override {
    lr_.fit(X, y, K);
  }
  Eigen::VectorXd class_scores(const Eigen::RowVectorXd& x) const override {
    return lr_.predict_proba(x);
  }
  nlohmann::json classes_json() const override { return {{"logreg", lr_.to_json()}}; }
  void load_classes(const nlohmann::json& j) override {
    lr_ = LogisticRegression::from_json(j.at("logreg"));
  }
  std::pair<Eigen::Index, Eigen::Index> class_shape() const override {
    return {lr_.coef().cols(), lr_.coef().rows()};
  }

 private:
  LogisticRegression lr_;
};

// reg-runtime / reg-speedup: one forest over rows [problem features, config features].
class RegressorSelector : public Selector {
 public:
  RegressorSelector(std::string kind, SelectorOptions o, bool speedup)
      : Selector(std::move(kind), o), speedup_(speedup) {}
  bool speedup() const { return speedup_; }

 protected:
  void fit_model(const SelectorTrainingSet& d) override {
    const Eigen::Index K = d.perf.cols(), f = d.X.cols(), p = d.config_features.cols();
    std::vector<Eigen::Index> usable;
    for (Eigen::Index i = 0; i < d.X.rows(); ++i) {
      if (d.oracle[i] > 0) usable.push_back(i);
    }
    if (usable.empty())
      throw Error("selector " + kind() + ": no training problem has a valid config");
    // One row per measured (problem, config) pair: an unmeasured pair has no target. For
    // reg-speedup a problem whose baseline config is unmeasured has no reference and is left out.
    Eigen::Index pairs = 0;
    for (Eigen::Index i : usable) {
      if (speedup_ && !d.measured(i, d.baseline)) continue;
      for (Eigen::Index k = 0; k < K; ++k) pairs += d.measured(i, k) ? 1 : 0;
    }
    if (pairs == 0)
      throw Error("selector " + kind() + ": no measured (problem, config) pair to learn from");
    Eigen::MatrixXd X(pairs, f + p);
    Eigen::MatrixXd Y(X.rows(), 1);
    Eigen::Index row = 0;
    for (Eigen::Index i : usable) {
      if (speedup_ && !d.measured(i, d.baseline)) continue;
      auto eff = [&](Eigen::Index k) {
        return d.valid(i, k) && d.perf(i, k) > 0 ? d.perf(i, k) : d.oracle[i] * kInvalidRatio;
      };
      for (Eigen::Index k = 0; k < K; ++k) {
        if (!d.measured(i, k)) continue;
        X.row(row) << d.X.row(i), d.config_features.row(k);
        Y(row, 0) = speedup_ ? std::log2(eff(k) / eff(d.baseline)) : -std::log(eff(k));
        ++row;
      }
    }
    ForestParams fp;
    fp.n_trees = 30;
    fp.seed = options().seed;
    fp.tree.max_depth = 12;
    fp.tree.min_samples_leaf = 2;
    fp.tree.max_features = std::max<int>(1, static_cast<int>((f + p) / 3));
    forest_.fit_regressor(X, Y, fp);
  }

  Eigen::VectorXd model_scores(const Eigen::RowVectorXd& x) const override {
    const Eigen::Index K = config_features_.rows();
    Eigen::VectorXd s(K);
    Eigen::RowVectorXd in(x.size() + config_features_.cols());
    for (Eigen::Index k = 0; k < K; ++k) {
      in << x, config_features_.row(k);
      const double predicted = forest_.predict_values(in)[0];
      s[k] = speedup_ ? predicted : -predicted;  // higher = better: speedup, or minus log time
    }
    return s;
  }

  nlohmann::json model_json() const override {
    return {{"target", speedup_ ? "log2-speedup-over-baseline" : "log-time"},
            {"forest", forest_.to_json()}};
  }
  void load_model(const nlohmann::json& j) override {
    forest_ = RandomForest::from_json(j.at("forest"));
    // Inputs: the problem features then the config features; one output, the prediction.
    const auto [inputs, outputs] = forest_shape(forest_, false);
    if (outputs != 1) throw Error("field 'model.forest': a regressor selector predicts 1 value");
    check_model_shape(inputs - config_features_.cols(), Eigen::Index(config_names().size()));
  }

 private:
  bool speedup_;
  RandomForest forest_;
};

using Factory = std::function<std::unique_ptr<Selector>(const SelectorOptions&)>;

const std::vector<std::pair<std::string, Factory>>& factories() {
  static const std::vector<std::pair<std::string, Factory>> all = [] {
    std::vector<std::pair<std::string, Factory>> f;
    auto tree = [&](const char* name, TreeParams p) {
      f.emplace_back(name, [name, p](const SelectorOptions& o) {
        return std::make_unique<TreeSelector>(name, o, p);
      });
    };
    tree("tree-a", TreeParams{});
    tree("tree-b", TreeParams{.max_depth = 6, .min_samples_split = 4, .min_samples_leaf = 3});
    tree("tree-c", TreeParams{.max_depth = 3, .min_samples_split = 5, .min_samples_leaf = 4});
    for (int k : {1, 3, 7}) {
      const std::string name = "knn-" + std::to_string(k);
      f.emplace_back(name, [name, k](const SelectorOptions& o) {
        return std::make_unique<KnnSelector>(name, o, k);
      });
    }
    f.emplace_back("svm-linear", [](const SelectorOptions& o) {
      return std::make_unique<SvmSelector<LinearSvm>>("svm-linear", o, "svm");
    });
    f.emplace_back("svm-rbf", [](const SelectorOptions& o) {
      return std::make_unique<SvmSelector<RbfSvm>>("svm-rbf", o, "svm");
    });
    f.emplace_back("forest", [](const SelectorOptions& o) {
      return std::make_unique<ForestSelector>("forest", o);
    });
    f.emplace_back("mlp", [](const SelectorOptions& o) {
      return std::make_unique<MlpSelector>("mlp", o, "mlp");
    });
    f.emplace_back("naive-bayes", [](const SelectorOptions& o) {
      return std::make_unique<NaiveBayesSelector>("naive-bayes", o);
    });
    f.emplace_back("logreg", [](const SelectorOptions& o) {
      return std::make_unique<LogRegSelector>("logreg", o);
    });
    f.emplace_back("reg-runtime", [](const SelectorOptions& o) {
      return std::make_unique<RegressorSelector>("reg-runtime", o, false);
    });
    f.emplace_back("reg-speedup", [](const SelectorOptions& o) {
      return std::make_unique<RegressorSelector>("reg-speedup", o, true);
    });
    return f;
  }();
  return all;
}

}  // namespace

std::vector<std::string> selector_names() {
  std::vector<std::string> names;
  for (const auto& [name, _] : factories()) names.push_back(name);
  return names;
}

SelectorRole selector_role(const std::string& name) {
  const auto s = make_selector(name);  // throws for unknown names
  if (const auto* r = dynamic_cast<const RegressorSelector*>(s.get()))
    return r->speedup() ? SelectorRole::speedup_regressor : SelectorRole::runtime_regressor;
  return SelectorRole::classifier;
}

std::unique_ptr<Selector> make_selector(const std::string& name, const SelectorOptions& options) {
  for (const auto& [n, make] : factories()) {
    if (n == name) return make(options);
  }
  std::string known;
  for (const auto& n : selector_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown selector '" + name + "' (expected one of: " + known + ")");
}

}  // namespace ktune::ml
