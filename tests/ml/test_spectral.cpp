#include <gtest/gtest.h>

#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/spectral.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

TEST(Spectral, SeparatesThreeGroups) {
  Eigen::MatrixXd centers(3, 2);
  centers << 0, 0, 1, 0, 0, 1;
  const Eigen::MatrixXd X = test::gaussian_blobs(centers, 15, 0.05, 9);
  SpectralOptions o;
  o.k = 3;
  o.seed = 1;
  const auto r = spectral_clustering(X, o);
  std::set<int> seen;
  for (int c = 0; c < 3; ++c) {
    std::set<int> labels(r.labels.begin() + c * 15, r.labels.begin() + (c + 1) * 15);
    EXPECT_EQ(labels.size(), 1u) << "group " << c;
    seen.insert(*labels.begin());
  }
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_GT(r.gamma, 0);
  EXPECT_EQ(r.embedding.rows(), 45);
  const auto again = spectral_clustering(X, o);
  EXPECT_EQ(again.labels, r.labels);
}

TEST(Spectral, RejectsBadK) {
  test::expect_rejects_bad_k<SpectralOptions>(
      [](const Eigen::MatrixXd& X, const SpectralOptions& o) { return spectral_clustering(X, o); },
      1);
}

}  // namespace
}  // namespace ktune::ml
