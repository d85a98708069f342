// The three cell states (dataset.hpp) through Learn: every consumer does with an unmeasured cell
// what its header says, on datasets that have some.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ktune/dataset.hpp"
#include "ktune/error.hpp"
#include "ktune/ml/analyze.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/normalize.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/ml/selector.hpp"
#include "ml_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;

namespace {

Measurement cell(const std::string& problem, const std::string& config, int64_t id, double perf,
                 Status status = Status::ok) {
  Measurement m;
  m.device = "dev";
  m.family = "fam";
  m.problem = problem;
  m.config = config;
  m.config_id = id;
  m.outcome.status = status;
  m.perf = status == Status::ok ? perf : 0;
  return m;
}

// Rows x=1..4, configs c=0..2. c2 is unmeasured on x=1 and x=2; c1 is refused on x=3.
//        c0   c1        c2
//  x=1   10   20        -
//  x=2   10   40        -
//  x=3   10   refused   40
//  x=4   20   10        80
Dataset holes() {
  return dataset_from_measurements(
      {cell("x=1", "c=0", 0, 10), cell("x=1", "c=1", 1, 20), cell("x=2", "c=0", 0, 10),
       cell("x=2", "c=1", 1, 40), cell("x=3", "c=0", 0, 10),
       cell("x=3", "c=1", 1, 0, Status::refused), cell("x=3", "c=2", 2, 40),
       cell("x=4", "c=0", 0, 20), cell("x=4", "c=1", 1, 10), cell("x=4", "c=2", 2, 80)},
      "", "");
}

// A learnable dataset (test::make_synthetic_dataset) with a third of its cells made unmeasured,
// never a row's only valid one.
Dataset sampled(int problems, uint64_t seed) {
  test::SyntheticOptions o;
  o.problems = problems;
  o.seed = seed;
  Dataset d = test::make_synthetic_dataset(o);
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    const auto best = d.oracle_index()[size_t(r)];
    for (Eigen::Index c = 0; c < d.cols(); ++c) {
      if (c != best && (r + c) % 3 == 0) {
        d.measured(r, c) = false;
        d.valid(r, c) = false;
        d.perf(r, c) = 0;
      }
    }
  }
  return d;
}

}  // namespace

TEST(Unmeasured, DatasetKeepsTheThreeStates) {
  const Dataset d = holes();
  ASSERT_EQ(d.rows(), 4);
  ASSERT_EQ(d.cols(), 3);
  EXPECT_EQ(d.state(0, 0), CellState::ok);
  EXPECT_EQ(d.state(0, 2), CellState::unmeasured);
  EXPECT_EQ(d.state(2, 1), CellState::invalid);
  EXPECT_EQ(d.unmeasured_count(), 2);
  EXPECT_EQ(d.oracle_index(), (std::vector<Eigen::Index>{1, 1, 2, 2}));
  const Dataset sub = d.subset_rows({3, 0}).subset_cols({2, 0});
  EXPECT_EQ(sub.state(0, 0), CellState::ok);
  EXPECT_EQ(sub.state(1, 0), CellState::unmeasured);
  EXPECT_EQ(sub.unmeasured_count(), 1);
  Dataset hand;  // no `measured` matrix: every cell counts as measured
  hand.perf = Eigen::MatrixXd::Zero(1, 1);
  hand.valid = BoolMatrix::Constant(1, 1, false);
  EXPECT_EQ(hand.state(0, 0), CellState::invalid);
  EXPECT_EQ(hand.unmeasured_count(), 0);
}

TEST(Unmeasured, NormalizeImputesTheConfigMeanWhereMeasured) {
  const Eigen::MatrixXd n = normalize(holes(), Norm::scale);
  // c2 was measured on x=3 (40/40 = 1) and x=4 (80/80 = 1): its mean, 1, stands in above.
  EXPECT_DOUBLE_EQ(n(0, 2), 1.0);
  EXPECT_DOUBLE_EQ(n(1, 2), 1.0);
  EXPECT_DOUBLE_EQ(n(2, 1), 0.0);  // refused stays 0
  EXPECT_DOUBLE_EQ(n(3, 1), 0.125);
}

TEST(Unmeasured, GeomeanAndCeilingLeaveUnknownCellsOut) {
  const Dataset d = holes();
  const Eigen::VectorXd g = geomean_scaled(d);
  // c2 over its two measured rows only: 1 and 1.
  EXPECT_DOUBLE_EQ(g(2), 1.0);
  // c1 over all four: 1, 1, floor, 0.125.
  EXPECT_NEAR(g(1), std::pow(1e-3 * 0.125, 0.25), 1e-12);
  // {c2} alone: rows x=1, x=2 are unknown and left out; x=3, x=4 score 1.
  EXPECT_DOUBLE_EQ(ceiling(d, {2}), 1.0);
  // {c1, c2}: x=1, x=2 score 1 through c1, x=3 and x=4 through c2.
  EXPECT_DOUBLE_EQ(ceiling(d, {1, 2}), 1.0);
}

TEST(Unmeasured, EveryPrunerShipsKConfigsOkSomewhere) {
  const Dataset d = sampled(60, 5);
  ASSERT_GT(d.unmeasured_count(), 0);
  for (PruneMethod method : prune_methods()) {
    const auto picks = prune(d, {method, 5, Norm::scale, 1});
    ASSERT_EQ(picks.size(), 5u) << to_string(method);
    EXPECT_EQ(std::set<Eigen::Index>(picks.begin(), picks.end()).size(), 5u);
    for (auto c : picks) EXPECT_TRUE(d.valid.col(c).any()) << to_string(method);
  }
}

TEST(Unmeasured, SafeOrderRanksByTheShareOfMeasuredProblems) {
  const Dataset d = holes();
  // c0: valid on 4 of 4, c2: valid on 2 of 2 (better geomean), c1: 3 of 4.
  const auto order = safe_order(d);
  EXPECT_EQ(order, (std::vector<Eigen::Index>{2, 0, 1}));
  auto sel = make_selector("tree-a");
  sel->fit(d, {0, 1, 2}, Norm::scale);
  EXPECT_EQ(sel->safe_order(), (std::vector<int>{2, 0, 1}));
  EXPECT_TRUE(safer(1, 1, 0.0, 3, 4, 0.0));    // 100 % beats 75 %
  EXPECT_FALSE(safer(0, 0, 0.0, 0, 4, -9.0));  // never measured goes last
  EXPECT_TRUE(safer(2, 2, -1.0, 2, 2, -2.0));  // same share and count: larger sum first
}

TEST(Unmeasured, SelectorsTrainAndRegressorsSkipUnknownPairs) {
  const Dataset d = sampled(80, 6);
  const Split s = random_split(d, 0.25, 0);
  const Dataset train = d.subset_rows(s.train), test = d.subset_rows(s.test);
  const auto shipped = prune(train, {PruneMethod::kmeans, 6, Norm::scale, 0});
  for (const auto& name : {"tree-b", "knn-3", "forest", "reg-runtime", "reg-speedup"}) {
    auto sel = make_selector(name);
    sel->fit(train, shipped, Norm::scale);
    const Metrics m = evaluate_selector(*sel, test, shipped, fixed_config_order(train));
    EXPECT_EQ(m.problems, test.rows()) << name;
    EXPECT_GT(m.pct_of_oracle, 10.0) << name;  // learned: all-floor would be 0.1
  }
  // Regressors learn from the measured pairs only: one measured shipped config is enough...
  Dataset blind = train;
  for (auto c : shipped) {
    blind.measured.col(c).setConstant(false);
    blind.valid.col(c).setConstant(false);
  }
  blind.measured.col(shipped[0]).setConstant(true);
  blind.valid.col(shipped[0]) = train.valid.col(shipped[0]);
  auto reg = make_selector("reg-runtime");
  EXPECT_NO_THROW(reg->fit(blind, shipped, Norm::scale));
  // ...and none is an error naming the selector, not a model fitted on made-up targets.
  blind.measured.col(shipped[0]).setConstant(false);
  blind.valid.col(shipped[0]).setConstant(false);
  try {
    make_selector("reg-runtime")->fit(blind, shipped, Norm::scale);
    ADD_FAILURE() << "fit without a measured pair";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reg-runtime"), std::string::npos) << e.what();
  }
}

TEST(Unmeasured, EvaluationTreatsAnUnmeasuredPickAsRefused) {
  const Dataset d = holes();
  // Ship c2 only, so every pick is c2; x=1 and x=2 do not know it: nothing measured ok serves.
  auto sel = make_selector("tree-a");
  sel->fit(d.subset_rows({2, 3}), {2}, Norm::scale);
  const Metrics m = evaluate_selector(*sel, d, {2}, safe_order(d));
  EXPECT_EQ(m.problems, 4);
  EXPECT_DOUBLE_EQ(m.refused_rate, 0.5);
  EXPECT_DOUBLE_EQ(m.unservable_rate, 0.5);
  EXPECT_NEAR(m.pct_of_oracle, 100.0 * std::sqrt(1e-3), 1e-9);  // 1e-3, 1e-3, 1, 1
  // Shipping c1 too: the fallback serves c1 on x=1 and x=2 (ratio 1 each).
  auto two = make_selector("tree-a");
  two->fit(d.subset_rows({2, 3}), {1, 2}, Norm::scale);
  const Metrics m2 = evaluate_selector(*two, d, {1, 2}, safe_order(d));
  EXPECT_DOUBLE_EQ(m2.unservable_rate, 0.0);
  EXPECT_DOUBLE_EQ(m2.pct_of_oracle, 100.0);
  EXPECT_DOUBLE_EQ(ceiling_pct(d, {2}), 100.0 * std::sqrt(1e-3));
}

TEST(Unmeasured, AnalyzeCountsValidCellsAmongMeasuredOnes) {
  const AnalysisReport r = analyze(holes(), Norm::scale);
  EXPECT_EQ(r.unmeasured_cells, 2);
  EXPECT_DOUBLE_EQ(r.valid_fraction, 9.0 / 10);  // 9 ok of 10 measured
}
