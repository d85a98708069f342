#pragma once
// Files and processes for the tune-and-remember tests.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ktune/remember.hpp"

extern char** environ;

namespace ktune_test {

// A fresh path in a folder of this process (the file itself does not exist).
inline std::string fresh_path(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ktune-remember-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + "-wal");
  std::filesystem::remove(path.string() + "-shm");
  return path.string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts `args` with the environment (less KTUNE_REMEMBER*) plus `extra` ("NAME=value"), its
// stderr into the file `err` when given; returns its pid (-1: failed).
inline pid_t spawn(const std::vector<std::string>& args, const std::vector<std::string>& extra,
                   const std::string& err = "") {
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("KTUNE_REMEMBER", 0) != 0) envp.push_back(*e);
  for (const auto& e : extra) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!err.empty())
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

inline int wait_exit_code(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// Two worker processes (`worker COUNT OUTPUT`, each writing "index hash" lines) started at once
// with the environment `env` added (a shared cache), waited for; what each wrote, index -> hash
// (empty for a worker that failed).
inline std::vector<std::map<long, std::string>> run_two_workers(
    const std::string& worker, int count, const std::string& name,
    const std::vector<std::string>& env) {
  std::vector<pid_t> pids;
  std::vector<std::string> outputs;
  for (int w = 0; w < 2; ++w) {
    outputs.push_back(fresh_path(name + std::to_string(w) + ".txt"));
    pids.push_back(spawn({worker, std::to_string(count), outputs.back()}, env));
  }
  std::vector<std::map<long, std::string>> hashes(2);
  for (int w = 0; w < 2; ++w) {
    if (wait_exit_code(pids[size_t(w)]) != 0) continue;
    std::istringstream in(read_file(outputs[size_t(w)]));
    long index;
    std::string hash;
    while (in >> index >> hash) hashes[size_t(w)][index] = hash;
  }
  return hashes;
}

// FNV-1a of a result's bytes: what the worker processes report per shape.
inline uint64_t fnv1a(const std::vector<unsigned char>& bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ULL;
  return h;
}

// A worker process's start ("NAME COUNT OUTPUT"): the count and the opened output. Returns the
// exit code to end with (2: usage; 0: tune-and-remember is off, "off" written), or -1 to go on.
inline int worker_start(int argc, char** argv, long& count, std::ofstream& out) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s COUNT OUTPUT\n", argv[0]);
    return 2;
  }
  count = std::strtol(argv[1], nullptr, 10);
  out.open(argv[2]);
  if (!ktune::remember::enabled()) {
    out << "off\n";
    return 0;
  }
  return -1;
}

}  // namespace ktune_test
