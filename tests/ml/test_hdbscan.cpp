#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/hdbscan.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

// Three dense blobs of 20 points and 3 far outliers.
Eigen::MatrixXd blobs_with_outliers() {
  Eigen::MatrixXd centers(3, 2);
  centers << 0, 0, 4, 0, 0, 4;
  Eigen::MatrixXd X = test::gaussian_blobs(centers, 20, 0.1, 5);
  X.conservativeResize(63, Eigen::NoChange);
  X.row(60) << 10, 10;
  X.row(61) << -10, 7;
  X.row(62) << 8, -9;
  return X;
}

TEST(Hdbscan, FindsBlobsAndLeavesOutliersAsNoise) {
  const Eigen::MatrixXd X = blobs_with_outliers();
  const auto r = hdbscan(X, {5, 5});
  ASSERT_EQ(r.n_clusters, 3);
  std::set<int> seen;
  for (int c = 0; c < 3; ++c) {
    std::set<int> labels(r.labels.begin() + c * 20, r.labels.begin() + (c + 1) * 20);
    EXPECT_EQ(labels.size(), 1u);
    EXPECT_GE(*labels.begin(), 0);
    seen.insert(*labels.begin());
  }
  EXPECT_EQ(seen.size(), 3u);
  for (int i = 60; i < 63; ++i) EXPECT_EQ(r.labels[size_t(i)], -1) << "outlier " << i;
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(r.members[size_t(c)].size(), 20u);
    ASSERT_FALSE(r.exemplars[size_t(c)].empty());
    for (int e : r.exemplars[size_t(c)]) {
      EXPECT_EQ(r.labels[size_t(e)], c);
      EXPECT_DOUBLE_EQ(r.probabilities[size_t(e)], 1.0);
    }
    EXPECT_GT(r.stability[size_t(c)], 0);
  }
  for (double p : r.probabilities) {
    EXPECT_GE(p, 0);
    EXPECT_LE(p, 1);
  }
}

TEST(Hdbscan, LargeMinClusterSizeMergesOrDropsClusters) {
  const Eigen::MatrixXd X = blobs_with_outliers();
  // No blob has 30 points, so no cluster of that size can exist.
  EXPECT_LT(hdbscan(X, {30, 5}).n_clusters, 3);
  // Duplicate points (zero distances) stay finite.
  Eigen::MatrixXd dup = Eigen::MatrixXd::Zero(10, 2);
  dup.bottomRows(5).array() += 3;
  const auto r = hdbscan(dup, {3, 2});
  EXPECT_EQ(r.n_clusters, 2);
  for (double s : r.stability) EXPECT_TRUE(std::isfinite(s));
}

TEST(Hdbscan, RejectsBadInput) {
  EXPECT_THROW(hdbscan(Eigen::MatrixXd::Random(5, 2), {1, 1}), Error);
  EXPECT_THROW(hdbscan_distances(Eigen::MatrixXd::Zero(3, 2), {2, 1}), Error);
  EXPECT_EQ(hdbscan(Eigen::MatrixXd::Zero(1, 2), {2, 1}).n_clusters, 0);
}

}  // namespace
}  // namespace ktune::ml
