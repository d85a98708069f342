// `ktune demo` end to end on a tiny workload, learning from the committed 18-shape CPU dataset:
// every pipeline step runs, each shape's ratio to the vendors comes with the range of its rounds
// (or no claim from too few) and its config's GFLOP/s with the sweep's figure beside, the CPU is
// named as one no dataset of --results-dir was measured on, no held-out score is printed from its 4
// held-out shapes, the generated header compiles on its own under -Werror, the report is written
// and named last, and a second run resumes from the store.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::read_file;
using testing::run_ktune;

// Every fifth config (128 of 640) over the 4 tiny shapes: a few seconds.
std::string every_fifth_config() {
  std::string list;
  for (int id = 0; id < 640; id += 5) {
    if (!list.empty()) list += ',';
    list += std::to_string(id);
  }
  return list;
}

TEST(CliDemo, WholePipelineWritesAHeaderThatCompilesAndResumes) {
  const std::filesystem::path dir = ::testing::TempDir() + "ktune-demo-test";
  std::filesystem::remove_all(dir);
  const std::string results = std::string(KTUNE_SOURCE_DIR) + "/results/amd-epyc-2c/";
  const std::filesystem::path no_results = dir / "no-results";
  std::filesystem::create_directories(no_results);
  const std::string args = "demo --workload tiny --kind all --configs " + every_fifth_config() +
                           " --k 4 --learn-data " + results + "gemm-dnn-small.csv.gz" +
                           " --learn-deployed " + results + "deployed-cpu.csv --learn-eval " +
                           results + "selection.csv --out-dir " + dir.string() + " --results-dir " +
                           no_results.string();

  const auto first = run_ktune(args + " --rounds 5");
  ASSERT_EQ(first.status, 0) << first.output;
  for (const char* step : {"[1/7", "[2/7", "[3/7", "[4/7", "[5/7", "[6/7", "[7/7"})
    EXPECT_NE(first.output.find(step), std::string::npos) << step << "\n" << first.output;
  // Each learning step names its data; 18 shapes leave 4 held out: too few for a score.
  EXPECT_NE(first.output.find("learning data: " + results + "gemm-dnn-small.csv.gz"),
            std::string::npos)
      << first.output;
  EXPECT_NE(first.output.find("only 4 held-out shapes (fewer than 20)"), std::string::npos)
      << first.output;
  EXPECT_EQ(first.output.find("% of oracle |"), std::string::npos) << first.output;
  EXPECT_EQ(first.output.find("  0 measurements taken now"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find(", 0 already in the store"), std::string::npos) << first.output;
  // Each of the 4 shapes: a ratio with its range, or "within noise" with it (never a bare
  // ratio); a build without vendor libraries says so instead.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = 0; (at = first.output.find(what, at)) != std::string::npos; ++at) ++n;
    return n;
  };
  EXPECT_EQ(count(" over 5 rounds) |") + count("| - no vendor library in this build |"), 4u)
      << first.output;
  // Beside the rounds' GFLOP/s of each shape's config, the sweep's own figure for it.
  EXPECT_EQ(count(" (sweep "), 4u) << first.output;
  EXPECT_NE(first.output.find("no committed dataset was measured on this CPU ("), std::string::npos)
      << first.output;

  // K = 4 shipped configs, a model, the full tables and the header are in the output directory.
  std::istringstream configs(read_file(dir / "configs.txt"));
  int lines = 0;
  for (std::string line; std::getline(configs, line);) lines += !line.empty();
  EXPECT_EQ(lines, 4);
  EXPECT_TRUE(std::filesystem::exists(dir / "tree-b.json"));
  // The last line names the HTML report, which holds every figure's section.
  const std::string report = (dir / "report.html").string();
  EXPECT_NE(first.output.find("Report: " + report + "\n"), std::string::npos) << first.output;
  EXPECT_EQ(first.output.substr(first.output.rfind("Report: ")), "Report: " + report + "\n");
  EXPECT_NE(read_file(report).find("id=\"fig-roofline\""), std::string::npos);
  const std::string header = read_file(dir / "ktune_selector.hpp");
  ASSERT_NE(header.find("inline constexpr int kNumConfigs = 4;"), std::string::npos) << header;
  EXPECT_NE(first.output.find((dir / "ktune_selector.hpp").string()), std::string::npos);

  // The header alone, included by a user's translation unit, compiles warning-free as C++17.
  const auto user = dir / "user.cpp";
  std::ofstream(user) << "#include \"ktune_selector.hpp\"\n"
                         "int main() { return ktune_selector::select(0, 0, 37, 29, 53, 1) < 0; }\n";
  const std::string compile =
      "c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I " + dir.string() + " " + user.string();
  EXPECT_EQ(std::system(compile.c_str()), 0) << compile;

  // Rerunning measures nothing again: the store in the output directory is resumed.
  // One round is too few to claim a ratio from.
  const auto second = run_ktune(args + " --rounds 1");
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("  0 measurements taken now"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("| no claim (1 round) |"), std::string::npos) << second.output;
  EXPECT_EQ(read_file(dir / "ktune_selector.hpp"), header);
}

}  // namespace
}  // namespace ktune
