// The retime verb end to end on a real CPU sweep (GEMM, tiny), and its one-line errors.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ktune/retime.hpp"
#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;
using testing::temp_path;

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(CliRetime, RetimesTheCloseCallsAndKeepsTheOriginals) {
  const std::string store = temp_path("retime_cli.sqlite");
  ASSERT_EQ(run_ktune("bench --workload tiny --configs 0,17,333 --store " + store).status, 0);
  std::map<std::string, std::vector<Measurement>> before;  // by problem
  for (auto& m : Store(store, Store::Mode::read_only).query()) before[m.problem].push_back(m);
  // The rows the retime must replace: its candidate rule (tested in test_retime.cpp) on the
  // sweep's rows. --within 1000 takes nearly all (not a run that a loaded machine made 1000
  // times slower).
  std::map<std::string, Measurement> expected;  // "problem config" → the sweep's row
  size_t stored = 0;
  for (const auto& [problem, ms] : before) {
    stored += ms.size();
    for (const auto& m : retime_candidates(ms, 1000, 4)) expected[problem + " " + m.config] = m;
  }
  ASSERT_GE(expected.size(), 4u * 2);  // at least a config and a vendor per problem
  const auto r = run_ktune("retime --store " + store + " --within 1000 --rounds 2 --reps 2");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("re-timed 4 ("), std::string::npos) << r.output;
  const Store after(store, Store::Mode::read_only);
  const auto rows = after.query();
  EXPECT_EQ(rows.size(), stored);  // replaced, not added
  const auto originals = after.superseded();
  EXPECT_EQ(originals.size(), expected.size());
  for (const auto& o : originals) {  // each original is the row the sweep stored
    const auto it = expected.find(o.problem + " " + o.config);
    ASSERT_NE(it, expected.end()) << o.problem << " " << o.config;
    EXPECT_EQ(o.outcome.timing.median_ms, it->second.outcome.timing.median_ms);
    EXPECT_EQ(o.created_at, it->second.created_at);
  }
  for (const auto& m : rows) {
    if (!expected.count(m.problem + " " + m.config) || m.outcome.status != Status::ok) continue;
    EXPECT_GE(m.outcome.timing.reps, 2 * 2) << m.config;  // pooled: rounds × reps at least
    EXPECT_GT(m.perf, 0);
  }
  // Resumed (here: repeated), it finds every problem done and changes nothing.
  const auto again = run_ktune("retime --store " + store + " --within 1000");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("re-timed 0"), std::string::npos) << again.output;
  EXPECT_EQ(Store(store, Store::Mode::read_only).superseded().size(), expected.size());
}

TEST(CliRetime, BadInputIsOneLineNamingIt) {
  const std::string store = temp_path("retime_bad.sqlite");
  ASSERT_EQ(run_ktune("bench --workload tiny --configs 0 --no-vendors --store " + store).status, 0);
  const std::string missing = temp_path("retime_missing.sqlite");
  const std::string not_store = temp_path("retime_not_store.txt");
  std::ofstream(not_store) << "not a store\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"retime --store " + missing, missing},
      {"retime --store " + not_store, not_store},
      {"retime --store " + store + " --within -0.5", "--within"},
      {"retime --store " + store + " --within nan", "--within"},
      {"retime --store " + store + " --max-configs 0", "--max-configs"},
      {"retime --store " + store + " --rounds 0", "--rounds"},
      {"retime --store " + store + " --reps 0", "--reps"},
      {"retime --store " + store + " --timeout-ms 0", "--timeout-ms"},
      {"retime --store " + store + " --family nope", "nope"},
      {"retime --store " + store + " --device tpu:0", "tpu:0"},
      {"retime --store " + store + " --workload no_such_workload", "no_such_workload"},
      {"retime --store " + store + " --family conv2d", "no conv2d measurements"},
  };
  for (const auto& [args, named] : cases) {
    const auto r = run_ktune(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(lines(r.output), 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
  }
  // None of them created or changed a store.
  EXPECT_FALSE(std::ifstream(missing).good());
  EXPECT_TRUE(Store(store, Store::Mode::read_only).superseded().empty());
}

}  // namespace
}  // namespace ktune
