// ktune retime: a sweep's close calls timed again in rotating interleaved rounds (retime.hpp),
// the pooled rows written over the stored ones, the originals kept (Store::supersede).
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "apps/ktune/progress.hpp"
#include "apps/ktune/verb.hpp"
#include "ktune/error.hpp"
#include "ktune/retime.hpp"
#include "ktune/workload.hpp"

namespace ktune::cli {
namespace {

struct RetimeArgs {
  std::string family = "gemm", device = "cpu", workload, store;
  RetimeOptions retime;
  int reps = 3;  // timed runs per turn
};

// Every input checked before the store is opened; each error names its option.
void check_retime_args(const RetimeArgs& a) {
  if (!std::isfinite(a.retime.within) || a.retime.within < 0)
    throw Error(fmt::format("--within: {} is not a fraction >= 0", a.retime.within));
  auto count = [](const char* option, int value, int least) {
    if (value < least) throw Error(fmt::format("{}: {} is not at least {}", option, value, least));
  };
  count("--max-configs", a.retime.max_configs, 1);
  count("--rounds", a.retime.rounds, 1);
  count("--reps", a.reps, 1);
  count("--warmups", a.retime.turn.warmups, 0);
  if (!std::isfinite(a.retime.turn.timeout_ms) || a.retime.turn.timeout_ms <= 0)
    throw Error(fmt::format("--timeout-ms: {} is not a positive number of milliseconds",
                            a.retime.turn.timeout_ms));
  if (!std::filesystem::is_regular_file(a.store))  // retime never creates a store
    throw Error(fmt::format("--store: '{}' is not a store file", a.store));
}

int run_retime(RetimeArgs a) {
  a.retime.turn.min_reps = a.retime.turn.max_reps = a.reps;
  a.retime.turn.budget_ms = 0;  // exactly --reps timed runs a turn
  check_retime_args(a);
  const Family& family = find_family(a.family);
  if (!a.workload.empty())
    for (const Problem& p : load_workload(family, a.workload).problems)
      a.retime.problems.push_back(p.key());
  auto backend = open_backend(family, a.device);
  Store store(a.store);
  a.retime.on_start = [&](size_t problems) {  // after the checks: an error stays the only line
    fmt::print(stderr,
               "ktune retime: {} on {} ({}), store {}, {} problems: configs within {:g} of the "
               "best (at most {}) and the vendors, {} rounds at least of {} timed runs a turn\n",
               family.name(), backend->device().slug, backend->device().name, a.store, problems,
               a.retime.within, a.retime.max_configs, a.retime.rounds, a.reps);
  };
  Progress progress("retime");
  a.retime.on_problem = [&](size_t done, size_t total, const std::string& problem) {
    progress.update(done, total, problem);
  };
  const RetimeSummary s = retime_store(family, *backend, store, a.retime);
  progress.finish();
  fmt::print(
      "problems {}: re-timed {} ({} rows, {} not ok, the fastest config changed on {}), already "
      "re-timed {}, no verified config {}\n",
      s.problems, s.retimed, s.rows, s.not_ok, s.picks_changed, s.already_done, s.nothing_to_do);
  return 0;
}

void retime_options(CLI::App& app, RetimeArgs& a) {
  app.add_option("--family", a.family, "Kernel family")->capture_default_str();
  app.add_option("--device", a.device, "cpu or cuda:N: the device the store's rows are of")
      ->capture_default_str();
  app.add_option("--store", a.store, "SQLite tuning store of a finished sweep")->required();
  app.add_option("--workload", a.workload,
                 "Only this workload's problems (built-in name or CSV), in its order");
  app.add_option("--within", a.retime.within,
                 "Re-time the configs within this fraction of the best median")
      ->capture_default_str();
  app.add_option("--max-configs", a.retime.max_configs,
                 "Of those, at most this many (the vendors come on top)")
      ->capture_default_str();
  app.add_option("--rounds", a.retime.rounds,
                 "Interleaved rounds at least (rounded up to whole rotations of the candidates)")
      ->capture_default_str();
  app.add_option("--reps", a.reps, "Timed runs per turn (after its verification run)")
      ->capture_default_str();
  app.add_option("--warmups", a.retime.turn.warmups, "Untimed runs per turn after verification")
      ->capture_default_str();
  app.add_option("--timeout-ms", a.retime.turn.timeout_ms, "One run longer than this times out")
      ->capture_default_str();
}

const bool verb_retime_registered =
    add_verb("retime",
             "Time a sweep's close calls again in rotating interleaved rounds and store the "
             "pooled medians over the originals (kept)",
             retime_options, run_retime);

}  // namespace
}  // namespace ktune::cli
