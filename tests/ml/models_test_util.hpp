#pragma once
// Helpers for the model tests (CART, forest, kNN, SVM, MLP, selectors): continuous random data
// without ties, so that scikit-learn and ktune cannot legitimately disagree.
#include <Eigen/Dense>
#include <random>
#include <string>
#include <vector>

#include "ml_test_util.hpp"

namespace ktune::test {

// n × d uniform values in [0, 10); continuous, so distinct with probability one.
inline Eigen::MatrixXd random_matrix(Eigen::Index n, Eigen::Index d, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 10.0);
  Eigen::MatrixXd X(n, d);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = u(rng);
  return X;
}

// Labels from a nonlinear rule of the first two features, with label noise on ~10% of rows.
inline std::vector<int> rule_labels(const Eigen::MatrixXd& X, int n_classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int> y(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double s = X(i, 0) + 0.5 * X(i, 1) * std::sin(X(i, 1));
    y[i] = static_cast<int>(std::abs(std::floor(s))) % n_classes;
    if (u(rng) < 0.1) y[i] = static_cast<int>(u(rng) * n_classes) % n_classes;
  }
  return y;
}

inline Eigen::MatrixXd labels_matrix(const std::vector<int>& y) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(y.size()), 1);
  for (size_t i = 0; i < y.size(); ++i) m(static_cast<Eigen::Index>(i), 0) = y[i];
  return m;
}

// What the sklearn_*.py scripts read from dir: training inputs X with labels or targets Y (a row
// each), and the test inputs T.
inline void write_sklearn_inputs(const TempDir& dir, const Eigen::MatrixXd& X,
                                 const Eigen::MatrixXd& Y, const Eigen::MatrixXd& T) {
  write_matrix_csv(dir.file("X_train.txt"), X);
  write_matrix_csv(dir.file("y_train.txt"), Y);
  write_matrix_csv(dir.file("X_test.txt"), T);
}

// Fraction of rows where predict(X.row(i)) == y[i].
template <class Model>
double accuracy(const Model& m, const Eigen::MatrixXd& X, const std::vector<int>& y) {
  int hits = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) hits += m.predict_class(X.row(i)) == y[i] ? 1 : 0;
  return X.rows() ? static_cast<double>(hits) / static_cast<double>(X.rows()) : 0.0;
}

}  // namespace ktune::test
