// Built-in families against their re-expressions as file families (examples/own-kernels/
// conv1d_file and stencil_file, which call the same kernel headers): the same configs (the same
// ids and strings) and, on the same problems, the same verdict for each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "ktune/family.hpp"
#include "ktune/file_family.hpp"
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

const std::string kStencilFile =
    std::string(KTUNE_SOURCE_DIR) + "/examples/own-kernels/stencil_file/stencil_file.json";

TEST(FileFamilyCrossCheck, StencilHasTheBuiltInSpaceIdForId) {
  register_builtin();
  const Space& builtin = find_registered_family("stencil")->space();
  const Space& file = find_registered_family(register_file_family(kStencilFile))->space();
  ASSERT_EQ(builtin.product_size(), 65);
  ASSERT_EQ(file.product_size(), builtin.product_size());
  for (int64_t id = 0; id < builtin.product_size(); ++id) {
    EXPECT_EQ(file.to_string(file.at(id)), builtin.to_string(builtin.at(id))) << id;
    EXPECT_EQ(file.violates(file.at(id)), builtin.violates(builtin.at(id))) << id;
  }
}

// Three work-groups (a row, a square, a column; 1024 cells, the largest) on two float problems
// of odd sizes (stencil-tiny's): both paths verify each against their own reference.
TEST(FileFamilyCrossCheck, StencilHasTheBuiltInVerdicts) {
  testing::private_cache("cross-check-stencil");
  const std::string dir = ::testing::TempDir() + "filefamily-cross-check-stencil/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "tiny.csv") << "program,north,south,east,west,type,heavy,boundary,rows,cols\n"
                                     "0,2,1,3,1,1,0,0,37,53\n1,2,2,2,2,1,0,1,37,53\n";
  const std::string common = " --workload " + dir + "tiny.csv --configs wg=1x1024,wg=4x8,wg=512x2" +
                             " --rep-budget-ms 1 --min-reps 1";
  auto r = testing::run_ktune("bench --family stencil --device cpu --store " + dir + "b.sqlite" +
                              common);
  ASSERT_EQ(r.status, 0) << r.output;
  r = testing::run_ktune("bench --family-file " + kStencilFile + " --store " + dir + "f.sqlite" +
                         common);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto builtin = verdicts(dir + "b.sqlite"), file = verdicts(dir + "f.sqlite");
  EXPECT_EQ(builtin.size(), 6u);  // 2 problems x 3 configs
  for (const auto& [key, status] : builtin) EXPECT_EQ(status, Status::ok) << key;
  EXPECT_EQ(builtin, file);
}

}  // namespace
}  // namespace ktune
