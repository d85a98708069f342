// The bench verb end to end: SIGKILL mid-sweep then resume, and bad inputs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "ktune/error.hpp"
#include "ktune/family.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"
#include "tests/core/cli_test_util.hpp"

extern char** environ;

namespace ktune {
namespace {

using testing::read_file;
using testing::run_ktune;
using testing::temp_path;

// Every fifth config (128 of 640) keeps the sweep a few seconds long: long enough to kill it
// midway, short enough for CI.
const std::string kConfigs = [] {
  std::string list;
  for (int id = 0; id < 640; id += 5) {
    if (!list.empty()) list += ',';
    list += std::to_string(id);
  }
  return list;
}();

// Vendor rows per problem of a CPU GEMM sweep: the vendor libraries this build links (OpenBLAS,
// oneDNN).
size_t cpu_vendor_count() {
  register_builtin();
  const Family& family = find_family("gemm");
  return open_backend(family, "cpu")
      ->open(load_workload(family, "tiny").problems[0])
      ->vendors()
      .size();
}

std::set<MeasurementKey> keys_of(const std::string& path, size_t* rows) {
  Store s(path);
  const auto all = s.query();
  *rows = all.size();
  std::set<MeasurementKey> keys;
  for (const auto& m : all) keys.insert({m.device, m.family, m.problem, m.config});
  return keys;
}

TEST(CliBench, SigkillMidRunThenResumeEqualsAnUninterruptedRun) {
  const std::string killed = temp_path("killed.sqlite"), whole = temp_path("whole.sqlite");
  const std::string args = "bench --workload tiny --configs " + kConfigs + " --store ";

  // Start a sweep, wait until some measurements are stored, then SIGKILL it.
  pid_t pid = 0;
  std::vector<std::string> argv_s = {KTUNE_BINARY, "bench",  "--workload", "tiny",
                                     "--configs",  kConfigs, "--store",    killed};
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  ASSERT_EQ(posix_spawn(&pid, KTUNE_BINARY, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  size_t stored = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!std::filesystem::exists(killed)) continue;
    try {
      stored = Store(killed).count();
    } catch (const Error&) {
      continue;  // the writer may hold the schema lock for a moment
    }
    if (stored >= 40) break;
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it could be killed";
  size_t rows_after_kill = 0;
  const auto partial = keys_of(killed, &rows_after_kill);
  EXPECT_GE(rows_after_kill, 40u);
  EXPECT_EQ(partial.size(), rows_after_kill);

  // Resume, and compare with a sweep that was never interrupted.
  const auto resumed = run_ktune(args + killed);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("already stored " + std::to_string(rows_after_kill)),
            std::string::npos)
      << resumed.output;
  const auto uninterrupted = run_ktune(args + whole);
  ASSERT_EQ(uninterrupted.status, 0) << uninterrupted.output;

  size_t rows_resumed = 0, rows_whole = 0;
  const auto keys_resumed = keys_of(killed, &rows_resumed);
  const auto keys_whole = keys_of(whole, &rows_whole);
  EXPECT_EQ(keys_resumed, keys_whole);
  EXPECT_EQ(rows_resumed, keys_resumed.size()) << "duplicate rows";
  EXPECT_EQ(rows_whole, 4u * (128u + cpu_vendor_count()));  // 4 tiny problems × (configs + vendors)
  for (const auto& k : partial) EXPECT_TRUE(keys_resumed.count(k));

  // A third run measures nothing new.
  const auto again = run_ktune(args + killed);
  EXPECT_NE(again.output.find("measured 0"), std::string::npos) << again.output;
}

TEST(CliBench, ShardsOfOneSweepMergeIntoOneStore) {
  const std::string sharded = temp_path("sharded.sqlite"), whole = temp_path("unsharded.sqlite");
  const std::string args = "bench --workload tiny --configs 0,17,333 --store ";
  for (const char* shard : {"0/3", "1/3", "2/3"})
    ASSERT_EQ(run_ktune(args + sharded + " --shard " + shard).status, 0) << shard;
  ASSERT_EQ(run_ktune(args + whole).status, 0);
  size_t rows_sharded = 0, rows_whole = 0;
  EXPECT_EQ(keys_of(sharded, &rows_sharded), keys_of(whole, &rows_whole));
  EXPECT_EQ(rows_sharded, rows_whole);
  EXPECT_EQ(rows_whole, 4u * (3u + cpu_vendor_count()));
}

// Each bad input: one line on stderr naming it, non-zero exit, the store untouched.
TEST(CliBench, BadInputsGiveOneLineErrorsAndLeaveTheStoreUntouched) {
  const std::string store = temp_path("untouched.sqlite");
  ASSERT_EQ(run_ktune("bench --workload tiny --configs 0 --no-vendors --store " + store).status, 0);
  const std::string before = read_file(store);
  ASSERT_FALSE(before.empty());
  const std::string bad_csv = ::testing::TempDir() + "malformed.csv";
  std::ofstream(bad_csv) << "transa,transb,m,n,k,batch\n0,0,4,five,6,1\n";

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bench --workload " + bad_csv + " --store " + store, bad_csv + ":2"},
      {"bench --family nope --workload tiny --store " + store, "nope"},
      {"bench --device tpu:0 --workload tiny --store " + store, "tpu:0"},
      {"bench --workload tiny --configs 'r=3;a=1;c=1;wg=8x8' --store " + store, "r=3"},
      {"bench --workload no-such-workload --store " + store, "no-such-workload"},
      {"bench --workload tiny --shard 3/2 --store " + store, "3/2"},
      // A CUDA-only kind asked of the CPU.
      {"bench --workload tiny --configs 'kind=tiled;bm=64;bn=64;bk=16;tm=4;tn=8;vec=4;db=1' "
       "--store " +
           store,
       "has a kernel on device"},
      {"bench --workload tiny --store /nonexistent-dir/s.sqlite", "/nonexistent-dir/s.sqlite"},
      // Timing options: zero, negative, NaN and infinite values name the option.
      {"bench --workload tiny --max-reps 0 --store " + store, "--max-reps"},
      {"bench --workload tiny --min-reps 0 --store " + store, "--min-reps"},
      {"bench --workload tiny --min-reps 5 --max-reps 3 --store " + store, "--max-reps"},
      {"bench --workload tiny --warmups -1 --store " + store, "--warmups"},
      {"bench --workload tiny --timeout-ms 0 --store " + store, "--timeout-ms"},
      {"bench --workload tiny --timeout-ms -5 --store " + store, "--timeout-ms"},
      {"bench --workload tiny --timeout-ms nan --store " + store, "--timeout-ms"},
      {"bench --workload tiny --timeout-ms inf --store " + store, "--timeout-ms"},
      {"bench --workload tiny --rep-budget-ms 0 --store " + store, "--rep-budget-ms"},
      {"bench --workload tiny --rep-budget-ms nan --store " + store, "--rep-budget-ms"},
      {"bench --workload tiny --budget-ms -1 --store " + store, "--budget-ms"},
      {"bench --workload tiny --budget-ms inf --store " + store, "--budget-ms"},
  };
  for (const auto& [args, named] : cases) {
    const auto r = run_ktune(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("ktune: error: ", 0), 0u) << r.output;
  }
  EXPECT_EQ(read_file(store), before);
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir/s.sqlite"));
}

// A timeout row records a run that really exceeded the limit: its message states the time, and
// a run within the limit is never stored as one.
TEST(CliBench, TimeoutRowsOnlyForRunsOverTheLimit) {
  const std::string slow = temp_path("timeouts.sqlite"), fine = temp_path("no-timeouts.sqlite");
  // 1e-6 ms: every real run is slower. The largest tiny shape takes well under 100 ms.
  ASSERT_EQ(
      run_ktune("bench --workload tiny --configs 0,17 --timeout-ms 1e-6 --store " + slow).status,
      0);
  ASSERT_EQ(
      run_ktune("bench --workload tiny --configs 0,17 --timeout-ms 100000 --store " + fine).status,
      0);
  size_t timeouts = 0;
  for (const auto& m : Store(slow).query()) {
    if (m.outcome.status != Status::timeout) continue;
    ++timeouts;
    EXPECT_NE(m.outcome.message.find("ms > timeout 0.0 ms"), std::string::npos)
        << m.outcome.message;
    EXPECT_EQ(m.outcome.timing.reps, 0);
  }
  EXPECT_GT(timeouts, 0u);
  for (const auto& m : Store(fine).query()) {
    EXPECT_NE(m.outcome.status, Status::timeout) << m.config << ": " << m.outcome.message;
    if (m.outcome.status == Status::ok) {
      EXPECT_GT(m.outcome.timing.reps, 0);
    }
  }
}

}  // namespace
}  // namespace ktune
