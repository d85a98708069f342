// The selectors' unsure rule (selector.hpp): the unsure config, the range guard and the minimum
// vote share, on a dataset small enough to follow by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ktune/error.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {
namespace {

// One feature x = 1..4; c0 is best for x <= 2, c2 for x > 2, c1 is never best but 0.9 of the
// best everywhere: geomeans c0 (1·1·0.3·0.2)^¼ = 0.49, c1 0.9, c2 (0.2·0.2·1·1)^¼ = 0.45.
Dataset four_problems() {
  Dataset d;
  d.config_names = {"c0", "c1", "c2"};
  d.feature_names = {"x"};
  d.features.resize(4, 1);
  d.features << 1, 2, 3, 4;
  d.perf.resize(4, 3);
  d.perf << 1.0, 0.9, 0.2,  //
      1.0, 0.9, 0.2,        //
      0.3, 0.9, 1.0,        //
      0.2, 0.9, 1.0;
  d.valid = (d.perf.array() > 0).matrix();
  return d;
}

const std::vector<Eigen::Index> kAll = {0, 1, 2};

std::unique_ptr<Selector> fitted(const std::string& kind, UnsureRule rule,
                                 const std::vector<Eigen::Index>& shipped = kAll) {
  auto s = make_selector(kind, {Fallback::baseline, 0, rule});
  s->fit(four_problems(), shipped, Norm::scale);
  return s;
}

int pick(const Selector& s, double x) { return s.select(Eigen::RowVectorXd::Constant(1, x)); }

TEST(SelectorUnsure, UnsureConfigHasTheBestGeomeanOverTraining) {
  EXPECT_EQ(fitted("tree-a", {})->unsure_config(), 1);
  // An index into the shipped list, whatever its order.
  EXPECT_EQ(fitted("tree-a", {}, {2, 0, 1})->unsure_config(), 2);
  // Without c1, c0 (0.49) beats c2 (0.45).
  EXPECT_EQ(fitted("tree-a", {}, {2, 0})->unsure_config(), 1);
}

TEST(SelectorUnsure, RangeGuardServesTheUnsureConfigOutsideTheTrainingRange) {
  const auto plain = fitted("tree-a", {});
  EXPECT_EQ(pick(*plain, 0.5), 0);
  EXPECT_EQ(pick(*plain, 9), 2);
  const auto guarded = fitted("tree-a", {0, true});
  EXPECT_EQ(guarded->feature_min()[0], 1);
  EXPECT_EQ(guarded->feature_max()[0], 4);
  EXPECT_EQ(pick(*guarded, 1), 0);  // the bounds themselves are inside
  EXPECT_EQ(pick(*guarded, 2), 0);
  EXPECT_EQ(pick(*guarded, 4), 2);
  EXPECT_EQ(pick(*guarded, 0.5), 1);
  EXPECT_EQ(pick(*guarded, 9), 1);
  // A non-finite feature still serves the baseline, before any rule.
  EXPECT_EQ(pick(*guarded, std::numeric_limits<double>::quiet_NaN()), guarded->baseline());
}

TEST(SelectorUnsure, RangeGuardLeavesTheSkippedFeaturesOut) {
  // four_problems with a second feature r (a residue-like class, 0 or 1 in training).
  Dataset d = four_problems();
  d.feature_names = {"x", "r"};
  d.features.resize(4, 2);
  d.features << 1, 0, 2, 1, 3, 0, 4, 1;
  auto fit = [&](UnsureRule rule) {
    auto s = make_selector("tree-a", {Fallback::baseline, 0, rule});
    s->fit(d, kAll, Norm::scale);
    return s;
  };
  auto at = [](const Selector& s, double x, double r) {
    Eigen::RowVectorXd row(2);
    row << x, r;
    return s.select(row);
  };
  UnsureRule guard;
  guard.range_guard = true;
  EXPECT_EQ(at(*fit(guard), 2, 5), 1);  // r = 5 was never seen: the unsure config
  guard.range_guard_skip = {"r"};
  const auto skipping = fit(guard);
  EXPECT_TRUE(skipping->guard_skips(1));
  EXPECT_FALSE(skipping->guard_skips(0));
  EXPECT_EQ(at(*skipping, 2, 5), 0);  // r is left out: the tree's pick
  EXPECT_EQ(at(*skipping, 9, 0), 1);  // x is still guarded
  const nlohmann::json j = skipping->to_json();
  EXPECT_EQ(j["unsure"]["range_guard_skip"], nlohmann::json::array({"r"}));
  EXPECT_EQ(at(*Selector::from_json(j), 2, 5), 0);
  nlohmann::json older = j;  // saved before the skip list: every feature guarded
  older["unsure"].erase("range_guard_skip");
  EXPECT_EQ(at(*Selector::from_json(older), 2, 5), 1);
  nlohmann::json bad = j;
  bad["unsure"]["range_guard_skip"] = {"nope"};
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad["unsure"]["range_guard_skip"] = {3};
  EXPECT_THROW(Selector::from_json(bad), Error);
  guard.range_guard_skip = {"nope"};  // a name that is not a feature
  EXPECT_THROW(fit(guard), Error);
  UnsureRule no_guard;  // a skip list without the guard skips nothing: refused
  no_guard.range_guard_skip = {"r"};
  EXPECT_THROW(fit(no_guard), Error);
}

TEST(SelectorUnsure, MinVoteShareOverridesAnImpureLeaf) {
  // tree-c needs 5 samples to split: one leaf holding labels 0, 0, 2, 2 (shares 0.5, 0, 0.5),
  // which picks c0, the first of the tied classes.
  EXPECT_EQ(pick(*fitted("tree-c", {}), 3), 0);
  EXPECT_EQ(pick(*fitted("tree-c", {0.5, false}), 3), 0);  // 0.5 is not below 0.5
  EXPECT_EQ(pick(*fitted("tree-c", {0.6, false}), 3), 1);
  // tree-a's leaves are pure: no share is below 1.
  EXPECT_EQ(pick(*fitted("tree-a", {1.0, false}), 3), 2);
}

// x = 1..8. Left half: c0 perfect (a pure leaf). Right half: c1 best on x = 5, 6, c2 on 7, 8,
// c3 0.9 everywhere there. Global geomeans: c0 (1⁴ · 0.5⁴)^⅛ = 0.71 beats c3 (0.2⁴ · 0.9⁴)^⅛
// = 0.42; over the right half c3 (0.9) beats c1, c2 (1 · 1 · 0.3 · 0.3)^¼ = 0.55 and c0 (0.5).
Dataset two_halves() {
  Dataset d;
  d.config_names = {"c0", "c1", "c2", "c3"};
  d.feature_names = {"x"};
  d.features.resize(8, 1);
  d.features << 1, 2, 3, 4, 5, 6, 7, 8;
  d.perf.resize(8, 4);
  d.perf << 1.0, 0.2, 0.2, 0.2,  //
      1.0, 0.2, 0.2, 0.2,        //
      1.0, 0.2, 0.2, 0.2,        //
      1.0, 0.2, 0.2, 0.2,        //
      0.5, 1.0, 0.3, 0.9,        //
      0.5, 1.0, 0.3, 0.9,        //
      0.5, 0.3, 1.0, 0.9,        //
      0.5, 0.3, 1.0, 0.9;
  d.valid = (d.perf.array() > 0).matrix();
  return d;
}

TEST(SelectorUnsure, AnImpureTreeLeafServesItsOwnBestGeomean) {
  // tree-c (min leaf 4, min split 5) splits at x <= 4.5 only: a pure left leaf and a right leaf
  // with labels 1, 1, 2, 2 (share 0.5).
  auto fit = [](UnsureRule rule) {
    auto s = make_selector("tree-c", {Fallback::baseline, 0, rule});
    s->fit(two_halves(), {0, 1, 2, 3}, Norm::scale);
    return s;
  };
  const auto plain = fit({});
  EXPECT_EQ(plain->unsure_config(), 0);
  EXPECT_EQ(pick(*plain, 2), 0);
  EXPECT_EQ(pick(*plain, 7), 1);  // the first of the tied classes
  const auto ruled = fit({0.6, false});
  EXPECT_EQ(pick(*ruled, 2), 0);  // pure: the leaf's class
  EXPECT_EQ(pick(*ruled, 7), 3);  // impure: the leaf's best geomean, not the global c0
  const nlohmann::json j = ruled->to_json();
  EXPECT_EQ(pick(*Selector::from_json(j), 7), 3);
  // A model saved without per-leaf picks falls back on the global unsure config.
  nlohmann::json older = j;
  older["model"].erase("leaf_configs");
  EXPECT_EQ(pick(*Selector::from_json(older), 7), 0);
  nlohmann::json bad = j;
  bad["model"]["leaf_configs"][0] = 4;
  EXPECT_THROW(Selector::from_json(bad), Error);
}

TEST(SelectorUnsure, LeafMarginKeepsTheUnsureConfigUnlessTheLeafsBestIsClearlyBetter) {
  // The right leaf of two_halves: c3 (0.9) is 1.8x the unsure config c0 (0.5) there.
  auto fit = [](double margin) {
    auto s = make_selector("tree-c", {Fallback::baseline, 0, {0.6, false, margin}});
    s->fit(two_halves(), {0, 1, 2, 3}, Norm::scale);
    return s;
  };
  EXPECT_EQ(pick(*fit(0.5), 7), 3);  // 80 % better: more than the margin
  EXPECT_EQ(pick(*fit(0.79), 7), 3);
  const auto kept = fit(0.81);  // not 81 % better: the unsure config
  EXPECT_EQ(pick(*kept, 7), 0);
  EXPECT_EQ(pick(*kept, 2), 0);  // a pure leaf: its class, as before
  const nlohmann::json j = kept->to_json();
  EXPECT_EQ(j["unsure"]["leaf_margin"], 0.81);
  EXPECT_EQ(Selector::from_json(j)->options().unsure.leaf_margin, 0.81);
  EXPECT_EQ(pick(*Selector::from_json(j), 7), 0);
  nlohmann::json older = j;  // saved before the margin: off
  older["unsure"].erase("leaf_margin");
  EXPECT_EQ(Selector::from_json(older)->options().unsure.leaf_margin, 0);
  nlohmann::json bad = j;
  bad["unsure"]["leaf_margin"] = 1.5;
  EXPECT_THROW(Selector::from_json(bad), Error);
  // A margin without the vote-share rule would pick for no leaf: refused.
  auto no_share = make_selector("tree-c", {Fallback::baseline, 0, {0, false, 0.1}});
  EXPECT_THROW(no_share->fit(two_halves(), {0, 1, 2, 3}, Norm::scale), Error);
}

TEST(SelectorUnsure, RuleSurvivesJsonAndOlderModelsLoadWithoutIt) {
  const auto guarded = fitted("tree-c", {0.6, true});
  const nlohmann::json j = guarded->to_json();
  const auto loaded = Selector::from_json(j);
  EXPECT_EQ(loaded->options().unsure.min_vote_share, 0.6);
  EXPECT_TRUE(loaded->options().unsure.range_guard);
  EXPECT_EQ(loaded->unsure_config(), 1);
  for (double x : {0.5, 1.0, 3.0, 9.0}) EXPECT_EQ(pick(*loaded, x), pick(*guarded, x)) << x;
  nlohmann::json old = j;
  old.erase("unsure");
  EXPECT_EQ(pick(*Selector::from_json(old), 9), 0);  // no rule: the leaf's pick
  nlohmann::json bad = j;
  bad["unsure"]["feature_max"] = {1.0, 2.0};
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  bad["unsure"]["config"] = 3;
  EXPECT_THROW(Selector::from_json(bad), Error);
}

TEST(SelectorUnsure, ShareNeedsAVotingSelectorAndAShareInZeroOne) {
  EXPECT_THROW(fitted("svm-linear", {0.5, false}), Error);
  EXPECT_NO_THROW(fitted("svm-linear", {0, true}));
  EXPECT_THROW(fitted("tree-b", {1.5, false}), Error);
  EXPECT_THROW(fitted("tree-b", {std::numeric_limits<double>::quiet_NaN(), false}), Error);
  EXPECT_NO_THROW(fitted("knn-3", {0.7, false}));
  EXPECT_NO_THROW(fitted("forest", {0.7, false}));
}

}  // namespace
}  // namespace ktune::ml
