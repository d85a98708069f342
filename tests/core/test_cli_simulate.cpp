// bench --simulate against a dataset of several devices (--device names one by its slug, as
// the help says), a dataset of other problems (an error, not "measured 0" with exit 0), and a
// --prior of another family (an error naming it, not silently "prior problems 0").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_util.hpp"
#include "ktune/store.hpp"

namespace ktune {
namespace {

using testing::run_ktune;
using testing::temp_path;

class CliSimulate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
    const std::string swept = temp_path("simulate-swept.sqlite");
    const auto r = run_ktune(
        "bench --family gemm --device cpu --workload tiny --no-vendors --warmups 0 --min-reps 1 "
        "--max-reps 1 --rep-budget-ms 0.01 --configs 0,1,2,3 --store " +
        swept);
    ASSERT_EQ(r.status, 0) << r.output;
    rows_ = Store(swept, Store::Mode::read_only).query();
  }
  // A store of the swept rows, each changed by edit.
  template <class Edit>
  std::string store_of(const std::string& name, Edit edit) const {
    const std::string path = temp_path(name);
    Store s(path);
    for (Measurement m : rows_) {
      edit(m);
      s.put(m);
    }
    return path;
  }
  std::vector<Measurement> rows_;
};

const std::string kSearch = "bench --family gemm --workload tiny --strategy random --budget 2 ";

TEST_F(CliSimulate, DeviceNamesADatasetSlug) {
  const std::string two = temp_path("simulate-two.sqlite");
  {
    Store s(two);
    for (const char* device : {"gpu-a", "gpu-b"})
      for (Measurement m : rows_) {
        m.device = device;
        s.put(m);
      }
  }
  const std::string out = temp_path("simulate-out.sqlite");
  const auto r = run_ktune(kSearch + "--simulate " + two + " --device gpu-b --store " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("measured 8"), std::string::npos) << r.output;  // 4 problems x 2
  for (const auto& m : Store(out, Store::Mode::read_only).query()) EXPECT_EQ(m.device, "gpu-b");
}

TEST_F(CliSimulate, ADatasetOfOtherProblemsIsAnError) {
  const std::string other = store_of("simulate-other.sqlite", [](Measurement& m) {
    m.problem += "0";  // other sizes than the workload's
  });
  const std::string out = temp_path("simulate-none.sqlite");
  const auto r = run_ktune(kSearch + "--simulate " + other + " --store " + out);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("holds no rows of device"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CliSimulate, APriorOfAnotherFamilyIsAnErrorNamingIt) {
  const std::string source = store_of("simulate-source.sqlite", [](Measurement&) {});
  const std::string prior = store_of("simulate-prior.sqlite", [](Measurement& m) {
    m.family = "conv2d";
    m.device = "gpu-a";
  });
  const std::string out = temp_path("simulate-prior-out.sqlite");
  const auto r =
      run_ktune("bench --family gemm --workload tiny --strategy model --budget 2 --simulate " +
                source + " --prior " + prior + " --store " + out);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--prior '" + prior + "' holds no gemm measurements"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace ktune
