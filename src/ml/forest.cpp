// Random forests (see forest.hpp). Tree seeds are drawn up front from one generator, so the
// forest does not depend on the order in which trees are grown.
#include "ktune/ml/forest.hpp"

#include <cmath>
#include <random>

#include "ktune/error.hpp"
#include "src/ml/argmax.hpp"

namespace ktune::ml {

template <class FitTree>
void RandomForest::grow(Eigen::Index n_samples, Eigen::Index n_features, const ForestParams& p,
                        FitTree fit_tree) {
  if (p.n_trees < 1) throw Error("forest: n_trees must be >= 1");
  if (n_samples == 0) throw Error("forest: cannot fit on an empty training set");
  TreeParams tp = p.tree;
  if (tp.max_features == 0) {
    tp.max_features = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(n_features))));
  }
  std::mt19937_64 rng(p.seed);
  trees_.assign(p.n_trees, DecisionTree{});
  for (int t = 0; t < p.n_trees; ++t) {
    std::vector<double> weights(n_samples, p.bootstrap ? 0.0 : 1.0);
    if (p.bootstrap) {
      std::uniform_int_distribution<Eigen::Index> pick(0, n_samples - 1);
      for (Eigen::Index i = 0; i < n_samples; ++i) weights[pick(rng)] += 1.0;
    }
    tp.seed = rng();
    fit_tree(trees_[t], tp, weights);
  }
}

void RandomForest::fit_classifier(const Eigen::MatrixXd& X, const std::vector<int>& y,
                                  int n_classes, const ForestParams& p) {
  classifier_ = true;
  grow(X.rows(), X.cols(), p, [&](DecisionTree& t, const TreeParams& tp, const auto& w) {
    t.fit_classifier(X, y, n_classes, tp, w);
  });
}

void RandomForest::fit_regressor(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                                 const ForestParams& p) {
  classifier_ = false;
  grow(X.rows(), X.cols(), p,
       [&](DecisionTree& t, const TreeParams& tp, const auto& w) { t.fit_regressor(X, Y, tp, w); });
}

Eigen::VectorXd RandomForest::predict_values(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (trees_.empty()) throw Error("forest: predict before fit");
  Eigen::VectorXd sum = trees_[0].predict_values(x);
  for (size_t t = 1; t < trees_.size(); ++t) sum += trees_[t].predict_values(x);
  return sum / static_cast<double>(trees_.size());
}

Eigen::VectorXd RandomForest::predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return predict_values(x);
}

int RandomForest::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return first_argmax(predict_proba(x));
}

nlohmann::json RandomForest::to_json() const {
  nlohmann::json trees = nlohmann::json::array();
  for (const auto& t : trees_) trees.push_back(t.to_json());
  return {{"kind", classifier_ ? "classifier" : "regressor"}, {"trees", std::move(trees)}};
}

RandomForest RandomForest::from_json(const nlohmann::json& j) {
  RandomForest f;
  if (!j.contains("kind") || !j.contains("trees") || !j.at("trees").is_array()) {
    throw Error("forest: malformed JSON model (needs kind and trees)");
  }
  f.classifier_ = j.at("kind") == "classifier";
  for (const auto& jt : j.at("trees")) f.trees_.push_back(DecisionTree::from_json(jt));
  if (f.trees_.empty()) throw Error("forest: JSON model has no trees");
  return f;
}

}  // namespace ktune::ml
