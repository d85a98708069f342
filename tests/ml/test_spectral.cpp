#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/spectral.hpp"

namespace ktune::ml {
namespace {

TEST(Spectral, SeparatesThreeGroups) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> g(0, 0.05);
  const double centers[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  Eigen::MatrixXd X(45, 2);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 15; ++i)
      for (int j = 0; j < 2; ++j) X(c * 15 + i, j) = centers[c][j] + g(rng);
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
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(4, 2);
  SpectralOptions o;
  o.k = 5;
  EXPECT_THROW(spectral_clustering(X, o), Error);
  o.k = 0;
  EXPECT_THROW(spectral_clustering(X, o), Error);
  o.k = 1;
  EXPECT_THROW(spectral_clustering(Eigen::MatrixXd(0, 2), o), Error);
}

}  // namespace
}  // namespace ktune::ml
