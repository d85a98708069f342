#pragma once
// What the tune-and-remember overhead programs share (remember_overhead.cpp on the CPU,
// remember_overhead_cuda.cpp on the GPU): their options, the fresh cache files they start from,
// and the per-call time of a loop of calls.
//   [--cache DIR] [--budget-ms 100] [--candidates 3]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ktune/remember.hpp"
#include "ktune/timing_loop.hpp"

namespace remember_overhead {

using Clock = std::chrono::steady_clock;

struct Setup {
  std::string dir;                   // where the cache files go
  ktune::RememberSettings settings;  // every shape tuned (KTUNE_REMEMBER_SHAPES=all)
  bool own_dir = false;              // created here: removed at the end (finish)
};

// The options; exits 1 naming an unknown one. Creates the cache folder.
inline Setup setup(int argc, char** argv, const std::string& name) {
  Setup s;
  s.dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()));
  s.settings.all_shapes = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--cache")
      s.dir = argv[i + 1];
    else if (flag == "--budget-ms")
      s.settings.budget_ms = std::strtod(argv[i + 1], nullptr);
    else if (flag == "--candidates")
      s.settings.candidates = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
      std::exit(1);
    }
  }
  s.own_dir = !std::filesystem::exists(s.dir);
  std::filesystem::create_directories(s.dir);
  return s;
}

inline void finish(const Setup& s) {
  if (s.own_dir) std::filesystem::remove_all(s.dir);
}

inline std::string fresh_cache(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Median over `rounds` rounds of the time per call of `calls` calls of f, each round ended by
// end_round() (a GPU's synchronization), in milliseconds times `scale` (1e6: ns, 1e3: us).
template <typename F, typename End>
double per_call(F&& f, End&& end_round, int calls, double scale, int rounds = 15) {
  std::vector<double> t;
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    end_round();
    t.push_back(ms_since(start) * scale / calls);
  }
  return ktune::median_of_samples(t);
}

}  // namespace remember_overhead
