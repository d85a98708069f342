// Gaussian naive Bayes (see naive_bayes.hpp), written to reproduce sklearn's GaussianNB.
#include "ktune/ml/naive_bayes.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "ktune/error.hpp"
#include "ktune/ml/scaler.hpp"
#include "src/ml/argmax.hpp"

namespace ktune::ml {

void GaussianNaiveBayes::fit(const Eigen::MatrixXd& X, const std::vector<int>& y, int n_classes,
                             double var_smoothing) {
  if (X.rows() == 0) throw Error("naive Bayes: no training rows");
  if (static_cast<Eigen::Index>(y.size()) != X.rows())
    throw Error("naive Bayes: labels and rows disagree");
  if (n_classes < 1) throw Error("naive Bayes: needs at least one class");
  const Eigen::Index d = X.cols();
  theta_ = Eigen::MatrixXd::Zero(n_classes, d);
  var_ = Eigen::MatrixXd::Zero(n_classes, d);
  count_ = Eigen::VectorXd::Zero(n_classes);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const int c = y[static_cast<size_t>(i)];
    if (c < 0 || c >= n_classes) throw Error("naive Bayes: label out of range");
    count_[c] += 1;
    theta_.row(c) += X.row(i);
  }
  for (int c = 0; c < n_classes; ++c) {
    if (count_[c] > 0) theta_.row(c) /= count_[c];
  }
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const int c = y[static_cast<size_t>(i)];
    var_.row(c) += (X.row(i) - theta_.row(c)).array().square().matrix();
  }
  double max_var = 0;
  const Eigen::RowVectorXd mean = X.colwise().mean();
  for (Eigen::Index j = 0; j < d; ++j) {
    max_var = std::max(max_var, (X.col(j).array() - mean[j]).square().mean());
  }
  epsilon_ = var_smoothing * max_var;
  // Every feature constant: sklearn would divide by zero; any positive variance ranks the same.
  if (!(epsilon_ > 0)) epsilon_ = std::numeric_limits<double>::min();
  for (int c = 0; c < n_classes; ++c) {
    if (count_[c] > 0) var_.row(c) /= count_[c];
    var_.row(c).array() += epsilon_;
  }
}

Eigen::VectorXd GaussianNaiveBayes::joint_log_likelihood(
    const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  if (x.size() != theta_.cols()) throw Error("naive Bayes: wrong number of features");
  const auto K = theta_.rows();
  const double n = count_.sum();
  Eigen::VectorXd jll(K);
  for (Eigen::Index c = 0; c < K; ++c) {
    if (count_[c] <= 0) {
      jll[c] = -std::numeric_limits<double>::infinity();
      continue;
    }
    const auto v = var_.row(c).array();
    const double n_ij = -0.5 * (2.0 * std::numbers::pi * v).log().sum();
    jll[c] =
        std::log(count_[c] / n) + n_ij - 0.5 * ((x - theta_.row(c)).array().square() / v).sum();
  }
  return jll;
}

Eigen::VectorXd GaussianNaiveBayes::predict_proba(
    const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  const Eigen::VectorXd jll = joint_log_likelihood(x);
  const double top = jll.maxCoeff();
  Eigen::VectorXd p(jll.size());
  // std::exp per entry: Eigen's vectorized exp turns -infinity into a denormal, not 0.
  for (Eigen::Index c = 0; c < jll.size(); ++c) p[c] = std::exp(jll[c] - top);
  return p / p.sum();
}

int GaussianNaiveBayes::predict_class(const Eigen::Ref<const Eigen::RowVectorXd>& x) const {
  return first_argmax(joint_log_likelihood(x));
}

nlohmann::json GaussianNaiveBayes::to_json() const {
  return {{"theta", ml::to_json(theta_)},
          {"var", ml::to_json(var_)},
          {"count", ml::to_json(Eigen::MatrixXd(count_))},
          {"epsilon", epsilon_}};
}

GaussianNaiveBayes GaussianNaiveBayes::from_json(const nlohmann::json& j) {
  GaussianNaiveBayes m;
  m.theta_ = matrix_from_json(j.at("theta"));
  m.var_ = matrix_from_json(j.at("var"));
  const Eigen::MatrixXd count = matrix_from_json(j.at("count"));
  m.epsilon_ = j.at("epsilon").get<double>();
  if (count.cols() != 1 || count.rows() != m.theta_.rows() || m.var_.rows() != m.theta_.rows() ||
      m.var_.cols() != m.theta_.cols()) {
    throw Error("naive Bayes JSON: theta, var and count disagree");
  }
  m.count_ = count.col(0);
  return m;
}

}  // namespace ktune::ml
