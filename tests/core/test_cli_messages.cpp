// What the verbs leave behind and what their errors say: no litter beside inputs or from a
// killed merge, errors that name the user's paths in the user's terms, short and printable.
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
    dir_ = testing::fresh_test_dir("ktune_messages_");
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

// Runs a shell command as user nobody (tests run as root, which may write anything).
int as_nobody(const std::string& cmd) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) std::_Exit(90);
    std::_Exit(WEXITSTATUS(std::system(cmd.c_str())));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(CliMessages, ReadersLeaveNoSideFilesBesideReadOnlyInputs) {
  ASSERT_FALSE(fs::exists(store_ + "-wal"));
  fs::permissions(store_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string ktune = KTUNE_BINARY;
  auto r = run_ktune("export --store " + store_ + " --format csv -o " + file("a.csv"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_ktune("merge " + file("out.sqlite") + " " + store_);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(store_ + "-wal")) << names();
  EXPECT_FALSE(fs::exists(store_ + "-shm")) << names();
  // A reader that cannot write the store (the side files it made are its own).
  EXPECT_EQ(as_nobody(ktune + " export --store " + store_ + " --format csv -o " + file("b.csv")),
            0);
  EXPECT_FALSE(fs::exists(store_ + "-wal")) << names();
  EXPECT_FALSE(fs::exists(store_ + "-shm")) << names();
}

// A merge killed before its rename left OUT.merging-PID and its WAL forever.
TEST_F(CliMessages, AKilledMergesPartialOutputIsRemovedByTheNextMerge) {
  const pid_t dead = fork();
  if (dead == 0) std::_Exit(0);
  waitpid(dead, nullptr, 0);
  const std::string out = file("out.sqlite");
  const std::string partial = out + ".merging-" + std::to_string(dead);
  fs::copy_file(store_, partial);
  std::ofstream(partial + "-wal") << "left by a killed merge";
  std::ofstream(partial + "-shm") << "x";
  const std::string alive = out + ".merging-" + std::to_string(::getpid());  // still running
  std::ofstream(alive) << "x";
  const auto r = run_ktune("merge " + out + " " + store_);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(partial)) << names();
  EXPECT_FALSE(fs::exists(partial + "-wal")) << names();
  EXPECT_FALSE(fs::exists(partial + "-shm")) << names();
  EXPECT_TRUE(fs::exists(alive)) << names();
  EXPECT_EQ(Store(out, Store::Mode::read_only).count(), 1u);
}

TEST_F(CliMessages, MergeErrorsNameTheOutputInTheUsersTerms) {
  fs::create_directories(file("outdir"));
  auto r = run_ktune("merge " + file("outdir") + " " + store_);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("merge output '" + file("outdir") + "'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("merge input"), std::string::npos) << r.output;
  // The output's directory cannot be written: the error names the output, not its temp file.
  fs::create_directories(file("ro"));
  fs::permissions(file("ro"), fs::perms::owner_read | fs::perms::owner_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const std::string log = file("merge.log");
  EXPECT_NE(as_nobody(std::string(KTUNE_BINARY) + " merge " + file("ro/out.sqlite") + " " + store_ +
                      " > " + log + " 2>&1"),
            0);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(file("ro/out.sqlite")), std::string::npos) << text;
  EXPECT_EQ(text.find(".merging-"), std::string::npos) << text;
}

TEST_F(CliMessages, AnEmptyFileIsNotCalledASqliteDatabase) {
  std::ofstream(file("empty.sqlite")).close();
  const auto r = run_ktune("export --store " + file("empty.sqlite") + " --format csv");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is an empty file, not a ktune store"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("SQLite database"), std::string::npos) << r.output;
}

// A 64 MiB header line gave a 67 MB message.
TEST_F(CliMessages, AWideHeaderLineIsNotEchoedWhole) {
  std::ofstream(file("wide.csv")) << std::string(64 << 20, 'h') << "\n";
  const auto r = run_ktune("import --csv " + file("wide.csv") + " --store " + file("s.sqlite"));
  EXPECT_EQ(r.status, 1);
  EXPECT_LT(r.output.size(), 1000u) << r.output.substr(0, 300);
  EXPECT_NE(r.output.find("(67108864 bytes)"), std::string::npos) << r.output.substr(0, 300);
}

// A binary file's bytes reached the terminal raw (nlohmann quotes what it last read).
TEST_F(CliMessages, ErrorsQuotingABinaryFileArePrintable) {
  std::string binary = "{\"a\":\x01\x02\x1b[31m\xff\xfe";
  std::ofstream(file("bin.json"), std::ios::binary) << binary;
  for (const std::string& args :
       {"import --t4 " + file("bin.json") + " --store " + file("s.sqlite"),
        "import --kernel-tuner " + file("bin.json") + " --store " + file("s.sqlite"),
        "import --csv " + file("bin.json") + " --store " + file("s.sqlite")}) {
    const auto r = run_ktune(args);
    EXPECT_EQ(r.status, 1) << args;
    for (const char c : r.output)
      EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f))
          << args << ": byte " << int(static_cast<unsigned char>(c)) << " in " << r.output;
  }
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
