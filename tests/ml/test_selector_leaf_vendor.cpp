// The leaf's vendor call (selector.hpp, UnsureRule::leaf_vendor): an unsure problem is served by
// the shipped vendor call fastest over the training problems of the leaf it reaches, not by one
// vendor call for every leaf, on a planted dataset where two leaves prefer different vendors.
#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/ml/deploy.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {
namespace {

// x = "tiles", y = noise no split reads. Configs: a kernel and two vendor calls a and b.
// x = 1..4: a at 1.0, b at 0.4, the kernel at 0.5 (a's leaf). x = 10..13: the kernel at 2.0,
// a at 0.5, b at 1.0 (b is the faster vendor there). Over all eight problems a has the better
// geometric mean (sqrt(0.5) > sqrt(0.4)): the one global unsure config is a, which runs at 0.5x
// b on the kernel leaf's problems. tree-c (min leaf 4) splits once, at x <= 7.
Dataset two_vendors() {
  Dataset d;
  d.config_names = {"kind=k", "vendor=a", "vendor=b"};
  d.feature_names = {"x", "y"};
  d.features.resize(8, 2);
  d.features << 1, 5, 2, 6, 3, 5, 4, 6, 10, 5, 11, 6, 12, 5, 13, 6;
  d.perf.resize(8, 3);
  d.perf << 0.5, 1.0, 0.4,  //
      0.5, 1.0, 0.4,        //
      0.5, 1.0, 0.4,        //
      0.5, 1.0, 0.4,        //
      2.0, 0.5, 1.0,        //
      2.0, 0.5, 1.0,        //
      2.0, 0.5, 1.0,        //
      2.0, 0.5, 1.0;
  d.valid = (d.perf.array() > 0).matrix();
  return d;
}

UnsureRule rule(bool leaf_vendor) {
  return {.range_guard = true,
          .vendor = true,
          .leaf_box = true,
          .leaf_box_all = true,
          .leaf_vendor = leaf_vendor};
}

std::unique_ptr<Selector> fit(const Dataset& d, UnsureRule r, const char* kind = "tree-c") {
  auto s = make_selector(kind, {Fallback::baseline, 0, r});
  s->fit(d, {0, 1, 2}, Norm::scale);
  return s;
}

int pick(const Selector& s, double x, double y = 5) {
  return s.select((Eigen::RowVectorXd(2) << x, y).finished());
}

TEST(SelectorLeafVendor, EachLeafsUnsureProblemsGoToItsOwnFastestVendorCall) {
  const auto global = fit(two_vendors(), rule(false));
  const auto per_leaf = fit(two_vendors(), rule(true));
  EXPECT_EQ(global->unsure_config(), 1);  // a: the better geometric mean over all problems
  EXPECT_EQ(per_leaf->unsure_config(), 1);
  // Sure problems keep the tree's answer either way.
  for (const auto* s : {global.get(), per_leaf.get()}) {
    EXPECT_EQ(pick(*s, 2), 1);
    EXPECT_EQ(pick(*s, 12), 0);
  }
  // The kernel leaf: outside its box (x = 8, in the gap; y = 100) and beyond the range guard
  // (x = 20): the global rule serves a, the leaf's rule b, 2x faster on its training problems.
  for (const auto& [x, y] : {std::pair{8.0, 5.0}, {12.0, 100.0}, {20.0, 5.0}}) {
    EXPECT_EQ(pick(*global, x, y), 1) << x << " " << y;
    EXPECT_EQ(pick(*per_leaf, x, y), 2) << x << " " << y;
    const Eigen::RowVectorXd row = (Eigen::RowVectorXd(2) << x, y).finished();
    EXPECT_TRUE(per_leaf->unsure(row, per_leaf->scores(row)));
  }
  // a's leaf: unsure problems there stay on a (its own fastest vendor call).
  EXPECT_EQ(pick(*per_leaf, 2, 100), 1);
  EXPECT_EQ(pick(*per_leaf, -5), 1);
}

TEST(SelectorLeafVendor, FloorVendorsLimitTheCallsALeafMayServe) {
  UnsureRule only_a = rule(true);
  only_a.leaf_floor = 0.5;
  only_a.floor_vendors = {"a"};
  EXPECT_EQ(pick(*fit(two_vendors(), only_a), 8), 1);  // b is not one of the named calls
}

TEST(SelectorLeafVendor, SurvivesJsonOlderModelsLoadWithoutItAndBadInputIsRefused) {
  const auto per_leaf = fit(two_vendors(), rule(true));
  const nlohmann::json j = per_leaf->to_json();
  EXPECT_EQ(j["unsure"]["leaf_vendor"], true);
  ASSERT_TRUE(j["model"].contains("leaf_vendors"));
  const auto loaded = Selector::from_json(j);
  EXPECT_TRUE(loaded->options().unsure.leaf_vendor);
  for (double x : {-5.0, 2.0, 8.0, 12.0, 20.0})
    for (double y : {5.0, 100.0}) EXPECT_EQ(pick(*loaded, x, y), pick(*per_leaf, x, y)) << x;
  EXPECT_FALSE(fit(two_vendors(), rule(false))->to_json()["unsure"].contains("leaf_vendor"));
  EXPECT_FALSE(fit(two_vendors(), rule(false))->to_json()["model"].contains("leaf_vendors"));
  nlohmann::json older = j;  // saved without it: the one unsure config
  older["unsure"].erase("leaf_vendor");
  older["model"].erase("leaf_vendors");
  EXPECT_EQ(pick(*Selector::from_json(older), 8), 1);
  nlohmann::json bad = j;
  bad["unsure"]["leaf_vendor"] = "yes";
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  bad["model"]["leaf_vendors"] = {1};  // one entry for three nodes
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  bad["model"]["leaf_vendors"] = {3, 3, 3};  // no fourth config
  EXPECT_THROW(Selector::from_json(bad), Error);
  UnsureRule knn = rule(true);
  knn.leaf_box = knn.leaf_box_all = false;
  EXPECT_NO_THROW(fit(two_vendors(), rule(false), "tree-c"));
  EXPECT_THROW(fit(two_vendors(), knn, "knn-1"), Error);  // no leaves
  UnsureRule alone;
  alone.leaf_vendor = true;  // no unsure rule to serve it
  EXPECT_THROW(fit(two_vendors(), alone), Error);
}

// The deploy recipe names the option, so a header's first line says how it was made.
TEST(SelectorLeafVendor, TheDeployRecipeNamesIt) {
  DeployRecipe r;
  r.selector_options.unsure = rule(false);
  EXPECT_EQ(recipe_arguments(r).find("--unsure-leaf-vendor"), std::string::npos);
  r.selector_options.unsure = rule(true);
  EXPECT_NE(recipe_arguments(r).find("--unsure-leaf-vendor"), std::string::npos);
}

}  // namespace
}  // namespace ktune::ml
