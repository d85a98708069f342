#pragma once
// Adaptive repetition: warm up, then repeat until both the minimum count and the time budget
// are met (or the maximum count is hit), and summarize with the median.
#include <functional>
#include <string>
#include <vector>

#include "ktune/measurement.hpp"

namespace ktune {

struct TimingPolicy {
  int warmups = 1;
  int min_reps = 3;
  int max_reps = 30;
  double budget_ms = 20;     // stop repeating once this much was timed (after min_reps)
  double timeout_ms = 2000;  // one run longer than this makes the outcome a timeout
};

// The field of the policy that makes no sense ("max_reps: 0 is not at least 1"), or "" when
// every field is usable: counts positive (warmups may be 0), times finite and > 0 (the budget
// may be 0: min_reps timed runs only).
std::string timing_policy_problem(const TimingPolicy& policy);

// run_once performs one run and returns its duration in milliseconds. The outcome is ok with
// the stats, or timeout (no stats) as soon as one run, warm-up or timed, took longer than
// policy.timeout_ms: a timeout is a status with the duration in its message, never an exception
// or empty stats. Throws Error for a policy timing_policy_problem rejects.
Outcome time_adaptive(const std::function<double()>& run_once, const TimingPolicy& policy);

TimingStats summarize(std::vector<double> samples_ms);

// Several timings of one candidate (all ok: turns of a re-timing, rounds of a comparison) as one
// ok outcome: their samples pooled and summarized, the worst rel_error kept.
Outcome pool_outcomes(const std::vector<Outcome>& turns);

}  // namespace ktune
