#include "ktune/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ktune/error.hpp"
#include "ktune/timing_loop.hpp"

namespace ktune {

TimingStats summarize(std::vector<double> samples_ms) {
  return summarize_samples(std::move(samples_ms));
}

Outcome pool_outcomes(const std::vector<Outcome>& turns) {
  Outcome out;
  out.status = Status::ok;
  std::vector<double> samples;
  for (const Outcome& o : turns) {
    samples.insert(samples.end(), o.timing.samples_ms.begin(), o.timing.samples_ms.end());
    out.rel_error = std::max(out.rel_error, o.rel_error);
  }
  out.timing = summarize_samples(std::move(samples));
  return out;
}

std::string timing_policy_problem(const TimingPolicy& policy) {
  if (policy.warmups < 0) return fmt::format("warmups: {} is negative", policy.warmups);
  if (policy.min_reps < 1) return fmt::format("min_reps: {} is not at least 1", policy.min_reps);
  if (policy.max_reps < 1) return fmt::format("max_reps: {} is not at least 1", policy.max_reps);
  if (policy.max_reps < policy.min_reps)
    return fmt::format("max_reps: {} is below min_reps {}", policy.max_reps, policy.min_reps);
  if (!std::isfinite(policy.budget_ms) || policy.budget_ms < 0)  // 0: min_reps runs only
    return fmt::format("budget_ms: {} is not a number of milliseconds >= 0", policy.budget_ms);
  if (!std::isfinite(policy.timeout_ms) || policy.timeout_ms <= 0)
    return fmt::format("timeout_ms: {} is not a positive number of milliseconds",
                       policy.timeout_ms);
  return "";
}

Outcome time_adaptive(const std::function<double()>& run_once, const TimingPolicy& policy) {
  if (const std::string problem = timing_policy_problem(policy); !problem.empty())
    throw Error("timing policy: " + problem);
  Outcome out;
  AdaptiveRuns runs = run_adaptive(run_once, policy);
  if (runs.timed_out) {
    out.status = Status::timeout;
    out.message =
        fmt::format("one run took {:.1f} ms > timeout {:.1f} ms", runs.slow_ms, policy.timeout_ms);
    return out;
  }
  out.status = Status::ok;
  out.timing = summarize(std::move(runs.samples_ms));
  return out;
}

}  // namespace ktune
