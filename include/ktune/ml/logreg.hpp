#pragma once
// Multinomial logistic regression like scikit-learn's LogisticRegression(multi_class=
// "multinomial", penalty="l2", solver="lbfgs"): minimizes
//   0.5 |W|^2 + C × sum_i -log softmax(W x_i + b)_{y_i}
// (intercepts unpenalized) over the classes present in training, by L-BFGS from zero to a
// gradient max-norm below tol. Starting from zero keeps the intercepts summing to zero, which
// fixes the one direction the loss leaves free, so coefficients compare with sklearn's. A class
// absent from training has probability 0. Inputs are used as given: standardize them first.
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

struct LogRegParams {
  double C = 1.0;
  double tol = 1e-8;    // on the largest absolute gradient entry
  int max_iter = 2000;  // L-BFGS iterations
  int history = 10;     // L-BFGS memory
};

class LogisticRegression {
 public:
  void fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
           const LogRegParams& p = {});
  Eigen::VectorXd predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;  // lowest on ties

  // Rows: all n_classes (absent classes are zero rows).
  const Eigen::MatrixXd& coef() const { return W_; }
  const Eigen::VectorXd& intercept() const { return b_; }
  int iterations() const { return iterations_; }
  bool converged() const { return converged_; }

  nlohmann::json to_json() const;
  static LogisticRegression from_json(const nlohmann::json& j);

 private:
  Eigen::MatrixXd W_;  // n_classes × n_features
  Eigen::VectorXd b_;
  std::vector<bool> present_;
  int iterations_ = 0;
  bool converged_ = false;
};

}  // namespace ktune::ml
