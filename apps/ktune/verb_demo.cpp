// ktune demo: a short CPU sweep over a handful of DNN GEMM shapes, then the best config per
// shape against OpenBLAS. Resumable: rerunning continues the same default store.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "apps/ktune/progress.hpp"
#include "apps/ktune/verb.hpp"
#include "kernels/gemm/gemm_family.hpp"
#include "ktune/bench.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct DemoOptions {
  std::string store = "ktune-demo.sqlite";
  double budget_s = 170;
};

// Two ResNet-50 and two MobileNet shapes (21-26 MFLOP each): small enough that all 640 configs
// fit the time budget on a 2-core machine, different enough that different configs win.
Workload demo_workload(const Family& family) {
  Workload w;
  w.name = "demo";
  const double shapes[][6] = {{0, 0, 64, 3136, 64, 1},
                              {0, 0, 512, 196, 128, 1},
                              {0, 0, 32, 12321, 27, 1},
                              {0, 0, 32, 27, 12321, 1}};
  for (const auto& s : shapes) w.problems.push_back(family.make_problem({s, s + 6}));
  return w;
}

int run_demo(const DemoOptions& o) {
  const Family& family = find_family("gemm");
  const Workload workload = demo_workload(family);
  auto backend = open_backend(family, "cpu");
  Store store(o.store);
  SweepOptions sweep;
  sweep.budget_ms = o.budget_s * 1000;
  sweep.timing.min_reps = 2;
  sweep.timing.budget_ms = 5;
  fmt::print("ktune demo: sweeping {} GEMM configs over {} DNN shapes on {} ({}), store {}\n",
             family.space().enumerate().size(), workload.problems.size(), backend->device().name,
             backend->device().slug, o.store);
  Progress progress("demo");
  sweep.on_progress = [&](size_t done, size_t total, const Measurement& m) {
    progress.update(done, total, m.config);
  };
  const SweepSummary s = run_sweep(family, *backend, workload, store, sweep);
  progress.finish();

  struct Row {
    std::string best;
    double best_perf = 0, vendor_perf = 0;
    int configs_ok = 0;
  };
  std::map<std::string, Row> rows;
  for (const auto& m : store.query(backend->device().slug, family.name())) {
    Row& r = rows[m.problem];
    if (m.config_id < 0) {
      r.vendor_perf = m.perf;
    } else if (m.outcome.status == Status::ok) {
      ++r.configs_ok;
      if (m.perf > r.best_perf) r.best_perf = m.perf, r.best = m.config;
    }
  }
  fmt::print(
      "\n| shape (m×n×k, batch) | best config | GFLOP/s | OpenBLAS GFLOP/s | ratio | configs ok "
      "|\n");
  fmt::print("|---|---|---:|---:|---:|---:|\n");
  for (const auto& p : workload.problems) {
    const Row& r = rows[p.key()];
    const gemm::Shape sh = gemm::shape_of(p);
    fmt::print("| {}×{}×{}, {} | {} | {:.1f} | {:.1f} | {} | {} |\n", sh.m, sh.n, sh.k, sh.batch,
               r.best.empty() ? "-" : r.best, r.best_perf, r.vendor_perf,
               r.vendor_perf > 0 ? fmt::format("{:.2f}", r.best_perf / r.vendor_perf) : "-",
               r.configs_ok);
  }
  if (s.budget_exhausted)
    fmt::print(
        "\nTime budget reached before every config was measured: rerun `ktune demo` to "
        "continue from the store.\n");
  return 0;
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<DemoOptions>();
  app.add_option("--store", o->store, "Store the demo sweeps into (resumed when present)")
      ->capture_default_str();
  app.add_option("--budget-s", o->budget_s, "Sweep time budget in seconds")->capture_default_str();
  return [o] { return run_demo(*o); };
}

const bool registered = add_verb("demo", "Short CPU sweep of DNN GEMM shapes vs OpenBLAS", setup);

}  // namespace
}  // namespace ktune::cli
