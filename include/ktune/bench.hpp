#pragma once
// The one sweep driver: a search strategy (search.hpp; exhaustive by default: every config)
// over a workload's problems on one backend, on several devices at once, or on a replay of
// stored measurements (replay.hpp), each measurement verified and timed and written to the store
// as soon as it is taken; what the store already holds counts as measured.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_budget.hpp"
#include "ktune/store.hpp"
#include "ktune/timing.hpp"

namespace ktune {

class SearchStrategy;  // search.hpp

struct Shard {
  int index = 0, count = 1;  // this process takes problems whose position % count == index
  static Shard parse(const std::string& text);  // "i/N", throws Error
};

struct SweepOptions {
  std::vector<Config> configs;  // empty = the whole space
  bool vendors = true;          // also measure vendor baselines as pseudo-configs (once a problem)
  Shard shard;
  TimingPolicy timing;
  std::optional<double> budget_ms;  // stop starting new measurements after this wall time
  // Which configs each problem measures, in rounds (not owned; called by one worker at a time).
  // nullptr: exhaustive, every config in one round.
  SearchStrategy* strategy = nullptr;
  SearchBudget budget;  // per problem (stored measurements count against it) and in total
  // Measurements to learn from besides the store (other devices); exhaustive ignores them.
  std::vector<Measurement> prior;
  // Called after each stored measurement (by one worker at a time when several measure).
  std::function<void(size_t done, size_t total, const Measurement& last)> on_progress;
};

struct SweepSummary {
  // planned: configs the budget allows over the searched problems; skipped_existing: of those,
  // already stored; measured: new rows (vendors among them, the rest configs).
  size_t planned = 0, skipped_existing = 0, measured = 0;
  size_t vendors = 0, vendors_ok = 0;
  PerStatus<size_t> by_status;
  size_t rounds = 0;              // search rounds started (exhaustive: 1 while anything was left)
  size_t candidates = 0;          // (problem, config) cells the searches could measure
  size_t prior_rows = 0;          // problems learned from but not searched
  bool budget_exhausted = false;  // the wall-time budget (budget_ms)
  bool total_exhausted = false;   // the total budget of new config measurements
};

SweepSummary run_sweep(const Family& family, Backend& backend, const Workload& workload,
                       Store& store, const SweepOptions& options);

// One device of a sweep over several: `open` runs on the worker's own thread (a CUDA device is
// current per thread) and the worker measures under `slug` (shared_device_slugs, device.hpp).
struct SweepWorker {
  std::function<std::unique_ptr<Backend>()> open;
  std::string slug;  // empty: the backend's own
};

// Every worker takes problems (each a range of a round's configs) from one queue per device slug,
// the most FLOPs first; once the queue is empty an idle worker takes the upper half of the
// configs another has left (work stealing), so the devices finish together however wrong the
// FLOP estimate; the next round starts when the last of this one is stored. Identical devices
// share the sweep, a device of another slug runs the whole search itself. One store, written one
// measurement at a time (kill-anywhere safe; a rerun resumes and measures nothing twice). The
// first worker runs on the calling thread. A worker's error stops the others after their current
// measurement and is rethrown.
SweepSummary run_sweep(const Family& family, std::vector<SweepWorker> workers,
                       const Workload& workload, Store& store, const SweepOptions& options);

// Resolves "all" or a comma-separated list of config strings/ids. Throws Error naming the
// unknown entry.
std::vector<Config> parse_config_list(const Space& space, const std::string& text);

}  // namespace ktune
