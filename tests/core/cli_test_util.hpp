#pragma once
// Runs the built ktune binary (KTUNE_BINARY) and captures its exit status and output.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ktune::testing {

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

inline CommandResult run_ktune(const std::string& args) {
  CommandResult r;
  const std::string cmd = std::string(KTUNE_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// Runs ktune with args, its stdout dropped and its stderr written to stderr_path; the exit
// status (-1: killed by a signal).
inline int run_ktune_stderr_to(const std::string& args, const std::string& stderr_path) {
  const std::string cmd =
      std::string("'") + KTUNE_BINARY + "' " + args + " > /dev/null 2> '" + stderr_path + "'";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A whole file, byte for byte ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An empty folder of the running test alone: <temp>/<prefix><pid>_<test name>.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (prefix + std::to_string(::getpid()) + "_" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Unique per test process: engineers and CI jobs run the suites side by side in one /tmp.
inline std::string temp_path(const std::string& name) {
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_" + name;
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  return path;
}

}  // namespace ktune::testing
