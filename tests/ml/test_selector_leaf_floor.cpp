// The leaf floor (selector.hpp, UnsureRule::leaf_floor): a tree leaf whose answer runs below
// F x the faster shipped vendor call on one of its training problems serves a config that does
// not, on planted datasets small enough to follow by hand.
#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/ml/selector.hpp"

namespace ktune::ml {
namespace {

// x = 1..8. A kernel ("kind=k") runs at 2x the vendor on x = 1..7 and at 0.4x on x = 8; the
// vendor call ("vendor=v") is the reference everywhere. tree-c (min leaf 4, min split 5) splits
// at x <= 4.5 only: a pure kernel leaf (x <= 4) and a right leaf labelled k, k, k, v (share
// 0.75, a sure leaf whose class is the kernel).
Dataset vendor_wins_once() {
  Dataset d;
  d.config_names = {"kind=k", "vendor=v"};
  d.feature_names = {"x"};
  d.features.resize(8, 1);
  d.features << 1, 2, 3, 4, 5, 6, 7, 8;
  d.perf.resize(8, 2);
  d.perf << 2.0, 1.0,  //
      2.0, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0,        //
      2.0, 1.0,        //
      0.4, 1.0;
  d.valid = (d.perf.array() > 0).matrix();
  return d;
}

std::unique_ptr<Selector> fit(const Dataset& d, UnsureRule rule, const char* kind = "tree-c") {
  auto s = make_selector(kind, {Fallback::baseline, 0, rule});
  std::vector<Eigen::Index> shipped(size_t(d.cols()));
  for (Eigen::Index c = 0; c < d.cols(); ++c) shipped[size_t(c)] = c;
  s->fit(d, shipped, Norm::scale);
  return s;
}

UnsureRule floor_of(double f) {
  UnsureRule r;
  r.leaf_floor = f;
  return r;
}

int pick(const Selector& s, double x) { return s.select(Eigen::RowVectorXd::Constant(1, x)); }

TEST(SelectorLeafFloor, ASureLeafWhoseKernelLosesBadlyOnceServesTheVendor) {
  const Dataset d = vendor_wins_once();
  const auto plain = fit(d, {});
  EXPECT_EQ(pick(*plain, 2), 0);
  EXPECT_EQ(pick(*plain, 6), 0);  // the leaf's class: the kernel, 0.4x on x = 8
  EXPECT_EQ(pick(*plain, 8), 0);
  const auto floored = fit(d, floor_of(0.8));
  EXPECT_EQ(pick(*floored, 2), 0);  // the kernel passes where it never lost
  EXPECT_EQ(pick(*floored, 6), 1);  // the whole right leaf goes to the vendor
  EXPECT_EQ(pick(*floored, 8), 1);
  // A floor the kernel's worst case (0.4x) meets keeps it.
  EXPECT_EQ(pick(*fit(d, floor_of(0.4)), 8), 0);
  EXPECT_EQ(pick(*fit(d, floor_of(0.41)), 8), 1);
}

TEST(SelectorLeafFloor, AppliesToTheUnsureLeafPickToo) {
  // With a vote share of 0.8 the right leaf (0.75) is unsure; its own best geomean is the kernel
  // (2^3 * 0.4)^(1/4) = 1.50 against the vendor's 1: served without the floor, not with it.
  UnsureRule share;
  share.min_vote_share = 0.8;
  EXPECT_EQ(pick(*fit(vendor_wins_once(), share), 8), 0);
  share.leaf_floor = 0.9;
  EXPECT_EQ(pick(*fit(vendor_wins_once(), share), 8), 1);
  EXPECT_EQ(pick(*fit(vendor_wins_once(), share), 2), 0);
}

TEST(SelectorLeafFloor, TheReferenceIsTheFasterVendorAndNoPassingConfigGivesTheBestWorstCase) {
  // Two vendors in the right leaf (x = 5..8): "vendor=a" 1, 1, 1, 1 and "vendor=b" 0.6, 1.3,
  // 1.3, 1.3; the kernel 2, 2, 2, 0.4 (labels k, k, k, b: the same two leaves). Against the
  // faster vendor per problem the worst cases are: kernel 0.4 / 1.3 = 0.31, a 1 / 1.3 = 0.77,
  // b 0.6. Geomeans of perf / oracle there: a (0.5^3 * 0.77)^(1/4) = 0.56, b (0.3 * 0.65^2 *
  // 1)^(1/4) = 0.60.
  Dataset d = vendor_wins_once();
  d.config_names = {"kind=k", "vendor=a", "vendor=b"};
  d.perf.resize(8, 3);
  d.perf << 2.0, 1.0, 1.0,  //
      2.0, 1.0, 1.0,        //
      2.0, 1.0, 1.0,        //
      2.0, 1.0, 1.0,        //
      2.0, 1.0, 0.6,        //
      2.0, 1.0, 1.3,        //
      2.0, 1.0, 1.3,        //
      0.4, 1.0, 1.3;
  d.valid = (d.perf.array() > 0).matrix();
  EXPECT_EQ(pick(*fit(d, {}), 6), 0);
  EXPECT_EQ(pick(*fit(d, floor_of(0.9)), 2), 0);  // the kernel passes where it never lost
  EXPECT_EQ(pick(*fit(d, floor_of(0.9)), 6), 1);  // none passes 0.9: the best worst case, a
  EXPECT_EQ(pick(*fit(d, floor_of(0.6)), 6), 2);  // a and b pass 0.6: the better geomean, b
  EXPECT_EQ(pick(*fit(d, floor_of(0.3)), 6), 0);  // all pass: the leaf's class stays
  // Without a vendor shipped the reference is the best shipped config, here the kernel itself.
  const auto kernels_only = make_selector("tree-c", {Fallback::baseline, 0, floor_of(0.9)});
  kernels_only->fit(vendor_wins_once(), {0}, Norm::scale);
  EXPECT_EQ(pick(*kernels_only, 8), 0);
}

TEST(SelectorLeafFloor, WithoutAVendorARefusedConfigCountsAsItsFallback) {
  // Two kernels, no vendor: "kind=a" runs everywhere at 1; "kind=w" (a Winograd that refuses
  // some layers) runs at 2 on x = 1..4, refuses x = 5..7 and runs at 2.6 on x = 8. tree-c splits
  // at x <= 4.5 only: the right leaf's labels are a, a, a, w (a sure leaf of class a), whose
  // class runs at 1 / 2.6 = 0.38x the best shipped config on x = 8. Scored as deployed (w refused
  // on x = 5..7 is served by a, the first of the safe order), w passes every floor there.
  Dataset d = vendor_wins_once();
  d.config_names = {"kind=a", "kind=w"};
  d.perf.col(0).setConstant(1.0);
  d.perf.col(1) << 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 2.6;
  d.valid = (d.perf.array() > 0).matrix();
  const auto plain = fit(d, {});
  EXPECT_EQ(pick(*plain, 2), 1);
  EXPECT_EQ(pick(*plain, 8), 0);  // the leaf's class: a, 0.38x the best on x = 8
  const auto floored = fit(d, floor_of(0.9));
  EXPECT_EQ(pick(*floored, 2), 1);
  EXPECT_EQ(pick(*floored, 8), 1);  // w, which the refusing problems of its leaf fall back from
  EXPECT_EQ(pick(*floored, 6), 1);
  EXPECT_EQ(floored->choose(Eigen::RowVectorXd::Constant(1, 6.0), {true, false}).served, 0);
  // A floor a's worst case meets keeps the class.
  EXPECT_EQ(pick(*fit(d, floor_of(0.38)), 8), 0);
  // w as deployed is the best shipped on each of its leaf's problems: it meets any floor.
  EXPECT_EQ(pick(*fit(d, floor_of(0.99)), 8), 1);
}

TEST(SelectorLeafFloor, FloorVendorsHoldsVariantsToTheNamedCallsOnly) {
  // "vendor=a;variant=1" (another algorithm of a's, shipped as a candidate) runs at 2x a on
  // x = 1..7 and at 0.7x a on x = 8; the right leaf (x = 5..8) is a sure leaf of the variant.
  // With every vendor call as the reference (the faster of the two per problem) a's worst case
  // there is 1 / 2 = 0.5 and the variant's 0.7: none passes 0.9, and the best worst case keeps
  // the variant, 0.7x a on x = 8. Held to a alone, the variant fails and a passes.
  Dataset d = vendor_wins_once();
  d.config_names = {"vendor=a;variant=1", "vendor=a"};
  d.perf.col(0) << 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.7;
  d.valid = (d.perf.array() > 0).matrix();
  EXPECT_EQ(pick(*fit(d, floor_of(0.9)), 8), 0);
  UnsureRule named = floor_of(0.9);
  named.floor_vendors = {"a"};
  const auto held = fit(d, named);
  EXPECT_EQ(pick(*held, 2), 0);  // the variant never lost to a there
  EXPECT_EQ(pick(*held, 6), 1);
  EXPECT_EQ(pick(*held, 8), 1);
  // Naming a call that is not shipped falls back to every shipped vendor call.
  named.floor_vendors = {"b"};
  EXPECT_EQ(pick(*fit(d, named), 8), 0);
  // Saved and loaded with the model; older models (no field) hold every call.
  const nlohmann::json j = held->to_json();
  EXPECT_EQ(j["unsure"]["floor_vendors"], nlohmann::json::array({"a"}));
  const auto loaded = Selector::from_json(j);
  EXPECT_EQ(loaded->options().unsure.floor_vendors, std::vector<std::string>{"a"});
  for (double x : {1.0, 6.0, 8.0}) EXPECT_EQ(pick(*loaded, x), pick(*held, x)) << x;
  nlohmann::json bad = j;
  bad["unsure"]["floor_vendors"] = "a";
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad["unsure"]["floor_vendors"] = {1};
  EXPECT_THROW(Selector::from_json(bad), Error);
  UnsureRule without_floor;
  without_floor.floor_vendors = {"a"};
  EXPECT_THROW(fit(d, without_floor), Error);
}

TEST(SelectorLeafFloor, SurvivesJsonOlderModelsLoadWithoutItAndOnlyTreesTakeIt) {
  const auto floored = fit(vendor_wins_once(), floor_of(0.8));
  const nlohmann::json j = floored->to_json();
  EXPECT_EQ(j["unsure"]["leaf_floor"], 0.8);
  ASSERT_TRUE(j["model"].contains("floor_configs"));
  const auto loaded = Selector::from_json(j);
  EXPECT_EQ(loaded->options().unsure.leaf_floor, 0.8);
  for (double x : {1.0, 4.0, 5.0, 8.0, 20.0}) EXPECT_EQ(pick(*loaded, x), pick(*floored, x)) << x;
  nlohmann::json older = j;  // saved before the floor: the tree's classes
  older["unsure"].erase("leaf_floor");
  older["model"].erase("floor_configs");
  EXPECT_EQ(pick(*Selector::from_json(older), 8), 0);
  nlohmann::json bad = j;
  bad["model"]["floor_configs"][0] = 5;
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  bad["model"]["floor_configs"] = {1};
  EXPECT_THROW(Selector::from_json(bad), Error);
  bad = j;
  bad["unsure"]["leaf_floor"] = 1.0;
  EXPECT_THROW(Selector::from_json(bad), Error);
  EXPECT_THROW(fit(vendor_wins_once(), floor_of(0.8), "knn-3"), Error);
  EXPECT_THROW(fit(vendor_wins_once(), floor_of(-0.1)), Error);
}

}  // namespace
}  // namespace ktune::ml
