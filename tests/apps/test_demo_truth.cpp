// The judgements `ktune demo` prints (apps/ktune/demo_truth.hpp): the kind it sweeps, what a
// ratio's spread lets it claim, whether the rounds agree with the sweep, and what it says about
// committed data for this CPU.
#include <gtest/gtest.h>

#include "apps/ktune/demo_truth.hpp"

namespace ktune::cli::demo {
namespace {

TEST(DemoKind, AutoIsPackedzOnlyWhereBuildAndCpuBothHaveAvx512) {
  EXPECT_EQ(choose_kind("auto", true, true), "packedz");
  EXPECT_EQ(choose_kind("auto", true, false), "packed");  // an AVX-512 build on an older CPU
  EXPECT_EQ(choose_kind("auto", false, true), "packed");  // KTUNE_NATIVE=OFF build
  EXPECT_EQ(choose_kind("auto", false, false), "packed");
  EXPECT_EQ(choose_kind("packed", true, true), "packed");  // an explicit kind wins
  EXPECT_EQ(choose_kind("all", false, false), "all");
}

TEST(DemoRatio, SpreadIsTheMedianAndRangeOfTheRounds) {
  const RatioSpread s = spread_of({1.4, 1.2, 1.6, 1.3, 1.5});
  EXPECT_EQ(s.rounds, 5u);
  EXPECT_DOUBLE_EQ(s.median, 1.4);
  EXPECT_DOUBLE_EQ(s.lo, 1.2);
  EXPECT_DOUBLE_EQ(s.hi, 1.6);
  EXPECT_DOUBLE_EQ(spread_of({0.5, 0.7, 0.9, 1.1}).median, 0.8);  // even count: the middle two
  EXPECT_EQ(spread_of({}).rounds, 0u);
}

TEST(DemoRatio, ARangeAwayFromOneIsClaimedWithIt) {
  const RatioSpread faster = spread_of({1.4, 1.2, 1.6, 1.3, 1.5});
  EXPECT_FALSE(within_noise(faster));
  EXPECT_EQ(describe(faster), "1.4× (1.2–1.6 over 5 rounds)");
  const RatioSpread slower = spread_of({0.5, 0.6, 0.55, 0.58, 0.62});
  EXPECT_FALSE(within_noise(slower));
  EXPECT_EQ(describe(slower), "0.58× (0.5–0.62 over 5 rounds)");
  // Far below 1 keeps its significant digits.
  EXPECT_EQ(describe(spread_of({0.0042, 0.004, 0.0045, 0.0041, 0.0043})),
            "0.0042× (0.004–0.0045 over 5 rounds)");
}

TEST(DemoRatio, ARangeHoldingOneIsWithinNoiseWhateverItsMedian) {
  // The case: a median far from 1 whose rounds swing across it claims nothing.
  const RatioSpread swinging = spread_of({0.9, 3.2, 4.0, 6.9, 15.5});
  EXPECT_TRUE(within_noise(swinging));
  EXPECT_EQ(describe(swinging), "within noise (0.9–15.5 over 5 rounds)");
  EXPECT_TRUE(within_noise(spread_of({1.0, 1.1, 1.2, 1.3, 1.4})));  // touching 1 counts
}

TEST(DemoRatio, TooFewRoundsClaimNothing) {
  const RatioSpread two = spread_of({2.0, 2.1});
  EXPECT_TRUE(within_noise(two));
  EXPECT_EQ(describe(two), "no claim (2 rounds)");
  EXPECT_EQ(describe(spread_of({2.0})), "no claim (1 round)");
  EXPECT_EQ(describe(spread_of({2.0, 2.1, 2.2, 2.3})), "no claim (4 rounds)");
}

TEST(DemoSweepCheck, RoundsFarFromTheSweepAreNamed) {
  EXPECT_EQ(sweep_disagreement(200, 210), "");  // within noise of each other
  EXPECT_EQ(sweep_disagreement(250, 210), "");
  EXPECT_EQ(sweep_disagreement(93.6, 0), "");  // no sweep figure: nothing to compare
  EXPECT_EQ(sweep_disagreement(0, 210), "");
  // Last session's case: the rounds 2.3× below what the sweep measured for the same config.
  EXPECT_EQ(sweep_disagreement(93.6, 215),
            "the rounds timed this config at 93.6 GFLOP/s, the sweep at 215 (2.30× apart, more "
            "than 1.25×): its ratio is not the one `ktune bench` measures (a busy machine, or the "
            "config slower right after the rounds' idle gaps); compare with `ktune bench`");
  EXPECT_NE(sweep_disagreement(300, 200), "");  // faster than the sweep is flagged too
}

TEST(DemoCommittedCpu, MatchesBySlugThenByModel) {
  const std::vector<std::string> committed = {"amd-epyc-2c", "h100-80gb-hbm3"};
  EXPECT_EQ(match_committed("amd-epyc-2c", committed), CommittedCpu::same_cpu);
  EXPECT_EQ(match_committed("amd-epyc-16c", committed), CommittedCpu::same_model);
  EXPECT_EQ(match_committed("intel-xeon-platinum-8480-2c", committed), CommittedCpu::none);
  EXPECT_EQ(match_committed("amd-epyc-7763-64-core-processor-2c", committed), CommittedCpu::none);
  EXPECT_EQ(match_committed("amd-epyc-2c", {}), CommittedCpu::none);
  EXPECT_EQ(model_of_slug("amd-epyc-2c"), "amd-epyc");
  EXPECT_EQ(model_of_slug("h100-80gb-hbm3"), "h100-80gb-hbm3");
  EXPECT_EQ(model_of_slug("x-c"), "x-c");
  EXPECT_EQ(model_of_slug("cpu-12c"), "cpu");
}

TEST(DemoCommittedCpu, TheNoteSaysWhenNoDatasetIsOfThisCpu) {
  const std::vector<std::string> committed = {"amd-epyc-2c", "h100-80gb-hbm3"};
  const std::string none = committed_cpu_note("Intel(R) Xeon(R) Platinum 8480+",
                                              "intel-r-xeon-r-platinum-8480-2c", committed);
  EXPECT_NE(none.find("no committed dataset was measured on this CPU (Intel(R) Xeon(R) Platinum "
                      "8480+"),
            std::string::npos)
      << none;
  EXPECT_NE(none.find("results/ holds amd-epyc-2c, h100-80gb-hbm3"), std::string::npos) << none;
  EXPECT_NE(committed_cpu_note("AMD EPYC", "amd-epyc-2c", committed)
                .find("is the one the committed CPU datasets were measured on"),
            std::string::npos);
  EXPECT_NE(committed_cpu_note("AMD EPYC", "amd-epyc-8c", committed).find("another thread count"),
            std::string::npos);
}

}  // namespace
}  // namespace ktune::cli::demo
