// The built-in conv1d example family against its re-expression as a file family
// (examples/own-kernels/conv1d_file, which calls the same kernel header): on the same problems
// the two have the same configs (the same strings) and the same verdict for each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"

namespace ktune {
namespace {

std::map<std::string, Status> verdicts(const std::string& store) {
  std::map<std::string, Status> out;
  for (const auto& m : Store(store).query()) out[m.problem + " " + m.config] = m.outcome.status;
  return out;
}

TEST(FileFamilyCrossCheck, Conv1dHasTheBuiltInConfigsAndVerdicts) {
  testing::private_cache("cross-check");
  const std::string dir = ::testing::TempDir() + "filefamily-cross-check/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "sizes.csv") << "n,taps\n64,3\n1000,31\n";
  const std::string common = " --workload " + dir + "sizes.csv --rep-budget-ms 1 --min-reps 1";
  auto r =
      testing::run_ktune("bench --family conv1d --device cpu --store " + dir + "b.sqlite" + common);
  ASSERT_EQ(r.status, 0) << r.output;
  r = testing::run_ktune("bench --family-file " + std::string(KTUNE_SOURCE_DIR) +
                         "/examples/own-kernels/conv1d_file/conv1d_file.json --store " + dir +
                         "f.sqlite" + common);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto builtin = verdicts(dir + "b.sqlite"), file = verdicts(dir + "f.sqlite");
  EXPECT_EQ(builtin.size(), 24u);  // 2 problems x 12 configs
  EXPECT_EQ(builtin, file);
}

}  // namespace
}  // namespace ktune
