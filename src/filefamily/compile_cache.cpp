// The system compiler behind a disk cache, and dlopen (compile_cache.hpp).
#include "src/filefamily/compile_cache.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ktune/error.hpp"
#include "ktune/gzip_io.hpp"

extern char** environ;

namespace ktune::filefamily {
namespace {

namespace fs = std::filesystem;

// FNV-1a: stable across builds and platforms, unlike std::hash.
uint64_t hash64(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::vector<std::string> command_of(const CompileRequest& r, const std::string& unit,
                                    const std::string& out) {
  std::vector<std::string> argv = {r.compiler, "-O3", "-std=c++20", "-shared", "-fPIC"};
  argv.insert(argv.end(), r.flags.begin(), r.flags.end());
  argv.insert(argv.end(), {"-o", out, unit});
  return argv;
}

// Runs argv (no shell: flags from a file are never interpreted) with stderr and stdout into log.
int run_logged(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error(fmt::format("cannot run the compiler '{}': {}", argv[0], strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(fmt::format("waiting for '{}' failed", argv[0]));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The compiler's first line that says "error", else its first line.
std::string first_error(const std::string& log) {
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first.empty() ? "no compiler output" : first;
}

}  // namespace

std::string shared_object_cache_dir() {
  if (const char* dir = std::getenv("KTUNE_CACHE_DIR"); dir && *dir)
    return (fs::path(dir) / "cpu-so").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "ktune" / "cpu-so").string();
  return "/tmp/ktune-cache/cpu-so";
}

std::string compile_shared_object(const CompileRequest& request) {
  std::string key =
      fmt::format("{}\n{}\n", fmt::join(command_of(request, "", ""), " "), request.unit);
  for (const auto& dep : request.dependencies)
    key += fmt::format("file {}\n{}\n", dep, read_text_file(dep));
  const fs::path dir = shared_object_cache_dir();
  const std::string stem = fmt::format("{:016x}", hash64(key));
  const fs::path so = dir / (stem + ".so");
  if (fs::is_regular_file(so)) return so.string();

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(fmt::format("{}: cannot create the cache folder: {}", dir.string(), ec.message()));
  // Names private to this process and thread, so that concurrent compiles never share a file.
  const std::string tag = fmt::format("{}.{}.{}", stem, getpid(),
                                      std::hash<std::thread::id>{}(std::this_thread::get_id()));
  const fs::path unit = dir / (tag + ".cpp"), tmp = dir / (tag + ".so"), log = dir / (tag + ".log");
  {
    std::ofstream out(unit, std::ios::binary);
    out << request.unit;
    if (!out) throw Error(fmt::format("{}: cannot write", unit.string()));
  }
  const int rc = run_logged(command_of(request, unit.string(), tmp.string()), log.string());
  const std::string output = read_text_file(log.string());
  fs::remove(unit, ec);
  fs::remove(log, ec);
  if (rc != 0) {
    fs::remove(tmp, ec);
    throw Error(fmt::format("compile failed: {}", first_error(output)));
  }
  fs::rename(tmp, so, ec);  // atomic: a reader sees no file or a whole one
  if (ec) throw Error(fmt::format("{}: cannot store: {}", so.string(), ec.message()));
  return so.string();
}

SharedObject::SharedObject(const std::string& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) throw Error(fmt::format("{}: cannot load: {}", path, dlerror()));
}

SharedObject::~SharedObject() {
  if (handle_) dlclose(handle_);
}

void* SharedObject::symbol(const std::string& name) const {
  void* p = dlsym(handle_, name.c_str());
  if (!p) throw Error(fmt::format("{}: no symbol '{}'", path_, name));
  return p;
}

}  // namespace ktune::filefamily
