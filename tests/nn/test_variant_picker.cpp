// The rule `auto` picks each inference's whole-network variant by (nn/cpu/variant_picker.hpp), on
// planted times: no clock involved, so every expectation is exact.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "nn/cpu/variant_picker.hpp"

namespace ktune::nn::cpu {
namespace {

// ms of variant v at inference `stamp` (set-up rounds included).
using PlantedMs = std::function<double(int v, int64_t stamp)>;

// The engine's set-up (one warm-up round and `rounds` rounds, each running every variant once in
// an order rotated every round, all recorded), its pinned pick `setup_pick`, then `picks` picked
// inferences: the variant each of those ran.
std::vector<int> run(VariantPicker& p, int variants, const PlantedMs& ms, int setup_pick, int picks,
                     int rounds = 3) {
  int64_t stamp = 0;
  for (int round = 0; round < 1 + rounds; ++round)
    for (int j = 0; j < variants; ++j) {
      const int v = (round + j) % variants;
      p.record(v, ms(v, stamp++));
    }
  p.record(setup_pick, ms(setup_pick, stamp++));
  std::vector<int> ran;
  int variant = setup_pick;
  for (int i = 0; i < picks; ++i) {
    variant = p.next(variant);
    ran.push_back(variant);
    p.record(variant, ms(variant, stamp++));
  }
  return ran;
}

int count(const std::vector<int>& ran, int v, size_t from = 0) {
  int n = 0;
  for (size_t i = from; i < ran.size(); ++i) n += ran[i] == v;
  return n;
}

// How often the variant run twice in a row (not a re-timing) changed.
int switches(const std::vector<int>& ran) {
  int n = 0, steady = 0;
  for (size_t i = 1; i < ran.size(); ++i)
    if (ran[i] == ran[i - 1]) {
      n += ran[i] != steady;
      steady = ran[i];
    }
  return n;
}

// Picks that ran another variant than the picks before and after (re-timings).
int retimings(const std::vector<int>& ran) {
  int n = 0;
  for (size_t i = 1; i + 1 < ran.size(); ++i) n += ran[i] != ran[i - 1] && ran[i] != ran[i + 1];
  return n;
}

// Deterministic noise in [-amplitude, amplitude] by stamp (a fixed LCG, not a clock).
double noise(int64_t stamp, double amplitude) {
  uint64_t x = uint64_t(stamp) * 6364136223846793005ull + 1442695040888963407ull;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return amplitude * (double(x % 2001) / 1000.0 - 1.0);
}

// Each variant at before[v] ms until inference `at`, then at after[v].
PlantedMs phases(std::vector<double> before, std::vector<double> after, int64_t at) {
  return [=](int v, int64_t stamp) { return (stamp < at ? before : after)[size_t(v)]; };
}

TEST(VariantPicker, UntimedKeepsTheFallback) {
  VariantPicker p(3);
  EXPECT_EQ(p.best(2), 2);
  EXPECT_EQ(p.next(2), 2);
}

// The case that kept `auto_bf16` at 1.031x its best single backend on VGG16 b16
// (results/amd-epyc-2c/networks-bf16-auto-s13): the whole machine ran ~10 % faster after set-up,
// where the per-layer variant (0) had led `ktune_bf16` alone (1) by 2 %; then 1 is 3 % faster.
// Two fresh re-timings of 1 (picks 1 and 3) outweigh the four set-up rounds: from the 4th pick
// on it runs 1 but for re-timings.
TEST(VariantPicker, ASetUpLeadThatDoesNotLastIsLeftWithinFourPicks) {
  VariantPicker p(3);
  const auto ran = run(p, 3, phases({864, 882, 1107}, {778, 755, 1115}, 12), 0, 17);
  EXPECT_EQ(ran[0], 1);  // the first fresh re-timing
  EXPECT_EQ(p.best(0), 1);
  for (size_t i = 3; i < ran.size(); ++i)
    EXPECT_TRUE(ran[i] == 1 || ran[i - 1] == 1) << "pick " << i + 1 << " ran " << ran[i];
  EXPECT_GE(count(ran, 1), 13);
  EXPECT_LE(count(ran, 2), 1);  // 1115 / 755: re-timed at most once (kDoubt), never kept
}

// A candidate slow only in set-up (first-touch, a one-off state): 1.25x there, 0.9x after. Its
// estimate is outside kContender, inside kDoubt: one fresh re-timing, then a confirming one.
TEST(VariantPicker, ACandidateSlowOnlyInSetUpIsFound) {
  VariantPicker p(2);
  const auto ran = run(p, 2, phases({100, 125}, {100, 90}, 8), 0, 12);
  EXPECT_EQ(p.best(0), 1);
  EXPECT_GE(count(ran, 1), 9);
}

// The machine slows 1 % per inference (a clock ramp). Variant 1 is truly 2 % slower than 0: each
// re-timing, bracketed by 0, sees exactly that, so 0 keeps running although 1's times are older
// than 0's and set-up's times of 1 are lower than 0's latest.
TEST(VariantPicker, AClockRampMovesNoPick) {
  VariantPicker p(2);
  const auto ran = run(
      p, 2, [](int v, int64_t stamp) { return (v == 0 ? 100 : 102) * (1 + 0.01 * double(stamp)); },
      0, 100);
  for (size_t i = 1; i < ran.size(); ++i)
    EXPECT_FALSE(ran[i] == 1 && ran[i - 1] == 1) << "pick " << i + 1 << " kept 1";
  EXPECT_EQ(p.best(0), 0);
  EXPECT_NEAR(p.relative(1, 0), 1.02, 1e-9);
  // The same ramp with 1 truly 3 % faster: the set-up rounds already show it, so 1 runs from the
  // first pick on but for re-timings of 0.
  VariantPicker q(2);
  const auto faster = run(
      q, 2, [](int v, int64_t stamp) { return (v == 0 ? 100 : 97) * (1 + 0.01 * double(stamp)); },
      0, 40);
  EXPECT_EQ(faster[0], 1);
  for (size_t i = 1; i < faster.size(); ++i)
    EXPECT_TRUE(faster[i] == 1 || faster[i - 1] == 1) << "pick " << i + 1;
  EXPECT_NEAR(q.relative(0, 1), 1 / 0.97, 1e-9);
}

// Equal variants under +-5 % noise per inference: no taking turns at random (a switch costs warm
// caches and gains nothing); and with 1 truly 5 % faster under the same noise, 1 runs nearly
// all the time.
TEST(VariantPicker, NoiseMakesItNeitherTakeTurnsNorMissARealLead) {
  VariantPicker p(2);
  const auto ran = run(
      p, 2, [](int, int64_t stamp) { return 100 * (1 + noise(stamp, 0.05)); }, 0, 300);
  EXPECT_LE(switches(ran), 6);
  VariantPicker q(2);
  const auto lead = run(
      q, 2, [](int v, int64_t stamp) { return (v == 0 ? 100 : 95) * (1 + noise(stamp, 0.05)); }, 0,
      300);
  EXPECT_GE(count(lead, 1, 20), 260);
}

// Three equal variants under +-40 % noise (a loaded machine): the lead needed grows with the
// running variant's jitter and so does the level move that calls for re-timings, so it seldom
// takes turns and re-times at most a quarter of its inferences (with a fixed 1 % lead and 20 %
// level move: 21 switches and 122 re-timings in 300 picks; now 8 and 67).
TEST(VariantPicker, HeavyNoiseNeedsALargerLead) {
  VariantPicker p(3);
  const auto ran = run(
      p, 3, [](int, int64_t stamp) { return 100 * (1 + noise(stamp, 0.4)); }, 0, 300);
  EXPECT_LE(switches(ran), 10);
  EXPECT_LE(retimings(ran), 75);  // 25 %
}

// One odd re-timing (0.5x) never switches: the estimate needs two agreeing new times.
TEST(VariantPicker, OneOddTimeNeverSwitches) {
  VariantPicker p(2);
  int retimings = 0;
  const auto ran = run(
      p, 2,
      [&retimings](int v, int64_t stamp) {
        if (v == 0 || stamp < 8) return v == 0 ? 100.0 : 110.0;
        return ++retimings == 1 ? 50.0 : 110.0;
      },
      0, 40);
  for (size_t i = 1; i < ran.size(); ++i) EXPECT_FALSE(ran[i] == 1 && ran[i - 1] == 1);
  EXPECT_EQ(p.best(0), 0);
}

// The current slows for good after set-up (a slow state): its level moves by more than kShift,
// so the others are re-timed against its new times and the fastest is taken within a few picks.
TEST(VariantPicker, ACurrentThatBecameSlowIsLeft) {
  VariantPicker p(3);
  const auto ran = run(p, 3, phases({100, 115, 130}, {160, 115, 130}, 20), 0, 40);
  // Picks 1-7 ran up to stamp 19; from the first slow time of 0 (pick 8) on, within 10 picks.
  for (size_t i = 17; i < ran.size(); ++i)
    EXPECT_TRUE(ran[i] == 1 || ran[i - 1] == 1) << "pick " << i + 1 << " ran " << ran[i];
  EXPECT_EQ(p.best(0), 1);
}

// A variant that became faster while not picked is found by the every-16th re-timing of the
// contenders and confirmed at once.
TEST(VariantPicker, AContenderThatBecameFasterIsTakenOver) {
  VariantPicker p(2);
  const auto ran = run(p, 2, phases({100, 110}, {100, 80}, 30), 0, 60);
  EXPECT_EQ(p.best(0), 1);
  // Pick 1 re-timed 1 at 110 (fresh), the 16th too (stamp 24); the 32nd finds 80, the 34th
  // confirms it; from the 35th on 1 runs (0, 1.25x, is no contender any more).
  for (size_t i = 0; i < 34; ++i)
    EXPECT_EQ(ran[i], i == 0 || i == 15 || i == 31 || i == 33 ? 1 : 0) << "pick " << i + 1;
  for (size_t i = 34; i < ran.size(); ++i) EXPECT_EQ(ran[i], 1) << "pick " << i + 1;
}

// In steady state a contender (1.1x) is re-timed every 16th pick and a far slower variant (2x)
// every 64th only: the exploration costs one inference in 16 at <= 1.15x and one in 64 at any.
TEST(VariantPicker, SteadyStateExploresOneInSixteen) {
  VariantPicker p(3);
  const auto ran = run(
      p, 3, [](int v, int64_t) { return v == 0   ? 100
                                        : v == 1 ? 110
                                                 : 200; }, 0, 288);
  std::vector<int> on_one, on_two;
  for (size_t i = 32; i < ran.size(); ++i) {
    if (ran[i] == 1) on_one.push_back(int(i) + 1);
    if (ran[i] == 2) on_two.push_back(int(i) + 1);
  }
  EXPECT_EQ(on_two, (std::vector<int>{64, 128, 192, 256}));
  for (int pick : on_one) EXPECT_EQ(pick % 16, 0) << pick;
  EXPECT_EQ(on_one.size() + on_two.size(), 16u);  // picks 33-288: 256 / 16
}

}  // namespace
}  // namespace ktune::nn::cpu
