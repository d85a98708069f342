#include "src/remember/remember_tune.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>

#include "ktune/timing_loop.hpp"

namespace ktune::remember {

std::vector<RememberedTiming> time_candidates(const Library& lib, const int* candidates, int n,
                                              const std::function<double(int)>& time_run,
                                              double budget_ms) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  std::vector<RememberedTiming> out;
  for (int c = 0; c < n; ++c) {
    const double left = budget_ms - elapsed_ms();
    if (left <= 0) break;
    TimingPolicy policy;  // the sweep's defaults, the time budget cut to this candidate's share
    policy.budget_ms = std::min(policy.budget_ms, left / (n - c));
    const int config = candidates[c];
    AdaptiveRuns runs;
    try {
      runs = run_adaptive(
          [&] {
            if (elapsed_ms() >= budget_ms)  // the budget is spent: stop without running
              return std::numeric_limits<double>::infinity();
            return time_run(config);
          },
          policy);
    } catch (const Abort&) {
      throw;  // the runs cannot go on: the first call ends here
    } catch (const std::exception&) {
      continue;  // this config refused the problem: the others still compete
    }
    if (runs.samples_ms.empty()) continue;
    const TimingStats stats = summarize_samples(std::move(runs.samples_ms));
    RememberedTiming t;
    t.config = lib.configs[config];
    t.median_ms = stats.median_ms;
    t.min_ms = stats.min_ms;
    t.max_ms = stats.max_ms;
    t.mad_ms = stats.mad_ms;
    t.reps = stats.reps;
    out.push_back(std::move(t));
  }
  return out;
}

const RememberedTiming& winner_of(const std::vector<RememberedTiming>& timings) {
  return *std::min_element(timings.begin(), timings.end(), [](const auto& a, const auto& b) {
    if (a.median_ms != b.median_ms) return a.median_ms < b.median_ms;
    return a.config < b.config;
  });
}

}  // namespace ktune::remember
