// What the verbs' errors say: one line naming the user's input, short, never an internal error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_test_util.hpp"
#include "ktune/store.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::run_ktune;

class CliMessages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
    dir_ = fs::temp_directory_path() /
           ("ktune_messages_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::all);  // the unprivileged reader below writes here too
    store_ = file("in.sqlite");
    Store s(store_);
    Measurement m;
    m.device = "dev";
    m.family = "gemm";
    m.problem = "m=1";
    m.config = "c=1";
    m.outcome.status = Status::ok;
    m.outcome.timing.median_ms = 1;
    m.outcome.timing.reps = 1;
    m.perf = 1;
    s.put(m);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::string names() const {
    std::string out;
    for (const auto& e : fs::directory_iterator(dir_)) out += e.path().filename().string() + " ";
    return out;
  }
  fs::path dir_;
  std::string store_;
};

// A 64 MiB header line gave a 67 MB message.
TEST_F(CliMessages, AWideHeaderLineIsNotEchoedWhole) {
  std::ofstream(file("wide.csv")) << std::string(64 << 20, 'h') << "\n";
  const auto r = run_ktune("import --csv " + file("wide.csv") + " --store " + file("s.sqlite"));
  EXPECT_EQ(r.status, 1);
  EXPECT_LT(r.output.size(), 1000u) << r.output.substr(0, 300);
  EXPECT_NE(r.output.find("(67108864 bytes)"), std::string::npos) << r.output.substr(0, 300);
}

TEST_F(CliMessages, DemoIntoAFileIsAOneLineError) {
  std::ofstream(file("plain")) << "x";
  const auto r = run_ktune("demo --out-dir " + file("plain"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(file("plain")), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

TEST_F(CliMessages, ReportHtmlRefusesAWorkloadItWouldIgnore) {
  const auto r = run_ktune("report --store " + store_ + " --html " + file("r.html") +
                           " --workload no-such-workload");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--workload 'no-such-workload'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(file("r.html")));
}

}  // namespace
}  // namespace ktune
