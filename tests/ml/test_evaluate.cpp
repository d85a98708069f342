// Evaluation: splits, the scoring rule, the matrix (robust to impossible cells), and the writers.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/evaluate.hpp"
#include "models_test_util.hpp"

using namespace ktune;
using namespace ktune::ml;
using namespace ktune::test;

namespace {

Dataset grouped(int problems, uint64_t seed) {
  SyntheticOptions o;
  o.problems = problems;
  o.seed = seed;
  Dataset d = make_synthetic_dataset(o);
  d.features += random_matrix(d.features.rows(), d.features.cols(), seed + 1) * 0.01;
  d.problem_groups.assign(d.rows(), {});
  const char* nets[] = {"alexnet", "bert", "convnext"};
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    d.problem_groups[r].push_back(nets[r % 3]);
    if (r % 10 == 0) d.problem_groups[r].push_back(nets[(r + 1) % 3]);  // shared shapes
  }
  return d;
}

// Three rows, three configs; perf chosen so the ratios are easy to compute by hand.
Dataset tiny() {
  Dataset d;
  d.family = "toy";
  d.device = "dev";
  d.problem_keys = {"p0", "p1", "p2"};
  d.problem_groups.assign(3, {});
  d.feature_names = {"x"};
  d.features.resize(3, 1);
  d.features << 1, 2, 3;
  d.config_names = {"c0", "c1", "c2"};
  d.perf.resize(3, 3);
  d.perf << 100, 40, 25,  //
      10, 40, 0,          //
      0, 0, 0;
  d.valid = BoolMatrix::Constant(3, 3, true);
  d.valid(1, 2) = false;
  d.valid.row(2).setConstant(false);  // a problem with no valid config at all
  return d;
}

}  // namespace

TEST(Evaluate, RandomSplitIsSeededDisjointAndEighty20) {
  const Dataset d = grouped(101, 1);
  const Split a = random_split(d, 0.2, 7), b = random_split(d, 0.2, 7), c = random_split(d, 0.2, 8);
  EXPECT_EQ(a.test.size(), 20u);
  EXPECT_EQ(a.train.size(), 81u);
  EXPECT_EQ(a.test, b.test);
  EXPECT_NE(a.test, c.test);
  std::set<Eigen::Index> all(a.train.begin(), a.train.end());
  all.insert(a.test.begin(), a.test.end());
  EXPECT_EQ(all.size(), 101u);
  EXPECT_THROW(random_split(d.subset_rows({}), 0.2, 0), Error);
  EXPECT_TRUE(random_split(d.subset_rows({3}), 0.2, 0).test.empty());
  EXPECT_EQ(random_split(d.subset_rows({3, 4}), 0.01, 0).test.size(), 1u);
}

TEST(Evaluate, NetworkSplitsHoldOutEveryProblemOfTheNetwork) {
  const Dataset d = grouped(60, 2);
  const auto splits = network_splits(d);
  ASSERT_EQ(splits.size(), 3u);
  EXPECT_EQ(splits[0].name, "network:alexnet");
  for (const auto& s : splits) {
    const std::string net = s.name.substr(8);
    for (Eigen::Index r : s.test) {
      const auto& g = d.problem_groups[r];
      EXPECT_NE(std::find(g.begin(), g.end(), net), g.end());
    }
    for (Eigen::Index r : s.train) {
      const auto& g = d.problem_groups[r];
      EXPECT_EQ(std::find(g.begin(), g.end(), net), g.end());
    }
    EXPECT_EQ(s.train.size() + s.test.size(), 60u);
  }
  Dataset none = d;
  none.problem_groups.assign(none.rows(), {});
  EXPECT_TRUE(network_splits(none).empty());
}

TEST(Evaluate, ScoringRule) {
  EXPECT_DOUBLE_EQ(pct_of_oracle({1.0, 0.25}), 50.0);
  EXPECT_NEAR(pct_of_oracle({1.0, 0.0}), 100.0 * std::sqrt(1e-3), 1e-9);  // floor
  EXPECT_TRUE(std::isnan(pct_of_oracle({})));
  const Dataset d = tiny();
  EXPECT_DOUBLE_EQ(oracle_ratio(d, 0, 1), 0.4);
  EXPECT_DOUBLE_EQ(oracle_ratio(d, 1, 2), 0.0);  // invalid
  EXPECT_DOUBLE_EQ(oracle_ratio(d, 2, 0), 0.0);  // no valid config at all
  // Row 2 (no valid config) is left out; rows 0 and 1 score 1 and 0.25 with {c0}.
  EXPECT_DOUBLE_EQ(ceiling_pct(d, {0}), 50.0);
  EXPECT_DOUBLE_EQ(ceiling_pct(d, {0, 1}), 100.0);
  EXPECT_NEAR(ceiling_pct(d, {2}), 100.0 * std::sqrt(0.25 * 1e-3), 1e-9);
  const auto order = safe_order(d);
  EXPECT_EQ(order.front(), 1);  // valid on as many rows as c0, better geomean (0.4 vs 0.25)
  EXPECT_EQ(order.back(), 2);   // valid on fewest rows
}

TEST(Evaluate, SelectorMetricsOnAProblemWithoutValidShippedConfig) {
  Dataset d = tiny();
  auto sel = make_selector("tree-a");
  sel->fit(d.subset_rows({0, 1}), {2}, Norm::scale);  // ship only c2
  const auto m = evaluate_selector(*sel, d, {2}, safe_order(d));
  EXPECT_EQ(m.problems, 2);                  // row 2 left out (no valid config anywhere)
  EXPECT_DOUBLE_EQ(m.unservable_rate, 0.5);  // row 1 refuses c2 and nothing else is shipped
  EXPECT_DOUBLE_EQ(m.refused_rate, 0.5);
  EXPECT_NEAR(m.pct_of_oracle, 100.0 * std::sqrt(0.25 * 1e-3), 1e-9);
  EXPECT_DOUBLE_EQ(m.accuracy_oracle, 0.0);
  // The fixed config c1 scores 0.4 and 1: speedup = sqrt(0.25 / 0.4 × 1e-3 / 1).
  EXPECT_NEAR(m.speedup_vs_reference, std::sqrt(0.25 / 0.4 * 1e-3), 1e-9);
}

TEST(Evaluate, QuickMatrixRunsAndImpossibleCellsBecomeNotes) {
  const Dataset d = grouped(90, 3);
  EvalOptions o = quick_eval_options();
  o.network_splits = true;
  o.pruners = {PruneMethod::topn, PruneMethod::kmeans};
  o.selectors = {"tree-b", "knn-3"};
  o.ceiling_ks = {4, 6, 50};  // 12 configs: K = 50 is impossible
  o.selector_ks = {5, 50};
  const EvalResult r = evaluate(d, o);
  EXPECT_EQ(r.split_names.size(), 4u);  // random + three networks
  size_t ceilings = 0, selections = 0, failed = 0;
  for (const auto& row : r.rows) {
    if (!row.ok) {
      ++failed;
      EXPECT_EQ(row.k, 50);
      EXPECT_FALSE(row.note.empty());
      continue;
    }
    EXPECT_NE(row.k, 50);
    if (row.selector.empty()) {
      ++ceilings;
    } else {
      ++selections;
      EXPECT_LE(row.metrics.pct_of_oracle, row.metrics.ceiling_pct + 1e-9);
      EXPECT_GT(row.metrics.pct_of_oracle, 0.0);
    }
  }
  EXPECT_EQ(ceilings, 4u * 2 * 2);    // splits × pruners × {4, 6}
  EXPECT_EQ(selections, 4u * 2 * 2);  // splits × pruners × selectors at K = 5
  EXPECT_EQ(failed, 4u * 2 * (1 + 2));

  std::ostringstream csv, metrics, md;
  write_csv(r, csv);
  write_metrics_csv(r, metrics);
  write_markdown(r, md);
  const std::string text = csv.str();
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct");
  EXPECT_EQ(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')), r.rows.size() + 1);
  EXPECT_NE(text.find("network:bert,scale,kmeans,knn-3,5,"), std::string::npos);
  EXPECT_NE(metrics.str().find("speedup_vs_fixed"), std::string::npos);
  EXPECT_NE(md.str().find("Table 1"), std::string::npos);
  EXPECT_NE(md.str().find("Table 2"), std::string::npos);
  EXPECT_NE(md.str().find("| knn-3 |"), std::string::npos);

  // Same result whatever the thread count.
  o.threads = 1;
  std::ostringstream csv1;
  write_csv(evaluate(d, o), csv1);
  EXPECT_EQ(csv1.str(), text);
}

TEST(Evaluate, RefusesWhatCannotBeEvaluated) {
  const Dataset d = grouped(30, 4);
  EXPECT_THROW(evaluate(d.subset_rows({}), quick_eval_options()), Error);
  EXPECT_THROW(evaluate(d.subset_rows({3}), quick_eval_options()), Error);  // nothing to hold out
  EvalOptions o = quick_eval_options();
  o.random_split = false;
  Dataset none = d;
  none.problem_groups.assign(none.rows(), {});
  EXPECT_THROW(evaluate(none, o), Error);  // no split at all
  o.random_split = true;
  o.selectors = {"no-such-selector"};
  EXPECT_THROW(evaluate(d, o), Error);
}

// `ktune train` and `ktune eval` end to end through the binary (skipped when it is not built).
TEST(Evaluate, TrainAndEvalVerbs) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  TempDir dir("ktune-eval-cli");
  const std::string data = dir.file("m.csv.gz"), err = dir.file("err.txt");
  SyntheticOptions o;
  o.problems = 80;
  write_measurements_csv(make_synthetic_measurements(o), data);
  auto ktune = [&](const std::string& args) {
    const std::string cmd = std::string("'") + KTUNE_BINARY + "' " + args + " > '" +
                            dir.file("out.txt") + "' 2> '" + err + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  write_text(dir.file("picks.txt"), "a=0;b=0\na=1;b=1\n\na=2;b=2\n");
  ASSERT_EQ(ktune("train --data " + data + " --selector knn-3 --configs " + dir.file("picks.txt") +
                  " --fallback nearest -o " + dir.file("model.json")),
            0)
      << read_text(err);
  const auto model = Selector::from_json(nlohmann::json::parse(read_text(dir.file("model.json"))));
  EXPECT_EQ(model->kind(), "knn-3");
  EXPECT_EQ(model->config_names(), (std::vector<std::string>{"a=0;b=0", "a=1;b=1", "a=2;b=2"}));
  EXPECT_EQ(model->options().fallback, Fallback::nearest);

  ASSERT_EQ(ktune("eval --data " + data + " --quick --csv " + dir.file("e.csv") + " --markdown " +
                  dir.file("e.md")),
            0)
      << read_text(err);
  const std::string csv = read_text(dir.file("e.csv"));
  EXPECT_EQ(csv.rfind("split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct\n", 0), 0u);
  EXPECT_NE(csv.find("random,scale,tree,tree-b,8,"), std::string::npos);
  EXPECT_NE(read_text(dir.file("e-metrics.csv")).find("refused_rate"), std::string::npos);
  EXPECT_NE(read_text(dir.file("e.md")).find("Table 3"), std::string::npos);

  // Bad input: one line on stderr, exit status 1.
  write_text(dir.file("bad.txt"), "a=9;b=9\n");
  EXPECT_EQ(ktune("train --data " + data + " --selector tree-a --configs " + dir.file("bad.txt") +
                  " -o " + dir.file("x.json")),
            1);
  const std::string message = read_text(err);
  EXPECT_NE(message.find("a=9;b=9"), std::string::npos);
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  EXPECT_EQ(ktune("eval --data " + data + " --split sideways"), 1);

  // One problem cannot be split: one line naming the count, exit status 1 (was: empty tables).
  SyntheticOptions one;
  one.problems = 1;
  write_measurements_csv(make_synthetic_measurements(one), dir.file("one.csv"));
  EXPECT_EQ(ktune("eval --data " + dir.file("one.csv") + " --quick"), 1);
  const std::string one_line = read_text(err);
  EXPECT_NE(one_line.find("1 problem(s)"), std::string::npos) << one_line;
  EXPECT_EQ(std::count(one_line.begin(), one_line.end(), '\n'), 1) << one_line;
}

// The fixed config is the best geomean on the training problems, not the most widely valid one
// (which stays the named fallback): c1 is valid everywhere but at 10 % of the best elsewhere, c0 is
// the best on nine problems and refused on the tenth.
TEST(Evaluate, FixedConfigIsTheBestGeomeanWithTheSafestAsFallback) {
  Dataset d;
  d.family = "toy";
  d.device = "dev";
  const int n = 10;
  d.feature_names = {"x"};
  d.features.resize(n, 1);
  d.config_names = {"c0", "c1"};
  d.perf.resize(n, 2);
  d.valid.resize(n, 2);
  for (int r = 0; r < n; ++r) {
    d.problem_keys.push_back("p" + std::to_string(r));
    d.features(r, 0) = r;
    d.perf.row(r) << (r == 0 ? 0 : 100), 10;
    d.valid.row(r) << (r != 0), true;
  }
  for (int r = 0; r < n; ++r) d.problem_groups.push_back({r < 5 ? "a" : "b"});
  EXPECT_EQ(safe_order(d).front(), 1);
  const auto order = fixed_config_order(d);
  EXPECT_EQ(order, (std::vector<Eigen::Index>{0, 1}));  // 1e-3^(1/10) = 0.50 > 0.1^(9/10) = 0.13
  // Held out by network. network:a trains on p5..p9 (c0 valid and best there) and tests p0..p4:
  // on p0 the safe order's c1 stands in, at 10/10 = 1. network:b trains on p0..p4, where c1 is
  // the safest config but c0 has the best geomean (1e-3^(1/5) = 0.25 > 0.1^(4/5) = 0.16).
  EvalOptions o = quick_eval_options();
  o.random_split = false;
  o.network_splits = true;
  o.selectors = {"tree-a"};
  o.pruners = {PruneMethod::topn};
  o.ceiling_ks = {1};
  o.selector_ks = {1};
  std::vector<std::pair<size_t, size_t>> calls;
  o.progress = [&](size_t done, size_t total) { calls.emplace_back(done, total); };
  const EvalResult r = evaluate(d, o);
  ASSERT_EQ(r.fixed_configs.size(), 2u);
  EXPECT_EQ(r.fixed_configs[0].split, "network:a");
  EXPECT_EQ(r.fixed_configs[0].config, "c0");
  EXPECT_EQ(r.fixed_configs[0].safest, "c0");
  EXPECT_DOUBLE_EQ(r.fixed_pct[0].second, 100.0);
  EXPECT_EQ(r.fixed_configs[1].config, "c0");
  EXPECT_EQ(r.fixed_configs[1].safest, "c1");
  EXPECT_DOUBLE_EQ(r.fixed_pct[1].second, 100.0);  // the safest config would score 10 %
  std::ostringstream md;
  write_markdown(r, md);
  EXPECT_NE(md.str().find("Best single fixed config: 100.0% of oracle (`c0`"), std::string::npos)
      << md.str();
  // Progress: one call per cell (one per split here), the last one complete.
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls.back(), (std::pair<size_t, size_t>{2, 2}));
}
