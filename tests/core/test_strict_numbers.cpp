// Numbers typed by users or read from text fields are taken whole or refused: "12abc" is an
// error, not 12; and report finds the device of a store that was imported (no devices table).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_test_util.hpp"
#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/store.hpp"
#include "ktune/strict_number.hpp"
#include "ktune/workload.hpp"

namespace ktune {
namespace {

TEST(StrictNumber, WholeTextOrNothing) {
  EXPECT_EQ(parse_finite_double("12.5"), 12.5);
  EXPECT_EQ(parse_finite_double("-1e3"), -1000.0);
  for (const char* bad : {"12abc", " 12", "12 ", "", "nan", "inf", "1e999", "0x10", "1,5"})
    EXPECT_FALSE(parse_finite_double(bad)) << bad;
  EXPECT_EQ(parse_int64("42"), 42);
  EXPECT_EQ(parse_int64("-7", -10, 10), -7);
  for (const char* bad : {"12abc", "1.0", "", " 1", "+1", "99999999999999999999"})
    EXPECT_FALSE(parse_int64(bad)) << bad;
  EXPECT_FALSE(parse_int64("11", 0, 10));
}

TEST(StrictNumber, ShardsAreParsedWhole) {
  const Shard s = Shard::parse("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  for (const char* bad :
       {"1/2x", " 1/2", "1/ 2", "1/2 ", "1", "/2", "2/2", "-1/2", "1/0", "1.0/2", "0/99999999999"})
    EXPECT_THROW(Shard::parse(bad), Error) << bad;
}

class CliReport : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
    register_builtin();
    store_ = testing::temp_path("imported_report.sqlite");
    // As `ktune import` leaves a store: measurements, no row in the devices table.
    Store s(store_);
    const Workload tiny = load_workload(find_family("gemm"), "tiny");
    for (const auto& p : tiny.problems) {
      for (int c = -1; c < 2; ++c) {
        Measurement m;
        m.device = "imported-gpu";
        m.family = "gemm";
        m.problem = p.key();
        m.config = c < 0 ? "vendor:x" : "c=" + std::to_string(c);
        m.config_id = c;
        m.outcome.status = Status::ok;
        m.outcome.timing.median_ms = 1;
        m.outcome.timing.reps = 1;
        m.perf = 10.0 + c;
        s.put(m);
      }
    }
    tiny_problem_ = tiny.problems.front().key();
  }
  std::string store_, tiny_problem_;
};

TEST_F(CliReport, AnImportedStoreNamesItsDeviceFromTheMeasurements) {
  const std::string csv = testing::temp_path("imported_report.csv");
  const auto r = testing::run_ktune("report --store " + store_ + " --workload tiny --csv " + csv);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("holds 0 devices"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(csv));
}

TEST_F(CliReport, DeployedFiguresAreParsedStrictly) {
  const std::string deployed = testing::temp_path("deployed_bad.csv");
  std::ofstream(deployed) << "problem,status,deployed_gflops,vendor_gflops\n"
                          << '"' << tiny_problem_ << "\",ok,12abc,10\n";
  const auto r =
      testing::run_ktune("report --store " + store_ + " --workload tiny --deployed " + deployed);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(deployed + ":2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'12abc'"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ktune
