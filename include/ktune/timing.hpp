#pragma once
// Adaptive repetition: warm up, then repeat until both the minimum count and the time budget
// are met (or the maximum count is hit), and summarize with the median.
#include <functional>

#include "ktune/measurement.hpp"

namespace ktune {

struct TimingPolicy {
  int warmups = 1;
  int min_reps = 3;
  int max_reps = 30;
  double budget_ms = 20;     // stop repeating once this much was timed (after min_reps)
  double timeout_ms = 2000;  // one run longer than this makes the outcome a timeout
};

// run_once performs one run and returns its duration in milliseconds.
TimingStats time_adaptive(const std::function<double()>& run_once, const TimingPolicy& policy);

TimingStats summarize(std::vector<double> samples_ms);

}  // namespace ktune
