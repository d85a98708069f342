#pragma once
// Principal component analysis by SVD of the centred matrix, matching scikit-learn's PCA with
// svd_solver='full' (including its sign convention: the largest |U| entry of each component is
// positive).
#include <Eigen/Dense>

namespace ktune::ml {

class Pca {
 public:
  // n_components <= 0 keeps min(rows, cols) components; larger values are capped to it.
  void fit(const Eigen::MatrixXd& X, int n_components = -1);
  Eigen::MatrixXd transform(const Eigen::MatrixXd& X) const;  // rows × components
  Eigen::MatrixXd fit_transform(const Eigen::MatrixXd& X, int n_components = -1);
  Eigen::MatrixXd inverse_transform(const Eigen::MatrixXd& Z) const;

  int n_components() const { return int(components_.rows()); }
  const Eigen::RowVectorXd& mean() const { return mean_; }
  const Eigen::MatrixXd& components() const { return components_; }  // components × features
  // Of the kept components; the ratio is relative to the total variance of all components.
  const Eigen::VectorXd& explained_variance() const { return explained_variance_; }
  const Eigen::VectorXd& explained_variance_ratio() const { return explained_variance_ratio_; }
  // Cumulative ratio over *all* components (independent of n_components).
  const Eigen::VectorXd& cumulative_ratio() const { return cumulative_ratio_; }
  // Smallest number of components whose cumulative ratio reaches fraction (0 < fraction <= 1).
  int components_for(double fraction) const;

 private:
  Eigen::RowVectorXd mean_;
  Eigen::MatrixXd components_;
  Eigen::VectorXd explained_variance_, explained_variance_ratio_, cumulative_ratio_;
};

}  // namespace ktune::ml
