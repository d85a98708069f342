// The example family (examples/families/conv1d: one folder plus one CMake line) goes through the
// whole pipeline with the CLI verbs: bench -> export -> prune -> train -> eval -> codegen, and the
// generated selector compiles and picks shipped configs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ktune/interchange.hpp"
#include "ktune/store.hpp"
#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;

TEST(ExampleFamily, BenchExportPruneTrainEvalCodegen) {
  const std::string dir = ::testing::TempDir() + "conv1d-pipeline/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string store = dir + "s.sqlite", csv = dir + "m.csv.gz", picks = dir + "picks.txt";
  const std::string model = dir + "model.json", header = dir + "selector.hpp";

  // 16 problems x 12 configs, each verified against the float64 reference, then timed.
  auto r = run_ktune("bench --family conv1d --workload small --rep-budget-ms 1 --store " + store);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto rows = Store(store).query();
  ASSERT_EQ(rows.size(), 16u * 12u);
  for (const auto& m : rows) {
    EXPECT_EQ(m.family, "conv1d");
    EXPECT_EQ(m.outcome.status, Status::ok)
        << m.problem << " " << m.config << ": " << m.outcome.message;
    EXPECT_GE(m.outcome.rel_error, 0.0);
    EXPECT_GT(m.perf, 0.0);
  }

  r = run_ktune("export --store " + store + " --format csv -o " + csv);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_measurements_csv(csv).size(), rows.size());

  r = run_ktune("prune --data " + csv + " --method topn --k 3 -o " + picks);
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream pick_lines(testing::read_file(picks));
  std::string line;
  int shipped = 0;
  while (std::getline(pick_lines, line)) shipped += line.rfind("block=", 0) == 0;
  EXPECT_EQ(shipped, 3) << testing::read_file(picks);

  r = run_ktune("train --data " + csv + " --selector tree-a --configs " + picks + " -o " + model);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto json = nlohmann::json::parse(testing::read_file(model));
  EXPECT_EQ(json.at("family"), "conv1d");
  EXPECT_EQ(json.at("kind"), "tree-a");

  r = run_ktune("eval --data " + csv + " --split random --quick --markdown " + dir + "eval.md");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(testing::read_file(dir + "eval.md").find("| tree-b |"), std::string::npos)
      << testing::read_file(dir + "eval.md");

  r = run_ktune("codegen --model " + model + " -o " + header);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string code = testing::read_file(header);
  // The family's integer signature, not the generic struct of doubles.
  EXPECT_NE(code.find("inline int select(long long n, long long taps)"), std::string::npos) << code;

  // The header compiles alone and picks one of the 3 shipped configs for every problem.
  std::ofstream(dir + "driver.cpp") << "#include \"selector.hpp\"\n#include <cstdio>\n"
                                       "int main() {\n"
                                       "  const long long shapes[][2] = {{64, 3}, {5000, 129}, "
                                       "{32768, 9}, {7, 7}};\n"
                                       "  for (const auto& s : shapes) {\n"
                                       "    const int k = ktune_selector::select(s[0], s[1]);\n"
                                       "    if (k < 0 || k >= ktune_selector::kNumConfigs) "
                                       "return 1;\n"
                                       "    std::printf(\"%s\\n\", ktune_selector::kConfigs[k]);\n"
                                       "  }\n}\n";
  if (std::system("c++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no C++ compiler";
  const std::string compile = "c++ -std=c++17 -Wall -Wextra -Werror -o " + dir + "driver " + dir +
                              "driver.cpp 2> " + dir + "compile.log";
  ASSERT_EQ(std::system(compile.c_str()), 0) << testing::read_file(dir + "compile.log");
  ASSERT_EQ(std::system((dir + "driver > " + dir + "picks-out.txt").c_str()), 0);
  std::istringstream out(testing::read_file(dir + "picks-out.txt"));
  int picked = 0;
  while (std::getline(out, line)) {
    EXPECT_NE(testing::read_file(picks).find(line), std::string::npos) << line;
    ++picked;
  }
  EXPECT_EQ(picked, 4);
}

}  // namespace
}  // namespace ktune
