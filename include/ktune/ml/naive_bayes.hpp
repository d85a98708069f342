#pragma once
// Gaussian naive Bayes like scikit-learn's GaussianNB: per class the feature means and
// population variances, each variance plus var_smoothing × the largest feature variance of the
// whole training set (sklearn's epsilon), priors = class frequencies. A class absent from
// training has probability 0 and is never predicted. Inputs are used as given.
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <vector>

namespace ktune::ml {

class GaussianNaiveBayes {
 public:
  void fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
           double var_smoothing = 1e-9);
  // Per class: log prior + log likelihood (-infinity for an absent class).
  Eigen::VectorXd joint_log_likelihood(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  Eigen::VectorXd predict_proba(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;
  int predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const;  // lowest on ties

  const Eigen::MatrixXd& means() const { return theta_; }    // classes × features
  const Eigen::MatrixXd& variances() const { return var_; }  // smoothed
  double epsilon() const { return epsilon_; }

  nlohmann::json to_json() const;
  static GaussianNaiveBayes from_json(const nlohmann::json& j);

 private:
  Eigen::MatrixXd theta_, var_;
  Eigen::VectorXd count_;  // training rows per class (0 = absent)
  double epsilon_ = 0;
};

}  // namespace ktune::ml
