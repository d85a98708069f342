#pragma once
// The repetition rule of the measurement protocol (time_adaptive, ktune/timing.hpp), header-only
// so that deployed libraries, which link no ktune library, time candidates exactly as the sweep
// does: warm up, then repeat until both the minimum count and the time budget are met (or the
// maximum count is hit); any run longer than the timeout stops it. C++17.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "ktune/timing.hpp"

namespace ktune {

struct AdaptiveRuns {
  std::vector<double> samples_ms;  // the timed runs (empty after a timeout in the warm-up)
  bool timed_out = false;          // a run took longer than policy.timeout_ms
  double slow_ms = 0;              // that run's duration
};

// run_once() performs one run and returns its duration in milliseconds. The policy must be
// usable (timing_policy_problem).
template <typename RunOnce>
AdaptiveRuns run_adaptive(RunOnce&& run_once, const TimingPolicy& policy) {
  AdaptiveRuns out;
  auto too_slow = [&](double ms) {
    if (!(ms > policy.timeout_ms)) return false;
    out.timed_out = true;
    out.slow_ms = ms;
    return true;
  };
  for (int i = 0; i < policy.warmups; ++i) {
    if (too_slow(run_once())) return out;
  }
  double total = 0;
  while (static_cast<int>(out.samples_ms.size()) < policy.max_reps) {
    const double ms = run_once();
    if (too_slow(ms)) return out;
    out.samples_ms.push_back(ms);
    total += ms;
    if (static_cast<int>(out.samples_ms.size()) >= policy.min_reps && total >= policy.budget_ms)
      break;
  }
  return out;
}

// The median of the samples (0 for none): the time a measurement reports.
inline double median_of_samples(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median, extremes and median absolute deviation of the samples (summarize, ktune/timing.hpp).
inline TimingStats summarize_samples(std::vector<double> samples_ms) {
  TimingStats s;
  if (samples_ms.empty()) return s;
  s.reps = static_cast<int>(samples_ms.size());
  s.median_ms = median_of_samples(samples_ms);
  const auto [lo, hi] = std::minmax_element(samples_ms.begin(), samples_ms.end());
  s.min_ms = *lo;
  s.max_ms = *hi;
  std::vector<double> dev(samples_ms.size());
  for (size_t i = 0; i < samples_ms.size(); ++i)
    dev[i] =
        samples_ms[i] > s.median_ms ? samples_ms[i] - s.median_ms : s.median_ms - samples_ms[i];
  s.mad_ms = median_of_samples(std::move(dev));
  s.samples_ms = std::move(samples_ms);
  return s;
}

}  // namespace ktune
