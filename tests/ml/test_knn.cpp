// kNN and StandardScaler: scikit-learn parity on standardized features, vote rules, JSON.
#include <gtest/gtest.h>

#include <cmath>

#include "ktune/error.hpp"
#include "ktune/ml/knn.hpp"
#include "ktune/ml/scaler.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

TEST(Knn, MatchesSklearnOnStandardizedFeatures) {
  if (!have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  Eigen::MatrixXd X = random_matrix(180, 3, 41), T = random_matrix(120, 3, 42);
  X.col(2) *= 1000;  // very different scales: standardization matters
  T.col(2) *= 1000;
  const std::vector<int> y = rule_labels(X, 5, 43);
  for (int k : {1, 3, 7}) {
    TempDir dir("ktune-knn");
    write_sklearn_inputs(dir, X, labels_matrix(y), T);
    ASSERT_EQ(
        run_python("sklearn_models.py", {"knn", dir.path().string(), "--k", std::to_string(k)}), 0);
    const Eigen::MatrixXd expected = read_matrix_csv(dir.file("pred.txt"));
    StandardScaler s;
    s.fit(X);
    KnnClassifier knn;
    knn.fit(s.transform(X), y, 5, k);
    ASSERT_EQ(expected.rows(), T.rows());
    for (Eigen::Index i = 0; i < T.rows(); ++i) {
      EXPECT_EQ(knn.predict_class(s.transform_row(T.row(i))), static_cast<int>(expected(i, 0)))
          << "k=" << k << " row " << i;
    }
  }
}

TEST(Scaler, PopulationStdAndConstantColumns) {
  Eigen::MatrixXd X(4, 2);
  X << 1, 5, 2, 5, 3, 5, 4, 5;
  StandardScaler s;
  s.fit(X);
  EXPECT_DOUBLE_EQ(s.mean()[0], 2.5);
  EXPECT_DOUBLE_EQ(s.scale()[0], std::sqrt(1.25));  // ddof = 0
  EXPECT_DOUBLE_EQ(s.scale()[1], 1.0);              // constant column left unscaled
  const Eigen::MatrixXd Z = s.transform(X);
  EXPECT_NEAR(Z.col(0).mean(), 0.0, 1e-12);
  EXPECT_NEAR(Z.col(0).squaredNorm() / 4, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(Z(0, 1), 0.0);
  const StandardScaler back = StandardScaler::from_json(s.to_json());
  EXPECT_EQ(back.transform(X), Z);
  EXPECT_THROW(s.fit(Eigen::MatrixXd(0, 2)), Error);
  EXPECT_THROW(s.transform_row(Eigen::RowVectorXd::Zero(3)), Error);
}

TEST(Knn, VotesAndTies) {
  Eigen::MatrixXd X(5, 1);
  X << 0, 1, 2, 10, 11;
  KnnClassifier knn;
  knn.fit(X, {2, 2, 0, 1, 1}, 3, 3);
  Eigen::RowVectorXd x(1);
  x << 0.4;
  EXPECT_EQ(knn.neighbours(x), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(knn.predict_class(x), 2);
  EXPECT_DOUBLE_EQ(knn.predict_proba(x)[2], 2.0 / 3.0);
  x << 10.4;  // neighbours 3, 4, 2 → class 1
  EXPECT_EQ(knn.predict_class(x), 1);
  // k = 2 with one vote each: the lowest class wins, as sklearn's mode.
  knn.fit(X, {2, 2, 0, 1, 1}, 3, 2);
  x << 1.6;  // neighbours 2 (class 0) and 1 (class 2)
  EXPECT_EQ(knn.predict_class(x), 0);
  // k larger than the training set is clamped.
  knn.fit(X, {2, 2, 0, 1, 1}, 3, 50);
  EXPECT_EQ(knn.k(), 5);
  EXPECT_EQ(knn.predict_class(x), 1);  // 2 votes for 1 and 2, lowest wins
}

TEST(Knn, JsonAndErrors) {
  const Eigen::MatrixXd X = random_matrix(30, 2, 3);
  const std::vector<int> y = rule_labels(X, 3, 4);
  KnnClassifier knn;
  EXPECT_THROW(knn.predict_class(Eigen::RowVectorXd::Zero(2)), Error);
  knn.fit(X, y, 3, 3);
  const KnnClassifier back = KnnClassifier::from_json(nlohmann::json::parse(knn.to_json().dump()));
  const Eigen::MatrixXd T = random_matrix(20, 2, 5);
  for (Eigen::Index i = 0; i < T.rows(); ++i) {
    EXPECT_EQ(back.predict_class(T.row(i)), knn.predict_class(T.row(i)));
  }
  EXPECT_THROW(knn.fit(Eigen::MatrixXd(0, 2), {}, 3, 1), Error);
  EXPECT_THROW(knn.fit(X, y, 3, 0), Error);
  Eigen::MatrixXd bad = X;
  bad(0, 0) = std::nan("");
  EXPECT_THROW(knn.fit(bad, y, 3, 1), Error);
}
