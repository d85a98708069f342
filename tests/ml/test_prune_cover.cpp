// The cover pruner on datasets small enough to check its greedy choices by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ktune/ml/prune.hpp"

namespace ktune::ml {
namespace {

Dataset by_hand(const Eigen::MatrixXd& perf) {
  Dataset d;
  for (Eigen::Index c = 0; c < perf.cols(); ++c) {
    std::string name = "c";  // built in two steps: GCC 12 warns falsely on "c" + to_string
    name += std::to_string(c);
    d.config_names.push_back(name);
  }
  d.perf = perf;
  d.valid = (perf.array() > 0).matrix();
  d.features = Eigen::MatrixXd::Zero(perf.rows(), 1);
  return d;
}

std::vector<Eigen::Index> cover(const Dataset& d, int k) {
  return prune(d, {PruneMethod::cover, k, Norm::scale, 0});
}

TEST(PruneCover, GreedyPicksTheBestGeomeanThenTheBiggestGain) {
  // Columns: perf / oracle already (every row's best is 1).
  Eigen::MatrixXd p(4, 3);
  p << 1.0, 0.5, 0.8,  //
      1.0, 0.5, 0.9,   //
      0.1, 1.0, 0.9,   //
      0.1, 1.0, 0.9;
  const Dataset d = by_hand(p);
  // K = 1: sum of log ratios c0: 2 log 0.1 = -4.61; c1: 2 log 0.5 = -1.39;
  // c2: log 0.8 + 3 log 0.9 = -0.54 -> c2, which wins no problem (topn takes a winner: c0 and
  // c1 win two each, c1 has the better geomean).
  EXPECT_EQ(cover(d, 1), std::vector<Eigen::Index>{2});
  EXPECT_EQ(prune(d, {PruneMethod::topn, 1, Norm::scale, 0}), std::vector<Eigen::Index>{1});
  // K = 2 after c2: c0 lifts rows 0, 1 to 1 (gain -log 0.8 - log 0.9 = 0.33); c1 lifts rows 2,
  // 3 (gain -2 log 0.9 = 0.21) -> c0.
  EXPECT_EQ(cover(d, 2), (std::vector<Eigen::Index>{2, 0}));
  // The greedy's objective is the training ceiling: (1 · 1 · 0.9 · 0.9)^¼.
  EXPECT_NEAR(ceiling(d, cover(d, 2)), std::sqrt(0.9), 1e-12);
  // K = 3: c1 still gains on rows 2, 3.
  EXPECT_EQ(cover(d, 3), (std::vector<Eigen::Index>{2, 0, 1}));
}

TEST(PruneCover, EverySizeClassWeighsTheSame) {
  // Three problems of about 1e3 flops, one of 1e6: c0 is best on the small ones, c1 on the big.
  Eigen::MatrixXd p(4, 2);
  p << 1.0, 0.75,  //
      1.0, 0.75,   //
      1.0, 0.75,   //
      0.5, 1.0;
  Dataset d = by_hand(p);
  // Unstratified (no work column): c0 log 0.5 = -0.69 beats c1 3 log 0.75 = -0.86.
  EXPECT_EQ(cover(d, 1), std::vector<Eigen::Index>{0});
  d.work.resize(4);
  d.work << 1.5e3, 2e3, 5e3, 2e6;
  EXPECT_EQ(size_classes(d), (std::vector<int>{3, 3, 3, 6}));
  // Stratified: each class weighs 1/2: c0 0.5 log 0.5 = -0.35; c1 0.5 log 0.75 = -0.14 -> c1.
  EXPECT_EQ(cover(d, 1), std::vector<Eigen::Index>{1});
}

TEST(PruneCover, InvalidAndUnmeasuredCellsServeNothing) {
  Eigen::MatrixXd p(3, 3);
  p << 1.0, 0.9, 0.0,  // c2 refused on row 0
      0.6, 0.9, 1.0,   //
      0.6, 0.9, 1.0;
  Dataset d = by_hand(p);
  // c2 is perfect where it runs but refused on row 0 (floor 1e-3): c1 is the safe pick.
  EXPECT_EQ(cover(d, 1), std::vector<Eigen::Index>{1});
  // Unmeasured like refused: c1 unmeasured on rows 1, 2 leaves c0 (log 1 + 2 log 0.6 = -1.02)
  // ahead of c1 (log 0.9 + 2 log 1e-3 = -13.9).
  d.measured = BoolMatrix::Constant(3, 3, true);
  d.measured(1, 1) = d.measured(2, 1) = false;
  d.valid(1, 1) = d.valid(2, 1) = false;
  d.perf(1, 1) = d.perf(2, 1) = 0;
  EXPECT_EQ(cover(d, 1), std::vector<Eigen::Index>{0});
}

TEST(PruneCover, StopsWhenNothingGainsAndFillsUpByGeomean) {
  Eigen::MatrixXd p(2, 3);
  p << 1.0, 0.5, 0.4,  //
      1.0, 0.4, 0.5;
  const Dataset d = by_hand(p);
  // c0 serves every problem at its oracle; the rest gain nothing and come by geomean (a tie
  // of 0.447, the lower column first).
  EXPECT_EQ(cover(d, 3), (std::vector<Eigen::Index>{0, 1, 2}));
  EXPECT_EQ(parse_prune_method("cover"), PruneMethod::cover);
  EXPECT_EQ(to_string(PruneMethod::cover), "cover");
}

}  // namespace
}  // namespace ktune::ml
