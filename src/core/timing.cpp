#include "ktune/timing.hpp"

#include <algorithm>
#include <cmath>

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

TimingStats time_adaptive(const std::function<double()>& run_once, const TimingPolicy& policy) {
  for (int i = 0; i < policy.warmups; ++i) {
    if (run_once() > policy.timeout_ms) return {};  // empty stats: the caller reports a timeout
  }
  std::vector<double> samples;
  double total = 0;
  while (static_cast<int>(samples.size()) < policy.max_reps) {
    double ms = run_once();
    samples.push_back(ms);
    total += ms;
    if (ms > policy.timeout_ms) return {};
    if (static_cast<int>(samples.size()) >= policy.min_reps && total >= policy.budget_ms) break;
  }
  return summarize(std::move(samples));
}

}  // namespace ktune
