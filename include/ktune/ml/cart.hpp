#pragma once
// CART decision trees (classification with gini, multi-output regression with MSE), grown like
// scikit-learn's DecisionTreeClassifier/Regressor so predictions match for the same
// hyperparameters: depth-first growth, or best-first when max_leaf_nodes > 0; thresholds are
// midpoints between consecutive distinct sorted feature values; go left when x <= threshold.
// Ties between equally good splits: with max_features <= 0 (all features) the first feature in
// index order with the strictly best improvement wins (sklearn may pick another one on exact
// ties because it visits features in a random order).
// The node list is plain on purpose: the code generator turns it into nested ifs.
#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

struct TreeParams {
  int max_depth = -1;          // <= 0: unlimited
  int min_samples_split = 2;
  int min_samples_leaf = 1;
  int max_leaf_nodes = -1;     // > 0: best-first growth up to this many leaves
  int max_features = -1;       // <= 0: all features; else this many drawn per node (seeded)
  uint64_t seed = 0;
};

class DecisionTree {
 public:
  // y[i] in [0, n_classes). Leaf value = class distribution (fractions, size n_classes).
  void fit_classifier(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                      const TreeParams& p);
  // Weighted variant (weights = bootstrap counts for forests); w.size() == X.rows().
  void fit_classifier(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                      const TreeParams& p, const std::vector<double>& w);
  // Multi-output: Y is rows × outputs. Leaf value = mean of Y over the leaf's samples.
  void fit_regressor(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y, const TreeParams& p);
  void fit_regressor(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y, const TreeParams& p,
                     const std::vector<double>& w);

  // Argmax of the leaf's class distribution (lowest class index on ties, as numpy argmax).
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  Eigen::VectorXd predict_values(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  // Index into nodes() of the leaf reached by x.
  int leaf_index(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int n_leaves() const;
  int depth() const;
  int n_features() const { return n_features_; }
  bool is_classifier() const { return classifier_; }

  struct Node {
    int feature = -1;  // leaf when -1
    double threshold = 0;
    int left = -1, right = -1;
    Eigen::VectorXd value;
  };
  const std::vector<Node>& nodes() const { return nodes_; }

  nlohmann::json to_json() const;
  static DecisionTree from_json(const nlohmann::json& j);

 private:
  void fit(const Eigen::MatrixXd& X, const Eigen::MatrixXd& targets, bool classifier,
           const TreeParams& p, const std::vector<double>& w);

  std::vector<Node> nodes_;
  int n_features_ = 0;
  bool classifier_ = true;
};

}  // namespace ktune::ml
