#pragma once
// k-nearest-neighbour classifier like scikit-learn's KNeighborsClassifier with uniform weights
// and Euclidean distance. Inputs are used as given: standardize them first (StandardScaler).
// Ties: among equally distant neighbours the lower training index comes first; among classes with
// equal votes the lowest class wins (as sklearn's mode). k larger than the training set is
// clamped to its size (sklearn refuses it).
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

class KnnClassifier {
 public:
  void fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes, int k);
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  // Vote fractions per class (size n_classes).
  Eigen::VectorXd predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  // Training-row indices of the k nearest neighbours, nearest first.
  std::vector<int> neighbours(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int k() const { return k_; }
  Eigen::Index n_features() const { return X_.cols(); }
  int n_classes() const { return n_classes_; }

  nlohmann::json to_json() const;
  static KnnClassifier from_json(const nlohmann::json& j);

 private:
  Eigen::MatrixXd X_;
  std::vector<int> y_;
  int n_classes_ = 0, k_ = 1;
};

}  // namespace ktune::ml
