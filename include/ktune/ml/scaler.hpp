#pragma once
// StandardScaler with scikit-learn's semantics: per column, subtract the mean and divide by the
// population standard deviation (ddof = 0); a constant column keeps a scale of 1.
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

namespace ktune::ml {

class StandardScaler {
 public:
  void fit(const Eigen::MatrixXd& X);
  Eigen::MatrixXd transform(const Eigen::MatrixXd& X) const;
  Eigen::RowVectorXd transform_row(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  const Eigen::RowVectorXd& mean() const { return mean_; }
  const Eigen::RowVectorXd& scale() const { return scale_; }
  bool fitted() const { return mean_.size() > 0 || fitted_empty_; }

  nlohmann::json to_json() const;
  static StandardScaler from_json(const nlohmann::json& j);

 private:
  Eigen::RowVectorXd mean_, scale_;
  bool fitted_empty_ = false;
};

// Shared helpers for the JSON form of Eigen objects.
nlohmann::json to_json(const Eigen::MatrixXd& m);
Eigen::MatrixXd matrix_from_json(const nlohmann::json& j);

}  // namespace ktune::ml
