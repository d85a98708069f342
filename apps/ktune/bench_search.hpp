#pragma once
// The search options of `ktune bench` (--strategy, --budget, --total-budget, --seed, --prior,
// --simulate) and the run they select: verb_bench.cpp adds the options and hands over to
// run_bench_search when a strategy other than a plain exhaustive sweep is asked for.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/timing.hpp"

namespace ktune::cli {

struct BenchSearchArgs {
  std::string strategy = "exhaustive", budget;
  int64_t total_budget = 0;
  uint64_t seed = 0;
  std::vector<std::string> prior;  // imported measurement files (other devices)
  std::string simulate;            // a stored dataset answering instead of the device

  void add_options(CLI::App& app);
  // Whether the plain exhaustive sweep (run_sweep) does not cover the request.
  bool active() const {
    return strategy != "exhaustive" || !budget.empty() || total_budget != 0 || !simulate.empty();
  }
};

struct BenchTarget {
  std::string family, device, workload, store, configs;
  bool vendors = true;
  TimingPolicy timing;
  double budget_ms = 0;  // > 0: stop starting measurements after this wall time
};

int run_bench_search(const BenchTarget& target, const BenchSearchArgs& search);

}  // namespace ktune::cli
