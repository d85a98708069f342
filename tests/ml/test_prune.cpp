#include <gtest/gtest.h>

#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/prune.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

Dataset synthetic() {
  test::SyntheticOptions o;
  o.problems = 80;
  o.configs_a = 4;
  o.configs_b = 4;
  o.seed = 3;
  return test::make_synthetic_dataset(o);
}

TEST(Prune, EveryMethodShipsExactlyKDistinctValidConfigs) {
  const Dataset d = synthetic();
  for (PruneMethod method : prune_methods()) {
    for (Norm norm : {Norm::scale, Norm::cutoff, Norm::rawcutoff, Norm::sigmoid}) {
      for (int k : {1, 3, 6, 16}) {
        const auto picks = prune(d, {method, k, norm, 7});
        ASSERT_EQ(picks.size(), size_t(k)) << to_string(method) << " k=" << k;
        std::set<Eigen::Index> distinct(picks.begin(), picks.end());
        EXPECT_EQ(distinct.size(), size_t(k)) << to_string(method);
        for (auto c : picks) {
          EXPECT_GE(c, 0);
          EXPECT_LT(c, d.cols());
          EXPECT_TRUE(d.valid.col(c).any());
        }
      }
    }
  }
}

TEST(Prune, DeterministicForASeed) {
  const Dataset d = synthetic();
  for (PruneMethod method : prune_methods()) {
    EXPECT_EQ(prune(d, {method, 5, Norm::scale, 11}), prune(d, {method, 5, Norm::scale, 11}))
        << to_string(method);
  }
}

TEST(Prune, ClusteringBeatsTheBestSingleConfig) {
  // The synthetic best config depends on (m, n): six well-chosen configs cover most problems,
  // while any one config is poor on problems far from its sweet spot.
  const Dataset d = synthetic();
  const auto top1 = prune(d, {PruneMethod::topn, 1, Norm::scale, 0});
  const double single = ceiling(d, top1);
  const double top6 = ceiling(d, prune(d, {PruneMethod::topn, 6, Norm::scale, 0}));
  for (PruneMethod method : prune_methods()) {
    const double c = ceiling(d, prune(d, {method, 6, Norm::scale, 1}));
    EXPECT_GT(c, single) << to_string(method);
    // Covering the clusters of problems beats shipping the most frequent winners.
    if (method != PruneMethod::topn) {
      EXPECT_GE(c, top6) << to_string(method);
    }
    EXPECT_LE(c, 1.0) << to_string(method);
  }
  std::vector<Eigen::Index> all(size_t(d.cols()));
  for (Eigen::Index c = 0; c < d.cols(); ++c) all[size_t(c)] = c;
  EXPECT_DOUBLE_EQ(ceiling(d, all), 1.0);
}

TEST(Prune, TopnTakesTheMostFrequentWinners) {
  Dataset d;
  d.config_names = {"a", "b", "c", "d"};
  d.perf.resize(5, 4);
  d.perf << 1, 2, 3, 0,  // c wins
      1, 2, 3, 0,        // c
      3, 2, 1, 0,        // a
      1, 3, 2, 0,        // b
      1, 2, 3, 0;        // c
  d.valid = (d.perf.array() > 0).matrix();
  d.features = Eigen::MatrixXd::Zero(5, 1);
  EXPECT_EQ(prune(d, {PruneMethod::topn, 1, Norm::scale, 0}), std::vector<Eigen::Index>{2});
  // a and b win once each; b has the better geomean (2/3·2/3·2/3·1·2/3 vs 1/3·1/3·1·1/3·1/3).
  EXPECT_EQ(prune(d, {PruneMethod::topn, 2, Norm::scale, 0}), (std::vector<Eigen::Index>{2, 1}));
  // d is never valid: only three configs can be shipped.
  EXPECT_THROW(prune(d, {PruneMethod::topn, 4, Norm::scale, 0}), Error);
  EXPECT_THROW(prune(d, {PruneMethod::kmeans, 0, Norm::scale, 0}), Error);
  EXPECT_THROW(parse_prune_method("random"), Error);
  // K above the number of problems still works (clusters capped, then filled).
  EXPECT_EQ(prune(d, {PruneMethod::spectral, 3, Norm::scale, 0}).size(), 3u);
}

TEST(Prune, RowWithoutAnyValidConfigDoesNotCrash) {
  Dataset d = synthetic();
  d.valid.row(0).setConstant(false);
  d.perf.row(0).setZero();
  for (PruneMethod method : prune_methods()) {
    EXPECT_EQ(prune(d, {method, 4, Norm::cutoff, 0}).size(), 4u) << to_string(method);
  }
  EXPECT_THROW(prune(Dataset{}, {PruneMethod::topn, 1, Norm::scale, 0}), Error);
}

}  // namespace
}  // namespace ktune::ml
