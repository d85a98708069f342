#pragma once
// Tune and remember (docs/deploy.md): a deployed library that meets a shape its selector is
// unsure about times its top few candidates on that first call and keeps the winner in a cache
// file (SQLite) keyed by device, library version and shape; later calls, and other processes,
// serve the remembered answer. Off by default; on by remember_enable() or the environment:
//   KTUNE_REMEMBER=<cache file>        turns it on (created if missing)
//   KTUNE_REMEMBER_BUDGET_MS=<ms>      bounds the time one first call spends timing (default 100)
//   KTUNE_REMEMBER_CANDIDATES=<n>      how many candidates are timed (default 3)
//   KTUNE_REMEMBER_SHAPES=unsure|all   which shapes are tuned (default unsure)
// The library-independent runtime behind every family's deployed library (ktune_remember);
// C++17.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ktune {

struct RememberSettings {
  std::string cache;        // the cache file; "" turns tune-and-remember off
  double budget_ms = 100;   // at most this long timing candidates on one first call
  int candidates = 3;       // how many of the shipped safe order to time
  bool all_shapes = false;  // tune every new shape, not only those the selector is unsure of
};

// Turns tune-and-remember on with these settings (replacing the environment's), or off when
// settings.cache is empty. Throws std::invalid_argument for a budget that is not a finite number
// >= 0 or fewer than 1 candidate. Answers remembered in memory are forgotten.
void remember_enable(const RememberSettings& settings);
void remember_disable();
// The settings in force (the environment's until remember_enable or remember_disable); throws
// std::invalid_argument naming the variable for an unusable environment value.
RememberSettings remember_settings();

// One remembered measurement, as the cache holds it (ktune import --remembered reads these).
struct RememberedTiming {
  std::string device, library, family, problem, config;  // config: the shipped config string
  double median_ms = 0, min_ms = 0, max_ms = 0, mad_ms = 0;
  int reps = 0;
  bool winner = false;  // the answer served for this (device, library, problem)
  std::string created_at;
};
// Every timing in a cache file; throws std::runtime_error naming the file when it cannot be
// read as a cache. Opens it read-only: nothing is altered.
std::vector<RememberedTiming> read_remembered(const std::string& cache);

namespace remember {

// What a deployed library tells the runtime about itself. `version` changes whenever what it
// ships does (the selector header's hash), so that no answer outlives its library.
struct Library {
  const char* family;   // the family's name
  const char* backend;  // "cpu"; "cuda", or per precision and C type ("cuda-bf16-c16")
  const char* version;
  int num_configs;
  const char* const* configs;
};

// A problem's integer features: the in-memory key (the cache file keys the problem text).
struct Shape {
  static constexpr int kMax = 16;
  int64_t values[kMax] = {};
  int count = 0;
};

// Whether tune-and-remember is on (a relaxed atomic load once the environment was read).
bool enabled();
// Whether shapes the selector is sure about are tuned too (KTUNE_REMEMBER_SHAPES=all).
bool all_shapes();

// The config (index into lib.configs) to serve for a problem: the remembered answer when there
// is one; else candidates[0 .. n) (first: the selector's answer, then the shipped safe order)
// are timed with the measurement protocol's repetition rule, run(i) running config i once on
// the caller's inputs into scratch outputs, within the budget; the fastest (ties: the smaller
// config string) is stored unless another thread or process stored one first, and the stored
// one is served. A cache that cannot be opened or written prints one line naming the file to
// stderr, is left as it is, and the selector's answer (candidates[0]) is served from then on.
int choose(const Library& lib, const std::string& device, const Shape& shape,
           const std::function<std::string()>& problem, const int* candidates, int n,
           const std::function<void(int)>& run);

// choose() for a library that times its runs itself (a GPU's by CUDA events on the caller's
// stream, ktune/cuda/remember_cuda.hpp): time_run(i) runs config i once on the caller's inputs into
// scratch outputs and returns its milliseconds. The same repetition rule, budget (on the wall
// clock) and winner rule as choose(); choose() is this with time_run timing run() on the host's
// steady clock. prepare(timed, count), when given, runs once on a first call that will time
// candidates (no answer in memory or in the cache), before the budget starts, with the candidates
// that will be timed: a library's one-time setup that a timed run should not pay (a vendor's
// search of the problem). An exception from it other than Abort is left to the runs to meet.
using Prepare = std::function<void(const int* timed, int count)>;
int choose_measured(const Library& lib, const std::string& device, const Shape& shape,
                    const std::function<std::string()>& problem, const int* candidates, int n,
                    const std::function<double(int)>& time_run, const Prepare& prepare = {});

// Thrown by a run to end a first call at once (a CUDA context that an earlier run broke, where
// every later run would fail too): nothing more is timed, nothing is stored or remembered, and
// the exception reaches the library's caller. Any other exception leaves only that candidate out.
struct Abort : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The answer this process holds in memory for the problem, or -1: choose()'s first step, which a
// library calls before building choose()'s callbacks.
int remembered(const Library& lib, const std::string& device, const Shape& shape);

// A first call's candidates, each once: the selector's pick, then `early` (a config the library
// times whatever the safe order says, such as its shipped vendor call; -1 for none), then the
// shipped safe order (a permutation of the num_configs configs). out holds num_configs entries;
// returns how many it got. Shared by every family's deployed library.
inline int candidate_order(int pick, const int* safe_order, int num_configs, int* out,
                           int early = -1) {
  int n = 0;
  out[n++] = pick;
  if (early >= 0 && early != pick && n < num_configs) out[n++] = early;
  for (int i = 0; i < num_configs && n < num_configs; ++i)
    if (safe_order[i] != pick && safe_order[i] != early) out[n++] = safe_order[i];
  return n;
}

// This host as the cache keys it: the CPU's model name and its hardware threads.
const std::string& host_device();

// A CUDA device as the cache keys it: "<name> (<sms> SMs, cc <major>.<minor>)" (the library
// queries the properties: ktune/cuda/remember_cuda.hpp).
std::string cuda_device(const char* name, int sm_count, int cc_major, int cc_minor);

}  // namespace remember
}  // namespace ktune
