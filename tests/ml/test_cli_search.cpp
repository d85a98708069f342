// bench --strategy end to end on the CPU: interrupted model-guided runs resume without
// repeating a measurement, --simulate answers from a stored dataset, bad inputs are errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;
using testing::temp_path;

// Fast timing: the tests are about which configs are measured, not how well.
const std::string kBench =
    "bench --family gemm --device cpu --workload tiny --no-vendors --warmups 0 --min-reps 1 "
    "--max-reps 1 --rep-budget-ms 0.01 --strategy model --seed 4 ";

size_t distinct_rows(const std::string& path, size_t* rows) {
  const auto all = Store(path, Store::Mode::read_only).query();
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& m : all) keys.insert({m.problem, m.config});
  *rows = all.size();
  return keys.size();
}

TEST(CliSearch, InterruptedModelRunResumesWithoutRepeats) {
  const std::string store = temp_path("search-resume.sqlite");
  const auto first = run_ktune(kBench + "--budget 6 --total-budget 9 --store " + store);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("measured 9"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("total budget reached"), std::string::npos) << first.output;

  const auto resumed = run_ktune(kBench + "--budget 6 --store " + store);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("already stored 9, measured 15"), std::string::npos)
      << resumed.output;  // 4 tiny problems × 6 = 24
  size_t rows = 0;
  EXPECT_EQ(distinct_rows(store, &rows), 24u);
  EXPECT_EQ(rows, 24u);

  const auto again = run_ktune(kBench + "--budget 6 --store " + store);
  EXPECT_NE(again.output.find("measured 0"), std::string::npos) << again.output;
}

TEST(CliSearch, SigkilledModelRunResumesWithoutRepeats) {
  const std::string store = temp_path("search-kill.sqlite");
  // Killed after a second (or finished earlier on a fast machine: the checks hold either way).
  const std::string cmd = "timeout -s KILL 1 " + std::string(KTUNE_BINARY) + " " + kBench +
                          "--budget 20 --store " + store + " > /dev/null 2>&1";
  (void)std::system(cmd.c_str());
  size_t before = 0;
  if (std::filesystem::exists(store)) distinct_rows(store, &before);
  const auto resumed = run_ktune(kBench + "--budget 20 --store " + store);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(fmt::format("already stored {}, measured {}", before, 80 - before)),
            std::string::npos)
      << resumed.output;
  size_t rows = 0;
  EXPECT_EQ(distinct_rows(store, &rows), 80u);
  EXPECT_EQ(rows, 80u);
}

TEST(CliSearch, SimulationAnswersFromAStoredDataset) {
  // Sweep 12 configs of the tiny workload once, then let a random search replay it.
  const std::string source = temp_path("search-source.sqlite"),
                    sim = temp_path("search-sim.sqlite");
  const auto sweep = run_ktune(
      "bench --family gemm --device cpu --workload tiny --no-vendors --warmups 0 --min-reps 1 "
      "--max-reps 1 --rep-budget-ms 0.01 --configs 0,1,2,3,4,5,6,7,8,9,10,11 --store " +
      source);
  ASSERT_EQ(sweep.status, 0) << sweep.output;
  const auto run = run_ktune(
      "bench --family gemm --workload tiny --strategy random --budget 5 "
      "--simulate " +
      source + " --store " + sim);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("measured 20"), std::string::npos) << run.output;
  const auto original = Store(source, Store::Mode::read_only).query();
  const auto replayed = Store(sim, Store::Mode::read_only).query();
  ASSERT_EQ(replayed.size(), 20u);
  for (const auto& m : replayed) {
    const auto it = std::find_if(original.begin(), original.end(), [&](const Measurement& o) {
      return o.problem == m.problem && o.config == m.config;
    });
    ASSERT_NE(it, original.end());
    EXPECT_EQ(m.device, it->device);
    EXPECT_EQ(m.outcome.status, it->outcome.status);
    EXPECT_EQ(m.outcome.timing.median_ms, it->outcome.timing.median_ms);
    EXPECT_EQ(m.perf, it->perf);
  }
}

// --shard applies to a sampled search as to an exhaustive sweep: the shards' stores together hold
// the keys of one run (simulated on the committed conv2d dataset, so nothing is timed).
TEST(CliSearch, ShardsOfARandomSearchTogetherPickWhatOneRunPicks) {
  const std::string search =
      "bench --family conv2d --workload conv-small --strategy random --seed 5 --budget 4 "
      "--simulate " +
      std::string(KTUNE_SOURCE_DIR) + "/tests/ml/data/conv2d-conv-small.csv.gz ";
  auto keys = [](const std::string& path) {
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& m : Store(path, Store::Mode::read_only).query())
      out.insert({m.problem, m.config});
    return out;
  };
  const std::string whole = temp_path("search-whole.sqlite"),
                    shards = temp_path("search-shards.sqlite");
  const auto one = run_ktune(search + "--store " + whole);
  ASSERT_EQ(one.status, 0) << one.output;
  for (const char* shard : {"0/2", "1/2"}) {
    const auto r = run_ktune(search + "--shard " + shard + " --store " + shards);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("6 problems x 55 candidate configs"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("measured 24 "), std::string::npos) << r.output;
  }
  EXPECT_EQ(keys(shards), keys(whole));
  EXPECT_EQ(keys(whole).size(), 48u);  // 12 problems x 4
}

TEST(CliSearch, BadSearchOptionsAreOneLineErrorsAndCreateNoStore) {
  const std::string store = temp_path("search-bad.sqlite");
  for (const std::string bad :
       {"--strategy annealing", "--strategy model --budget 0", "--strategy random --budget 120%",
        "--strategy random --budget 5 --total-budget -1",
        "--strategy random --simulate /nonexistent.csv"}) {
    const auto r = run_ktune("bench --workload tiny " + bad + " --store " + store);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_NE(r.output.find("ktune: error:"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(store)) << bad;
  }
}

}  // namespace
}  // namespace ktune
