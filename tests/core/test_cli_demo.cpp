// `ktune demo` end to end on a tiny workload: every pipeline step runs, the generated header
// compiles on its own under -Werror, and a second run resumes from the store.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/core/cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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
  const std::string args =
      "demo --workload tiny --configs " + every_fifth_config() + " --out-dir " + dir.string();

  const auto first = run_ktune(args);
  ASSERT_EQ(first.status, 0) << first.output;
  for (const char* step : {"[1/5", "[2/5", "[3/5", "[4/5", "[5/5"})
    EXPECT_NE(first.output.find(step), std::string::npos) << step << "\n" << first.output;
  EXPECT_NE(first.output.find("| best single fixed config (no selector) |"), std::string::npos)
      << first.output;
  EXPECT_EQ(first.output.find("  0 measurements taken now"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find(", 0 already in the store"), std::string::npos) << first.output;

  // K = 4 shipped configs, a model, the full tables and the header are in the output directory.
  std::istringstream configs(read_file(dir / "configs.txt"));
  int lines = 0;
  for (std::string line; std::getline(configs, line);) lines += !line.empty();
  EXPECT_EQ(lines, 4);
  EXPECT_TRUE(std::filesystem::exists(dir / "tree-b.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "evaluation.md"));
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
  const auto second = run_ktune(args);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("  0 measurements taken now"), std::string::npos) << second.output;
  EXPECT_EQ(read_file(dir / "ktune_selector.hpp"), header);
}

}  // namespace
}  // namespace ktune
