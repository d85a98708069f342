// The every-config protocol (protocol.hpp) on in-memory synthetic stencil-like data: merging,
// data-driven splits, forced refusals under each fallback, exact metric definitions, a whole run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "ktune/error.hpp"
#include "ktune/ml/protocol.hpp"

namespace ktune::ml {
namespace {

// Work-group configs "wg=RxC" (R, C powers of two up to 32, 2 <= R*C <= 256); problems with
// features program (0 synthetic, 1..3 real), north, south, rows, cols. The best config follows
// a rule of the features; configs above the device's max work-group size are refused (illegal).
DeviceData make_device(const std::string& name, int max_wg, int problems, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> border(1, 6), size_exp(9, 11), real(1, 3);
  std::uniform_real_distribution<double> unit(0, 1);
  DeviceData part;
  Dataset& d = part.data;
  d.family = "stencil-synth";
  d.device = name;
  d.feature_names = {"program", "north", "south", "rows", "cols"};
  d.config_param_names = {"wg_x", "wg_y"};
  std::vector<std::pair<int, int>> wgs;
  for (int R = 1; R <= 32; R *= 2)
    for (int C = 1; C <= 32; C *= 2)
      if (R * C >= 2 && R * C <= 256) wgs.emplace_back(R, C);
  d.config_params.resize(Eigen::Index(wgs.size()), 2);
  for (size_t c = 0; c < wgs.size(); ++c) {
    d.config_names.push_back("wg=" + std::to_string(wgs[c].first) + "x" +
                             std::to_string(wgs[c].second));
    d.config_params.row(Eigen::Index(c)) << wgs[c].first, wgs[c].second;
  }
  d.features.resize(problems, 5);
  d.perf.resize(problems, Eigen::Index(wgs.size()));
  d.valid.resize(problems, Eigen::Index(wgs.size()));
  for (int p = 0; p < problems; ++p) {
    const int program = p % 3 == 0 ? real(rng) : 0;
    const int north = border(rng), south = border(rng);
    const double rows = std::ldexp(1.0, size_exp(rng)), cols = std::ldexp(1.0, size_exp(rng));
    d.features.row(p) << program, north, south, rows, cols;
    d.problem_keys.push_back("p" + std::to_string(p));
    d.problem_groups.emplace_back();
    const double best_r = std::min(5.0, 0.5 * (north + south)), best_c = std::log2(cols) - 8;
    for (size_t c = 0; c < wgs.size(); ++c) {
      const double dr = std::log2(wgs[c].first) - best_r, dc = std::log2(wgs[c].second) - best_c;
      const bool legal = wgs[c].first * wgs[c].second <= max_wg;
      d.valid(p, Eigen::Index(c)) = legal;
      d.perf(p, Eigen::Index(c)) =
          legal ? 100 * std::exp(-(dr * dr + dc * dc) / 4) * (0.95 + 0.1 * unit(rng)) + 0.5 : 0;
    }
  }
  d.vendor_perf.resize(problems, 0);
  part.device_features = {{"max_wg", double(max_wg)}, {"only_here", 1.0 * max_wg}};
  if (name == "dev-b") part.device_features.pop_back();
  return part;
}

// The seed paper's splits built from the data, as apps/ktune/verb_stencil_eval.cpp builds them.
std::vector<std::string> labels_of(const std::vector<std::vector<double>>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys) {
    std::string label;
    for (double v : k) {
      if (!label.empty()) label += 'x';
      label += fmt::format("{}", v);
    }
    out.push_back(label);
  }
  return out;
}
SplitFolds synthetic_real(const MergedData& m) {
  return train_on_value("synthetic-real",
                        feature_values(m.data, {"program"}, "split synthetic-real"), {0.0});
}
SplitFolds programs(const MergedData& m) {
  const auto keys = feature_values(m.data, {"program"}, "split program");
  const std::vector<double> synthetic{0.0};
  return leave_one_value_out("program", keys, labels_of(keys), &synthetic);
}
SplitFolds sizes(const MergedData& m) {
  const auto keys = feature_values(m.data, {"rows", "cols"}, "split size");
  return leave_one_value_out("size", keys, labels_of(keys));
}

MergedData two_devices(int problems = 60) {
  return merge_devices(
      {make_device("dev-a", 256, problems, 1), make_device("dev-b", 64, problems, 2)});
}

TEST(Protocol, MergeKeepsDevicesApartAndAppendsCommonDeviceFeatures) {
  DeviceData a = make_device("dev-a", 256, 10, 1), b = make_device("dev-b", 64, 12, 2);
  // dev-b never measured wg=16x16: it must become unmeasured there.
  std::vector<Eigen::Index> keep;
  for (Eigen::Index c = 0; c < b.data.cols(); ++c)
    if (b.data.config_names[size_t(c)] != "wg=16x16") keep.push_back(c);
  b.data = b.data.subset_cols(keep);
  const MergedData m = merge_devices({a, b});
  EXPECT_EQ(m.data.rows(), 22);
  EXPECT_EQ(m.data.cols(), a.data.cols());
  EXPECT_EQ(m.devices, (std::vector<std::string>{"dev-a", "dev-b"}));
  EXPECT_EQ(m.data.feature_names.back(), "device_max_wg");  // only_here is on dev-a alone
  EXPECT_EQ(m.data.features.cols(), 6);
  EXPECT_EQ(m.data.features(0, 5), 256);
  EXPECT_EQ(m.data.features(21, 5), 64);
  EXPECT_EQ(m.data.problem_keys[10], "dev-b/p0");
  EXPECT_EQ(m.device_of[9], 0);
  EXPECT_EQ(m.device_of[10], 1);
  const auto col = std::find(m.data.config_names.begin(), m.data.config_names.end(), "wg=16x16") -
                   m.data.config_names.begin();
  EXPECT_EQ(m.data.state(0, col), CellState::ok);
  EXPECT_EQ(m.data.state(10, col), CellState::unmeasured);
  EXPECT_FALSE(m.data.valid(10, col));
  const auto refused =
      std::find(m.data.config_names.begin(), m.data.config_names.end(), "wg=32x8") -
      m.data.config_names.begin();
  EXPECT_EQ(m.data.state(10, refused), CellState::invalid);  // 256 > dev-b's 64
  EXPECT_THROW(merge_devices({a, a}), Error);                // the same device twice
}

TEST(Protocol, KFoldPartitionsTheProblems) {
  const MergedData m = two_devices();
  const SplitFolds s = kfold_splits(m.data, 10, 3);
  ASSERT_EQ(s.folds.size(), 10u);
  std::vector<int> seen(size_t(m.data.rows()), 0);
  for (const auto& f : s.folds) {
    EXPECT_EQ(f.train.size() + f.test.size(), size_t(m.data.rows()));
    std::set<Eigen::Index> train(f.train.begin(), f.train.end());
    for (Eigen::Index r : f.test) {
      ++seen[size_t(r)];
      EXPECT_FALSE(train.count(r)) << "row " << r << " in both sides";
    }
    EXPECT_GE(f.test.size(), 12u);  // 120 rows in 10 folds of 12
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  EXPECT_EQ(kfold_splits(m.data, 10, 3).folds[0].test, s.folds[0].test);  // seeded
  EXPECT_NE(kfold_splits(m.data, 10, 4).folds[0].test, s.folds[0].test);
}

TEST(Protocol, SyntheticToRealTrainsOnProgramZeroOnly) {
  const MergedData m = two_devices();
  const SplitFolds s = synthetic_real(m);
  ASSERT_EQ(s.folds.size(), 1u);
  const auto& f = s.folds[0];
  EXPECT_EQ(f.train.size() + f.test.size(), size_t(m.data.rows()));
  for (Eigen::Index r : f.train) EXPECT_EQ(m.data.features(r, 0), 0);
  for (Eigen::Index r : f.test) EXPECT_NE(m.data.features(r, 0), 0);
  EXPECT_EQ(f.test.size(), 40u);  // every third problem of each device is real

  const SplitFolds by_program = programs(m);
  EXPECT_EQ(by_program.folds.size(), 3u);  // programs 1..3; synthetic is never held out
  for (const auto& fold : by_program.folds) {
    const double p = m.data.features(fold.test.front(), 0);
    EXPECT_NE(p, 0);
    for (Eigen::Index r : fold.test) EXPECT_EQ(m.data.features(r, 0), p);
    for (Eigen::Index r : fold.train) EXPECT_NE(m.data.features(r, 0), p);
  }
  EXPECT_EQ(leave_one_device_out(m).folds.size(), 2u);
  EXPECT_EQ(sizes(m).folds.size(), 9u);  // 3 rows x 3 cols values
}

TEST(Protocol, MissingSplitFeatureIsAClearError) {
  MergedData m = two_devices(20);
  m.data.feature_names[0] = "kernel";  // no "program" any more
  try {
    synthetic_real(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("synthetic-real needs the problem feature 'program'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(evaluate_protocol(m, {}, ProtocolOptions{}), Error);  // no split
  const MergedData one = merge_devices({make_device("dev-a", 256, 20, 1)});
  EXPECT_THROW(leave_one_device_out(one), Error);
}

TEST(Protocol, ForcedRefusalPicksALegalAlternativeUnderEveryFallback) {
  const MergedData m = two_devices();
  std::vector<Eigen::Index> all(size_t(m.data.cols()));
  std::iota(all.begin(), all.end(), 0);
  for (const std::string model : {"tree-a", "naive-bayes", "logreg"}) {
    for (Fallback fb : {Fallback::baseline, Fallback::random, Fallback::nearest}) {
      auto sel = make_selector(model, {fb, 7});
      sel->fit(m.data, all, Norm::scale);
      for (Eigen::Index row : {Eigen::Index(1), Eigen::Index(70)}) {
        std::vector<bool> valid(all.size());
        for (Eigen::Index c = 0; c < m.data.cols(); ++c) valid[size_t(c)] = m.data.valid(row, c);
        const int pick = sel->select(m.data.features.row(row));
        valid[size_t(pick)] = false;  // force the refusal of the model's pick
        const Choice c = sel->choose(m.data.features.row(row), valid);
        EXPECT_TRUE(c.refused) << model;
        EXPECT_EQ(c.pick, pick);
        EXPECT_NE(c.served, pick) << model << " " << to_string(fb);
        EXPECT_TRUE(valid[size_t(c.served)]) << model << " " << to_string(fb);
        if (fb == Fallback::baseline) {  // the first valid config of the safe order
          for (int k : sel->safe_order()) {
            if (valid[size_t(k)]) {
              EXPECT_EQ(c.served, k);
              break;
            }
          }
        }
      }
    }
  }
  // Regressors: the best-ranked valid candidate, refused ones dropped as it goes.
  const Eigen::Index row = 70;  // dev-b: max work-group 64
  std::vector<Eigen::Index> ranking;
  for (Eigen::Index c = 0; c < m.data.cols(); ++c)
    if (!m.data.valid(row, c)) ranking.push_back(c);  // illegal ones ranked first
  ASSERT_FALSE(ranking.empty());
  ranking.push_back(3);
  ranking.push_back(4);
  EXPECT_EQ(first_valid(m, row, ranking), 3);
}

// Two problems × three configs, metrics computed by hand.
MergedData tiny() {
  MergedData m;
  Dataset& d = m.data;
  d.family = "tiny";
  d.config_names = {"wg=1x2", "wg=2x2", "wg=2x4"};
  d.feature_names = {"x"};
  d.features = Eigen::MatrixXd::Zero(2, 1);
  d.problem_keys = {"a", "b"};
  d.perf.resize(2, 3);
  d.perf << 10, 5, 0, 2, 0, 8;
  d.valid = (d.perf.array() > 0).matrix();
  m.devices = {"dev"};
  m.device_of = {0, 0};
  return m;
}

TEST(Protocol, MetricDefinitionsOnAHandComputedCase) {
  const MergedData m = tiny();
  std::vector<Outcome> recs(3);
  // row, pick, served, reference (baseline), expert, ns
  recs[0] = {0, 2, 1, 1, 0, 100};  // illegal pick, fallback to 5: ratio 0.5
  recs[1] = {1, 2, 2, 0, 0, 300};  // the oracle: ratio 1
  recs[2] = {1, 1, 0, 0, 2, 200};  // pick that failed, fallback to 2: ratio 0.25
  const Metrics s = score(m.data, recs);
  EXPECT_EQ(s.problems, 3);
  EXPECT_NEAR(s.pct_of_oracle, 50.0, 1e-12);             // 100 × (0.5 × 1 × 0.25)^(1/3)
  EXPECT_DOUBLE_EQ(s.median_speedup_vs_reference, 1.0);  // {5/5, 8/2, 2/2}
  EXPECT_DOUBLE_EQ(s.mean_speedup_vs_reference, 2.0);
  EXPECT_DOUBLE_EQ(s.median_speedup_vs_expert, 0.5);  // {5/10, 8/2, 2/8}
  EXPECT_DOUBLE_EQ(s.accuracy, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.validity, 1.0 / 3);      // only pick 2 on b is ok
  EXPECT_DOUBLE_EQ(s.refused_rate, 2.0 / 3);  // picks 2 on a and 1 on b did not run
  EXPECT_DOUBLE_EQ(s.predict_ns, 200.0);
  EXPECT_DOUBLE_EQ(s.accuracy_oracle, 1.0 / 3);  // served == oracle on the second only
  EXPECT_DOUBLE_EQ(s.ceiling_pct, 100.0);        // every config shipped
  EXPECT_EQ(s.ratios, (std::vector<double>{0.5, 1.0, 0.25}));

  // Nothing valid served: counts as a thousand times slower than the oracle.
  const Metrics u = score(m.data, {{0, 2, 2, 0, 0, 0}});
  EXPECT_DOUBLE_EQ(u.pct_of_oracle, 0.1);
  EXPECT_DOUBLE_EQ(u.median_speedup_vs_reference, 1e-3);
}

TEST(Protocol, WholeProtocolOnTwoDevices) {
  const MergedData m = two_devices(50);
  ProtocolOptions o;
  o.seed = 1;
  o.expert = "32x4";
  const ProtocolResult r = evaluate_protocol(m,
                                             {kfold_splits(m.data, 10, 1), synthetic_real(m),
                                              leave_one_device_out(m), programs(m), sizes(m)},
                                             o);
  const std::vector<std::string> splits{"cv10", "synthetic-real", "device", "program", "size"};
  ASSERT_EQ(r.split_folds.size(), splits.size());
  for (size_t i = 0; i < splits.size(); ++i) EXPECT_EQ(r.split_folds[i].first, splits[i]);
  EXPECT_EQ(r.expert_config, "wg=32x4");
  EXPECT_GT(r.expert_substituted.front().second, 0);  // dev-b refuses 32x4 (128 > 64)
  EXPECT_EQ(r.rows.size(), splits.size() * (2 + 5 * 3 + 2));
  const Metrics *tree = nullptr, *fixed = nullptr, *device_tree = nullptr;
  for (const auto& row : r.rows) {
    const Metrics& s = row.metrics;
    ASSERT_GT(s.problems, 0) << row.split << " " << row.model;
    if (row.split == "cv10") {
      EXPECT_EQ(s.problems, 100) << row.model;  // each problem once
    }
    for (double ratio : s.ratios) EXPECT_GT(ratio, 1e-3) << row.model;  // always a valid serve
    EXPECT_LE(s.validity, 1.0);
    EXPECT_NEAR(s.validity, 1.0 - s.refused_rate, 1e-12);
    if (row.split == "cv10" && row.model == "tree-a" && row.fallback == "baseline") tree = &s;
    if (row.split == "cv10" && row.model == "baseline") fixed = &s;
    if (row.split == "device" && row.model == "tree-a" && row.fallback == "nearest") {
      device_tree = &s;
    }
  }
  ASSERT_TRUE(tree && fixed && device_tree);
  EXPECT_GT(tree->pct_of_oracle, fixed->pct_of_oracle);  // learning the rule pays off
  EXPECT_GT(tree->median_speedup_vs_reference, 1.0);
  EXPECT_GT(tree->accuracy, 0.0);
  EXPECT_GT(tree->predict_ns, 0.0);
  EXPECT_DOUBLE_EQ(fixed->median_speedup_vs_reference, 1.0);
  // Trained on dev-a alone, the tree picks work-groups dev-b refuses; the fallback serves.
  EXPECT_GT(device_tree->refused_rate, 0.0);
}

}  // namespace
}  // namespace ktune::ml
