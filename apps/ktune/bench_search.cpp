// `ktune bench --strategy random|model --budget B`: a search over the workload instead of the
// whole space, on a device or (--simulate) against a stored dataset; run_sweep runs it.
#include "apps/ktune/bench_search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "ktune/error.hpp"
#include "ktune/interchange.hpp"
#include "ktune/ml/search_model.hpp"
#include "ktune/replay.hpp"

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

std::unique_ptr<SearchStrategy> configure_search(const BenchSearchArgs& a, const Family& family,
                                                 SweepOptions& sweep) {
  ml::ModelStrategyOptions mo;
  mo.seed = a.seed;
  auto strategy = ml::make_search_strategy(a.strategy, mo);
  if (a.total_budget < 0) throw Error(fmt::format("--total-budget {} is negative", a.total_budget));
  sweep.budget = a.budget.empty() ? SearchBudget{} : SearchBudget::parse(a.budget);
  sweep.budget.total = a.total_budget;
  for (const auto& p : a.prior) {
    auto ms = read_measurements(p, "--prior");
    // Another family's measurements teach the model nothing about this one's configs.
    std::set<std::string> families;
    for (const auto& m : ms) families.insert(m.family);
    if (!families.count(family.name()))
      throw Error(fmt::format("--prior '{}' holds no {} measurements (families: {})", p,
                              family.name(), fmt::join(families, ", ")));
    sweep.prior.insert(sweep.prior.end(), std::make_move_iterator(ms.begin()),
                       std::make_move_iterator(ms.end()));
  }
  if (a.strategy == "exhaustive") return nullptr;  // run_sweep's default
  sweep.strategy = strategy.get();
  return strategy;
}

std::unique_ptr<Backend> open_simulation(const BenchSearchArgs& a, const Family& family,
                                         const std::string& device, const Workload& workload) {
  std::vector<Measurement> data = read_measurements(a.simulate, "--simulate");
  std::set<std::string> devices;  // --device names one of them, or the only one is taken
  for (const auto& m : data)
    if (m.family == family.name()) devices.insert(m.device);
  std::string slug = device;
  if (!devices.count(slug)) {
    if (devices.size() != 1)
      throw Error(fmt::format("--simulate: '{}' holds no {} rows of device '{}' (present: {})",
                              a.simulate, family.name(), device, fmt::join(devices, ", ")));
    slug = *devices.begin();
  }
  // A dataset of other problems would answer nothing: the run would end having measured 0.
  std::set<std::string> problems;
  for (const auto& m : data)
    if (m.family == family.name() && m.device == slug) problems.insert(m.problem);
  const bool any = std::any_of(workload.problems.begin(), workload.problems.end(),
                               [&](const Problem& p) { return problems.count(p.key()) > 0; });
  if (!any)
    throw Error(
        fmt::format("--simulate: '{}' holds no rows of device '{}' for the {} problems "
                    "of workload {}",
                    a.simulate, slug, workload.problems.size(), workload.name));
  return std::make_unique<ReplayBackend>(family, std::move(data), slug);
}

void print_search_header(const BenchSearchArgs& a, const Family& family, const DeviceInfo& device,
                         const Workload& workload, const std::string& store) {
  fmt::print(stderr,
             "ktune bench: {} strategy, budget {} per problem{}, {} on {}{}, workload {} "
             "({} problems), store {}\n",
             a.strategy, a.budget.empty() ? "all" : a.budget,
             a.total_budget ? fmt::format(" and {} in total", a.total_budget) : "", family.name(),
             device.slug, a.simulate.empty() ? "" : fmt::format(" (simulated from {})", a.simulate),
             workload.name, workload.problems.size(), store);
}

void print_search_summary(const SweepSummary& s, size_t workload_problems, const Shard& shard) {
  size_t problems = 0;  // this shard's
  for (size_t i = 0; i < workload_problems; ++i)
    problems += int(i % size_t(shard.count)) == shard.index;
  fmt::print(
      "{} problems x {} candidate configs: already stored {}, measured {} (ok {}) in {} rounds, "
      "vendor rows {}, prior problems {}{}\n",
      problems, s.candidates / std::max<size_t>(1, problems), s.skipped_existing,
      s.measured - s.vendors, s.by_status[Status::ok] - s.vendors_ok, s.rounds, s.vendors,
      s.prior_rows,
      s.total_exhausted    ? "; total budget reached, rerun to continue"
      : s.budget_exhausted ? "; time budget reached, rerun to continue"
                           : "");
}

}  // namespace ktune::cli
