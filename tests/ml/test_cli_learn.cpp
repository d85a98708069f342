// The analyze and prune verbs end to end through the ktune binary (skipped when it is not built).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "ktune/interchange.hpp"
#include "ml_test_util.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

TEST(CliLearn, AnalyzeAndPruneOnExportedCsv) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  test::TempDir dir;
  const std::string data = dir.file("m.csv.gz"), err = dir.file("err.txt");
  write_measurements_csv(test::make_synthetic_measurements(), data);

  ASSERT_EQ(testing::run_ktune_stderr_to("analyze --data " + data + " --norm cutoff --markdown " +
                                             dir.file("a.md") + " --csv " + dir.file("a.csv"),
                                         err),
            0)
      << test::read_text(err);
  EXPECT_NE(test::read_text(dir.file("a.md")).find("# Dataset analysis"), std::string::npos);
  EXPECT_NE(test::read_text(dir.file("a.csv")).find("summary,problems,60"), std::string::npos);

  const std::string picks = dir.file("picks.txt");
  ASSERT_EQ(testing::run_ktune_stderr_to(
                "prune --data " + data + " --method kmeans --k 3 -o " + picks, err),
            0)
      << test::read_text(err);
  std::istringstream lines(test::read_text(picks));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) n += line.rfind("a=", 0) == 0;
  EXPECT_EQ(n, 3);

  // K larger than the number of configs: one-line error, exit status 1.
  EXPECT_EQ(testing::run_ktune_stderr_to("prune --data " + data + " --method topn --k 99", err), 1);
  const std::string message = test::read_text(err);
  EXPECT_NE(message.find("k=99"), std::string::npos) << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  EXPECT_EQ(testing::run_ktune_stderr_to("analyze --data " + dir.file("missing.sqlite"), err), 1);
}

}  // namespace
}  // namespace ktune
