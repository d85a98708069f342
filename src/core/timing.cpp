#include "ktune/timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ktune/error.hpp"

namespace ktune {

namespace {
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats s;
  if (samples_ms.empty()) return s;
  s.reps = static_cast<int>(samples_ms.size());
  s.median_ms = median_of(samples_ms);
  auto [lo, hi] = std::minmax_element(samples_ms.begin(), samples_ms.end());
  s.min_ms = *lo;
  s.max_ms = *hi;
  std::vector<double> dev(samples_ms.size());
  for (size_t i = 0; i < samples_ms.size(); ++i) dev[i] = std::fabs(samples_ms[i] - s.median_ms);
  s.mad_ms = median_of(std::move(dev));
  s.samples_ms = std::move(samples_ms);
  return s;
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
  auto too_slow = [&](double ms) {
    if (!(ms > policy.timeout_ms)) return false;
    out.status = Status::timeout;
    out.message = fmt::format("one run took {:.1f} ms > timeout {:.1f} ms", ms, policy.timeout_ms);
    return true;
  };
  for (int i = 0; i < policy.warmups; ++i) {
    if (too_slow(run_once())) return out;
  }
  std::vector<double> samples;
  double total = 0;
  while (static_cast<int>(samples.size()) < policy.max_reps) {
    const double ms = run_once();
    if (too_slow(ms)) return out;
    samples.push_back(ms);
    total += ms;
    if (static_cast<int>(samples.size()) >= policy.min_reps && total >= policy.budget_ms) break;
  }
  out.status = Status::ok;
  out.timing = summarize(std::move(samples));
  return out;
}

}  // namespace ktune
