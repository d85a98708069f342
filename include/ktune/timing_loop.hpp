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

// The rounds of run_interleaved that give every one of `candidates` at least `rounds` turns and
// end on a whole rotation, so that each candidate goes first equally often (ktune retime and the
// host benches' interleaved timing).
inline int whole_rotation_rounds(int rounds, int candidates) {
  if (candidates <= 0) return 0;
  return (std::max(rounds, 1) + candidates - 1) / candidates * candidates;
}

// Interleaved rounds over `candidates` alternatives (the timing a choice among them rests on):
// each round runs every candidate once, in an order rotated by one every round, so that a drift
// of the machine while they are timed (GPU clocks ramping up, load coming and going) reaches all
// alike instead of whichever ran first. policy.warmups untimed rounds, then timed rounds until
// min_reps rounds and budget_ms of timed runs in all, or max_reps rounds (timeout_ms unused).
// run_once(i) runs candidate i once and returns its milliseconds. Returns each one's samples.
template <typename RunOnce>
std::vector<std::vector<double>> run_interleaved(int candidates, RunOnce&& run_once,
                                                 const TimingPolicy& policy) {
  std::vector<std::vector<double>> samples(static_cast<size_t>(std::max(candidates, 0)));
  double total = 0;
  for (int round = 0; candidates > 0 && round < policy.warmups + policy.max_reps; ++round) {
    for (int j = 0; j < candidates; ++j) {
      const int c = (round + j) % candidates;
      const double ms = run_once(c);
      if (round < policy.warmups) continue;
      samples[static_cast<size_t>(c)].push_back(ms);
      total += ms;
    }
    const int timed = round + 1 - policy.warmups;
    if (timed >= policy.min_reps && total >= policy.budget_ms) break;
  }
  return samples;
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

// The candidate with the smallest median (by_minimum: smallest minimum) of its samples; ties go
// to the lower index; -1 for none. The minimum suits short GPU runs, where noise only adds time.
inline int fastest_candidate(const std::vector<std::vector<double>>& samples, bool by_minimum) {
  int best = -1;
  double best_ms = 0;
  for (size_t c = 0; c < samples.size(); ++c) {
    if (samples[c].empty()) continue;
    const double ms = by_minimum ? *std::min_element(samples[c].begin(), samples[c].end())
                                 : median_of_samples(samples[c]);
    if (best < 0 || ms < best_ms) best = static_cast<int>(c), best_ms = ms;
  }
  return best;
}

}  // namespace ktune
