// Every numeric option of every verb goes through one check (apps/ktune/numeric_options.hpp):
// overflowing, signed-into-unsigned, non-decimal and non-finite values are refused with an
// error naming the option, never clamped, wrapped or run; and no argument ends in a signal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "apps/ktune/numeric_options.hpp"
#include "cli_test_util.hpp"

namespace ktune {
namespace {

using testing::run_ktune;

std::vector<std::string> verbs() {
  const auto help = run_ktune("--help").output;
  std::vector<std::string> out;
  const size_t list = help.find("\nSubcommands:\n");
  if (list == std::string::npos) return out;
  std::istringstream in(help.substr(list + 14));
  const std::regex line(R"(^  ([a-z][a-z0-9-]*)\s)");
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) out.push_back(m[1]);
  }
  return out;
}

struct NumericOption {
  std::string name, type;
};

std::vector<NumericOption> numeric_options(const std::string& verb) {
  std::istringstream in(run_ktune(verb + " --help").output);
  const std::regex line(R"(^\s+(?:-\w,)?(--[\w-]+)\s+(INT|UINT|FLOAT))");
  std::vector<NumericOption> out;
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) out.push_back({m[1], m[2]});
  }
  return out;
}

TEST(NumericOptions, TextIsTakenWholeAndMustFit) {
  using cli::numeric_text_problem;
  EXPECT_EQ(numeric_text_problem("INT", "-12"), "");
  EXPECT_EQ(numeric_text_problem("UINT", "18446744073709551615"), "");
  EXPECT_EQ(numeric_text_problem("FLOAT", "0.5"), "");
  EXPECT_EQ(numeric_text_problem("INT:INT in [0 - 1024]", "7"), "");
  for (const char* bad :
       {"99999999999999999999", "-99999999999999999999", "0x10", "1.5", "", "-", "+3", " 1"})
    EXPECT_NE(numeric_text_problem("INT", bad), "") << bad;
  for (const char* bad : {"-1", "18446744073709551616"})
    EXPECT_NE(numeric_text_problem("UINT", bad), "") << bad;
  for (const char* bad : {"nan", "inf", "-inf", "1e999", "12abc"})
    EXPECT_NE(numeric_text_problem("FLOAT", bad), "") << bad;
}

// --threads 100000 crashed inside the OpenMP runtime (SIGSEGV) and 40000 failed there.
TEST(NumericOptions, ThreadsAreRangeChecked) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  for (const char* verb : {"eval", "report"})
    for (const char* threads : {"100000", "40000", "2147483647", "-1"}) {
      const auto r = run_ktune(std::string(verb) + " --threads " + threads);
      EXPECT_GT(r.status, 0) << verb << " " << threads << ": " << r.output;
      EXPECT_LT(r.status, 128) << verb << " " << threads << ": " << r.output;
      EXPECT_NE(r.output.find("--threads"), std::string::npos) << r.output;
    }
}

TEST(NumericOptions, EveryVerbRefusesBadNumbersNamingTheOption) {
  if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  const auto all = verbs();
  ASSERT_GE(all.size(), 10u);
  size_t checked = 0;
  for (const auto& verb : all)
    for (const auto& option : numeric_options(verb)) {
      std::vector<std::string> bad = {"99999999999999999999", "12abc"};  // INT
      if (option.type == "UINT") bad.push_back("-1");
      if (option.type == "FLOAT") bad = {"nan", "1e999"};
      for (const auto& value : bad) {
        const auto r = run_ktune(verb + " " + option.name + " " + value);
        const std::string what = verb + " " + option.name + " " + value + ": " + r.output;
        EXPECT_GT(r.status, 0) << what;
        EXPECT_LT(r.status, 128) << what;
        EXPECT_NE(r.output.find(option.name), std::string::npos) << what;
        EXPECT_EQ(r.output.rfind("ktune: error: ", 0), 0u) << what;  // one line, as every error
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << what;
        ++checked;
      }
    }
  EXPECT_GE(checked, 40u);  // the help listing was parsed: dozens of numeric options
}

}  // namespace
}  // namespace ktune
