#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/ml/analyze.hpp"
#include "ml_test_util.hpp"

namespace ktune::ml {
namespace {

TEST(Analyze, CountsWinnersSpreadAndVariance) {
  Dataset d;
  d.family = "fam";
  d.device = "dev";
  d.problem_keys = {"x=1", "x=2", "x=3"};
  d.config_names = {"a", "b", "c"};
  d.perf.resize(3, 3);
  d.perf << 10, 5, 2,  //
      10, 20, 0,       //
      1, 8, 4;
  d.valid = (d.perf.array() > 0).matrix();
  const auto r = analyze(d, Norm::scale);
  EXPECT_EQ(r.problems, 3);
  EXPECT_EQ(r.configs, 3);
  EXPECT_NEAR(r.valid_fraction, 8.0 / 9.0, 1e-12);
  EXPECT_EQ(r.distinct_best, 2);
  ASSERT_EQ(r.best_counts.size(), 2u);
  EXPECT_EQ(r.best_counts[0], (std::pair<std::string, int>{"b", 2}));
  EXPECT_EQ(r.spread[0].best_config, "a");
  EXPECT_DOUBLE_EQ(r.spread[0].spread, 5.0);  // 10 / 2
  EXPECT_DOUBLE_EQ(r.spread[1].spread, 2.0);  // the invalid 0 is not the worst
  EXPECT_DOUBLE_EQ(r.spread[2].spread, 8.0);
  EXPECT_DOUBLE_EQ(r.median_spread, 5.0);
  EXPECT_DOUBLE_EQ(r.max_spread, 8.0);
  EXPECT_EQ(r.best_single_config, "b");
  EXPECT_NEAR(r.cumulative_variance(r.cumulative_variance.size() - 1), 1.0, 1e-12);
  EXPECT_LE(r.components_80, r.components_90);
  EXPECT_LE(r.components_90, r.components_95);
  EXPECT_GE(r.components_80, 1);

  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("| problems | 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `b` | 2 |"), std::string::npos) << md;
  test::TempDir dir;
  write_csv(r, dir.file("a.csv"));
  const std::string csv = test::read_text(dir.file("a.csv"));
  EXPECT_NE(csv.find("best_count,b,2\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("problem_spread,x=3,8\n"), std::string::npos) << csv;
  EXPECT_THROW(write_csv(r, dir.file("no/such/dir/a.csv")), Error);
}

TEST(Analyze, SyntheticDataHasFewDirectionsAndEmptyIsAnError) {
  const Dataset d = test::make_synthetic_dataset();
  const auto r = analyze(d, Norm::cutoff);
  int wins = 0;
  for (const auto& [name, count] : r.best_counts) wins += count;
  EXPECT_EQ(wins, d.rows());
  EXPECT_LE(r.distinct_best, d.cols());
  EXPECT_LT(r.components_95, d.cols());
  EXPECT_THROW(analyze(Dataset{}, Norm::scale), Error);
}

}  // namespace
}  // namespace ktune::ml
