// ktune cross-device on the planted two-device datasets: each device's selector is perfect on
// its own problems and serves the other device's worst config everywhere (60 of 100 GFLOP/s).
#include <gtest/gtest.h>

#include <string>

#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

const std::string kDir = std::string(KTUNE_SOURCE_DIR) + "/tests/deploy_multidevice/";

TEST(CrossDevice, ScoresEachPairOnTheRunOnDevicesOracle) {
  const auto r = testing::run_ktune("cross-device --data " + kDir + "planted-a.csv --data " + kDir +
                                    "planted-b.csv --k 2 --pruner topn");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* row :
       {"| planted-a | planted-a | 12 | 100.0 | (own, in-sample) | no vendor rows | 0 | 0 |",
        "| planted-a | planted-b | 12 | 60.0 | 40.0 | no vendor rows | 12 | 0 |",
        "| planted-b | planted-a | 12 | 60.0 | 40.0 | no vendor rows | 12 | 0 |",
        "| planted-b | planted-b | 12 | 100.0 | (own, in-sample) | no vendor rows | 0 | 0 |"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;
}

TEST(CrossDevice, RefusesOneDataset) {
  const auto r = testing::run_ktune("cross-device --data " + kDir + "planted-a.csv");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("give --data for two devices or more"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ktune
