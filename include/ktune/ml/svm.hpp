#pragma once
// Support vector machines written for ktune, one-vs-rest over the classes present in training
// (a class absent from training is never predicted; with a single present class that class is
// always the answer). Inputs are used as given: standardize them first.
//  - LinearSvm: L1-loss (hinge) linear SVM solved in the dual by coordinate descent (Hsieh et
//    al. 2008, LIBLINEAR's solver), with a bias term as an extra constant feature.
//  - RbfSvm: C-SVC with the kernel exp(-gamma |x - x'|^2), solved by SMO with second-order
//    working-set selection (Fan, Chen & Lin 2005, libsvm's solver).
// The predicted class is the argmax of the one-vs-rest decision values (lowest class on ties).
#include <Eigen/Dense>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

struct SvmParams {
  double C = 1.0;
  double gamma = 0;       // RBF only; <= 0: sklearn's "scale" = 1 / (n_features * var(X))
  double tol = 1e-3;      // stopping tolerance on the KKT violation (0.1 for the linear solver)
  int max_iter = 100000;  // solver iterations per binary problem (coordinate passes for linear)
  uint64_t seed = 0;      // coordinate order of the linear solver
};

class LinearSvm {
 public:
  void fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
           const SvmParams& p = {});
  Eigen::VectorXd decision(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;  // per class
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  nlohmann::json to_json() const;
  static LinearSvm from_json(const nlohmann::json& j);

  Eigen::Index n_features() const { return W_.cols(); }
  Eigen::Index n_classes() const { return W_.rows(); }

 private:
  Eigen::MatrixXd W_;  // n_classes × n_features
  Eigen::VectorXd b_;  // n_classes
  std::vector<bool> present_;
};

class RbfSvm {
 public:
  void fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
           const SvmParams& p = {});
  Eigen::VectorXd decision(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  double gamma() const { return gamma_; }
  nlohmann::json to_json() const;
  static RbfSvm from_json(const nlohmann::json& j);

  Eigen::Index n_features() const { return sv_.cols(); }
  Eigen::Index n_classes() const { return coef_.rows(); }

 private:
  Eigen::MatrixXd sv_;    // support vectors (union over the binary problems)
  Eigen::MatrixXd coef_;  // n_classes × n_sv: alpha_i y_i of each binary problem
  Eigen::VectorXd rho_;   // n_classes
  std::vector<bool> present_;
  double gamma_ = 1;
};

}  // namespace ktune::ml
