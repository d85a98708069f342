// `ktune bench --strategy random|model --budget B`: a search over the workload instead of the
// whole space, on a device or (--simulate) against a stored dataset.
#include "apps/ktune/bench_search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "apps/ktune/progress.hpp"
#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/search_model.hpp"
#include "ktune/search_bench.hpp"
#include "ktune/store.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

// The one loader; its errors name the option too.
std::vector<Measurement> read_measurements(const std::string& path, const char* option) {
  try {
    return load_measurements(path);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", option, e.what()));
  }
}

}  // namespace

void BenchSearchArgs::add_options(CLI::App& app) {
  app.add_option("--strategy", strategy,
                 "exhaustive (every config), random (seeded) or model (forest-guided rounds)")
      ->capture_default_str();
  app.add_option("--budget", budget,
                 "Configs measured per problem: a count, or a percentage of the space ('5%'); "
                 "measurements already stored count against it");
  app.add_option("--total-budget", total_budget, "New config measurements in this run at most");
  app.add_option("--seed", seed, "Seed of the random and model strategies")->capture_default_str();
  app.add_option("--prior", prior,
                 "Measurements of other devices to learn from (model): store, CSV or T4; "
                 "repeatable");
  app.add_option("--simulate", simulate,
                 "Answer each measurement from this stored dataset (store, CSV or T4) instead of "
                 "the device; --device then names the dataset's device slug");
}

int run_bench_search(const BenchTarget& t, const BenchSearchArgs& a) {
  // Validate every input before the store is opened, so a bad argument never touches it.
  const Family& family = find_family(t.family);
  const Workload workload = load_workload(family, t.workload);
  ml::ModelStrategyOptions mo;
  mo.seed = a.seed;
  auto strategy = ml::make_search_strategy(a.strategy, mo);
  if (a.total_budget < 0) throw Error(fmt::format("--total-budget {} is negative", a.total_budget));
  SearchSweepOptions o;
  o.budget = a.budget.empty() ? SearchBudget{} : SearchBudget::parse(a.budget);
  o.budget.total = a.total_budget;
  o.configs = parse_config_list(family.space(), t.configs);
  o.vendors = t.vendors;
  o.timing = t.timing;
  if (t.budget_ms > 0) o.budget_ms = t.budget_ms;
  for (const auto& p : a.prior) {
    auto ms = read_measurements(p, "--prior");
    // Another family's measurements teach the model nothing about this one's configs.
    std::set<std::string> families;
    for (const auto& m : ms) families.insert(m.family);
    if (!families.count(family.name()))
      throw Error(fmt::format("--prior '{}' holds no {} measurements (families: {})", p,
                              family.name(), fmt::join(families, ", ")));
    o.prior.insert(o.prior.end(), std::make_move_iterator(ms.begin()),
                   std::make_move_iterator(ms.end()));
  }
  std::vector<Measurement> simulated;
  std::unique_ptr<Backend> backend;
  std::string device = t.device;
  if (!a.simulate.empty()) {
    simulated = read_measurements(a.simulate, "--simulate");
    std::set<std::string> devices;  // --device names one of them, or the only one is taken
    for (const auto& m : simulated)
      if (m.family == family.name()) devices.insert(m.device);
    if (!devices.count(device)) {
      if (devices.size() != 1)
        throw Error(fmt::format("--simulate: '{}' holds no {} rows of device '{}' (present: {})",
                                a.simulate, family.name(), device, fmt::join(devices, ", ")));
      device = *devices.begin();
    }
    // A dataset of other problems would answer nothing: the run would end having measured 0.
    std::set<std::string> problems;
    for (const auto& m : simulated)
      if (m.family == family.name() && m.device == device) problems.insert(m.problem);
    const bool any = std::any_of(workload.problems.begin(), workload.problems.end(),
                                 [&](const Problem& p) { return problems.count(p.key()) > 0; });
    if (!any)
      throw Error(
          fmt::format("--simulate: '{}' holds no rows of device '{}' for the {} problems "
                      "of workload {}",
                      a.simulate, device, workload.problems.size(), workload.name));
  } else {
    parse_device_spec(t.device);
    backend = open_backend(family, t.device);
  }
  Store store(t.store);
  fmt::print(stderr,
             "ktune bench: {} strategy, budget {} per problem{}, {} on {}{}, workload {} "
             "({} problems), store {}\n",
             strategy->name(), a.budget.empty() ? "all" : a.budget,
             a.total_budget ? fmt::format(" and {} in total", a.total_budget) : "", family.name(),
             backend ? backend->device().slug : device,
             backend ? "" : fmt::format(" (simulated from {})", a.simulate), workload.name,
             workload.problems.size(), t.store);
  Progress progress("bench");
  o.on_progress = [&](size_t done, size_t total, const Measurement& m) {
    std::string last = fmt::format("{} {}", m.config, to_string(m.outcome.status));
    if (m.perf > 0) last = fmt::format("{} {:.1f}", m.config, m.perf);
    progress.update(done, total, last);
  };
  const SearchSweepSummary s =
      backend ? run_search_sweep(family, *backend, workload, store, *strategy, o)
              : run_search_simulation(family, simulated, device, workload, store, *strategy, o);
  progress.finish();
  fmt::print(
      "{} problems x {} candidate configs: already stored {}, measured {} (ok {}) in {} rounds, "
      "vendor rows {}, prior problems {}{}\n",
      workload.problems.size(), s.candidates / std::max<size_t>(1, workload.problems.size()),
      s.replayed, s.search.measured, s.search.ok, s.search.rounds, s.vendors, s.prior_rows,
      s.search.total_exhausted ? "; total budget reached, rerun to continue"
      : s.search.stopped       ? "; time budget reached, rerun to continue"
                               : "");
  return 0;
}

}  // namespace ktune::cli
