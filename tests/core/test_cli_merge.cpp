// `ktune merge` end to end: a CPU sweep and the same measurements recorded under a second device
// merge into one store that `ktune eval` reads as a two-device dataset (leave one device out);
// a bad input is one line naming it, with the output left absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "cli_test_util.hpp"
#include "ktune/store.hpp"

namespace ktune::testing {
namespace {

constexpr const char* kFast = "--min-reps 1 --max-reps 1 --warmups 0 --no-vendors";

TEST(CliMerge, TwoDeviceStoresMergeIntoOneDatasetForLeaveOneDeviceOut) {
  const auto a = temp_path("lodo_a.sqlite"), b = temp_path("lodo_b.sqlite");
  const auto csv = temp_path("lodo_a.csv"), merged = temp_path("lodo_merged.sqlite");
  const auto bench =
      run_ktune("bench --workload tiny --configs 0,1,2,3,4,5,6,7 --store " + a + " " + kFast);
  ASSERT_EQ(bench.status, 0) << bench.output;
  // The second device's store: the same rows under another slug, as another machine would send.
  ASSERT_EQ(run_ktune("export --store " + a + " --format csv -o " + csv).status, 0);
  const auto imported = run_ktune("import --store " + b + " --csv " + csv + " --device other-cpu");
  ASSERT_EQ(imported.status, 0) << imported.output;

  const auto merge = run_ktune("merge " + merged + " " + a + " " + b);
  ASSERT_EQ(merge.status, 0) << merge.output;
  EXPECT_NE(merge.output.find("64 measurements read, 64 added"), std::string::npos) << merge.output;
  const Store store(merged, Store::Mode::read_only);
  EXPECT_EQ(store.measured_devices("gemm").size(), 2u);

  const auto eval = run_ktune(
      "eval --protocol stencil --splits device --family gemm "
      "--classifiers tree-a --regressors none --data " +
      merged);
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_NE(eval.output.find("Split device (2 folds)"), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("| classifier | tree-a | baseline | 8 |"), std::string::npos)
      << eval.output;  // every problem of both devices held out once
}

TEST(CliMerge, BadInputIsOneLineNamingItAndNoOutput) {
  const auto out = temp_path("merge_bad_out.sqlite"), missing = temp_path("no_such.sqlite");
  const auto r = run_ktune("merge " + out + " " + missing);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("'" + missing + "'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// --device lists (bench on several GPUs) are checked before the store is opened: malformed ones
// always, and without a GPU (or without CUDA) every list, in one line naming it.
TEST(CliBenchDevices, ListsWithoutTheirGpusAreOneLineErrorsAndNoStore) {
  const auto store = temp_path("devices.sqlite");
  std::vector<std::string> lists = {"cpu,cpu", "cuda:0,x", "cuda:0,0"};
  if (!std::filesystem::exists("/dev/nvidia0")) {
    lists.insert(lists.end(), {"cuda:all", "cuda:0,1"});
  } else {
    std::puts("a GPU is present: cuda:all and cuda:0,1 are not checked as errors here");
  }
  for (const std::string& device : lists) {
    const auto r = run_ktune("bench --workload tiny --device " + device + " --store " + store);
    EXPECT_EQ(r.status, 1) << device;
    EXPECT_NE(r.output.find("--device " + device), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
    EXPECT_FALSE(std::filesystem::exists(store)) << device;
  }
}

}  // namespace
}  // namespace ktune::testing
