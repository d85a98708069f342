// Parity with scikit-learn: the same data goes through ktune and through
// tests/ml/sklearn_parity.py (run with /usr/bin/python3, which has sklearn).
#include <gtest/gtest.h>

#include <random>

#include "ktune/ml/kmeans.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/pca.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

Eigen::MatrixXd blob_data(int rows, int cols, int groups, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  Eigen::MatrixXd centers(groups, cols);
  for (int c = 0; c < groups; ++c)
    for (int j = 0; j < cols; ++j) centers(c, j) = 3 * g(rng);
  Eigen::MatrixXd X(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) X(i, j) = centers(i % groups, j) + g(rng);
  return X;
}

void expect_kmeans_parity(const Eigen::MatrixXd& X, const Eigen::MatrixXd& init) {
  test::TempDir dir;
  test::write_matrix_csv(dir.file("X.csv"), X);
  test::write_matrix_csv(dir.file("init.csv"), init);
  ASSERT_EQ(test::run_python("sklearn_parity.py", {"kmeans", dir.path().string()}), 0);
  const Eigen::MatrixXd centers = test::read_matrix_csv(dir.file("centers.csv"));
  const Eigen::MatrixXd labels = test::read_matrix_csv(dir.file("labels.csv"));
  const double inertia = test::read_matrix_csv(dir.file("inertia.csv"))(0, 0);
  const auto r = kmeans_from_centers(X, init);
  ASSERT_EQ(centers.rows(), r.centers.rows());
  EXPECT_LT((centers - r.centers).cwiseAbs().maxCoeff(), 1e-6);
  for (Eigen::Index i = 0; i < X.rows(); ++i) EXPECT_EQ(int(labels(0, i)), r.labels[size_t(i)]);
  EXPECT_NEAR(inertia, r.inertia, 1e-6 * std::max(1.0, inertia));
  EXPECT_GT(r.iterations, 1);  // Lloyd really iterated from the given centers
}

TEST(SklearnParity, KMeansFromGivenCenters) {
  if (!test::have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  const Eigen::MatrixXd X = blob_data(150, 5, 4, 21);
  // Initial centers: rows that are not the true centers, so Lloyd has to iterate.
  expect_kmeans_parity(X, X(Eigen::seqN(0, 6, 7), Eigen::all));
}

TEST(SklearnParity, KMeansOnNormalizedPerformance) {
  if (!test::have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  test::SyntheticOptions o;
  o.problems = 100;
  const Eigen::MatrixXd X = normalize(test::make_synthetic_dataset(o), Norm::sigmoid);
  std::mt19937_64 rng(3);
  expect_kmeans_parity(X, kmeans_plusplus(X, 5, rng));
}

TEST(SklearnParity, PcaExplainedVarianceAndComponents) {
  if (!test::have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  for (const Eigen::MatrixXd& X :
       {blob_data(60, 8, 3, 4), blob_data(6, 10, 2, 5),  // fewer rows than columns
        Eigen::MatrixXd(normalize(test::make_synthetic_dataset(), Norm::scale))}) {
    test::TempDir dir;
    test::write_matrix_csv(dir.file("X.csv"), X);
    ASSERT_EQ(test::run_python("sklearn_parity.py", {"pca", dir.path().string()}), 0);
    const Eigen::MatrixXd ratio = test::read_matrix_csv(dir.file("ratio.csv"));
    const Eigen::MatrixXd components = test::read_matrix_csv(dir.file("components.csv"));
    Pca pca;
    pca.fit(X);
    ASSERT_EQ(ratio.cols(), pca.n_components());
    EXPECT_LT((ratio.row(0).transpose() - pca.explained_variance_ratio()).cwiseAbs().maxCoeff(),
              1e-6);
    // Components match including sign for the well-separated ones (sklearn's svd_flip); a
    // component with a near-zero singular value is arbitrary, so only compare those above.
    for (int j = 0; j < pca.n_components(); ++j) {
      if (pca.explained_variance_ratio()(j) < 1e-8) continue;
      if (j + 1 < pca.n_components() &&
          pca.explained_variance()(j) - pca.explained_variance()(j + 1) <
              1e-6 * pca.explained_variance()(0))
        continue;  // near-degenerate pair: any rotation is valid
      EXPECT_LT((components.row(j) - pca.components().row(j)).cwiseAbs().maxCoeff(), 1e-6)
          << "component " << j;
    }
  }
}

}  // namespace
}  // namespace ktune::ml
