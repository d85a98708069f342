// `ktune bench --family stencil` end to end on the cpu: the tiny workload is stored, every row
// verified; bad stencil inputs fail with one clear line and leave no store behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;
using testing::temp_path;

TEST(StencilCli, BenchTinyOnCpuStoresEveryConfigOfEveryProblem) {
  const std::string store = temp_path("stencil-tiny.sqlite");
  const auto r = run_ktune(
      "bench --family stencil --workload tiny --device cpu --min-reps 2 "
      "--max-reps 3 --store " +
      store);
  ASSERT_EQ(r.status, 0) << r.output;
  Store s(store);
  const auto rows = s.query();
  EXPECT_EQ(rows.size(), 6u * 65u) << r.output;  // no vendor baselines for stencils
  std::set<std::string> problems;
  for (const auto& m : rows) {
    EXPECT_EQ(m.family, "stencil");
    EXPECT_EQ(m.outcome.status, Status::ok)
        << m.problem << " " << m.config << ": " << m.outcome.message;
    EXPECT_GT(m.perf, 0);
    EXPECT_GE(m.outcome.timing.reps, 2);
    problems.insert(m.problem);
  }
  EXPECT_EQ(problems.size(), 6u);
  // Resuming measures nothing new.
  const auto again =
      run_ktune("bench --family stencil --workload tiny --device cpu --store " + store);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("measured 0"), std::string::npos) << again.output;
}

TEST(StencilCli, BadWorkloadFileNamesTheLineAndTheProblem) {
  const std::string csv = temp_path("bad-stencil.csv");
  std::ofstream(csv) << "program,north,south,east,west,type,heavy,boundary,rows,cols\n"
                        "0,1,1,1,1,1,0,0,64,64\n"
                        "0,40,1,1,1,1,0,0,64,64\n";
  const std::string store = temp_path("bad-stencil.sqlite");
  const auto r =
      run_ktune("bench --family stencil --workload " + csv + " --device cpu --store " + store);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(":3:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1..30"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(store));
  const auto unknown = run_ktune("bench --family stencil --workload nosuch --store " + store);
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.output.find("synthetic, real, stencil-small, tiny"), std::string::npos)
      << unknown.output;
}

}  // namespace
}  // namespace ktune
