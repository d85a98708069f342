#pragma once
// Random forests of CART trees (classifier and multi-output regressor): each tree sees a
// bootstrap sample (drawn with a seeded std::mt19937_64, as sample weights = draw counts) and
// draws max_features candidate features per node. Classification averages the trees' class
// distributions (like sklearn's predict_proba); regression averages their leaf values.
#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "ktune/ml/cart.hpp"

namespace ktune::ml {

struct ForestParams {
  int n_trees = 50;
  bool bootstrap = true;
  // tree.max_features: > 0 a count; 0 = sqrt(n_features) (the classifier default);
  // < 0 = all features. tree.seed is ignored: each tree gets its own seed from `seed`.
  TreeParams tree{.max_features = 0};
  uint64_t seed = 0;
};

class RandomForest {
 public:
  void fit_classifier(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                      const ForestParams& p);
  void fit_regressor(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y, const ForestParams& p);

  Eigen::VectorXd predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  Eigen::VectorXd predict_values(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;

  const std::vector<DecisionTree>& trees() const { return trees_; }
  bool is_classifier() const { return classifier_; }

  nlohmann::json to_json() const;
  static RandomForest from_json(const nlohmann::json& j);

 private:
  template <class FitTree>
  void grow(Eigen::Index n_samples, Eigen::Index n_features, const ForestParams& p,
            FitTree fit_tree);

  std::vector<DecisionTree> trees_;
  bool classifier_ = true;
};

}  // namespace ktune::ml
