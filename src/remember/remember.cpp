// Tune and remember: the settings (API or environment), the answers held in memory, and the
// first call of a shape (cache file, else timing and storing). Names no family.
#include "ktune/remember.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include "src/remember/remember_cache.hpp"
#include "src/remember/remember_tune.hpp"

namespace ktune {

namespace {

// The in-memory key of an answer: the library (its version string's address: one per library
// in a process), the device (hashed) and the shape's values.
struct MemoryKey {
  const char* library;
  size_t device;
  remember::Shape shape;
  bool operator==(const MemoryKey& o) const {
    return library == o.library && device == o.device && shape.count == o.shape.count &&
           std::equal(shape.values, shape.values + shape.count, o.shape.values);
  }
};

struct MemoryKeyHash {
  size_t operator()(const MemoryKey& k) const {
    size_t h = std::hash<const char*>()(k.library) ^ (k.device * 0x9e3779b97f4a7c15ULL);
    for (int i = 0; i < k.shape.count; ++i)
      h = (h ^ size_t(k.shape.values[i])) * 0x100000001b3ULL;  // FNV-1a step per value
    return h;
  }
};

struct RememberState {
  std::mutex mutex;  // settings, the cache connection and first calls, one at a time
  RememberSettings settings;
  bool settings_read = false;
  std::unique_ptr<remember::Cache> cache;
  bool cache_failed = false;  // reported once; the selector's answers are served from then on
  std::shared_mutex memory_mutex;
  std::unordered_map<MemoryKey, int, MemoryKeyHash> memory;
};

RememberState& state() {
  static RememberState s;
  return s;
}

// -1: the environment is not read yet; 0 off; 1 on; 2 on for every shape.
std::atomic<int> g_mode{-1};

void check_settings(const RememberSettings& s) {
  if (!std::isfinite(s.budget_ms) || s.budget_ms < 0)
    throw std::invalid_argument("tune-and-remember budget " + std::to_string(s.budget_ms) +
                                " ms is not a number of milliseconds >= 0");
  if (s.candidates < 1)
    throw std::invalid_argument("tune-and-remember candidates " + std::to_string(s.candidates) +
                                " is not at least 1");
}

RememberSettings settings_from_environment() {
  RememberSettings s;
  if (const char* cache = std::getenv("KTUNE_REMEMBER")) s.cache = cache;
  if (const char* budget = std::getenv("KTUNE_REMEMBER_BUDGET_MS")) {
    char* end = nullptr;
    errno = 0;
    s.budget_ms = std::strtod(budget, &end);
    if (*budget == '\0' || *end != '\0' || errno != 0 || !std::isfinite(s.budget_ms) ||
        s.budget_ms < 0)
      throw std::invalid_argument(std::string("KTUNE_REMEMBER_BUDGET_MS: '") + budget +
                                  "' is not a number of milliseconds >= 0");
  }
  if (const char* count = std::getenv("KTUNE_REMEMBER_CANDIDATES")) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(count, &end, 10);
    if (*count == '\0' || *end != '\0' || errno != 0 || n < 1 || n > 1000)
      throw std::invalid_argument(std::string("KTUNE_REMEMBER_CANDIDATES: '") + count +
                                  "' is not a count from 1 to 1000");
    s.candidates = int(n);
  }
  if (const char* shapes = std::getenv("KTUNE_REMEMBER_SHAPES")) {
    if (std::strcmp(shapes, "all") != 0 && std::strcmp(shapes, "unsure") != 0)
      throw std::invalid_argument(std::string("KTUNE_REMEMBER_SHAPES: '") + shapes +
                                  "' is not unsure or all");
    s.all_shapes = std::strcmp(shapes, "all") == 0;
  }
  return s;
}

int mode_of(const RememberSettings& s) { return s.cache.empty() ? 0 : s.all_shapes ? 2 : 1; }

// Replaces the settings (state().mutex held): forgets the connection and the answers in memory.
void install(RememberState& st, const RememberSettings& s) {
  st.settings = s;
  st.settings_read = true;
  st.cache.reset();
  st.cache_failed = false;
  {
    std::unique_lock lock(st.memory_mutex);
    st.memory.clear();
  }
  g_mode.store(mode_of(s), std::memory_order_release);
}

// The environment's settings, read once (state().mutex held).
void read_environment(RememberState& st) {
  if (st.settings_read) return;
  RememberSettings s;
  try {
    s = settings_from_environment();
  } catch (const std::invalid_argument& e) {  // the library still serves: say why it does not tune
    std::fprintf(stderr, "ktune: %s; tune-and-remember stays off\n", e.what());
    s = RememberSettings{};
  }
  install(st, s);
}

int index_of(const remember::Library& lib, const std::string& config, int fallback) {
  for (int i = 0; i < lib.num_configs; ++i)
    if (config == lib.configs[i]) return i;
  return fallback;
}

// The answer for a problem missing from memory (state().mutex held): the cache file's, else the
// candidates timed and the winner stored; the selector's answer when the cache fails.
int first_call(RememberState& st, const remember::Library& lib, const std::string& device,
               const std::function<std::string()>& problem_text, const int* candidates, int n,
               const std::function<double(int)>& time_run, const remember::Prepare& prepare) {
  const int fallback = candidates[0];
  if (st.cache_failed) return fallback;
  try {
    if (!st.cache) st.cache = remember::Cache::open(st.settings.cache, false);
    const std::string library = std::string(lib.family) + "/" + lib.backend + "/" + lib.version;
    const std::string problem = problem_text();
    if (auto stored = st.cache->answer(device, library, problem))
      return index_of(lib, *stored, fallback);
    const int timed = std::min(n, st.settings.candidates);
    if (prepare) {  // outside the budget, which time_candidates starts
      try {
        prepare(candidates, timed);
      } catch (const remember::Abort&) {
        throw;
      } catch (const std::exception&) {  // the runs meet it again: a candidate left out
      }
    }
    std::vector<RememberedTiming> timings =
        remember::time_candidates(lib, candidates, timed, time_run, st.settings.budget_ms);
    if (timings.empty()) return fallback;  // the budget timed none: nothing to remember
    const std::string winner = remember::winner_of(timings).config;
    for (auto& t : timings) {
      t.device = device;
      t.library = library;
      t.family = lib.family;
      t.problem = problem;
    }
    return index_of(lib, st.cache->store(timings, winner), fallback);
  } catch (const remember::Abort&) {
    throw;  // the library's caller gets it; the cache is fine
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune: tune-and-remember cache %s; serving the selector's answers\n",
                 e.what());
    st.cache_failed = true;
    st.cache.reset();
  }
  return fallback;
}

}  // namespace

void remember_enable(const RememberSettings& settings) {
  check_settings(settings);
  RememberState& st = state();
  std::lock_guard lock(st.mutex);
  install(st, settings);
}

void remember_disable() { remember_enable(RememberSettings{}); }

RememberSettings remember_settings() {
  RememberState& st = state();
  std::lock_guard lock(st.mutex);
  if (!st.settings_read) install(st, settings_from_environment());  // throws for a bad value
  return st.settings;
}

std::vector<RememberedTiming> read_remembered(const std::string& cache) {
  return remember::Cache::open(cache, true)->all();
}

namespace remember {

bool enabled() {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode < 0) {
    RememberState& st = state();
    std::lock_guard lock(st.mutex);
    read_environment(st);
    mode = g_mode.load(std::memory_order_acquire);
  }
  return mode > 0;
}

bool all_shapes() { return enabled() && g_mode.load(std::memory_order_relaxed) == 2; }

int remembered(const Library& lib, const std::string& device, const Shape& shape) {
  RememberState& st = state();
  const MemoryKey key{lib.version, std::hash<std::string>()(device), shape};
  std::shared_lock lock(st.memory_mutex);
  const auto it = st.memory.find(key);
  return it == st.memory.end() ? -1 : it->second;
}

int choose(const Library& lib, const std::string& device, const Shape& shape,
           const std::function<std::string()>& problem, const int* candidates, int n,
           const std::function<void(int)>& run) {
  using Clock = std::chrono::steady_clock;
  return choose_measured(lib, device, shape, problem, candidates, n, [&](int config) {
    const auto t0 = Clock::now();
    run(config);
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  });
}

int choose_measured(const Library& lib, const std::string& device, const Shape& shape,
                    const std::function<std::string()>& problem, const int* candidates, int n,
                    const std::function<double(int)>& time_run, const Prepare& prepare) {
  if (n < 1) throw std::invalid_argument("tune-and-remember: no candidate to serve");
  if (const int pick = remembered(lib, device, shape); pick >= 0) return pick;
  RememberState& st = state();
  std::lock_guard lock(st.mutex);
  // Another thread's first call of the problem may have ended while this one waited.
  if (const int pick = remembered(lib, device, shape); pick >= 0) return pick;
  const int pick = first_call(st, lib, device, problem, candidates, n, time_run, prepare);
  std::unique_lock memory_lock(st.memory_mutex);
  st.memory.emplace(MemoryKey{lib.version, std::hash<std::string>()(device), shape}, pick);
  return pick;
}

const std::string& host_device() {
  static const std::string name = [] {
    std::string model = "unknown CPU";
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
      if (line.rfind("model name", 0) != 0) continue;
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
    return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
  }();
  return name;
}

std::string cuda_device(const char* name, int sm_count, int cc_major, int cc_minor) {
  return std::string(name && *name ? name : "unknown CUDA device") + " (" +
         std::to_string(sm_count) + " SMs, cc " + std::to_string(cc_major) + "." +
         std::to_string(cc_minor) + ")";
}

}  // namespace remember
}  // namespace ktune
