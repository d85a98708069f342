#include <gtest/gtest.h>

#include <random>

#include "ktune/error.hpp"
#include "ktune/ml/pca.hpp"

namespace ktune::ml {
namespace {

Eigen::MatrixXd random_matrix(int rows, int cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = g(rng) * (j + 1);
  return m;
}

TEST(Pca, FullReconstructionAndOrthonormalComponents) {
  const Eigen::MatrixXd X = random_matrix(30, 6, 3);
  Pca pca;
  const Eigen::MatrixXd Z = pca.fit_transform(X);
  EXPECT_EQ(pca.n_components(), 6);
  EXPECT_TRUE(pca.inverse_transform(Z).isApprox(X, 1e-10));
  const Eigen::MatrixXd gram = pca.components() * pca.components().transpose();
  EXPECT_TRUE(gram.isApprox(Eigen::MatrixXd::Identity(6, 6), 1e-10));
  EXPECT_NEAR(pca.explained_variance_ratio().sum(), 1.0, 1e-12);
  for (int j = 1; j < 6; ++j) {
    EXPECT_GE(pca.explained_variance()(j - 1), pca.explained_variance()(j));
  }
  // Explained variance is the variance of each transformed column.
  const double var0 = (Z.col(0).array() - Z.col(0).mean()).square().sum() / 29.0;
  EXPECT_NEAR(pca.explained_variance()(0), var0, 1e-9);
}

TEST(Pca, TruncationKeepsTotalRatioAndComponentsFor) {
  // Rank-2 data in 5 dimensions: 2 components explain everything.
  const Eigen::MatrixXd basis = random_matrix(2, 5, 4);
  const Eigen::MatrixXd X = random_matrix(40, 2, 5) * basis;
  Pca pca;
  pca.fit(X, 3);
  EXPECT_EQ(pca.n_components(), 3);
  EXPECT_NEAR(pca.cumulative_ratio()(1), 1.0, 1e-10);
  EXPECT_LE(pca.components_for(0.999), 2);
  EXPECT_EQ(pca.components_for(1.0), 2);
  EXPECT_THROW(pca.components_for(0), Error);
  EXPECT_TRUE(pca.inverse_transform(pca.transform(X)).isApprox(X, 1e-9));
}

TEST(Pca, RejectsBadInput) {
  Pca pca;
  EXPECT_THROW(pca.fit(Eigen::MatrixXd(1, 3)), Error);
  Eigen::MatrixXd nan = Eigen::MatrixXd::Zero(3, 2);
  nan(1, 1) = std::nan("");
  EXPECT_THROW(pca.fit(nan), Error);
  pca.fit(random_matrix(5, 3, 1));
  EXPECT_THROW(pca.transform(Eigen::MatrixXd::Zero(2, 4)), Error);
}

}  // namespace
}  // namespace ktune::ml
