#pragma once
// The sweep driver: every (problem, config) of a workload on one backend, verified and timed,
// written to the store one measurement at a time, skipping what the store already holds.
#include <cstdint>
#include <functional>
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
  std::function<void(size_t done, size_t total, const Measurement& last)> on_progress;
};

struct SweepSummary {
  size_t planned = 0, skipped_existing = 0, measured = 0;
  PerStatus<size_t> by_status;
  bool budget_exhausted = false;
};

SweepSummary run_sweep(const Family& family, Backend& backend, const Workload& workload,
                       Store& store, const SweepOptions& options);

// Resolves "all" or a comma-separated list of config strings/ids. Throws Error naming the
// unknown entry.
std::vector<Config> parse_config_list(const Space& space, const std::string& text);

}  // namespace ktune
