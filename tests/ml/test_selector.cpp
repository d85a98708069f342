// Selectors: every kind learns the synthetic rule, saves and loads, falls back to a valid config
// when its pick is refused (each fallback), handles NaN and bad input, and the tree-B pipeline
// matches scikit-learn's % of oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ktune/error.hpp"
#include "ktune/ml/evaluate.hpp"
#include "ktune/ml/prune.hpp"
#include "ktune/ml/selector.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

namespace {

// Synthetic data with a little continuous jitter on the features, so that no two problems
// share a feature value (no ties for trees and kNN).
Dataset jittered(int problems, uint64_t seed, double invalid_fraction = 0.1) {
  SyntheticOptions o;
  o.problems = problems;
  o.seed = seed;
  o.invalid_fraction = invalid_fraction;
  Dataset d = make_synthetic_dataset(o);
  d.features += random_matrix(d.features.rows(), d.features.cols(), seed + 100) * 0.01;
  return d;
}

std::vector<Eigen::Index> all_columns(const Dataset& d) {
  std::vector<Eigen::Index> c(d.cols());
  for (Eigen::Index i = 0; i < d.cols(); ++i) c[i] = i;
  return c;
}

}  // namespace

TEST(Selector, NamesAndFactory) {
  const auto names = selector_names();
  EXPECT_EQ(names.size(), 14u);
  for (const auto& n : names) EXPECT_EQ(make_selector(n)->kind(), n);
  EXPECT_THROW(make_selector("tree-z"), Error);
  EXPECT_EQ(parse_fallback("nearest"), Fallback::nearest);
  EXPECT_EQ(to_string(Fallback::random), "random");
  EXPECT_THROW(parse_fallback("closest"), Error);
}

TEST(Selector, EveryKindBeatsTheBestFixedConfigAndRoundTrips) {
  const Dataset data = jittered(240, 3);
  const Split split = random_split(data, 0.25, 1);
  const Dataset train = data.subset_rows(split.train), test = data.subset_rows(split.test);
  const auto shipped = all_columns(data);  // all 12 synthetic configs
  const auto fixed = safe_order(train);
  for (const auto& name : selector_names()) {
    auto sel = make_selector(name, {Fallback::baseline, 5});
    sel->fit(train, shipped, Norm::scale);
    const Metrics m = evaluate_selector(*sel, test, shipped, fixed);
    EXPECT_GT(m.speedup_vs_reference, 1.0) << name;  // learning the rule pays off
    EXPECT_LE(m.pct_of_oracle, m.ceiling_pct + 1e-9) << name;
    EXPECT_NEAR(m.validity + m.refused_rate, 1.0, 1e-12) << name;
    EXPECT_EQ(m.problems, test.rows()) << name;
    const auto back = Selector::from_json(nlohmann::json::parse(sel->to_json().dump()));
    EXPECT_EQ(back->kind(), name);
    EXPECT_EQ(back->config_names(), sel->config_names());
    EXPECT_EQ(back->safe_order(), sel->safe_order());
    for (Eigen::Index r = 0; r < test.rows(); ++r) {
      ASSERT_EQ(back->select(test.features.row(r)), sel->select(test.features.row(r)))
          << name << " row " << r;
    }
  }
}

TEST(Selector, UnlimitedTreeLearnsItsTrainingLabels) {
  const Dataset data = jittered(100, 4, 0.0);
  const std::vector<Eigen::Index> shipped = {0, 4, 7, 11};
  auto sel = make_selector("tree-a");
  sel->fit(data, shipped, Norm::scale);
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    int best = 0;
    for (int k = 1; k < 4; ++k) {
      if (data.perf(r, shipped[k]) > data.perf(r, shipped[best])) best = k;
    }
    EXPECT_EQ(sel->select(data.features.row(r)), best) << "row " << r;
  }
}

TEST(Selector, LabelTiesAfterCutoffGoToTheHigherRawPerf) {
  // Two problems where both shipped configs are far below the row's best: cutoff makes both 0,
  // so the label must come from the raw perf.
  Dataset d;
  d.family = "toy";
  d.device = "dev";
  d.problem_keys = {"p0", "p1", "p2", "p3"};
  d.problem_groups.assign(4, {});
  d.feature_names = {"x"};
  d.features.resize(4, 1);
  d.features << 1, 2, 3, 4;
  d.config_names = {"best", "s1", "s2"};
  d.perf.resize(4, 3);
  d.perf << 100, 10, 20,  //
      100, 10, 20,        //
      100, 30, 20,        //
      100, 30, 20;
  d.valid = BoolMatrix::Constant(4, 3, true);
  auto sel = make_selector("tree-a");
  sel->fit(d, {1, 2}, Norm::cutoff);
  Eigen::RowVectorXd x(1);
  x << 1.2;
  EXPECT_EQ(sel->select(x), 1);  // s2 (20 > 10)
  x << 3.7;
  EXPECT_EQ(sel->select(x), 0);  // s1 (30 > 20)
}

TEST(Selector, ForcedRefusalFallsBackToAValidConfig) {
  const Dataset data = jittered(150, 6);
  const std::vector<Eigen::Index> shipped = {0, 3, 5, 8, 10};
  for (Fallback fb : {Fallback::baseline, Fallback::random, Fallback::nearest}) {
    for (const std::string name : {"tree-b", "knn-3", "reg-runtime", "reg-speedup"}) {
      auto sel = make_selector(name, {fb, 9});
      sel->fit(data, shipped, Norm::scale);
      for (Eigen::Index r = 0; r < 30; ++r) {
        const auto x = data.features.row(r);
        const int pick = sel->select(x);
        std::vector<bool> valid(shipped.size(), true);
        valid[pick] = false;  // the problem refuses the pick
        valid[(pick + 2) % 5] = false;
        const Choice c = sel->choose(x, valid);
        EXPECT_TRUE(c.refused);
        EXPECT_EQ(c.pick, pick);
        ASSERT_TRUE(valid[c.served]) << to_string(fb) << " " << name;
        if (fb == Fallback::baseline) {
          int expect = -1;
          for (int k : sel->safe_order()) {
            if (valid[k]) {
              expect = k;
              break;
            }
          }
          EXPECT_EQ(c.served, expect);
        }
        if (fb == Fallback::random) {
          EXPECT_EQ(sel->choose(x, valid).served, c.served);  // seeded
        }
        // A valid pick is served as is.
        std::vector<bool> all(shipped.size(), true);
        const Choice ok = sel->choose(x, all);
        EXPECT_FALSE(ok.refused);
        EXPECT_EQ(ok.served, pick);
        // Nothing valid: no fallback is possible; the pick stays and is marked refused.
        const Choice none = sel->choose(x, std::vector<bool>(shipped.size(), false));
        EXPECT_TRUE(none.refused);
        EXPECT_EQ(none.served, pick);
      }
    }
  }
}

TEST(Selector, NearestFallbackPicksTheClosestConfigInParameterSpace) {
  const Dataset data = jittered(80, 7);
  ASSERT_GT(data.config_params.cols(), 0);
  // Configs a=0;b=0 .. a=3;b=2: ship four on the a axis with b=0 (columns 0, 3, 6, 9).
  const std::vector<Eigen::Index> shipped = {0, 3, 6, 9};
  auto sel = make_selector("tree-c", {Fallback::nearest, 0});
  sel->fit(data, shipped, Norm::scale);
  const auto x = data.features.row(0);
  // Refusing a=0: the nearest valid is a=1 whatever the safe order says; refusing a=3 with
  // only a=0 and a=1 valid gives a=1; with only a=3 valid, a=3.
  std::vector<bool> valid = {false, true, true, true};
  EXPECT_EQ(sel->fall_back(0, valid, x), 1);
  valid = {true, true, false, false};
  EXPECT_EQ(sel->fall_back(3, valid, x), 1);
  valid = {false, false, false, true};
  EXPECT_EQ(sel->fall_back(0, valid, x), 3);
}

TEST(Selector, RandomFallbackSpreadsOverValidConfigs) {
  const Dataset data = jittered(120, 8);
  const std::vector<Eigen::Index> shipped = {0, 1, 2, 3, 4, 5};
  auto sel = make_selector("knn-1", {Fallback::random, 3});
  sel->fit(data, shipped, Norm::scale);
  std::set<int> seen;
  const std::vector<bool> valid = {false, true, true, false, true, true};
  for (Eigen::Index r = 0; r < data.rows(); ++r) {
    const int served = sel->fall_back(0, valid, data.features.row(r));
    EXPECT_TRUE(valid[served]);
    seen.insert(served);
  }
  EXPECT_EQ(seen.size(), 4u);  // every legal config gets drawn over 120 problems
}

TEST(Selector, RefusalsShowUpInTheMetrics) {
  Dataset data = jittered(120, 10, 0.0);
  const std::vector<Eigen::Index> shipped = {0, 4, 8, 11};
  auto sel = make_selector("tree-b");
  sel->fit(data, shipped, Norm::scale);
  // Make every pick invalid on the (in-sample) test problems.
  Dataset test = data;
  for (Eigen::Index r = 0; r < test.rows(); ++r) {
    const Eigen::Index c = shipped[sel->select(test.features.row(r))];
    test.valid(r, c) = false;
    test.perf(r, c) = 0;
  }
  const auto m = evaluate_selector(*sel, test, shipped, safe_order(data));
  EXPECT_DOUBLE_EQ(m.refused_rate, 1.0);
  EXPECT_DOUBLE_EQ(m.validity, 0.0);
  EXPECT_GT(m.pct_of_oracle, 0.1 * 1.0001);  // the fallbacks serve valid configs, not the floor
}

TEST(Selector, NanFeatures) {
  Dataset data = jittered(60, 11);
  data.features(5, 1) = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Eigen::Index> shipped = {1, 2, 3};
  for (const std::string name : {"knn-1", "svm-rbf", "mlp", "reg-runtime"}) {
    auto sel = make_selector(name);
    sel->fit(data, shipped, Norm::scale);
    EXPECT_EQ(sel->dropped_rows(), 1u) << name;
    EXPECT_EQ(sel->select(data.features.row(5)), sel->baseline()) << name;
  }
  data.features.col(0).setConstant(std::numeric_limits<double>::quiet_NaN());
  EXPECT_THROW(make_selector("tree-a")->fit(data, shipped, Norm::scale), Error);
}

TEST(Selector, BadInput) {
  const Dataset data = jittered(40, 12);
  auto sel = make_selector("forest");
  EXPECT_THROW(sel->select(data.features.row(0)), Error);  // before fit
  EXPECT_THROW(sel->to_json(), Error);
  EXPECT_THROW(sel->fit(data.subset_rows({}), {0, 1}, Norm::scale), Error);
  EXPECT_THROW(sel->fit(data, {}, Norm::scale), Error);
  EXPECT_THROW(sel->fit(data, {0, 99}, Norm::scale), Error);
  EXPECT_THROW(sel->fit(data, {1, 1}, Norm::scale), Error);
  sel->fit(data, {0, 1}, Norm::scale);
  EXPECT_THROW(sel->select(Eigen::RowVectorXd::Zero(data.features.cols() + 1)), Error);
  EXPECT_THROW(sel->choose(data.features.row(0), {true}), Error);
  auto j = sel->to_json();
  j["kind"] = "nope";
  EXPECT_THROW(Selector::from_json(j), Error);
  j = sel->to_json();
  j["safe_order"] = {0, 0};
  EXPECT_THROW(Selector::from_json(j), Error);
  EXPECT_THROW(Selector::from_json(nlohmann::json::parse("{\"format\": \"other\"}")), Error);
}

TEST(Selector, PruneAndTreeBPipelineMatchesSklearn) {
  if (!have_sklearn()) GTEST_SKIP() << "/usr/bin/python3 has no scikit-learn";
  SyntheticOptions o;
  o.problems = 300;
  o.configs_a = 5;
  o.configs_b = 4;
  o.seed = 21;
  Dataset data = make_synthetic_dataset(o);
  data.features += random_matrix(data.features.rows(), data.features.cols(), 22) * 0.01;
  const Split split = random_split(data, 0.2, 0);
  const Dataset train = data.subset_rows(split.train), test = data.subset_rows(split.test);
  for (PruneMethod pruner : {PruneMethod::topn, PruneMethod::kmeans}) {
    const auto shipped = prune(train, {pruner, 6, Norm::scale, 0});
    auto sel = make_selector("tree-b");
    sel->fit(train, shipped, Norm::scale);
    const double ours = evaluate_selector(*sel, test, shipped, safe_order(train)).pct_of_oracle;

    TempDir dir("ktune-pipeline");
    Eigen::MatrixXd valid = data.valid.cast<double>();
    write_matrix_csv(dir.file("features.txt"), data.features);
    write_matrix_csv(dir.file("perf.txt"), data.perf);
    write_matrix_csv(dir.file("valid.txt"), valid);
    auto column = [](const std::vector<Eigen::Index>& v) {
      Eigen::MatrixXd m(static_cast<Eigen::Index>(v.size()), 1);
      for (size_t i = 0; i < v.size(); ++i) m(static_cast<Eigen::Index>(i), 0) = double(v[i]);
      return m;
    };
    write_matrix_csv(dir.file("train.txt"), column(split.train));
    write_matrix_csv(dir.file("test.txt"), column(split.test));
    write_matrix_csv(dir.file("shipped.txt"), column(shipped));
    ASSERT_EQ(run_python("sklearn_models.py", {"pipeline", dir.path().string()}), 0);
    const double theirs = read_matrix_csv(dir.file("pct.txt"))(0, 0);
    EXPECT_NEAR(ours, theirs, 1.0)
        << to_string(pruner);  // the bar: within 1 percentage point
    EXPECT_GT(ours, 10.0);
  }
}
