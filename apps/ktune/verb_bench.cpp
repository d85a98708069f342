// ktune bench: sweep a family's configs over a workload on a device into a store, every config or
// those a search strategy picks (bench_search.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "apps/ktune/bench_search.hpp"
#include "apps/ktune/device_list.hpp"
#include "apps/ktune/progress.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/bench.hpp"
#include "ktune/error.hpp"
#include "ktune/file_family.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct BenchOptions {
  std::string family = "gemm", device = "cpu", workload, store, configs = "all", shard = "0/1";
  std::string family_file;  // a tuning-problem file: its family, and its workload by default
  std::optional<double> budget_ms;
  bool no_vendors = false;
  TimingPolicy timing;
  BenchSearchArgs search;  // --strategy, --budget, ... (bench_search.cpp)
};

// Counts must be whole and at least `least`; times finite and positive. The error names the
// option, so a typo such as --max-reps 0 never turns into stored measurements.
void check_timing_options(const BenchOptions& o) {
  auto count = [](const char* option, int value, int least) {
    if (value < least) throw Error(fmt::format("{}: {} is not at least {}", option, value, least));
  };
  auto time = [](const char* option, double value) {
    if (!std::isfinite(value) || value <= 0)
      throw Error(fmt::format("{}: {} is not a positive number of milliseconds", option, value));
  };
  count("--warmups", o.timing.warmups, 0);  // 0: the verification run is the only warm-up
  count("--min-reps", o.timing.min_reps, 1);
  count("--max-reps", o.timing.max_reps, std::max(1, o.timing.min_reps));
  time("--rep-budget-ms", o.timing.budget_ms);
  time("--timeout-ms", o.timing.timeout_ms);
  if (o.budget_ms) time("--budget-ms", *o.budget_ms);
}

// The workers of a sweep over several devices: the first device's backend is the one already
// opened (and checked) on this thread; the others open on their workers' threads.
std::vector<SweepWorker> device_workers(const Family& family, const std::vector<std::string>& specs,
                                        std::unique_ptr<Backend> first) {
  const std::vector<std::string> slugs = shared_device_slugs(describe_devices(specs));
  auto opened = std::make_shared<std::unique_ptr<Backend>>(std::move(first));
  std::vector<SweepWorker> workers;
  for (size_t i = 0; i < specs.size(); ++i) {
    SweepWorker w;
    w.slug = slugs[i];
    if (i == 0)
      w.open = [opened] { return std::move(*opened); };
    else
      w.open = [&family, spec = specs[i]] { return open_backend(family, spec); };
    workers.push_back(std::move(w));
  }
  return workers;
}

int run_bench(BenchOptions o) {
  if (!o.family_file.empty()) {
    o.family = register_file_family(o.family_file);
    if (o.workload.empty()) o.workload = "file";
  }
  if (o.workload.empty()) throw Error("--workload is required");
  // Validate every input before the store is opened, so a bad argument never touches it.
  // --simulate: --device names the dataset's device, not one of this host.
  const std::vector<std::string> devices =
      o.search.simulate.empty() ? expand_device_list(o.device) : std::vector{o.device};
  check_timing_options(o);
  const Family& family = find_family(o.family);
  const Workload workload = load_workload(family, o.workload);
  SweepOptions sweep;
  const auto strategy = configure_search(o.search, family, sweep);  // --strategy, --budget, ...
  sweep.configs = parse_config_list(family.space(), o.configs);
  sweep.shard = Shard::parse(o.shard);
  sweep.vendors = !o.no_vendors;
  sweep.timing = o.timing;
  sweep.budget_ms = o.budget_ms;
  auto backend = o.search.simulate.empty() ? open_backend(family, devices.front())
                                           : open_simulation(o.search, family, o.device, workload);
  // Only the kinds this device has kernels for (run_sweep filters too; here the count printed
  // below is right and a list naming none of them fails before the store is touched).
  if (sweep.configs.empty()) sweep.configs = family.space().enumerate();
  std::erase_if(sweep.configs, [&](const Config& c) { return !backend->implements(c); });
  if (sweep.configs.empty())
    throw Error(fmt::format("none of the requested {} configs has a kernel on device '{}'",
                            family.name(), backend->device().slug));
  Store store(o.store);

  if (o.search.active())
    print_search_header(o.search, family, backend->device(), workload, o.store);
  else
    fmt::print(stderr,
               "ktune bench: {} on {} ({}{}), workload {} ({} problems), {} configs, store {}\n",
               family.name(), backend->device().slug, backend->device().name,
               devices.size() > 1 ? fmt::format(", {} devices: {}", devices.size(), o.device) : "",
               workload.name, workload.problems.size(), sweep.configs.size(), o.store);
  Progress progress("bench");
  sweep.on_progress = [&](size_t done, size_t total, const Measurement& m) {
    std::string last = fmt::format("{} {}", m.config, to_string(m.outcome.status));
    if (m.perf > 0) last = fmt::format("{} {:.1f} GFLOP/s", m.config, m.perf);
    progress.update(done, total, last);
  };
  const SweepSummary s =
      devices.size() == 1 ? run_sweep(family, *backend, workload, store, sweep)
                          : run_sweep(family, device_workers(family, devices, std::move(backend)),
                                      workload, store, sweep);
  progress.finish();
  if (o.search.active()) {
    print_search_summary(s, workload.problems.size(), sweep.shard);
    return 0;
  }
  fmt::print(
      "planned {}, already stored {}, measured {} (ok {}, refused {}, failed {}, wrong {}, "
      "timeout {}){}\n",
      s.planned, s.skipped_existing, s.measured, s.by_status[Status::ok],
      s.by_status[Status::refused], s.by_status[Status::failed], s.by_status[Status::wrong],
      s.by_status[Status::timeout],
      s.budget_exhausted ? "; time budget reached, rerun to continue" : "");
  return 0;
}

void bench_options(CLI::App& app, BenchOptions& o) {
  auto* family = app.add_option("--family", o.family, "Kernel family")->capture_default_str();
  app.add_option("--family-file", o.family_file,
                 "A tuning-problem file (docs/own-kernels.md) instead of --family; its workload "
                 "unless --workload")
      ->excludes(family);
  app.add_option("--device", o.device,
                 "cpu, cuda:N, or several GPUs of this host sharing the sweep: cuda:all, cuda:0,1")
      ->capture_default_str();
  app.add_option("--workload", o.workload, "Built-in workload (dnn, dnn-small, tiny) or CSV file");
  app.add_option("--store", o.store, "SQLite tuning store (created when absent)")->required();
  app.add_option(
         "--configs", o.configs,
         "all, or a comma-separated list of configs, ids or kind:NAME (every config of a kind)")
      ->capture_default_str();
  app.add_option("--shard", o.shard, "Take problems i, i+N, ... of the workload (i/N)")
      ->capture_default_str();
  app.add_option("--budget-ms", o.budget_ms, "Stop starting measurements after this wall time");
  app.add_flag("--no-vendors", o.no_vendors, "Skip the vendor library baselines");
  app.add_option("--warmups", o.timing.warmups,
                 "Untimed runs after the verification run (which already warms up)")
      ->capture_default_str();
  app.add_option("--min-reps", o.timing.min_reps, "Timed runs at least")->capture_default_str();
  app.add_option("--max-reps", o.timing.max_reps, "Timed runs at most (at least --min-reps)")
      ->capture_default_str();
  app.add_option("--rep-budget-ms", o.timing.budget_ms,
                 "Repeat until this much time was timed (after --min-reps)")
      ->capture_default_str();
  app.add_option("--timeout-ms", o.timing.timeout_ms, "One run longer than this is a timeout")
      ->capture_default_str();
  o.search.add_options(app);
}

const bool verb_bench_registered =
    add_verb("bench", "Verify and time every config of a family over a workload into a store",
             bench_options, run_bench);

}  // namespace
}  // namespace ktune::cli
