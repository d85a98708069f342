#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/kmeans.hpp"

namespace ktune::ml {
namespace {

// `per` points around each of the given centers (std 0.1).
Eigen::MatrixXd blobs(const Eigen::MatrixXd& centers, int per, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 0.1);
  Eigen::MatrixXd X(centers.rows() * per, centers.cols());
  for (Eigen::Index c = 0; c < centers.rows(); ++c)
    for (int i = 0; i < per; ++i)
      for (Eigen::Index j = 0; j < centers.cols(); ++j) X(c * per + i, j) = centers(c, j) + g(rng);
  return X;
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
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(4, 2);
  KMeansOptions o;
  o.k = 5;
  EXPECT_THROW(kmeans(X, o), Error);
  o.k = 0;
  EXPECT_THROW(kmeans(X, o), Error);
  o.k = 2;
  EXPECT_THROW(kmeans(Eigen::MatrixXd(0, 2), o), Error);
  Eigen::MatrixXd nan = X;
  nan(0, 0) = std::nan("");
  EXPECT_THROW(kmeans(nan, o), Error);
  EXPECT_THROW(kmeans_from_centers(X, Eigen::MatrixXd::Zero(2, 3)), Error);
}

}  // namespace
}  // namespace ktune::ml
