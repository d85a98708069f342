// The store and the files verbs write, under the conditions users meet: several shards writing
// one store at once (new or existing), stores on read-only media, SQLite files that are not
// ktune stores (refused, byte-identical afterwards), and -o through links, FIFOs and stdout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "cli_test_util.hpp"
#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"
#include "ktune/store.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_ktune;

Measurement row(int writer, int i) {
  Measurement m;
  m.device = "dev";
  m.family = "gemm";
  m.problem = "m=" + std::to_string(writer);
  m.config = "c=" + std::to_string(i);
  m.config_id = i;
  m.outcome.status = Status::ok;
  m.outcome.timing.median_ms = 1;
  m.outcome.timing.reps = 1;
  m.perf = 1;
  return m;
}

// A scratch directory of this test, removed afterwards (permissions restored first).
class StoreSafety : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_test_dir("ktune_store_safety_"); }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// Four processes open the same store (new the first round, existing afterwards) and write at
// once: every open and every row must succeed ("database is locked" was intermittent while a
// new store's journal mode and schema were being set up).
TEST_F(StoreSafety, FourConcurrentWritersIntoANewOrExistingStoreNeverFail) {
  for (int round = 0; round < 6; ++round) {
    const std::string path =
        file(round < 3 ? "new" + std::to_string(round) + ".sqlite" : "shared.sqlite");
    std::vector<pid_t> children;
    for (int w = 0; w < 4; ++w) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        int code = 0;
        try {
          Store store(path);
          for (int i = 0; i < 20; ++i) store.put(row(w, round * 100 + i));
          std::vector<Measurement> batch;
          for (int i = 20; i < 40; ++i) batch.push_back(row(w, round * 100 + i));
          store.put_all(batch);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "writer %d: %s\n", w, e.what());
          code = 1;
        }
        std::_Exit(code);
      }
      children.push_back(pid);
    }
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round;
    }
    const size_t expected = round < 3 ? 160u : 160u * size_t(round - 2);
    EXPECT_EQ(Store(path, Store::Mode::read_only).count(), expected) << "round " << round;
  }
}

// The same through the CLI: four `bench --shard i/4` into a store that does not exist yet.
TEST_F(StoreSafety, FourBenchShardsIntoOneNewStore) {
  if (!fs::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  for (int round = 0; round < 2; ++round) {
    const std::string store = file("shards" + std::to_string(round) + ".sqlite");
    std::string script = "fail=0; pids=''; for i in 0 1 2 3; do '" + std::string(KTUNE_BINARY) +
                         "' bench --workload tiny --configs 0,17 --no-vendors --shard $i/4 "
                         "--store '" +
                         store + "' >'" + file("log") +
                         "'$i 2>&1 & pids=\"$pids $!\"; done; "
                         "for p in $pids; do wait $p || fail=1; done; exit $fail";
    const int rc = std::system(script.c_str());
    std::string logs;
    for (int i = 0; i < 4; ++i) logs += read_file(file("log" + std::to_string(i)));
    ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << logs;
    EXPECT_EQ(logs.find("locked"), std::string::npos) << logs;
    EXPECT_EQ(Store(store, Store::Mode::read_only).count(), 4u * 2u);  // 4 tiny problems
  }
}

// Runs fn in a child process without the privileges that would let it write anyway (tests
// may run as root, which ignores file modes); returns the child's exit status.
template <class Fn>
int unprivileged(Fn fn) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) std::_Exit(90);
    std::_Exit(fn());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A WAL store needs -shm/-wal side files beside it; on read-only media or in a read-only
// directory they cannot be created, and readers must still get every row.
TEST_F(StoreSafety, ReadOnlyStoreInAReadOnlyDirectoryIsReadable) {
  const std::string path = file("ro.sqlite");
  {
    Store s(path);
    for (int i = 0; i < 5; ++i) s.put(row(0, i));
  }
  ASSERT_FALSE(fs::exists(path + "-wal"));  // folded back into the file at close
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec);
  EXPECT_EQ(unprivileged([&] {
              try {
                return Store(path, Store::Mode::read_only).count() == 5 ? 0 : 1;
              } catch (const std::exception& e) {
                std::fprintf(stderr, "%s\n", e.what());
                return 2;
              }
            }),
            0);
  // export through the CLI, as an unprivileged user, writing to a place it may write.
  if (fs::exists(KTUNE_BINARY)) {
    const std::string out = "/tmp/ktune_ro_export_" + std::to_string(::getpid()) + ".csv";
    fs::remove(out);
    EXPECT_EQ(unprivileged([&] {
                const std::string cmd = std::string("'") + KTUNE_BINARY + "' export --store '" +
                                        path + "' --format csv -o '" + out + "'";
                return WEXITSTATUS(std::system(cmd.c_str()));
              }),
              0);
    std::ifstream in(out);
    size_t lines = 0;
    for (std::string l; std::getline(in, l);) ++lines;
    EXPECT_EQ(lines, 6u);  // header + 5 rows
    fs::remove(out);
  }
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

// A writer that puts rows one transaction each, reporting each commit on a pipe, killed with
// SIGKILL once it reported `rows` commits (plus a random delay when jitter): its -wal and -shm
// stay, holding the commits SQLite has not folded into the file. Returns the commits reported.
int kill_writer_after(const std::string& path, int rows, bool jitter, unsigned seed) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Store s(path);
    for (int i = 0;; ++i) {
      s.put(row(7, i));
      const int done = i + 1;
      if (write(fds[1], &done, sizeof done) != sizeof done) std::_Exit(1);
    }
  }
  close(fds[1]);
  int reported = 0;
  for (int n; reported < rows && read(fds[0], &n, sizeof n) == sizeof n;) reported = n;
  if (jitter) usleep(seed % 3000);
  kill(pid, SIGKILL);
  for (int n; read(fds[0], &n, sizeof n) == sizeof n;) reported = n;  // sent before the kill
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return reported;
}

// The store's directory made read-only, as media or another user's directory would be.
void make_read_only(const fs::path& dir) {
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
}

// Rows as an unprivileged reader counts them (-1: an error, printed). The count comes back on
// a pipe: an exit status holds 8 bits.
int unprivileged_count(const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const int status = unprivileged([&] {
    close(fds[0]);
    int count = -1;
    try {
      count = static_cast<int>(Store(path, Store::Mode::read_only).count());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
    return write(fds[1], &count, sizeof count) == sizeof count ? 0 : 1;
  });
  close(fds[1]);
  int count = -1;
  if (status != 0 || read(fds[0], &count, sizeof count) != sizeof count) count = -1;
  close(fds[0]);
  return count;
}

// A killed writer's commits are in its -wal; without the -shm (lost with /dev/shm, a copy, a
// reboot) and in a read-only directory SQLite cannot rebuild the WAL index in place, and its
// immutable mode silently read the file alone (1,121 of 1,208 rows). Every reader, export and
// merge included, must return every committed row.
TEST_F(StoreSafety, KilledWriterInAReadOnlyDirectoryLosesNoCommittedRow) {
  const std::string path = file("killed.sqlite");
  const int committed = kill_writer_after(path, 40, false, 0);
  ASSERT_GE(committed, 40);
  ASSERT_TRUE(fs::exists(path + "-wal"));
  ASSERT_GT(fs::file_size(path + "-wal"), 0u);
  fs::remove(path + "-shm");
  make_read_only(dir_);
  const int counted = unprivileged_count(path);
  EXPECT_TRUE(counted == committed || counted == committed + 1) << counted << " of " << committed;
  EXPECT_FALSE(fs::exists(path + "-shm"));  // nothing written beside the store
  if (!fs::exists(KTUNE_BINARY)) return;
  const std::string out = "/tmp/ktune_killed_" + std::to_string(::getpid());
  fs::remove_all(out);
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);
  EXPECT_EQ(unprivileged([&] {
              const std::string cmd = std::string("'") + KTUNE_BINARY + "' export --store '" +
                                      path + "' --format csv -o '" + out + "/rows.csv' && '" +
                                      KTUNE_BINARY + "' merge '" + out + "/merged.sqlite' '" +
                                      path + "' >/dev/null";
              return WEXITSTATUS(std::system(cmd.c_str()));
            }),
            0);
  std::ifstream in(out + "/rows.csv");
  int lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines - 1, counted);  // the header, then every row
  EXPECT_EQ(static_cast<int>(Store(out + "/merged.sqlite", Store::Mode::read_only).count()),
            counted);
  fs::remove_all(out);
}

// Writers killed at random points: whatever they reported committed is read back, from a
// writable location and, without the -shm, from a read-only one; both readings agree.
TEST_F(StoreSafety, WritersKilledAtRandomPointsLoseNoCommit) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 6; ++round) {
    const std::string path = file("r" + std::to_string(round) + ".sqlite");
    const int committed = kill_writer_after(path, 1 + int(rng() % 200), true, rng());
    ASSERT_GT(committed, 0);
    // The writable reading: a copy of the files as the writer left them.
    const fs::path copy = dir_ / ("copy" + std::to_string(round));
    fs::create_directories(copy);
    for (const char* side : {"", "-wal", "-shm"})
      if (fs::exists(path + side))
        fs::copy_file(path + side, copy / (fs::path(path).filename().string() + side));
    const int writable = static_cast<int>(
        Store((copy / fs::path(path).filename()).string(), Store::Mode::read_only).count());
    EXPECT_TRUE(writable == committed || writable == committed + 1)
        << "round " << round << ": " << writable << " of " << committed;
    fs::remove(path + "-shm");
    make_read_only(dir_);
    EXPECT_EQ(unprivileged_count(path), writable) << "round " << round;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
  }
}

// Somebody else's SQLite file: refused with a one-line error, left byte-identical.
TEST_F(StoreSafety, ASqliteFileThatIsNotAStoreIsRefusedUntouched) {
  const std::string path = file("foreign.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT);"
                         "INSERT INTO notes(text) VALUES ('keep me');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string before = read_file(path);
  for (const auto mode : {Store::Mode::read_write, Store::Mode::read_only}) {
    try {
      Store s(path, mode);
      ADD_FAILURE() << "opened a foreign SQLite file as a store";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not a ktune store"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(read_file(path), before);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
  if (fs::exists(KTUNE_BINARY)) {
    const auto r =
        run_ktune("bench --workload tiny --configs 0 --no-vendors --store '" + path + "'");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.output.find("not a ktune store"), std::string::npos) << r.output;
    EXPECT_EQ(read_file(path), before);
  }
}

TEST_F(StoreSafety, WritesGoThroughSymlinksIntoTheirTargets) {
  std::ofstream(file("real.csv")) << "old\n";
  fs::create_symlink("real.csv", file("link.csv"));  // relative: resolved beside the link
  write_text_file(file("link.csv"), "new\n");
  EXPECT_TRUE(fs::is_symlink(file("link.csv")));
  EXPECT_EQ(read_file(file("real.csv")), "new\n");
  // A dangling link creates its target; a chain of links is followed to the end.
  fs::create_symlink(file("made.csv"), file("dangling.csv"));
  fs::create_symlink("link.csv", file("chain.csv"));
  write_text_file(file("dangling.csv"), "made\n");
  write_text_file(file("chain.csv"), "chained\n");
  EXPECT_TRUE(fs::is_symlink(file("dangling.csv")));
  EXPECT_TRUE(fs::is_symlink(file("chain.csv")));
  EXPECT_EQ(read_file(file("made.csv")), "made\n");
  EXPECT_EQ(read_file(file("real.csv")), "chained\n");
}

TEST_F(StoreSafety, WritesIntoAFifoWithoutReplacingIt) {
  const std::string fifo = file("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  write_text_file(fifo, "through the pipe\n");
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_FALSE(fs::exists(fifo + ".tmp"));
}

// -o /dev/stdout into a pipe and bash's -o >(cmd) failed ("No such file or directory": the link
// names "pipe:[N]"), and with stdout opened for append the file was replaced.
TEST_F(StoreSafety, ExportWritesIntoPipesAndAppendsThroughDevStdout) {
  if (!fs::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  const std::string store = file("s.sqlite");
  {
    Store s(store);
    s.put(row(1, 2));
  }
  const std::string export_cmd =
      std::string("'") + KTUNE_BINARY + "' export --store '" + store + "' --format csv -o ";
  auto run = [](const std::string& script) {
    const std::string cmd = "bash -c \"" + script + "\"";
    return WEXITSTATUS(std::system(cmd.c_str()));
  };
  EXPECT_EQ(run(export_cmd + "/dev/stdout | cat > '" + file("piped.csv") + "'"), 0);
  EXPECT_NE(read_file(file("piped.csv")).find("dev,gemm,m=1,c=2"), std::string::npos);
  EXPECT_EQ(run(export_cmd + ">(cat > '" + file("subst.csv") + "'); wait $!"), 0);
  EXPECT_NE(read_file(file("subst.csv")).find("dev,gemm,m=1,c=2"), std::string::npos);
  std::ofstream(file("log.csv")) << "earlier line\n";
  EXPECT_EQ(run(export_cmd + "/dev/stdout >> '" + file("log.csv") + "'"), 0);
  const std::string log = read_file(file("log.csv"));
  EXPECT_EQ(log.rfind("earlier line\n", 0), 0u) << log;
  EXPECT_NE(log.find("dev,gemm,m=1,c=2"), std::string::npos) << log;
  EXPECT_EQ(run(export_cmd + "/dev/fd/9"), 1);  // not open: a one-line error
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST_F(StoreSafety, ExportWritesToStdoutAndThroughALink) {
  if (!fs::exists(KTUNE_BINARY)) GTEST_SKIP() << "ktune binary not built";
  const std::string store = file("s.sqlite");
  {
    Store s(store);
    s.put(row(1, 2));
  }
  auto r = run_ktune("export --store '" + store + "' --format csv -o -");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("dev,gemm,m=1,c=2"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists("-"));
  std::ofstream(file("target.csv")) << "x";
  fs::create_symlink(file("target.csv"), file("out.csv"));
  r = run_ktune("export --store '" + store + "' --format csv -o '" + file("out.csv") + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(file("out.csv")));
  EXPECT_NE(read_file(file("target.csv")).find("c=2"), std::string::npos);
}

}  // namespace
}  // namespace ktune
