#pragma once
// The search options of `ktune bench` (--strategy, --budget, --total-budget, --seed, --prior,
// --simulate): the strategy the one sweep driver (run_sweep) runs, its budget and prior data,
// and with --simulate the replay of a stored dataset it runs on instead of a device.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ktune/bench.hpp"
#include "ktune/family.hpp"
#include "ktune/search.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {

struct BenchSearchArgs {
  std::string strategy = "exhaustive", budget;
  int64_t total_budget = 0;
  uint64_t seed = 0;
  std::vector<std::string> prior;  // imported measurement files (other devices)
  std::string simulate;            // a stored dataset answering instead of the device

  void add_options(CLI::App& app);
  // Whether the request is more than a plain exhaustive sweep (then bench prints the search's
  // own lines).
  bool active() const {
    return strategy != "exhaustive" || !budget.empty() || total_budget != 0 || !simulate.empty();
  }
};

// Sets the sweep's strategy (owned by the returned pointer, which must outlive the sweep; nullptr
// for exhaustive, the driver's default), its budget and prior data; throws Error naming a bad
// option, before any store is opened.
std::unique_ptr<SearchStrategy> configure_search(const BenchSearchArgs& args, const Family& family,
                                                 SweepOptions& sweep);

// --simulate: the replay of the dataset's rows of `device`, or of its only device of the family
// when it has no rows of `device`; throws Error when they hold none of the workload's problems.
std::unique_ptr<Backend> open_simulation(const BenchSearchArgs& args, const Family& family,
                                         const std::string& device, const Workload& workload);

// The search's lines before and after the sweep.
void print_search_header(const BenchSearchArgs& args, const Family& family,
                         const DeviceInfo& device, const Workload& workload,
                         const std::string& store);
void print_search_summary(const SweepSummary& s, size_t workload_problems, const Shard& shard);

}  // namespace ktune::cli
