#pragma once
// The sweep driver: every (problem, config) of a workload on one backend, or on several devices
// at once, verified and timed, written to the store one measurement at a time, skipping what
// the store already holds.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/problem.hpp"
#include "ktune/store.hpp"
#include "ktune/timing.hpp"

namespace ktune {

struct Shard {
  int index = 0, count = 1;  // this process takes problems whose position % count == index
  static Shard parse(const std::string& text);  // "i/N", throws Error
};

struct SweepOptions {
  std::vector<Config> configs;  // empty = the whole space
  bool vendors = true;          // also measure vendor baselines as pseudo-configs
  Shard shard;
  TimingPolicy timing;
  std::optional<double> budget_ms;  // stop starting new measurements after this wall time
  // Called after each stored measurement (by one worker at a time when several measure).
  std::function<void(size_t done, size_t total, const Measurement& last)> on_progress;
};

struct SweepSummary {
  size_t planned = 0, skipped_existing = 0, measured = 0;
  PerStatus<size_t> by_status;
  bool budget_exhausted = false;
};

SweepSummary run_sweep(const Family& family, Backend& backend, const Workload& workload,
                       Store& store, const SweepOptions& options);

// One device of a sweep over several: `open` runs on the worker's own thread (a CUDA device is
// current per thread) and the worker measures under `slug` (shared_device_slugs, device.hpp).
struct SweepWorker {
  std::function<std::unique_ptr<Backend>()> open;
  std::string slug;  // empty: the backend's own
};

// Every worker takes problems (each a range of configs) from one queue per device slug, the
// most FLOPs first; once the queue is empty an idle worker takes the upper half of the configs
// another has left (work stealing), so the devices finish together however wrong the FLOP
// estimate. Identical devices share the sweep, a device of another slug measures the whole
// sweep itself. One store, written one measurement at a time as by run_sweep (kill-anywhere safe;
// a rerun resumes). The first worker runs on the calling thread. A worker's error stops the
// others after their current measurement and is rethrown.
SweepSummary run_sweep(const Family& family, std::vector<SweepWorker> workers,
                       const Workload& workload, Store& store, const SweepOptions& options);

// Resolves "all" or a comma-separated list of config strings/ids. Throws Error naming the
// unknown entry.
std::vector<Config> parse_config_list(const Space& space, const std::string& text);

}  // namespace ktune
