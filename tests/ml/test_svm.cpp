// SVMs: separable problems are separated, the RBF kernel handles a non-linear boundary the
// linear one cannot, decision values, absent classes, JSON, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ktune/error.hpp"
#include "ktune/ml/svm.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

namespace {

// Points and their classes.
struct Labeled {
  Eigen::MatrixXd X;
  std::vector<int> y;
};

// Three blobs around (±2, 0) and (0, 3).
Labeled blobs(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 0.5);
  const double cx[3] = {-2, 2, 0}, cy[3] = {0, 0, 3};
  Labeled d{Eigen::MatrixXd(n, 2), std::vector<int>(size_t(n))};
  for (int i = 0; i < n; ++i) {
    d.y[i] = i % 3;
    d.X(i, 0) = cx[d.y[i]] + g(rng);
    d.X(i, 1) = cy[d.y[i]] + g(rng);
  }
  return d;
}

// Class 1 inside the unit circle, class 0 outside: not linearly separable.
Labeled ring(int n, uint64_t seed) {
  Labeled d{(random_matrix(n, 2, seed).array() / 5.0 - 1.0).matrix(),  // [-1, 1)^2
            std::vector<int>(size_t(n))};
  for (int i = 0; i < n; ++i) d.y[i] = d.X.row(i).squaredNorm() < 0.5 ? 1 : 0;
  return d;
}

}  // namespace

TEST(Svm, LinearSeparatesBlobs) {
  const auto [X, y] = blobs(150, 1);
  const auto [T, yt] = blobs(150, 2);
  LinearSvm svm;
  svm.fit(X, y, 3);
  EXPECT_GT(accuracy(svm, T, yt), 0.97);
  const LinearSvm back = LinearSvm::from_json(nlohmann::json::parse(svm.to_json().dump()));
  EXPECT_EQ(back.decision(T.row(0)), svm.decision(T.row(0)));
}

TEST(Svm, RbfLearnsARingTheLinearOneCannot) {
  const auto [X, y] = ring(300, 3);
  const auto [T, yt] = ring(300, 4);
  RbfSvm rbf;
  rbf.fit(X, y, 2);
  LinearSvm lin;
  lin.fit(X, y, 2);
  const double rbf_acc = accuracy(rbf, T, yt), lin_acc = accuracy(lin, T, yt);
  EXPECT_GT(rbf_acc, 0.93);
  EXPECT_GT(rbf_acc, lin_acc + 0.15);
  EXPECT_DOUBLE_EQ(rbf.gamma(), 1.0 / (2 * (X.array() - X.mean()).square().mean()));
  const RbfSvm back = RbfSvm::from_json(nlohmann::json::parse(rbf.to_json().dump()));
  for (Eigen::Index i = 0; i < 20; ++i)
    EXPECT_EQ(back.predict_class(T.row(i)), rbf.predict_class(T.row(i)));
}

TEST(Svm, AbsentClassesAreNeverPredictedAndOneClassIsConstant) {
  auto [X, y] = blobs(90, 5);
  for (int& label : y) label = label == 2 ? 3 : label;  // classes 0, 1, 3 of 5
  RbfSvm rbf;
  rbf.fit(X, y, 5);
  LinearSvm lin;
  lin.fit(X, y, 5);
  const Eigen::MatrixXd probe = random_matrix(50, 2, 6).array() - 5.0;
  for (Eigen::Index i = 0; i < probe.rows(); ++i) {
    for (int c : {rbf.predict_class(probe.row(i)), lin.predict_class(probe.row(i))}) {
      EXPECT_TRUE(c == 0 || c == 1 || c == 3) << c;
    }
  }
  rbf.fit(X, std::vector<int>(90, 2), 4);
  lin.fit(X, std::vector<int>(90, 2), 4);
  EXPECT_EQ(rbf.predict_class(probe.row(0)), 2);
  EXPECT_EQ(lin.predict_class(probe.row(0)), 2);
}

TEST(Svm, Errors) {
  RbfSvm rbf;
  LinearSvm lin;
  EXPECT_THROW(rbf.predict_class(Eigen::RowVectorXd::Zero(2)), Error);
  EXPECT_THROW(lin.fit(Eigen::MatrixXd(0, 2), {}, 2), Error);
  Eigen::MatrixXd X = random_matrix(10, 2, 1);
  X(0, 0) = std::nan("");
  EXPECT_THROW(rbf.fit(X, std::vector<int>(10, 0), 2), Error);
  SvmParams p;
  p.C = 0;
  EXPECT_THROW(lin.fit(random_matrix(10, 2, 1), std::vector<int>(10, 0), 2, p), Error);
}
