// The rule `auto` picks each inference's whole-network variant by (nn/cpu/variant_picker.hpp), on
// planted times: no clock involved, so every expectation is exact.
#include <gtest/gtest.h>

#include "nn/cpu/variant_picker.hpp"

namespace ktune::nn::cpu {
namespace {

TEST(RecentTimes, TheMedianOfTheLastFiveTimes) {
  static_assert(RecentTimes::kWindow == 5);
  RecentTimes t;
  EXPECT_TRUE(t.empty());
  t.record(5, 0);
  EXPECT_EQ(t.median(), 5);
  t.record(9, 1);
  EXPECT_EQ(t.median(), 7);
  t.record(1, 2);
  EXPECT_EQ(t.median(), 5);
  t.record(2, 3);
  EXPECT_EQ(t.median(), 3.5);
  t.record(8, 4);
  EXPECT_EQ(t.median(), 5);
  t.record(3, 5);  // the 5 leaves the window: 9, 1, 2, 8, 3
  EXPECT_EQ(t.median(), 3);
  EXPECT_EQ(t.last_stamp(), 5);
}

TEST(VariantPicker, UntimedKeepsTheFallback) {
  VariantPicker p(3);
  EXPECT_EQ(p.best(2), 2);
  EXPECT_EQ(p.next(2), 2);
}

// Set-up timed variant 0 fastest; then it slows (a machine state that set-up did not see): one
// or two slow times move nothing, the third makes the runner-up the pick.
TEST(VariantPicker, LeavesAVariantThatBecameSlowerAfterThreeSlowTimes) {
  VariantPicker p(3);
  for (int round = 0; round < 3; ++round) {
    p.record(0, 100);
    p.record(1, 115);
    p.record(2, 250);
  }
  EXPECT_EQ(p.next(0), 0);
  p.record(0, 140);
  EXPECT_EQ(p.next(0), 0);  // median of 100, 100, 100, 140
  p.record(0, 140);
  EXPECT_EQ(p.next(0), 0);  // median of 100, 100, 100, 140, 140
  p.record(0, 140);
  EXPECT_EQ(p.next(0), 1);  // median of 100, 100, 140, 140, 140 > 115
}

// Near-equal variants: the one running stays until another is 3 % faster.
TEST(VariantPicker, StaysUnlessAnotherIsClearlyFaster) {
  VariantPicker p(2);
  p.record(0, 100);
  p.record(1, 101);
  EXPECT_EQ(p.next(0), 0);
  p.record(1, 98);
  p.record(1, 98);  // median 98: within 3 %
  EXPECT_EQ(p.next(0), 0);
  p.record(1, 96);  // median 98 still
  EXPECT_EQ(p.next(0), 0);
  p.record(1, 90);
  p.record(1, 90);  // the last five 98, 98, 96, 90, 90: median 96, 3 % under 100 less a bit
  EXPECT_EQ(p.next(0), 1);
}

// Every 16th pick re-times the contender (within 15 % of the best) timed longest ago; a variant
// more than 15 % slower is not re-timed before the 64th pick, which takes the one timed longest
// ago whatever its score.
TEST(VariantPicker, ExploresContendersOftenAndEveryVariantRarely) {
  VariantPicker p(3);
  p.record(2, 300);  // far slower, timed first
  p.record(1, 110);  // a contender
  p.record(0, 100);
  std::vector<int> picks;
  for (int i = 0; i < 64; ++i) {
    const int v = p.next(0);
    picks.push_back(v);
    p.record(v, v == 0 ? 100 : v == 1 ? 110 : 300);
  }
  for (int i = 0; i < 64; ++i) {
    const int want = i == 63 ? 2 : (i + 1) % 16 == 0 ? 1 : 0;
    EXPECT_EQ(picks[size_t(i)], want) << "pick " << i + 1;
  }
}

// A variant that became faster while not picked is found by the contender re-timing.
TEST(VariantPicker, AContenderThatBecameFasterIsTakenOver) {
  VariantPicker p(2);
  p.record(0, 100);
  p.record(1, 110);
  int on_one = 0;
  for (int i = 0; i < 40; ++i) {
    const int v = p.next(0);
    on_one += v == 1;
    p.record(v, v == 0 ? 100 : 80);  // variant 1 now takes 80
  }
  EXPECT_EQ(p.best(0), 1);
  // Re-timed at the 16th pick (median 95, 5 % under 100), the pick from the 17th on but for the
  // re-timing of 0 at the 32nd.
  EXPECT_GE(on_one, 20);
}

}  // namespace
}  // namespace ktune::nn::cpu
