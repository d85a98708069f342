#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/kmeans.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

Eigen::MatrixXd blobs(const Eigen::MatrixXd& centers, int per, uint64_t seed) {
  return test::gaussian_blobs(centers, per, 0.1, seed);
}

TEST(KMeans, RecoversSeparatedBlobs) {
  Eigen::MatrixXd truth(3, 2);
  truth << 0, 0, 5, 5, -5, 5;
  const Eigen::MatrixXd X = blobs(truth, 20, 7);
  KMeansOptions o;
  o.k = 3;
  o.seed = 11;
  const auto r = kmeans(X, o);
  for (int c = 0; c < 3; ++c) {
    // Every blob is one cluster.
    std::set<int> labels(r.labels.begin() + c * 20, r.labels.begin() + (c + 1) * 20);
    EXPECT_EQ(labels.size(), 1u);
    const int l = *labels.begin();
    EXPECT_LT((r.centers.row(l) - truth.row(c)).norm(), 0.1);
  }
  double inertia = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    inertia += (X.row(i) - r.centers.row(r.labels[size_t(i)])).squaredNorm();
  EXPECT_NEAR(r.inertia, inertia, 1e-9);
}

TEST(KMeans, DeterministicForASeed) {
  Eigen::MatrixXd truth(4, 3);
  truth << 0, 0, 0, 1, 1, 1, 2, 0, 1, 0, 2, 2;
  const Eigen::MatrixXd X = blobs(truth, 15, 3);
  KMeansOptions o;
  o.k = 4;
  o.seed = 42;
  const auto a = kmeans(X, o), b = kmeans(X, o);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centers, b.centers);
  std::mt19937_64 r1(5), r2(5);
  EXPECT_EQ(kmeans_plusplus(X, 4, r1), kmeans_plusplus(X, 4, r2));
}

TEST(KMeans, EmptyClusterIsRelocatedToTheFarthestPoint) {
  Eigen::MatrixXd X(5, 1);
  X << 0, 0.1, 0.2, 10, 10.5;
  Eigen::MatrixXd init(3, 1);
  init << 0, 10, 100;  // the third center attracts nothing
  const auto r = kmeans_from_centers(X, init);
  std::set<int> used(r.labels.begin(), r.labels.end());
  EXPECT_EQ(used.size(), 3u);  // no cluster stays empty
  EXPECT_TRUE(r.centers.allFinite());
}

TEST(KMeans, RejectsBadInput) {
  test::expect_rejects_bad_k<KMeansOptions>(
      [](const Eigen::MatrixXd& X, const KMeansOptions& o) { return kmeans(X, o); }, 2);
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(4, 2);
  KMeansOptions o;
  o.k = 2;
  Eigen::MatrixXd nan = X;
  nan(0, 0) = std::nan("");
  EXPECT_THROW(kmeans(nan, o), Error);
  EXPECT_THROW(kmeans_from_centers(X, Eigen::MatrixXd::Zero(2, 3)), Error);
}

}  // namespace
}  // namespace ktune::ml
