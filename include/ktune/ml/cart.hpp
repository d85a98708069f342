#pragma once
// CART decision trees (classification with gini, multi-output regression with MSE), grown like
// scikit-learn's DecisionTreeClassifier/Regressor so predictions match for the same
// hyperparameters: depth-first growth, or best-first when max_leaf_nodes > 0; thresholds are
// midpoints between consecutive distinct sorted feature values; go left when x <= threshold.
// Features are drawn per node exactly as sklearn's BestSplitter draws them (Fisher-Yates with
// its xorshift rand_r, known-constant features skipped), so ties between equally good splits
// resolve the same way: seed is the rand_r state, and sklearn's random_state = R corresponds to
// seed = numpy.random.RandomState(R).randint(0, 2**31 - 1) (kSklearnSeed0 for R = 0).
// Known differences: sklearn casts features to float32 before splitting (ktune keeps doubles,
// so a threshold may differ in the 8th digit), and regression sums are accumulated in another
// order (when two features give the very same partition, e.g. in leaves of 2-3 samples of an
// unlimited regression tree, rounding may break that exact tie the other way).
// The node list is plain on purpose: the code generator turns it into nested ifs.
#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

inline constexpr uint64_t kSklearnSeed0 = 209652396;  // RandomState(0).randint(0, 2**31 - 1)

struct TreeParams {
  int max_depth = -1;  // <= 0: unlimited
  int min_samples_split = 2;
  int min_samples_leaf = 1;
  int max_leaf_nodes = -1;        // > 0: best-first growth up to this many leaves
  int max_features = -1;          // <= 0: all features; else this many drawn per node (seeded)
  uint64_t seed = kSklearnSeed0;  // state of the feature-drawing generator (low 32 bits)
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
  // Values per node: classes (classifier) or outputs (regressor); 0 before fit.
  Eigen::Index n_outputs() const { return nodes_.empty() ? 0 : nodes_.front().value.size(); }
  bool is_classifier() const { return classifier_; }

  struct Node {
    int feature = -1;  // leaf when -1
    double threshold = 0;
    int left = -1, right = -1;
    Eigen::VectorXd value;
  };
  const std::vector<Node>& nodes() const { return nodes_; }

  nlohmann::json to_json() const;
  // Type- and range-checked: throws Error naming the first bad field ("tree.nodes[3].feature").
  static DecisionTree from_json(const nlohmann::json& j);

 private:
  void fit(const Eigen::MatrixXd& X, const Eigen::MatrixXd& targets, bool classifier,
           const TreeParams& p, const std::vector<double>& w);

  std::vector<Node> nodes_;
  int n_features_ = 0;
  bool classifier_ = true;
};

}  // namespace ktune::ml
