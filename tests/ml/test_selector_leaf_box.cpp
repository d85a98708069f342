// The leaf box (selector.hpp, UnsureRule::leaf_box): a problem that reaches a tree leaf but lies
// in the gap between a threshold of its path and the leaf's nearest training problem is served
// the unsure config, on a planted dataset small enough to follow by hand.
#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {
namespace {

// x = "tiles": a kernel ("kind=k") runs at 0.5x the vendor ("vendor=v") on x = 1..4 (too few
// tiles to fill the GPU) and at 2x on x = 10..13. y is noise the tree never splits on. tree-c
// (min leaf 4) splits once, at x <= 7: a vendor leaf and a kernel leaf whose training problems
// start at x = 10, so x = 8 lies in the gap no training problem measured.
Dataset tiles_gap() {
  Dataset d;
  d.config_names = {"kind=k", "vendor=v"};
  d.feature_names = {"x", "y"};
  d.features.resize(8, 2);
  d.features << 1, 5, 2, 6, 3, 5, 4, 6, 10, 5, 11, 6, 12, 5, 13, 6;
  d.perf.resize(8, 2);
  d.perf << 0.5, 1.0,  //
      0.5, 1.0,        //
      0.5, 1.0,        //
      0.5, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0;
  d.valid = (d.perf.array() > 0).matrix();
  return d;
}

std::unique_ptr<Selector> fit(const Dataset& d, UnsureRule rule, const char* kind = "tree-c") {
  auto s = make_selector(kind, {Fallback::baseline, 0, rule});
  s->fit(d, {0, 1}, Norm::scale);
  return s;
}

UnsureRule boxed() {
  UnsureRule r;
  r.vendor = true;
  r.leaf_box = true;
  return r;
}

int pick(const Selector& s, double x, double y = 5) {
  return s.select((Eigen::RowVectorXd(2) << x, y).finished());
}

TEST(SelectorLeafBox, AProblemInTheGapBeforeTheLeafsTrainingProblemsServesTheVendor) {
  const auto plain = fit(tiles_gap(), {});
  EXPECT_EQ(pick(*plain, 2), 1);
  EXPECT_EQ(pick(*plain, 8), 0);  // the kernel leaf's threshold is 7: the tree extrapolates
  const auto box = fit(tiles_gap(), boxed());
  EXPECT_EQ(box->unsure_config(), 1);
  EXPECT_EQ(pick(*box, 8), 1);   // below the kernel leaf's smallest training x (10)
  EXPECT_EQ(pick(*box, 10), 0);  // its training problems keep the kernel
  EXPECT_EQ(pick(*box, 13), 0);
  EXPECT_EQ(pick(*box, 20), 0);  // beyond its largest: no threshold there (the range guard's)
  EXPECT_EQ(pick(*box, 2), 1);
  const Eigen::RowVectorXd gap = (Eigen::RowVectorXd(2) << 8, 5).finished();
  EXPECT_TRUE(box->unsure(gap, box->scores(gap)));
  EXPECT_FALSE(plain->unsure(gap, plain->scores(gap)));
}

TEST(SelectorLeafBox, OnlyThePathsFeaturesAreBoxedAndTheRangeGuardsSkipsAreLeftOut) {
  const auto box = fit(tiles_gap(), boxed());
  EXPECT_EQ(pick(*box, 12, 100), 0);  // y is outside its range, but no split reads it
  UnsureRule skip = boxed();
  skip.range_guard = true;
  skip.range_guard_skip = {"x"};
  const auto skipped = fit(tiles_gap(), skip);
  EXPECT_EQ(pick(*skipped, 8), 0);        // x is left out of the box as out of the guard
  EXPECT_EQ(pick(*skipped, 12, 100), 1);  // y: the range guard's, not the box's
}

// leaf_box_all: y, on no split, is bounded too (the kernel leaf saw y in [5, 6]), and x on both
// sides (its largest training x is 13): a problem the leaf's kernel was never shown to win on.
TEST(SelectorLeafBox, AllFeaturesBoxesTheFeaturesNoSplitReadsOnBothSides) {
  UnsureRule all = boxed();
  all.leaf_box_all = true;
  const auto box = fit(tiles_gap(), all);
  EXPECT_EQ(pick(*box, 12, 5), 0);
  EXPECT_EQ(pick(*box, 12, 6), 0);
  EXPECT_EQ(pick(*box, 12, 100), 1);  // y outside the leaf's training y: the vendor
  EXPECT_EQ(pick(*box, 12, 4), 1);
  EXPECT_EQ(pick(*box, 20), 1);  // beyond the leaf's largest training x
  EXPECT_EQ(pick(*box, 8), 1);
  const auto loaded = Selector::from_json(box->to_json());
  EXPECT_TRUE(loaded->options().unsure.leaf_box_all);
  for (double y : {4.0, 5.0, 6.0, 100.0}) EXPECT_EQ(pick(*loaded, 12, y), pick(*box, 12, y)) << y;
  all.range_guard = true;
  all.range_guard_skip = {"y"};
  EXPECT_EQ(pick(*fit(tiles_gap(), all), 12, 100), 0);  // a skipped feature stays out of the box
  nlohmann::json bad = box->to_json();
  bad["unsure"]["leaf_box_all"] = "yes";
  EXPECT_THROW(Selector::from_json(bad), Error);
  UnsureRule alone;
  alone.leaf_box_all = true;  // without the leaf box it means nothing: refused
  EXPECT_THROW(fit(tiles_gap(), alone), Error);
}

TEST(SelectorLeafBox, SurvivesJsonOlderModelsLoadWithoutItAndOnlyTreesTakeIt) {
  const auto box = fit(tiles_gap(), boxed());
  const nlohmann::json j = box->to_json();
  EXPECT_EQ(j["unsure"]["leaf_box"], true);
  ASSERT_TRUE(j["model"].contains("leaf_boxes"));
  const auto loaded = Selector::from_json(j);
  EXPECT_TRUE(loaded->options().unsure.leaf_box);
  for (double x : {1.0, 4.0, 7.0, 8.0, 10.0, 13.0, 20.0})
    EXPECT_EQ(pick(*loaded, x), pick(*box, x)) << x;
  nlohmann::json older = j;  // saved without the box: the tree's answer in the gap
  older["unsure"].erase("leaf_box");
  older["unsure"]["vendor"] = false;  // the vendor rule needs an unsure rule
  older["model"].erase("leaf_boxes");
  EXPECT_EQ(pick(*Selector::from_json(older), 8), 0);
  EXPECT_FALSE(fit(tiles_gap(), {})->to_json()["unsure"].contains("leaf_box"));
  EXPECT_FALSE(j["unsure"].contains("leaf_box_all"));
  nlohmann::json bad = j;
  bad["model"]["leaf_boxes"] = {nlohmann::json::array()};  // one entry for three nodes
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  for (auto& node : bad["model"]["leaf_boxes"])
    if (!node.empty()) node[0][0] = 2;  // no third feature
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  for (auto& node : bad["model"]["leaf_boxes"])
    if (!node.empty()) node[0] = {0, 5.0, 4.0};  // lo above hi
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  for (auto& node : bad["model"]["leaf_boxes"])
    if (!node.empty()) node[0] = {0, nullptr, nullptr};  // a bound with no side
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  bad["unsure"]["leaf_box"] = 1;
  EXPECT_THROW(Selector::from_json(bad), Error);
  EXPECT_THROW(fit(tiles_gap(), boxed(), "knn-1"), Error);
}

}  // namespace
}  // namespace ktune::ml
