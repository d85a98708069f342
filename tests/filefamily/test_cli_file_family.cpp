// `ktune --family-file`: a kernel and its problem file through bench (exhaustive, resume,
// sampled), export, prune, train, eval and codegen, without rebuilding ktune; a malformed file
// is one line naming the file and the field, and no store is created.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"
#include "tests/filefamily/filefamily_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;

TEST(FileFamilyCli, BenchResumeExportPruneTrainEvalCodegen) {
  testing::private_cache("cli");  // the child inherits KTUNE_CACHE_DIR
  const std::string dir = ::testing::TempDir() + "filefamily-cli/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string spec = testing::filefamily_data("stencil1d.json");
  const std::string store = dir + "s.sqlite", csv = dir + "m.csv", picks = dir + "picks.txt";
  const std::string bench = "bench --family-file " + spec + " --rep-budget-ms 1 --store " + store;

  // 12 problems x 5 configs: the two TILE=24 configs fail to compile (recorded, not fatal).
  auto r = run_ktune(bench);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ktune bench: stencil1d_test on "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("workload file (12 problems), 5 configs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured 60 (ok 36, refused 0, failed 24, wrong 0, timeout 0)"),
            std::string::npos)
      << r.output;
  const auto rows = Store(store).query();
  ASSERT_EQ(rows.size(), 60u);
  for (const auto& m : rows) {
    EXPECT_EQ(m.family, "stencil1d_test");
    if (m.outcome.status == Status::ok) {
      EXPECT_GT(m.perf, 0.0);  // x-ktune.Work / time
    }
  }

  r = run_ktune(bench);  // resume: everything is stored
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("already stored 60, measured 0"), std::string::npos) << r.output;

  // A sampled strategy on the same family, into its own store.
  r = run_ktune("bench --family-file " + spec + " --strategy random --budget 2 --seed 3 " +
                "--rep-budget-ms 1 --store " + dir + "sampled.sqlite");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(Store(dir + "sampled.sqlite").query().size(), 24u);

  r = run_ktune("export --store " + store + " --format csv -o " + csv);
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_ktune("prune --data " + csv + " --method topn --k 2 -o " + picks);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(testing::read_file(picks).find("TILE="), std::string::npos)
      << testing::read_file(picks);
  r = run_ktune("train --data " + csv + " --selector tree-a --configs " + picks + " -o " + dir +
                "model.json");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_ktune("codegen --model " + dir + "model.json -o " + dir + "selector.hpp");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(testing::read_file(dir + "selector.hpp").find("TILE="), std::string::npos);

  // Any verb takes the file (the global option, after the verb's name).
  r = run_ktune("eval --family-file " + spec + " --data " + csv +
                " --split random --quick --markdown " + dir + "eval.md");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(testing::read_file(dir + "eval.md").find("| tree-b |"), std::string::npos)
      << testing::read_file(dir + "eval.md");
}

TEST(FileFamilyCli, MalformedFileIsOneLineAndTouchesNoStore) {
  const std::string dir = ::testing::TempDir() + "filefamily-bad/";
  std::filesystem::create_directories(dir);
  std::string text = testing::read_file(testing::filefamily_data("stencil1d.json"));
  text.replace(text.find("\"uint\""), 6, "\"long\"");
  std::ofstream(dir + "bad.json") << text;
  const std::string store = dir + "s.sqlite";
  std::filesystem::remove(store);
  const auto r = run_ktune("bench --family-file " + dir + "bad.json --store " + store);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "ktune: error: " + dir +
                          "bad.json: ConfigurationSpace.TuningParameters[0].Type: 'long' is not "
                          "one of int, uint, float, bool, string\n");
  EXPECT_FALSE(std::filesystem::exists(store));

  // The global option of the other verbs reads the file before the verb runs.
  const auto eval = run_ktune("eval --family-file " + dir + "bad.json --data " + store);
  EXPECT_EQ(eval.status, 1);
  EXPECT_NE(eval.output.find("bad.json: ConfigurationSpace.TuningParameters[0].Type"),
            std::string::npos)
      << eval.output;

  const auto both =
      run_ktune("bench --family gemm --family-file " + dir + "bad.json --store " + store);
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.output.find("excludes"), std::string::npos) << both.output;
}

}  // namespace
}  // namespace ktune
