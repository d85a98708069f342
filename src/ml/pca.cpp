// PCA by SVD of the centred data, as scikit-learn's PCA(svd_solver='full').
#include "ktune/ml/pca.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ktune/error.hpp"

namespace ktune::ml {

void Pca::fit(const Eigen::MatrixXd& X, int n_components) {
  const Eigen::Index n = X.rows(), d = X.cols();
  if (n < 2 || d < 1) {
    throw Error(fmt::format("PCA needs at least 2 rows and 1 column, got {}x{}", n, d));
  }
  if (!X.allFinite()) throw Error("PCA input holds NaN or infinite values");
  mean_ = X.colwise().mean();
  const Eigen::MatrixXd centred = X.rowwise() - mean_;
  Eigen::BDCSVD<Eigen::MatrixXd> svd(centred, Eigen::ComputeThinU | Eigen::ComputeThinV);
  Eigen::MatrixXd U = svd.matrixU();
  Eigen::MatrixXd V = svd.matrixV();  // d × r; components are its columns
  const Eigen::VectorXd& s = svd.singularValues();
  const Eigen::Index r = s.size();
  // sklearn's svd_flip(u_based_decision=True): the largest |U| entry of each column positive.
  for (Eigen::Index j = 0; j < r; ++j) {
    Eigen::Index at;
    U.col(j).cwiseAbs().maxCoeff(&at);
    if (U(at, j) < 0) {
      U.col(j) = -U.col(j);
      V.col(j) = -V.col(j);
    }
  }
  const Eigen::VectorXd variance = s.array().square() / double(n - 1);
  const double total = variance.sum();
  const Eigen::VectorXd ratio =
      total > 0 ? Eigen::VectorXd(variance / total) : Eigen::VectorXd::Zero(r);
  cumulative_ratio_.resize(r);
  double sum = 0;
  for (Eigen::Index j = 0; j < r; ++j) cumulative_ratio_(j) = sum += ratio(j);

  const Eigen::Index keep = n_components <= 0 ? r : std::min<Eigen::Index>(n_components, r);
  components_ = V.leftCols(keep).transpose();
  explained_variance_ = variance.head(keep);
  explained_variance_ratio_ = ratio.head(keep);
}

Eigen::MatrixXd Pca::transform(const Eigen::MatrixXd& X) const {
  if (X.cols() != mean_.size()) {
    throw Error(fmt::format("PCA fitted on {} columns, given {}", mean_.size(), X.cols()));
  }
  return (X.rowwise() - mean_) * components_.transpose();
}

Eigen::MatrixXd Pca::fit_transform(const Eigen::MatrixXd& X, int n_components) {
  fit(X, n_components);
  return transform(X);
}

Eigen::MatrixXd Pca::inverse_transform(const Eigen::MatrixXd& Z) const {
  if (Z.cols() != components_.rows()) {
    throw Error(fmt::format("PCA has {} components, given {}", components_.rows(), Z.cols()));
  }
  return (Z * components_).rowwise() + mean_;
}

int Pca::components_for(double fraction) const {
  if (!(fraction > 0 && fraction <= 1)) {
    throw Error(fmt::format("variance fraction {} outside (0, 1]", fraction));
  }
  // Tolerance for the round-off of the cumulative sum (1.0 may come out as 0.9999999999999998).
  for (Eigen::Index j = 0; j < cumulative_ratio_.size(); ++j) {
    if (cumulative_ratio_(j) >= fraction - 1e-12) return int(j + 1);
  }
  return int(cumulative_ratio_.size());
}

}  // namespace ktune::ml
