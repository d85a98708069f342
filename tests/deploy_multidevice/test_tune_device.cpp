// ktune tune-device: sampled tuning of a device, then its selector added to a multi-device
// package (or written as a model). On a replayed planted device (deterministic), and on this CPU
// with the conv1d example family's tiny workload and a budget of a few measurements.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

const std::string kDir = std::string(KTUNE_SOURCE_DIR) + "/tests/deploy_multidevice/";
const std::string kGpuCsv =
    std::string(KTUNE_SOURCE_DIR) + "/tests/deploy_vendor/vendor-wins-gpu.csv";

class TuneDevice : public ::testing::Test {
 protected:
  // A temporary file or folder of this test, removed before it is used (a failed run leaves it)
  // and when the test ends; with_configs: also the model's "<path>.configs.txt".
  std::string temp(const std::string& name, bool with_configs = false) {
    const std::string path = testing::temp_path(name);
    paths_.push_back(path);
    if (with_configs) paths_.push_back(path + ".configs.txt");
    std::filesystem::remove_all(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& path : paths_) std::filesystem::remove_all(path);
  }

 private:
  std::vector<std::string> paths_;
};

// The start of a tune-device call replaying device's dataset csv over the planted shapes.
std::string replay(const std::string& device, const std::string& csv, const std::string& store) {
  return "tune-device --family gemm --device " + device + " --simulate " + csv + " --workload " +
         kDir + "planted-shapes.csv --store " + store;
}

// The package's selector serves these devices, in this order ("\"a\", \"b\"").
void expect_devices(const std::string& package, const std::string& devices) {
  const std::string header = testing::read_file(package + "/selectors/gemm.hpp");
  EXPECT_NE(header.find("kDevices[kNumDevices] = {" + devices + "}"), std::string::npos)
      << header.substr(0, 2000);
}

TEST_F(TuneDevice, AddsASampledDeviceToAMultiDevicePackage) {
  const std::string store = temp("tune-device.sqlite");
  const std::string package = temp("tune-device-package");
  // planted-b replayed as the device being tuned, planted-a's dataset shipped beside it.
  const auto r = testing::run_ktune(replay("planted-b", kDir + "planted-b.csv", store) +
                                    " --budget 2 --prior " + kDir + "planted-a.csv --with " + kDir +
                                    "planted-a.csv --k 2 --pruner topn --name both -o " + package);
  ASSERT_EQ(r.status, 0) << r.output;
  // Both configs of the replay per problem (the budget), said so with the time taken.
  EXPECT_NE(r.output.find("tune-device: 24 measurements of gemm in "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("tune-device: ktune bench --family gemm --device planted-b"),
            std::string::npos);
  EXPECT_NE(r.output.find("--strategy model --budget 2"), std::string::npos);
  EXPECT_NE(r.output.find("prior problems 12"), std::string::npos);  // planted-a's, the prior
  expect_devices(package, "\"planted-b\", \"planted-a\"");
}

// A GPU's package: --backends reaches deploy (a replayed planted GPU; nothing is compiled here).
TEST_F(TuneDevice, PassesTheBackendsToDeploy) {
  const std::string store = temp("tune-gpu.sqlite");
  const std::string package = temp("tune-gpu-package");
  const auto r = testing::run_ktune(replay("planted-gpu", kGpuCsv, store) +
                                    " --budget 2 --k 2 --pruner topn --backends cuda" +
                                    " --name gpu -o " + package);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(testing::read_file(package + "/deploy.json").find("\"cuda\""), std::string::npos);
  EXPECT_NE(testing::read_file(package + "/CMakeLists.txt").find("enable_language(CUDA)"),
            std::string::npos);
}

// --complete: the search leaves most of the K kept configs unmeasured on most problems (a sampled
// store), so they are measured on every problem before the selector is trained on them; the
// bench options (space, timing) reach both benches; the new device's model joins the package
// beside the other device's dataset.
TEST_F(TuneDevice, CompletesTheKeptConfigsOnEveryProblemBeforeTraining) {
  const std::string store = temp("tune-complete.sqlite");
  const std::string package = temp("tune-complete-package");
  const std::string exported = temp("tune-complete.csv");
  const auto r = testing::run_ktune(
      replay("planted-b", kDir + "planted-b.csv", store) +
      " --budget 1 --k 1 --pruner topn --complete --min-reps 2 --rep-budget-ms 1 --with " + kDir +
      "planted-a.csv --name both -o " + package);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--strategy model --budget 1 --seed 0 --min-reps 2 --rep-budget-ms 1"),
            std::string::npos)
      << r.output;
  const std::string kept = testing::read_file(package + "/new-device-model.json.configs.txt");
  const std::string config = kept.substr(0, kept.find('\n'));
  ASSERT_EQ(config.rfind("kind=packed;", 0), 0u) << kept;
  // The completion bench: that config alone, every problem, the timing options again.
  EXPECT_NE(r.output.find("--store " + store + " --configs '" + config + "' --min-reps 2"),
            std::string::npos)
      << r.output;
  ASSERT_EQ(testing::run_ktune("export --store " + store + " --format csv -o " + exported).status,
            0);
  const std::string rows = testing::read_file(exported);
  size_t with_config = 0;
  for (size_t at = rows.find(config); at != std::string::npos; at = rows.find(config, at + 1))
    ++with_config;
  EXPECT_EQ(with_config, 12u) << rows;  // the 12 planted shapes
  expect_devices(package, "\"planted-a\", \"planted-b\"");
}

// The vendor recipe (--vendors, the unsure rule) reaches the steps that learn the selector.
TEST_F(TuneDevice, PassesTheVendorRecipeToPruneAndTrain) {
  const std::string store = temp("tune-vendors.sqlite");
  const std::string model = temp("tune-vendors-model.json", true);
  const auto r = testing::run_ktune(
      replay("planted-gpu", kGpuCsv, store) +
      " --budget 2 --k 2 --pruner topn --vendors --min-vote-share 0.6 --emit-model " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--seed 0 --vendors\n"), std::string::npos) << r.output;  // prune
  EXPECT_NE(r.output.find("--seed 0 --vendors --min-vote-share 0.6\n"), std::string::npos)
      << r.output;  // train
  EXPECT_NE(testing::read_file(model).find("\"min_vote_share\""), std::string::npos);
}

TEST_F(TuneDevice, TunesThisCpuWithATinyBudgetAndWritesItsModel) {
  const std::string store = temp("tune-cpu.sqlite");
  const std::string model = temp("tune-cpu-model.json", true);
  const auto r = testing::run_ktune("tune-device --family conv1d --workload tiny --store " + store +
                                    " --budget 2 --total-budget 6 --k 2 --emit-model " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("tune-device: 6 measurements of conv1d in "), std::string::npos)
      << r.output;
  const std::string text = testing::read_file(model);
  EXPECT_NE(text.find("\"format\": \"ktune-selector\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"family\": \"conv1d\""), std::string::npos) << text;
}

TEST_F(TuneDevice, RefusesAMissingOutputNamingTheOptions) {
  const auto r = testing::run_ktune("tune-device --workload tiny --store x.sqlite");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("give -o <package dir> or --emit-model <file>"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists("x.sqlite"));
}

}  // namespace
}  // namespace ktune
