#pragma once
// bench with a search strategy. The workload's problems are the searched rows of a SearchState;
// what the store already holds for the device and family is replayed into it first (so a killed
// run resumes without repeating a measurement, and the device's other problems become prior
// data), and imported measurements of other devices are prior data too. Every new measurement
// goes to the store as soon as it is taken, verified exactly as an exhaustive sweep does.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ktune/family.hpp"
#include "ktune/search.hpp"
#include "ktune/store.hpp"
#include "ktune/timing.hpp"

namespace ktune {

struct SearchSweepOptions {
  std::vector<Config> configs;  // the candidates: the space, limited to what the device runs
  SearchBudget budget;
  bool vendors = true;  // vendor baselines, once per problem (device runs only)
  TimingPolicy timing;
  std::optional<double> budget_ms;  // stop starting new measurements after this wall time
  std::vector<Measurement> prior;   // measurements to learn from (other problems, other devices)
  std::function<void(size_t done, size_t total, const Measurement& last)> on_progress;
};

struct SearchSweepSummary {
  SearchSummary search;
  size_t replayed = 0;    // cells of the workload already in the store
  size_t prior_rows = 0;  // problems learned from but not searched
  size_t candidates = 0;  // searched (problem, config) cells
  size_t vendors = 0;     // vendor rows measured
};

// The state of a search over problems × configs for one device: `stored` (the device's rows)
// replayed into it; `prior` rows appended (the device's other problems as source 0, other devices
// as sources 1, 2, ...; a prior row of a searched problem of this device is ignored: the store
// alone says what was measured). Measurements of other families, vendors, configs outside
// `configs` and problems the family cannot parse are ignored.
SearchState make_search_state(const Family& family, const std::vector<Problem>& problems,
                              const std::vector<Config>& configs, const std::string& device,
                              const std::vector<Measurement>& stored,
                              const std::vector<Measurement>& prior);

// On a device.
SearchSweepSummary run_search_sweep(const Family& family, Backend& backend,
                                    const Workload& workload, Store& store,
                                    SearchStrategy& strategy, const SearchSweepOptions& options);

// The simulation runner: a "measurement" returns the stored one of `data` (rows of device
// `device`) exactly, and is written to `store` as a device run would write it. A problem's
// candidates are the configs `data` holds for it.
SearchSweepSummary run_search_simulation(const Family& family, const std::vector<Measurement>& data,
                                         const std::string& device, const Workload& workload,
                                         Store& store, SearchStrategy& strategy,
                                         const SearchSweepOptions& options);

}  // namespace ktune
